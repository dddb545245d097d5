# embed_sql.cmake — turn every NNN_*.sql file of a directory into one C file at build time, so
# `keynode migrate` works from any install without the source tree.
# cmake -DDIR=schemas/sql -DOUT=file.c -P embed_sql.cmake
# defines: const kn_store_migration_src kn_store_migrations_embedded[] (name, NUL-terminated text,
# in name order) and const unsigned long kn_store_migrations_embedded_n.
file(GLOB files "${DIR}/[0-9][0-9][0-9]_*.sql")
list(SORT files)
set(body "")
set(table "")
set(i 0)
foreach(f ${files})
  get_filename_component(name "${f}" NAME)
  file(READ "${f}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" hex "${hex}")
  string(APPEND body "static const unsigned char sql_${i}[] = {\n${hex}0x00};\n")
  string(APPEND table "  {\"${name}\", (const char *)sql_${i}},\n")
  math(EXPR i "${i} + 1")
endforeach()
if(i EQUAL 0)
  message(FATAL_ERROR "embed_sql.cmake: no NNN_*.sql files in ${DIR}")
endif()
file(WRITE "${OUT}.tmp" "/* generated from ${DIR} by cmake/embed_sql.cmake: do not edit */\n"
  "#include \"store_internal.h\"\n${body}"
  "const kn_store_migration_src kn_store_migrations_embedded[] = {\n${table}};\n"
  "const unsigned long kn_store_migrations_embedded_n = ${i}ul;\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
