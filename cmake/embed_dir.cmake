# embed_dir.cmake — embed every file of a folder into a C table at build time (the dashboard).
# cmake -DDIR=folder -DOUT=file.c -P embed_dir.cmake
# defines: const kn_dashboard_file kn_dashboard_files[] = {{path, data, len}, …} and
#          const unsigned long kn_dashboard_n_files (see services/http/server.h).
# Hidden files are skipped; a missing folder gives an empty table (the server then serves a
# placeholder index).
set(decls "")
set(rows "")
set(i 0)
if(EXISTS "${DIR}")
  file(GLOB_RECURSE files RELATIVE "${DIR}" "${DIR}/*")
  list(SORT files)
  foreach(f ${files})
    if(f MATCHES "(^|/)\\.")
      continue()
    endif()
    file(READ "${DIR}/${f}" hex HEX)
    string(LENGTH "${hex}" n)
    math(EXPR len "${n} / 2")
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
    string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
    string(APPEND decls "static const unsigned char f${i}[] = {\n${body}0x00};\n")
    string(APPEND rows "  {\"${f}\", f${i}, ${len}ul},\n")
    math(EXPR i "${i} + 1")
  endforeach()
endif()
if(i EQUAL 0)
  set(rows "  {\"\", (const unsigned char *)\"\", 0ul},\n")
endif()
file(WRITE "${OUT}.tmp" "/* generated from ${DIR} by cmake/embed_dir.cmake: do not edit */\n"
  "#include \"server.h\"\n${decls}"
  "const kn_dashboard_file kn_dashboard_files[] = {\n${rows}};\n"
  "const unsigned long kn_dashboard_n_files = ${i}ul;\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
