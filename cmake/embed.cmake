# embed.cmake — turn a text file into a C array at build time.
# cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake
# cmake -DPARTS=list.parts -DOUT=file.c -DNAME=symbol -P embed.cmake
#   PARTS: a file naming, one a line, files beside it that are concatenated in that order (one text
#   split into parts so that no file grows past the size limit; blank lines and # comments ignored).
# defines: const char NAME[] (NUL-terminated) and const unsigned long NAME_len.
if(DEFINED PARTS)
  get_filename_component(dir "${PARTS}" DIRECTORY)
  file(STRINGS "${PARTS}" names)
  set(hex "")
  set(IN "")
  foreach(name IN LISTS names)
    string(STRIP "${name}" name)
    if(name STREQUAL "" OR name MATCHES "^#")
      continue()
    endif()
    file(READ "${dir}/${name}" part HEX)
    string(APPEND hex "${part}")
    string(APPEND IN " ${name}")
  endforeach()
  set(IN "${PARTS}:${IN}")
else()
  file(READ "${IN}" hex HEX)
endif()
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* generated from ${IN} by cmake/embed.cmake: do not edit */\n"
  "const char ${NAME}[] = {\n${body}0x00};\nconst unsigned long ${NAME}_len = ${len}ul;\n")
