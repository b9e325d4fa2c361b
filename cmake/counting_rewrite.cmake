# The counting builds' one source rewrite (gpu-counted and emu), run by CMake on every lab
# file before its compiler sees it:
#   cmake -DINPUT=lab.cu -DOUTPUT=lab.counted.cu -DBACKEND=gpu|emu [-DSOURCE_COPY=copy.cu] \
#         -P counting_rewrite.cmake
# SOURCE_COPY gets the lab file exactly as this run read it: what the module compiled from OUTPUT
# was compiled from, which the verdicts of that module carry (tools/capture-build-log).
#
# Shared memory is counted through the types of grader/include/reduce_lab/shared.cuh, so
# each declaration of it becomes one of them, on the same line (design §11):
#   __shared__ T name[N]...;      ->  REDUCE_LAB_SHARED ::reduce_lab::Shared<T [N]...> name;
#   extern __shared__ T name[];   ->  a counted pointer to the block's dynamic shared memory
#   T* p = name...; (a pointer made from a shared array on its own line)
#                                 ->  ::reduce_lab::SharedPtr<T> p = name...;
#   auto p = name;                ->  auto p = name.decay();
# Any other `__shared__` (two names in one declaration, an initializer, a declaration split
# over lines) becomes a static_assert naming docs/grading.md: the kit never leaves shared
# memory uncounted without saying so. A mention after // on its line is left as written. A #line directive keeps compiler messages and
# __FILE__ pointing at the lab's own file and lines. The plain gpu build compiles the lab
# file as written.
cmake_minimum_required(VERSION 3.25)
file(READ "${INPUT}" text)
set(as_read "${text}")
if(NOT BACKEND MATCHES "^(gpu|emu)$")
  message(FATAL_ERROR "counting_rewrite.cmake: BACKEND must be gpu or emu")
endif()

set(identifier "[A-Za-z_][A-Za-z0-9_]*")
set(unsupported
    "static_assert(sizeof(char) == 0, \"the kit counts shared memory declared one array per line, as `__shared__ T name[N];` or `extern __shared__ T name[];` (docs/grading.md, Shared memory)\");")
set(names "")

# Replaces the first occurrence of `found` in `text` with `replacement` (in the caller's text).
macro(replace_first found replacement)
  string(FIND "${text}" "${found}" position)
  string(LENGTH "${found}" found_length)
  string(SUBSTRING "${text}" 0 ${position} before)
  math(EXPR after_start "${position} + ${found_length}")
  string(SUBSTRING "${text}" ${after_start} -1 after)
  set(text "${before}${replacement}${after}")
endmacro()

# 0. Mentions in // comments are left alone (hidden while rewriting, restored at the end).
set(hidden "@REDUCE_LAB_SHARED_IN_COMMENT@")
while(text MATCHES "//[^\n]*__shared__")
  string(REPLACE "__shared__" "${hidden}" quiet "${CMAKE_MATCH_0}")
  replace_first("${CMAKE_MATCH_0}" "${quiet}")
endwhile()

# 1. Dynamic shared memory: `extern __shared__ T name[];`.
set(declaration "extern[ \t]+__shared__[^;\n]*;")
while(text MATCHES "${declaration}")
  set(found "${CMAKE_MATCH_0}")
  # __align__(...) (one level of nested parentheses, as in __align__(sizeof(T))) is a
  # storage attribute; a pointer to the memory needs only the element type.
  string(REGEX REPLACE "__align__[ \t]*\\(([^()]|\\([^()]*\\))*\\)" "" plain "${found}")
  if(plain MATCHES "^extern[ \t]+__shared__[ \t]+.*[ \t*&](${identifier})[ \t]*\\[[ \t]*\\][ \t]*;$")
    string(REGEX MATCH "(${identifier})[ \t]*\\[[ \t]*\\][ \t]*;$" tail "${plain}")
    set(name "${CMAKE_MATCH_1}")
    string(LENGTH "${plain}" plain_length)
    string(LENGTH "${tail}" tail_length)
    math(EXPR type_length "${plain_length} - ${tail_length}")
    string(SUBSTRING "${plain}" 0 ${type_length} type)
    string(REGEX REPLACE "^extern[ \t]+__shared__[ \t]+" "" type "${type}")
    string(STRIP "${type}" type)
    if(BACKEND STREQUAL "emu")
      set(memory "::reduce_emu::detail::dynamic_shared_memory()")
      set(storage "")
    else()
      # Every extern __shared__ array starts at the block's dynamic shared memory, whatever
      # its name: this one, under a name of the kit's, is where the counted pointer points.
      set(memory "reduce_lab_dynamic_${name}")
      set(storage "extern REDUCE_LAB_SHARED __align__(16) unsigned char reduce_lab_dynamic_${name}[]; ")
    endif()
    set(replacement "${storage}const ::reduce_lab::SharedPtr<${type}> ${name} = ::reduce_lab::detail::dynamic_shared<${type}>(${memory});")
    list(APPEND names "${name}")
  else()
    # Not the unsized-array form (the only one CUDA gives dynamic memory to).
    set(replacement "static_assert(sizeof(char) == 0, \"the kit supports dynamic shared memory only as an unsized array, extern __shared__ T name[] (docs/grading.md, Shared memory)\");")
  endif()
  replace_first("${found}" "${replacement}")
endwhile()

# 2. Static shared memory: `[static] [volatile] __shared__ [__align__(n)] T name[N]...;`.
set(declaration "(volatile[ \t]+)?__shared__[^;\n]*;")
while(text MATCHES "${declaration}")
  set(found "${CMAKE_MATCH_0}")
  set(qualifier "")
  if(found MATCHES "^volatile")
    set(qualifier "volatile ")
  endif()
  string(REGEX REPLACE "^(volatile[ \t]+)?__shared__[ \t]*" "" rest "${found}")
  set(align "")
  if(rest MATCHES "(__align__|alignas)[ \t]*\\(([^()]|\\([^()]*\\))*\\)")
    set(align "${CMAKE_MATCH_0} ")
    string(REPLACE "${CMAKE_MATCH_0}" "" rest "${rest}")
  endif()
  set(replacement "${unsupported}")
  # One declarator: a type, a name, and any number of [extent]s; no initializer, no comma.
  if(rest MATCHES "^([^,=(){}]*[ \t*&])(${identifier})[ \t]*((\\[[^]]+\\][ \t]*)*);$")
    set(type "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    set(extents "${CMAKE_MATCH_3}")
    string(STRIP "${type}" type)
    string(STRIP "${extents}" extents)
    if(NOT type STREQUAL "" AND NOT type MATCHES "\\*$")
      set(replacement "REDUCE_LAB_SHARED ${align}::reduce_lab::Shared<${qualifier}${type} ${extents}> ${name};")
      list(APPEND names "${name}")
    endif()
  endif()
  replace_first("${found}" "${replacement}")
endwhile()

# 3. Pointers made from a shared array, each declared on its own line.
list(REMOVE_DUPLICATES names)
foreach(name IN LISTS names)
  set(pointer "\n([ \t]*)((const|volatile)[ \t]+)*${identifier}([ \t]+(const|volatile|${identifier}))*[ \t]*\\*[ \t]*(const[ \t]+)?(${identifier})[ \t]*=[ \t]*\\(?[ \t]*&?[ \t]*${name}[^A-Za-z0-9_]")
  while(text MATCHES "${pointer}")
    set(found "${CMAKE_MATCH_0}")
    set(indent "${CMAKE_MATCH_1}")
    set(variable "${CMAKE_MATCH_7}")
    string(REGEX MATCH "^\n[^*]*" head "${found}")
    string(REGEX REPLACE "^\n[ \t]*" "" type "${head}")
    string(STRIP "${type}" type)
    string(REGEX REPLACE "^\n[^*]*\\*[ \t]*(const[ \t]+)?${variable}" "" init "${found}")
    replace_first("${found}" "\n${indent}::reduce_lab::SharedPtr<${type}> ${variable}${init}")
  endwhile()
  set(automatic "auto[ \t]+(${identifier})[ \t]*=[ \t]*${name}[ \t]*;")
  while(text MATCHES "${automatic}")
    replace_first("${CMAKE_MATCH_0}" "auto ${CMAKE_MATCH_1} = ${name}.decay();")
  endwhile()
endforeach()

# 4. Raw pointer parameters of the lab's __device__ functions take counted shared pointers
#    too (counting_rewrite_parameters.cmake says how and which forms).
include("${CMAKE_CURRENT_LIST_DIR}/counting_rewrite_parameters.cmake")
reduce_lab_rewrite_pointer_parameters(text)

# 5. Whatever still says __shared__ is a form the kit does not see: named, not ignored.
string(REPLACE "__shared__" "${unsupported}" text "${text}")
string(REPLACE "${hidden}" "__shared__" text "${text}")

set(content "#line 1 \"${INPUT}\"\n${text}")
if(SOURCE_COPY)
  file(WRITE "${SOURCE_COPY}" "${as_read}")
endif()
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
  if(previous STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${content}")
