# The emulator build's one source rewrite, run by CMake on every lab file before the host
# compiler sees it:  cmake -DINPUT=lab.cu -DOUTPUT=lab.emu.cpp -P emu_rewrite.cmake
#
# `extern __shared__ T name[];` declares the block's dynamic shared memory (sized by the
# launch). A host compiler has no such storage class, so the declaration becomes a pointer
# to the running block's dynamic shared memory: `T* const name = ...;`, on the same line.
# Everything else is left as written, and a #line directive keeps compiler messages and
# __FILE__ pointing at the lab's own file and lines.
cmake_minimum_required(VERSION 3.25)
file(READ "${INPUT}" text)

# One declaration on one line; an occurrence after // on its line is a comment and is left
# alone (hidden while searching, restored at the end).
set(declaration "extern[ \t]+__shared__[^;\n]*;")
set(hidden "@REDUCE_EMU_EXTERN_SHARED@")
while(text MATCHES "${declaration}")
  set(found "${CMAKE_MATCH_0}")
  string(FIND "${text}" "${found}" position)
  string(LENGTH "${found}" found_length)
  string(SUBSTRING "${text}" 0 ${position} before)
  math(EXPR after_start "${position} + ${found_length}")
  string(SUBSTRING "${text}" ${after_start} -1 after)
  string(FIND "${before}" "\n" line_start REVERSE)
  math(EXPR line_start "${line_start} + 1")
  string(SUBSTRING "${before}" ${line_start} -1 line_before)
  if(line_before MATCHES "//")
    string(REPLACE "extern" "${hidden}" replacement "${found}")
  else()
    # __align__(...) (one level of nested parentheses, as in __align__(sizeof(T))) is a
    # storage attribute; a pointer to the memory needs only the element type.
    string(REGEX REPLACE "__align__[ \t]*\\(([^()]|\\([^()]*\\))*\\)" "" plain "${found}")
    if(plain MATCHES "^extern[ \t]+__shared__[ \t]+.*[ \t*&]([A-Za-z_][A-Za-z0-9_]*)[ \t]*\\[[ \t]*\\][ \t]*;$")
      # The name is the last identifier, the type everything between __shared__ and it.
      string(REGEX MATCH "([A-Za-z_][A-Za-z0-9_]*)[ \t]*\\[[ \t]*\\][ \t]*;$" tail "${plain}")
      set(name "${CMAKE_MATCH_1}")
      string(LENGTH "${plain}" plain_length)
      string(LENGTH "${tail}" tail_length)
      math(EXPR type_length "${plain_length} - ${tail_length}")
      string(SUBSTRING "${plain}" 0 ${type_length} type)
      string(REGEX REPLACE "^extern[ \t]+__shared__[ \t]+" "" type "${type}")
      string(STRIP "${type}" type)
      set(replacement "${type}* const ${name} = static_cast<${type}*>(::reduce_emu::detail::dynamic_shared_memory());")
    else()
      # Not the unsized-array form (the only one CUDA gives dynamic memory to): say so
      # where the lab wrote it.
      set(replacement "static_assert(sizeof(char) == 0, \"the emulator supports dynamic shared memory only as an unsized array, T name[] (docs/emulator.md)\");")
    endif()
  endif()
  set(text "${before}${replacement}${after}")
endwhile()
string(REPLACE "${hidden}" "extern" text "${text}")

set(content "#line 1 \"${INPUT}\"\n${text}")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
  if(previous STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${content}")
