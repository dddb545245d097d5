# embed.cmake — turn a text file into a C array at build time.
# cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake
# defines: const char NAME[] (NUL-terminated) and const unsigned long NAME_len.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* generated from ${IN} by cmake/embed.cmake: do not edit */\n"
  "const char ${NAME}[] = {\n${body}0x00};\nconst unsigned long ${NAME}_len = ${len}ul;\n")
