# Turn files into one C array, concatenated with a newline after each:
#   cmake -DIN=a.js|b.js -DOUT=file.c -DNAME=symbol -P embed.cmake
string(REPLACE "|" ";" inputs "${IN}")
set(hex "")
foreach(f ${inputs})
  file(READ "${f}" h HEX)
  string(APPEND hex "${h}0a")
endforeach()
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* generated from ${IN} by cmake/embed.cmake */\n#include <stddef.h>\nconst char ${NAME}[] = {\n${body}0x00};\nconst size_t ${NAME}_len = ${bytes};\n")
