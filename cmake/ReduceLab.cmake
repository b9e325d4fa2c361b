# Build helpers: which backend runs the labs, one module per lab and flavour, one CTest
# test per graded aspect. Everything that judges a lab lives in C++ (grader/).

# Sets <out> to TRUE when nvidia-smi lists a GPU on this machine.
function(reduce_lab_gpu_present out)
  set(present FALSE)
  find_program(REDUCE_LAB_NVIDIA_SMI nvidia-smi)
  if(REDUCE_LAB_NVIDIA_SMI)
    execute_process(COMMAND "${REDUCE_LAB_NVIDIA_SMI}" -L RESULT_VARIABLE smi_status OUTPUT_QUIET ERROR_QUIET)
    if(smi_status EQUAL 0)
      set(present TRUE)
    endif()
  endif()
  set(${out} ${present} PARENT_SCOPE)
endfunction()

# Chooses gpu or emu for REDUCE_LAB_BACKEND=auto: the GPU when nvcc and an NVIDIA GPU are
# both here, else the emulator when Boost.Context is, else gpu (builds, tests skip).
function(reduce_lab_resolve_backend)
  include(CheckLanguage)
  set(backend "${REDUCE_LAB_BACKEND}")
  if(backend STREQUAL "auto")
    check_language(CUDA)
    reduce_lab_gpu_present(have_gpu)
    find_package(Boost 1.74 QUIET COMPONENTS context)
    if(CMAKE_CUDA_COMPILER AND have_gpu)
      set(backend gpu)
    elseif(Boost_FOUND)
      set(backend emu)
    elseif(CMAKE_CUDA_COMPILER)
      set(backend gpu)
    else()
      message(FATAL_ERROR "reduction-labs needs nvcc (CUDA toolkit) or Boost.Context (the CPU emulator); "
                          "./lab grade installs them on Debian and Ubuntu.")
    endif()
  endif()
  if(NOT backend MATCHES "^(gpu|emu)$")
    message(FATAL_ERROR "REDUCE_LAB_BACKEND must be gpu, emu or auto, not '${backend}'")
  endif()
  set(REDUCE_LAB_ACTIVE_BACKEND "${backend}" PARENT_SCOPE)
  message(STATUS "reduction-labs: backend ${backend}, grading ${REDUCE_LAB_SOURCES}/")
endfunction()

# The emulator's host compiler ignores __device__ and __global__, so on its own it accepts a
# kernel that calls a host function, which nvcc rejects. The emulator build therefore checks
# CUDA's execution spaces too (docs/emulator.md): with nvcc's front end where nvcc is here, else
# with the kit's own checker (grader/spaces). REDUCE_LAB_EMU_SPACES_CHECK=kit forces the latter,
# so that a machine with nvcc can test it. Sets REDUCE_LAB_SPACES_CHECK (nvcc or kit) and
# REDUCE_LAB_NVCC.
function(reduce_lab_resolve_spaces_check)
  set(REDUCE_LAB_EMU_SPACES_CHECK "auto" CACHE STRING
      "How the emulator build checks CUDA's host/device rules: nvcc, kit (the kit's checker) or auto (nvcc where found)")
  set(REDUCE_LAB_EMU_NVCC_ARCH 90 CACHE STRING "The compute capability nvcc's front end checks the emulator's labs for")
  set(check "${REDUCE_LAB_EMU_SPACES_CHECK}")
  if(NOT check MATCHES "^(auto|nvcc|kit)$")
    message(FATAL_ERROR "REDUCE_LAB_EMU_SPACES_CHECK must be nvcc, kit or auto, not '${check}'")
  endif()
  set(nvcc "")
  if(NOT check STREQUAL "kit")
    find_program(REDUCE_LAB_NVCC nvcc HINTS ENV CUDA_PATH PATH_SUFFIXES bin)
    if(REDUCE_LAB_NVCC)
      set(nvcc "${REDUCE_LAB_NVCC}")
      set(check nvcc)
    elseif(check STREQUAL "nvcc")
      message(FATAL_ERROR "REDUCE_LAB_EMU_SPACES_CHECK=nvcc, but nvcc was not found")
    else()
      set(check kit)
    endif()
  endif()
  if(check STREQUAL "nvcc")
    message(STATUS "reduction-labs: the emulator build checks CUDA's host/device rules with nvcc (${nvcc})")
  else()
    message(STATUS "reduction-labs: the emulator build checks CUDA's host/device rules with the kit's checker")
  endif()
  set(REDUCE_LAB_SPACES_CHECK "${check}" PARENT_SCOPE)
  set(REDUCE_LAB_NVCC "${nvcc}" PARENT_SCOPE)
  set(REDUCE_LAB_CHECK_SPACES "${PROJECT_BINARY_DIR}/reduce-lab-check-spaces" PARENT_SCOPE)
endfunction()

# reduce_lab_spaces_check_command(<out> <source>): the command that checks one lab file's
# execution spaces. nvcc's is its front end exactly as the plain GPU build runs it (same
# includes, standard, flags and macros), stopped before any code is generated: --cuda runs
# cudafe++ (host code calling __device__ functions) and cicc's front end (device code calling
# host functions), and an LTO target leaves out the optimiser and ptxas (about 1 s of CPU per
# lab instead of 2-3 s for a whole device compile). tools/nvcc-spaces-check runs the two
# halves side by side, with what nvcc --cuda would print and return: on two cores lab 4's
# check alone took 0.40-0.41 s instead of 0.74-0.75 s, and its compile beside g++ 0.61-0.64 s
# instead of 0.85 s.
function(reduce_lab_spaces_check_command out source)
  if(REDUCE_LAB_SPACES_CHECK STREQUAL "nvcc")
    string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
    separate_arguments(build_flags UNIX_COMMAND "${CMAKE_CXX_FLAGS_${config}}")
    set(arch "${REDUCE_LAB_EMU_NVCC_ARCH}")
    set(command "${PROJECT_SOURCE_DIR}/tools/nvcc-spaces-check" "${REDUCE_LAB_NVCC}" --cuda -std=c++17 ${build_flags} "-I${PROJECT_SOURCE_DIR}/grader/include"
                "-gencode=arch=compute_${arch},code=lto_${arch}" --diag-suppress=177,550 -x cu -o /dev/null "${source}")
  else()
    set(command "${REDUCE_LAB_CHECK_SPACES}" "${source}")
  endif()
  set(${out} ${command} PARENT_SCOPE)
endfunction()

# reduce_lab_kit_digest(<out> <kit folder>): one digest of the kit files a lab module's build and
# its tests read (the lab headers, the emulator's, the CMake code, the manifest, the build-log
# capture). Two folders with the same digest build and register a lab the same way, so a copy
# of the kit (kit.every_command_ends's scratch copy) may reuse the other's harness.
# With LISTING <var>, <var> gets what the digest is of: a list of "file hash" entries.
function(reduce_lab_kit_digest out root)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "LISTING" "")
  file(GLOB_RECURSE files RELATIVE "${root}" "${root}/grader/include/*" "${root}/grader/emu/include/*"
       "${root}/cmake/*")
  list(APPEND files CMakeLists.txt grader/labs.json tools/capture-build-log tools/nvcc-spaces-check)
  list(SORT files)
  set(listing "")
  foreach(file IN LISTS files)
    file(SHA256 "${root}/${file}" hash)
    list(APPEND listing "${file} ${hash}")
  endforeach()
  list(JOIN listing "\n" all)
  string(SHA256 digest "${all}\n")
  set(${out} ${digest} PARENT_SCOPE)
  if(arg_LISTING)
    set(${arg_LISTING} "${listing}" PARENT_SCOPE)
  endif()
endfunction()

# reduce_lab_kit_difference(<out> <listing> <other listing> <other's name>): the files where two
# kits' digest listings differ, named for a message (at most eight).
function(reduce_lab_kit_difference out ours theirs other)
  set(only_ours ${ours})
  list(REMOVE_ITEM only_ours ${theirs})
  set(only_theirs ${theirs})
  list(REMOVE_ITEM only_theirs ${ours})
  set(their_files ${theirs})
  list(TRANSFORM their_files REPLACE " [0-9a-f]+$" "")
  set(our_files ${ours})
  list(TRANSFORM our_files REPLACE " [0-9a-f]+$" "")
  set(named "")
  foreach(entry IN LISTS only_ours)
    string(REGEX REPLACE " [0-9a-f]+$" "" file "${entry}")
    if(file IN_LIST their_files)
      list(APPEND named "${file} (its contents)")
    else()
      list(APPEND named "${file} (only in this kit)")
    endif()
  endforeach()
  foreach(entry IN LISTS only_theirs)
    string(REGEX REPLACE " [0-9a-f]+$" "" file "${entry}")
    if(NOT file IN_LIST our_files)
      list(APPEND named "${file} (only in ${other})")
    endif()
  endforeach()
  list(LENGTH named count)
  if(count GREATER 8)
    list(SUBLIST named 0 8 named)
    list(APPEND named "and ${count} in all")
  endif()
  list(JOIN named ", " text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Writes <build>/reduce-lab-harness.cmake, which lets another build folder reuse this one's
# grader, emulator, backend and thresholds (REDUCE_LAB_HARNESS).
function(reduce_lab_export_harness)
  set(file "${PROJECT_BINARY_DIR}/reduce-lab-harness.cmake")
  reduce_lab_kit_digest(digest "${PROJECT_SOURCE_DIR}" LISTING listing)
  # What the digest is of, so a kit whose digest differs can be told which files differ.
  list(JOIN listing "\n" listing_text)
  file(WRITE "${PROJECT_BINARY_DIR}/reduce-lab-harness-files.txt" "${listing_text}\n")
  set(content "# Written by the kit's build: what a build with -DREDUCE_LAB_HARNESS=<this folder> reuses.\n")
  string(APPEND content "set(REDUCE_LAB_HARNESS_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")\n")
  string(APPEND content "set(REDUCE_LAB_HARNESS_KIT_DIGEST \"${digest}\")\n")
  string(APPEND content "set(REDUCE_LAB_HARNESS_BACKEND \"${REDUCE_LAB_ACTIVE_BACKEND}\")\n")
  string(APPEND content "set(REDUCE_LAB_HARNESS_GRADER \"$<TARGET_FILE:grader>\")\n")
  string(APPEND content "set(REDUCE_LAB_HARNESS_BUILD_DIR \"${PROJECT_BINARY_DIR}\")\n")
  string(APPEND content "set(REDUCE_LAB_HARNESS_TOOLS \"$<TARGET_FILE:labtools>\")\n")
  string(APPEND content "set(REDUCE_LAB_HARNESS_COMPUTE_SANITIZER \"${REDUCE_LAB_COMPUTE_SANITIZER}\")\n")
  string(APPEND content "set(REDUCE_LAB_HARNESS_NCU \"${REDUCE_LAB_NCU}\")\n")
  foreach(lab IN LISTS REDUCE_LAB_LABS)
    string(APPEND content "set(REDUCE_LAB_HARNESS_MIN_SPEEDUP_LAB${lab} \"${REDUCE_LAB_MIN_SPEEDUP_LAB${lab}}\")\n")
    if(DEFINED REDUCE_LAB_MIN_BANDWIDTH_LAB${lab})
      string(APPEND content "set(REDUCE_LAB_HARNESS_MIN_BANDWIDTH_LAB${lab} \"${REDUCE_LAB_MIN_BANDWIDTH_LAB${lab}}\")\n")
    endif()
  endforeach()
  string(APPEND content "set(REDUCE_LAB_HARNESS_SPACES_CHECK \"${REDUCE_LAB_SPACES_CHECK}\")\n")
  string(APPEND content "set(REDUCE_LAB_HARNESS_NVCC \"${REDUCE_LAB_NVCC}\")\n")
  string(APPEND content "set(REDUCE_LAB_HARNESS_CHECK_SPACES \"${REDUCE_LAB_CHECK_SPACES}\")\n")
  string(APPEND content "set(REDUCE_LAB_HARNESS_NVCC_ARCH \"${REDUCE_LAB_EMU_NVCC_ARCH}\")\n")
  if(TARGET reduce_emu)
    export(TARGETS reduce_emu FILE "${PROJECT_BINARY_DIR}/reduce-lab-harness-emu.cmake")
    string(APPEND content "include(\"${PROJECT_BINARY_DIR}/reduce-lab-harness-emu.cmake\")\n")
  endif()
  file(GENERATE OUTPUT "${file}" CONTENT "${content}")
endfunction()

# For a build with REDUCE_LAB_HARNESS set: takes the harness's backend and thresholds, and
# its grader and emulator as imported targets, so this build compiles the lab modules only.
# The harness decides everything that judges a lab; this build contributes only lab files.
macro(reduce_lab_use_harness dir)
  if(NOT EXISTS "${dir}/reduce-lab-harness.cmake")
    message(FATAL_ERROR "REDUCE_LAB_HARNESS: ${dir} is not a built kit build folder (it has no "
                        "reduce-lab-harness.cmake). Configure and build the kit there first.")
  endif()
  if(REDUCE_LAB_SELFTEST)
    message(FATAL_ERROR "REDUCE_LAB_HARNESS grades lab files only; it cannot be combined with REDUCE_LAB_SELFTEST.")
  endif()
  include("${dir}/reduce-lab-harness.cmake")
  if(NOT REDUCE_LAB_HARNESS_SOURCE_DIR STREQUAL PROJECT_SOURCE_DIR)
    # A copy of the same kit elsewhere builds and registers its labs the same way.
    reduce_lab_kit_digest(digest "${PROJECT_SOURCE_DIR}" LISTING listing)
    if(NOT digest STREQUAL REDUCE_LAB_HARNESS_KIT_DIGEST)
      set(which "")
      if(EXISTS "${dir}/reduce-lab-harness-files.txt")
        file(STRINGS "${dir}/reduce-lab-harness-files.txt" theirs)
        reduce_lab_kit_difference(which "${listing}" "${theirs}" "${REDUCE_LAB_HARNESS_SOURCE_DIR}")
        string(CONCAT which " They differ in: ${which}. A copy made by ./lab handout from a git checkout "
                            "holds the files git tracks: a file not committed yet is left out of it.")
      endif()
      message(FATAL_ERROR "REDUCE_LAB_HARNESS: ${dir} was built from ${REDUCE_LAB_HARNESS_SOURCE_DIR}, "
                          "not from this kit (${PROJECT_SOURCE_DIR}), and the two kits' files differ.${which}")
    endif()
  endif()
  if(NOT REDUCE_LAB_BACKEND MATCHES "^(auto|${REDUCE_LAB_HARNESS_BACKEND})$")
    message(FATAL_ERROR "REDUCE_LAB_HARNESS: ${dir} grades on the ${REDUCE_LAB_HARNESS_BACKEND} backend, "
                        "not ${REDUCE_LAB_BACKEND}.")
  endif()
  set(REDUCE_LAB_ACTIVE_BACKEND "${REDUCE_LAB_HARNESS_BACKEND}")
  set(REDUCE_LAB_COMPUTE_SANITIZER "${REDUCE_LAB_HARNESS_COMPUTE_SANITIZER}")
  set(REDUCE_LAB_NCU "${REDUCE_LAB_HARNESS_NCU}")
  foreach(lab IN LISTS REDUCE_LAB_LABS)
    set(REDUCE_LAB_MIN_SPEEDUP_LAB${lab} "${REDUCE_LAB_HARNESS_MIN_SPEEDUP_LAB${lab}}")
    if(DEFINED REDUCE_LAB_HARNESS_MIN_BANDWIDTH_LAB${lab})
      set(REDUCE_LAB_MIN_BANDWIDTH_LAB${lab} "${REDUCE_LAB_HARNESS_MIN_BANDWIDTH_LAB${lab}}")
    endif()
  endforeach()
  # The harness's check of CUDA's rules, so every student is held to the same one.
  set(REDUCE_LAB_SPACES_CHECK "${REDUCE_LAB_HARNESS_SPACES_CHECK}")
  set(REDUCE_LAB_NVCC "${REDUCE_LAB_HARNESS_NVCC}")
  set(REDUCE_LAB_CHECK_SPACES "${REDUCE_LAB_HARNESS_CHECK_SPACES}")
  set(REDUCE_LAB_EMU_NVCC_ARCH "${REDUCE_LAB_HARNESS_NVCC_ARCH}")
  if(REDUCE_LAB_ACTIVE_BACKEND STREQUAL "emu")
    find_package(Threads REQUIRED)  # the imported emulator links it
  endif()
  add_executable(reduce_lab_harness_grader IMPORTED)
  set_target_properties(reduce_lab_harness_grader PROPERTIES IMPORTED_LOCATION "${REDUCE_LAB_HARNESS_GRADER}")
  set(REDUCE_LAB_GRADER_TARGET reduce_lab_harness_grader)
  # ./lab drives this folder as any other: its labgrader (a link to the harness's) is what the
  # target grader makes, and a build may take this folder as its harness in turn.
  add_custom_target(grader ALL COMMAND "${CMAKE_COMMAND}" -E create_symlink "${REDUCE_LAB_HARNESS_GRADER}"
                                       "${PROJECT_BINARY_DIR}/labgrader" VERBATIM)
  # labtools (./lab show, bench and calibrate) is the harness's too, built there when asked for.
  add_custom_target(labtools
    COMMAND "${CMAKE_COMMAND}" --build "${REDUCE_LAB_HARNESS_BUILD_DIR}" --target labtools
    COMMAND "${CMAKE_COMMAND}" -E create_symlink "${REDUCE_LAB_HARNESS_TOOLS}" "${PROJECT_BINARY_DIR}/labtools"
    VERBATIM)
  configure_file("${dir}/reduce-lab-harness.cmake" "${PROJECT_BINARY_DIR}/reduce-lab-harness.cmake" COPYONLY)
  message(STATUS "reduction-labs: backend ${REDUCE_LAB_ACTIVE_BACKEND} (the grader of ${dir}), "
                 "grading ${REDUCE_LAB_SOURCES}/")
endmacro()


# reduce_lab_add_module(<target> <source> <flavor> <output dir> <number> [TOLERATE_ERRORS]):
# one lab compiled as a loadable module (lab03.gpu.so ...). Its compiler output is kept for
# the grader (tools/capture-build-log). With TOLERATE_ERRORS a compile error still builds
# (an empty placeholder module), so a lab that is meant not to compile does not stop the
# build; its status file tells the grader that it did not compile.
function(reduce_lab_add_module target source flavor outdir number)
  cmake_parse_arguments(PARSE_ARGV 5 arg "TOLERATE_ERRORS" "" "")
  set(stem "lab${number}.${flavor}")
  # A rows lab's counted build: the longest compile of a build (--longest, longest_builds below).
  math(EXPR lab "${number}")
  set(rows_counted OFF)
  if(flavor STREQUAL "gpucount" AND REDUCE_LAB_LAB${lab}_KIND STREQUAL "rows")
    set(rows_counted ON)
  endif()
  # Which file these modules were compiled from: the speed test reads it (design §13).
  file(CONFIGURE OUTPUT "${outdir}/lab${number}.source" CONTENT "${source}\n" @ONLY)
  set(launcher "${PROJECT_SOURCE_DIR}/tools/capture-build-log")
  if(arg_TOLERATE_ERRORS)
    list(APPEND launcher --placeholder-on-error)
  endif()
  # The bytes this module is compiled from, kept beside it as <stem>.source.cu: every verdict
  # of the module carries a copy, and the speed test compares them (design §13). The plain
  # build compiles the lab file itself, so its compiler launcher copies it; a counting build
  # compiles a rewrite, whose step writes the copy of what it read.
  set(source_copy "${outdir}/${stem}.source.cu")
  if(flavor STREQUAL "gpu")
    list(APPEND launcher --source "${source}")
  endif()
  if(NOT flavor STREQUAL "emu" AND REDUCE_LAB_NVCC_SPLIT_COMPILE)
    # One lab file is one translation unit of many kernels (lab 8's reference: 9 type and
    # operator pairs of several mappings), which nvcc optimises and assembles one at a time
    # unless told otherwise. Where a build has few of them to compile (a grade after an edit,
    # a first grade), ./lab lets nvcc use every core: on an H200 host lab 8's counted build took
    # 74 s alone, 22 s so, its timed build 20 s, 9 s. On two cores (CI's compile check of dozens
    # of labs) every core is busy already. The machine code is the same either way (cuobjdump
    # -sass of labs 7 and 8, timed and counted, compared function by function), so neither a
    # timing nor a count can change. Where many are due on many cores (the kit's GPU suite),
    # only a rows lab's own counted build (lab 8's reference: the build's longest compile) is
    # split (--longest): with every one split, 16 compiles of 16 threads each shared 16 cores
    # of an H200 host, and the suite's build took 123 s and 135 s (the emulator's tree beside it
    # done only at 103-114 s); with only this one, 106-129 s on hosts of both speeds; with none,
    # 106 s on a fast one, lab 8's reference ending it on one thread (docs/instructors.md).
    list(APPEND launcher --nvcc-threads-from-env)
    if(rows_counted AND NOT arg_TOLERATE_ERRORS)
      list(APPEND launcher --longest)
    endif()
  endif()
  if(flavor STREQUAL "emu")
    # What the host compiler cannot see: CUDA's execution spaces, checked alongside it.
    reduce_lab_spaces_check_command(check "${source}")
    list(LENGTH check count)
    list(APPEND launcher --also ${count} ${check})
  endif()
  list(APPEND launcher "${outdir}/${stem}")
  # The counting builds compile the lab with its __shared__ declarations rewritten into the
  # kit's counted types (cmake/counting_rewrite.cmake); messages still name the lab's own
  # file and lines. The plain gpu build compiles the file as written.
  get_filename_component(source_dir "${source}" DIRECTORY)
  if(flavor STREQUAL "emu")
    set(compiled "${outdir}/${stem}.cpp")
    set(rewrite_backend emu)
  elseif(flavor STREQUAL "gpucount")
    set(compiled "${outdir}/${stem}.cu")
    set(rewrite_backend gpu)
  else()
    set(compiled "${source}")
  endif()
  if(NOT compiled STREQUAL source)
    add_custom_command(OUTPUT "${compiled}" BYPRODUCTS "${source_copy}"
      COMMAND "${CMAKE_COMMAND}" "-DINPUT=${source}" "-DOUTPUT=${compiled}" "-DBACKEND=${rewrite_backend}"
              "-DSOURCE_COPY=${source_copy}" -P "${PROJECT_SOURCE_DIR}/cmake/counting_rewrite.cmake"
      DEPENDS "${source}" "${PROJECT_SOURCE_DIR}/cmake/counting_rewrite.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/counting_rewrite_parameters.cmake" VERBATIM)
  endif()
  if(flavor STREQUAL "emu")
    add_library(${target} MODULE "${compiled}")
    target_compile_options(${target} PRIVATE "-iquote${source_dir}")
    # The emulator tells a warp's instructions apart by each access's call site (its return
    # address). GCC's loop unswitching and splitting copy a loop for lanes that differ in a value
    # fixed for the loop (GCC 12 and 13 did, on lab 8's reference): one warp store became two
    # where the GPU issues one (docs/emulator.md). Lab code is compiled without them.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE -fno-unswitch-loops -fno-split-loops -fno-split-paths
                                               -fno-gnu-unique)
    endif()
    target_link_libraries(${target} PRIVATE reduce_emu)
    set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "${launcher}")
    if(REDUCE_LAB_SPACES_CHECK STREQUAL "kit" AND TARGET check_spaces)
      add_dependencies(${target} check_spaces)
      # A new checker checks every lab again.
      set_property(SOURCE "${rewritten}" APPEND PROPERTY OBJECT_DEPENDS "${REDUCE_LAB_CHECK_SPACES}")
    endif()
  else()
    add_library(${target} MODULE "${compiled}")
    if(flavor STREQUAL "gpucount")
      target_include_directories(${target} PRIVATE "${source_dir}")  # the lab's own #include "..."
    endif()
    set_target_properties(${target} PROPERTIES
      CUDA_RUNTIME_LIBRARY Shared
      CUDA_COMPILER_LAUNCHER "${launcher}")
    # -lineinfo: compute-sanitizer names lab lines. 177/550: a stub's unused variables.
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo --diag-suppress=177,550>)
    if(REDUCE_LAB_NVCC_NO_GNU_UNIQUE)
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fno-gnu-unique>)
    endif()
    if(rows_counted)
      set_property(GLOBAL APPEND PROPERTY REDUCE_LAB_LONGEST_TARGETS ${target})  # longest_builds below
    elseif(flavor STREQUAL "gpucount" AND REDUCE_LAB_LAB${lab}_KIND STREQUAL "generic")
      set_property(GLOBAL APPEND PROPERTY REDUCE_LAB_LONGER_TARGETS ${target})  # longest_builds below
    endif()
    if(flavor STREQUAL "gpucount")
      target_compile_definitions(${target} PRIVATE REDUCE_LAB_COUNTING)
      # Ahead of the lab's own includes, so every barrier is counted, cooperative groups'
      # too (the prelude's comment says how).
      target_compile_options(${target} PRIVATE
        "$<$<COMPILE_LANGUAGE:CUDA>:--pre-include=${PROJECT_SOURCE_DIR}/grader/include/reduce_lab/counting_prelude.cuh>")
      # Ahead of the toolkit's headers: <cooperative_groups/reduce.h> with the kit's overloads for
      # counted shared elements (the overlay's comment says why they are not in shared.cuh).
      target_include_directories(${target} BEFORE PRIVATE "${PROJECT_SOURCE_DIR}/grader/include/counted_overlay")
    endif()
  endif()
  # Each module keeps its own statics (-fno-gnu-unique above, where the host compiler is GCC).
  # GCC binds a static of an inline function or of a template (the emulator's __shared__ arrays
  # of a template kernel among them) STB_GNU_UNIQUE: the first module a process loads then owns
  # it for every later one, RTLD_LOCAL or not, at the first one's size. A GPU runs one lab a
  # process, but the grader loads several: a lab and its baseline, ./lab show's lab and the
  # reference, the suite's shared profile. There, lab 8's reference read its 24-byte
  # `one_wave()::wave` from a broken case's 16-byte one, loaded before it, and launched no blocks.
  set_target_properties(${target} PROPERTIES
    PREFIX "" OUTPUT_NAME "${stem}" SUFFIX ".so"
    LIBRARY_OUTPUT_DIRECTORY "${outdir}")
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/grader/include")
endfunction()

# A GPU tree's speed tests rest on the CPU emulator's correctness verdicts too, wherever the
# emulator can be built (design §13): ./lab grade and ./lab test run it first when this tree
# says so (REDUCE_LAB_EMU_REQUIRED in its cache), and a missing emulator verdict then refuses
# the timing. Elsewhere REDUCE_LAB_EMU_NOT_RUN says why the speed figure rests on the GPU alone.
function(reduce_lab_resolve_emulator_verdicts)
  option(REDUCE_LAB_EMU_VERDICTS "A GPU tree's speed tests need the CPU emulator's verdicts where it can be built" ON)
  set(required OFF)
  set(why "")
  if(REDUCE_LAB_HARNESS)
    set(why "grade-all grades each student on the GPU alone")
  elseif(NOT REDUCE_LAB_EMU_VERDICTS)
    set(why "this build does not ask for it (REDUCE_LAB_EMU_VERDICTS=OFF)")
  else()
    find_package(Boost 1.74 QUIET COMPONENTS context)
    if(Boost_FOUND)
      set(required ON)
    else()
      set(why "Boost.Context missing")
    endif()
  endif()
  set(REDUCE_LAB_EMU_REQUIRED ${required} CACHE INTERNAL "The GPU's speed tests need the CPU emulator's verdicts")
  set(REDUCE_LAB_EMU_NOT_RUN "${why}" CACHE INTERNAL "Why the CPU emulator's verdicts are not asked for")
endfunction()

# The CTest environment every grader process gets. On a GPU, the kit's own suite also reads
# the emulator suite's verdicts (./lab test runs that suite first): a lab the emulator finds
# wrong is not timed (design §13). ./lab grade passes its emulator results the same way.
# Where the emulator can be built its verdict is required (reduce_lab_resolve_emulator_verdicts).
function(reduce_lab_test_environment out)
  set(emulator_verdicts)
  if(REDUCE_LAB_ACTIVE_BACKEND STREQUAL "gpu" AND REDUCE_LAB_SELFTEST)
    list(APPEND emulator_verdicts "REDUCE_LAB_EMU_RESULTS_DIR=${PROJECT_SOURCE_DIR}/build/selftest-emu/results")
  endif()
  if(REDUCE_LAB_ACTIVE_BACKEND STREQUAL "gpu" AND REDUCE_LAB_EMU_REQUIRED)
    list(APPEND emulator_verdicts "REDUCE_LAB_EMU_REQUIRED=1")
  elseif(REDUCE_LAB_ACTIVE_BACKEND STREQUAL "gpu")
    list(APPEND emulator_verdicts "REDUCE_LAB_EMU_NOT_RUN=${REDUCE_LAB_EMU_NOT_RUN}")
  endif()
  set(${out}
    "REDUCE_LAB_MODULE_DIR=${PROJECT_BINARY_DIR}/modules"
    "REDUCE_LAB_STUB_DIR=${PROJECT_BINARY_DIR}/stubs"
    "REDUCE_LAB_RESULTS_DIR=${PROJECT_BINARY_DIR}/results"
    "REDUCE_LAB_SOURCE_FOLDER=${REDUCE_LAB_SOURCE_NAME}"
    "REDUCE_LAB_SOURCE_ROOT=${PROJECT_SOURCE_DIR}"
    "REDUCE_LAB_COMPUTE_SANITIZER=${REDUCE_LAB_COMPUTE_SANITIZER}"
    "REDUCE_LAB_NCU=${REDUCE_LAB_NCU}"
    # The grader stops a test a little before CTest would, so it can still record why.
    "REDUCE_LAB_TEST_TIMEOUT=${REDUCE_LAB_TEST_TIMEOUT}"
    ${emulator_verdicts}
    PARENT_SCOPE)
endfunction()

# reduce_lab_check_arguments(<out> <lab> <test>): the grader's arguments for one graded test
# of a lab on this backend. The lab's own CTest tests and the broken-lab suite
# (grader/tests/broken) both run a check with them, so both judge a lab the same way.
# (A reason must not contain a semicolon: CMake would split it into two arguments.)
function(reduce_lab_check_arguments out lab test)
  set(args "lab${lab} ${test}")
  if(REDUCE_LAB_ACTIVE_BACKEND STREQUAL "gpu")
    set(args --needs-gpu ${args})
  endif()
  # A check the lab does not have (grader/labs.json, its "not_graded"), or that never runs on this
  # backend ("not_run_on"), is skipped, saying why.
  if(NOT "${REDUCE_LAB_LAB${lab}_NOT_GRADED_${test}}" STREQUAL "")
    set(args --skip "${REDUCE_LAB_LAB${lab}_NOT_GRADED_${test}}" ${args})
  elseif(NOT "${REDUCE_LAB_NOT_RUN_ON_${REDUCE_LAB_ACTIVE_BACKEND}_${test}}" STREQUAL "")
    set(args --skip "${REDUCE_LAB_NOT_RUN_ON_${REDUCE_LAB_ACTIVE_BACKEND}_${test}}" ${args})
  elseif(test STREQUAL "races")
    if(REDUCE_LAB_COMPUTE_SANITIZER)
      set(args --sanitize ${args})
    else()
      set(args --skip "compute-sanitizer was not found with the CUDA toolkit" ${args})
    endif()
  endif()
  set(${out} ${args} PARENT_SCOPE)
endfunction()

# reduce_lab_check_environment(<out> <lab> <test>): the thresholds a check reads from its
# environment (the speed test's minimum speedup, and a bandwidth gate's fraction), shared by
# the lab's own tests and the broken-lab suite.
function(reduce_lab_check_environment out lab test)
  set(environment)
  if(test STREQUAL "speedup")
    list(APPEND environment "REDUCE_LAB_MIN_SPEEDUP=${REDUCE_LAB_MIN_SPEEDUP_LAB${lab}}")
    if(DEFINED REDUCE_LAB_MIN_BANDWIDTH_LAB${lab})
      list(APPEND environment "REDUCE_LAB_MIN_BANDWIDTH=${REDUCE_LAB_MIN_BANDWIDTH_LAB${lab}}")
    endif()
  endif()
  set(${out} ${environment} PARENT_SCOPE)
endfunction()

# reduce_lab_timed_tests(<test>...): tests that time labs have the GPU to themselves
# (RUN_SERIAL), and in a GPU tree run only once the CPU emulator's run alongside it has ended
# (the emu.verdicts_ready test, grader/CMakeLists.txt): they read its verdicts, and a compile
# beside them would share the CPU that launches their kernels.
function(reduce_lab_timed_tests)
  set_tests_properties(${ARGN} PROPERTIES RUN_SERIAL TRUE)
  if(REDUCE_LAB_ACTIVE_BACKEND STREQUAL "gpu")
    set_property(TEST ${ARGN} APPEND PROPERTY FIXTURES_REQUIRED emulator_alongside)
  endif()
endfunction()

# reduce_lab_add_lab(<lab>): modules for the graded source (and the stub in a self-test build)
# and the lab's CTest tests, as grader/labs.json declares the lab (cmake/LabManifest.cmake).
function(reduce_lab_add_lab lab)
  set(stem "${REDUCE_LAB_LAB${lab}_STEM}")
  reduce_lab_two_digits(number ${lab})
  set(source "${REDUCE_LAB_SOURCE_PATH}/${stem}.cu")
  if(NOT EXISTS "${source}")
    return()
  endif()
  if(REDUCE_LAB_ACTIVE_BACKEND STREQUAL "gpu")
    set(flavors gpu gpucount)
  else()
    set(flavors emu)
  endif()
  foreach(flavor IN LISTS flavors)
    reduce_lab_add_module(lab${number}_${flavor} "${source}" ${flavor} "${PROJECT_BINARY_DIR}/modules" ${number})
    if(REDUCE_LAB_SELFTEST)
      reduce_lab_add_module(stub${number}_${flavor} "${PROJECT_SOURCE_DIR}/labs/${stem}.cu" ${flavor}
                            "${PROJECT_BINARY_DIR}/stubs" ${number})
    endif()
  endforeach()

  reduce_lab_test_environment(environment)
  foreach(test IN LISTS REDUCE_LAB_CHECKS)
    reduce_lab_check_arguments(args ${lab} ${test})
    set(labels "lab${lab};${REDUCE_LAB_ACTIVE_BACKEND}")
    set(test_environment ${environment})
    if(test STREQUAL "speedup")
      list(APPEND labels speed)
    endif()
    reduce_lab_check_environment(thresholds ${lab} ${test})
    list(APPEND test_environment ${thresholds})
    add_test(NAME lab${lab}.${test} COMMAND ${REDUCE_LAB_GRADER_TARGET} ${args})
    if(test STREQUAL "speedup")
      # Timing shares the GPU with nothing else. It reads the verdicts of the lab's (and its
      # baseline's) correctness, races and requests tests, and the comparison of the lab's timed
      # build with its counted build that its traffic test records, so those run first (design §13).
      set(verdicts lab${lab}.correctness lab${lab}.races lab${lab}.requests)
      if(REDUCE_LAB_ACTIVE_BACKEND STREQUAL "gpu")
        list(APPEND verdicts lab${lab}.traffic)
      endif()
      set(baseline "${REDUCE_LAB_LAB${lab}_BASELINE}")
      if(baseline GREATER 0)
        list(APPEND verdicts lab${baseline}.correctness lab${baseline}.races)
      endif()
      set_tests_properties(lab${lab}.${test} PROPERTIES DEPENDS "${verdicts}")
      reduce_lab_timed_tests(lab${lab}.${test})
    else()
      # CTest starts the costliest tests first: with every lab's tests at once, the long ones
      # (compute-sanitizer's two passes, lab 7's 432 correctness cases, a rows lab's shapes) then
      # do not start last and keep the whole grade waiting. Rough seconds on an H100 (the rows
      # lab's on an H200 host beside the kit's suite); a fresh build folder has no measured costs
      # of its own.
      if(test STREQUAL "correctness" AND REDUCE_LAB_LAB${lab}_KIND STREQUAL "rows")
        set(cost 30)
      elseif(test STREQUAL "races")
        set(cost 4.5)
      elseif(test STREQUAL "correctness" AND lab EQUAL 7)
        set(cost 5)
      elseif(test STREQUAL "correctness")
        set(cost 2.5)
      else()
        set(cost 2)
      endif()
      set_tests_properties(lab${lab}.${test} PROPERTIES COST ${cost})
    endif()
    set_tests_properties(lab${lab}.${test} PROPERTIES
      LABELS "${labels}" SKIP_RETURN_CODE 77 TIMEOUT ${REDUCE_LAB_TEST_TIMEOUT}
      ENVIRONMENT "${test_environment}")
  endforeach()
  if(REDUCE_LAB_ACTIVE_BACKEND STREQUAL "gpu")
    # The timed build's traffic against the counted build's, for the speed test to read
    # (timed_traffic.hpp). It runs the counted build itself and reads no other test's verdict,
    # so it starts with the lab's other untimed tests instead of after its requests test, which
    # had kept a grade's speed test waiting for both in turn. Nsight Compute profiles one process
    # at a time, system-wide, and a second one waits inside its profiled call, whose time limit
    # the wait then counts against; so the grader takes the machine's one turn before it starts
    # ncu (measure/ncu_turn.hpp). The traffic tests themselves run side by side: in the kit's
    # suite most take their counts from the shared run and never start ncu, and a CTest lock had
    # made its forty-odd tests (0.6-1.4 s each on an H200 host) one chain at the suite's end.
    add_test(NAME lab${lab}.traffic COMMAND ${REDUCE_LAB_GRADER_TARGET} --needs-gpu --timed-traffic ${lab})
    set_tests_properties(lab${lab}.traffic PROPERTIES
      LABELS "lab${lab};gpu" SKIP_RETURN_CODE 77 TIMEOUT ${REDUCE_LAB_TEST_TIMEOUT}
      ENVIRONMENT "${environment}")
    reduce_lab_profile_ahead(lab${lab}.traffic ${lab} "${PROJECT_BINARY_DIR}/modules" lab${lab} lab${number}_gpu)
  endif()
endfunction()

# reduce_lab_profile_ahead(<test> <lab> <module folder> <id> <module target>): in the kit's own GPU
# suite, the timed build (<module target>) that traffic test <test> compares is profiled ahead of
# it, in the one Nsight Compute run that kit.traffic_batch makes of every such build
# (tests/traffic_batch.cpp), which hands it the counts in a file (REDUCE_LAB_PROFILED_COUNTS).
# ncu's start costs about two seconds a process, and the suite has some forty traffic tests. A student's grade has a few, each profiled
# by its own test as before, so a grade after an edit never waits for the other labs' profiles.
function(reduce_lab_profile_ahead test lab module_dir id module_target)
  if(NOT REDUCE_LAB_SELFTEST OR NOT REDUCE_LAB_ACTIVE_BACKEND STREQUAL "gpu")
    return()
  endif()
  set(file "${PROJECT_BINARY_DIR}/profiled/${id}.json")
  set_property(GLOBAL APPEND PROPERTY REDUCE_LAB_PROFILED_AHEAD "${id}\t${lab}\t${module_dir}\t${file}")
  set_property(GLOBAL APPEND PROPERTY REDUCE_LAB_PROFILED_AHEAD_TARGETS ${module_target})
  set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT "REDUCE_LAB_PROFILED_COUNTS=${file}")
  # kit.every_command_ends (about a minute, two processors) must be among the suite's first tests.
  # CTest starts the deepest dependencies first, and the shared run, a level deeper than it, took
  # the slot it needed: it started 140 s in on an H200 and ended the untimed tests. Waiting for it
  # here puts it at the shared run's level, so it starts as soon as that run, alone, has ended. It
  # costs these tests little: they take a second or two each, and the speed tests after them run
  # alone, once the untimed tests have ended, whichever way.
  set_property(TEST ${test} APPEND PROPERTY DEPENDS kit.traffic_batch kit.every_command_ends)
endfunction()

# reduce_lab_add_traffic_batch(): that shared run, once every lab and case has been declared. It
# runs first (COST, and the broken cases' verdicts wait for it: grader/tests/broken) and alone
# (RUN_SERIAL): on an H200 host, 43 timed builds at 51 shapes took it 14-16 s so, against
# 106-172 s beside the untimed tests, every second of which was on the path to the speed tests
# that wait for it (a round of the broken-lab cases: 166-174 s, now 136-155 s). The emulator's
# run alongside (./lab test) is no CTest test and goes on meanwhile. The traffic tests wait for
# it (DEPENDS), and one it could not profile profiles its own build.
function(reduce_lab_add_traffic_batch)
  get_property(entries GLOBAL PROPERTY REDUCE_LAB_PROFILED_AHEAD)
  if(NOT entries)
    return()
  endif()
  list(JOIN entries "\n" text)
  set(manifest "${PROJECT_BINARY_DIR}/profiled/manifest.tsv")
  file(WRITE "${manifest}" "${text}\n")
  reduce_lab_test_environment(environment)
  add_test(NAME kit.traffic_batch COMMAND ${REDUCE_LAB_GRADER_TARGET} --needs-gpu --traffic-batch "${manifest}")
  set_tests_properties(kit.traffic_batch PROPERTIES
    LABELS "kit;broken;gpu" SKIP_RETURN_CODE 77 TIMEOUT ${REDUCE_LAB_TEST_TIMEOUT}
    ENVIRONMENT "${environment}" COST 1000 RUN_SERIAL TRUE)
  # The same run as a build step, which ./lab test builds with everything else on a machine with a
  # GPU (never part of `all`): it needs only the grader and the timed builds, which are done well
  # before the counted builds end the build (on an H200 host at about 100 s of 131 s, every core
  # busy with nvcc until then), and the GPU, which compiles leave idle. It always succeeds as a step:
  # its status and output go to profiled/early.status and early.log, which kit.traffic_batch then
  # reports instead of profiling again, when ./lab names them (tests/traffic_batch.cpp).
  get_property(targets GLOBAL PROPERTY REDUCE_LAB_PROFILED_AHEAD_TARGETS)
  set(record "${PROJECT_BINARY_DIR}/profiled/early")
  add_custom_target(traffic_batch_early_run
    COMMAND "${CMAKE_COMMAND}" -E rm -f "${record}.status" "${record}.log"
    COMMAND "${CMAKE_COMMAND}" -E env ${environment}
            sh -c "timeout \"$0\" \"$1\" --needs-gpu --traffic-batch \"$2\" >\"$3.log\" 2>&1; echo $? >\"$3.status\""
            ${REDUCE_LAB_TEST_TIMEOUT} $<TARGET_FILE:${REDUCE_LAB_GRADER_TARGET}> "${manifest}" "${record}"
    COMMENT "Profiling the timed builds ahead of their traffic tests (kit.traffic_batch)"
    VERBATIM)
  add_dependencies(traffic_batch_early_run ${REDUCE_LAB_GRADER_TARGET} ${targets})
  # Ninja 1.12 and later start first the ready step with the most steps still to follow it (a
  # phony step counts none), the one declared first among equals. A counted build is two steps,
  # a compile and a link. The early run must start as soon as the last timed build is linked, not
  # once every compile has started: on an H200 host it began so at 87 s of a 105 s build and ended
  # it, 5 s after the last compile. Two steps after it (traffic_batch_early, what ./lab test builds)
  # rank it above every counted compile, and a timed build's link and compile above it.
  reduce_lab_steps_after(traffic_batch_early 2 traffic_batch_early_run)
  # But not before the build's longest compiles, the rows labs' counted builds (lab 8's reference:
  # 75 s of an H200 host's 135 s build, nvcc using every core), which started 27 s late so and once
  # ended the build. Three steps after each of those (the last, longest_builds, which ./lab test
  # builds beside the early run) make them as urgent as the timed builds, and they start first:
  # declared first (CMakeLists.txt). A generic lab's counted build (lab 7's, every type and operator
  # in one file: 13 s of a core against 3-5 s for the other labs') is one step before
  # longest_builds, so it starts before the other counted builds: those started in CMake's order
  # of targets, and a dozen of lab 7's broken cases started last and ended the build. The other
  # counted builds follow, while the early run profiles. Older Ninja starts in declared order.
  get_property(longest GLOBAL PROPERTY REDUCE_LAB_LONGEST_TARGETS)
  get_property(longer GLOBAL PROPERTY REDUCE_LAB_LONGER_TARGETS)
  reduce_lab_steps_after(longest_builds_ranked 2 ${longest})
  add_custom_target(longest_builds COMMAND "${CMAKE_COMMAND}" -E true VERBATIM)
  add_dependencies(longest_builds longest_builds_ranked ${longer})
endfunction()

# reduce_lab_steps_after(<name> <count> [<target>...]): target <name>, the last of <count> steps
# that do nothing, one after the other, after the <target>s: it ranks them in Ninja's order of
# starts (reduce_lab_add_traffic_batch says why).
function(reduce_lab_steps_after name count)
  set(previous ${ARGN})
  foreach(step RANGE 1 ${count})
    set(target ${name})
    if(step LESS count)
      set(target ${name}_step${step})
    endif()
    add_custom_target(${target} COMMAND "${CMAKE_COMMAND}" -E true VERBATIM)
    if(previous)
      add_dependencies(${target} ${previous})
    endif()
    set(previous ${target})
  endforeach()
endfunction()
