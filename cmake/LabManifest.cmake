# Reads grader/labs.json, the one place a lab is declared (docs/instructors.md, "Adding a lab"),
# into the variables the build needs, and writes its text into a source file the grader
# compiles in (catalog.cpp parses it), so the grader knows exactly the labs built with it.
#
# Sets REDUCE_LAB_CHECKS (correctness requests speedup races), REDUCE_LAB_NOT_RUN_ON_<backend>_<check>
# (why that check never runs on that backend, empty where it runs), REDUCE_LAB_LABS (the numbers,
# in order) and, per lab N:
#   REDUCE_LAB_LAB<N>_STEM      01_simple ...
#   REDUCE_LAB_LAB<N>_BASELINE  the lab it is timed against, 0 for the CPU loop
#   REDUCE_LAB_LAB<N>_CASES     how many type x op x variant combinations its correctness test runs
#   REDUCE_LAB_LAB<N>_NOT_GRADED_<check>  why the lab has no such check (its "not_graded"), else empty
# and the cache variables instructors override: REDUCE_LAB_MIN_SPEEDUP_LAB<N> for every lab,
# REDUCE_LAB_MIN_BANDWIDTH_LAB<N> where the manifest gives the lab a bandwidth gate.
function(reduce_lab_read_manifest)
  set(file "${PROJECT_SOURCE_DIR}/grader/labs.json")
  set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
  file(READ "${file}" text)
  string(JSON count ERROR_VARIABLE error LENGTH "${text}" labs)
  if(error)
    message(FATAL_ERROR "grader/labs.json: ${error}")
  endif()
  # The graded checks of every lab, in the table's order: one CTest test each (labN.<check>).
  string(JSON check_count ERROR_VARIABLE error LENGTH "${text}" checks)
  if(error)
    message(FATAL_ERROR "grader/labs.json: 'checks' is missing (${error})")
  endif()
  set(checks)
  math(EXPR last "${check_count} - 1")
  foreach(index RANGE ${last})
    string(JSON check GET "${text}" checks ${index})
    list(APPEND checks "${check}")
  endforeach()
  set(REDUCE_LAB_CHECKS "${checks}" PARENT_SCOPE)
  # The checks that never run on a backend, and why (the test's --skip reason); report.json
  # leaves them out of a missing lab's maximum (grader/src/report/report.hpp).
  foreach(backend gpu emu)
    foreach(check IN LISTS checks)
      string(JSON reason ERROR_VARIABLE error GET "${text}" not_run_on ${backend} ${check})
      if(error)
        set(reason "")
      endif()
      set(REDUCE_LAB_NOT_RUN_ON_${backend}_${check} "${reason}" PARENT_SCOPE)
    endforeach()
  endforeach()
  set(numbers)
  math(EXPR last "${count} - 1")
  foreach(index RANGE ${last})
    math(EXPR expected "${index} + 1")
    foreach(key number stem name baseline)
      string(JSON ${key} ERROR_VARIABLE error GET "${text}" labs ${index} ${key})
      if(error)
        message(FATAL_ERROR "grader/labs.json, lab entry ${expected}: '${key}' is missing (${error})")
      endif()
    endforeach()
    if(NOT number EQUAL expected)
      message(FATAL_ERROR "grader/labs.json: lab entry ${expected} has number ${number}; labs are numbered 1, 2, ... in order")
    endif()
    if(NOT stem MATCHES "^0?${number}_[a-z0-9_]+$")
      message(FATAL_ERROR "grader/labs.json, lab ${number}: stem '${stem}' must be its two-digit number, _, then lower case")
    endif()
    if(baseline STREQUAL "cpu")
      set(baseline 0)
      set(over "the sequential CPU loop")
    else()
      set(over "lab ${baseline}")
    endif()
    string(JSON min_speedup ERROR_VARIABLE error GET "${text}" labs ${index} gates min_speedup)
    if(error)
      message(FATAL_ERROR "grader/labs.json, lab ${number}: gates.min_speedup is missing; every lab states its minimum")
    endif()
    set(REDUCE_LAB_MIN_SPEEDUP_LAB${number} "${min_speedup}" CACHE STRING "lab ${number} over ${over}")
    string(JSON min_bandwidth ERROR_VARIABLE error GET "${text}" labs ${index} gates min_bandwidth)
    if(NOT error)
      set(REDUCE_LAB_MIN_BANDWIDTH_LAB${number} "${min_bandwidth}" CACHE STRING
          "lab ${number}: fraction of the device's copy bandwidth")
    endif()
    set(cases 1)
    foreach(list types ops)
      string(JSON length ERROR_VARIABLE error LENGTH "${text}" labs ${index} plan ${list})
      if(NOT error)
        math(EXPR cases "${cases} * ${length}")
      endif()
    endforeach()
    string(JSON length ERROR_VARIABLE error LENGTH "${text}" labs ${index} plan variants values)
    if(NOT error)
      math(EXPR cases "${cases} * ${length}")
    endif()
    # Checks a lab does not have (lab 12's requests and speed), and why: skipped on every backend.
    foreach(check IN LISTS checks)
      string(JSON reason ERROR_VARIABLE error GET "${text}" labs ${index} not_graded ${check})
      if(error)
        set(reason "")
      endif()
      set(REDUCE_LAB_LAB${number}_NOT_GRADED_${check} "${reason}" PARENT_SCOPE)
    endforeach()
    list(APPEND numbers ${number})
    set(REDUCE_LAB_LAB${number}_STEM "${stem}" PARENT_SCOPE)
    set(REDUCE_LAB_LAB${number}_BASELINE "${baseline}" PARENT_SCOPE)
    set(REDUCE_LAB_LAB${number}_CASES "${cases}" PARENT_SCOPE)
  endforeach()
  set(REDUCE_LAB_LABS "${numbers}" PARENT_SCOPE)
  # A raw string literal cannot hold its own delimiter; the manifest has no reason to.
  if(text MATCHES "\\)labs_json\"")
    message(FATAL_ERROR "grader/labs.json must not contain )labs_json\"")
  endif()
  string(CONCAT source "// grader/labs.json as this build read it (cmake/LabManifest.cmake).\n"
                "extern const char* const reduce_lab_manifest_text;\n"
                "const char* const reduce_lab_manifest_text = R\"labs_json(@text@)labs_json\";\n")
  file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/generated/labs_manifest.cpp" CONTENT "${source}" @ONLY)
endfunction()

# Two-digit number of lab N for file names: 3 -> 03.
function(reduce_lab_two_digits out number)
  if(number LESS 10)
    set(${out} "0${number}" PARENT_SCOPE)
  else()
    set(${out} "${number}" PARENT_SCOPE)
  endif()
endfunction()
