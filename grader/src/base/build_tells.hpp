// "One kernel for every build" (design §13), read from the lab's source: the places where a
// lab file could tell the three builds apart. The plain GPU build (what is timed), the
// gpu-counted build and the emulator compile the same file; they differ only in the kit's
// own macros and in what Global<T> is. A lab that tests those macros, or reaches into the
// kit's build-specific internals, can show the counters one kernel and the clock another,
// so its speed is not graded.
#pragma once

#include <string>
#include <vector>

namespace reduce_lab::grader {

struct BuildTell {
  int line = 0;           // 1-based, in the lab file
  std::string name;       // the identifier that tells the builds apart
  std::string text;       // the line as written (trimmed)
};

// Every place in `source` (a lab file's text) that names something whose meaning differs
// between the builds: the kit's build macros anywhere (REDUCE_LAB_COUNTING,
// REDUCE_LAB_IS_COUNTING, ...), the namespaces that exist only in some builds or differ
// between them (reduce_lab::detail, reduce_emu), and, in #if/#ifdef/#ifndef/#elif, any macro
// that only some builds define (the counted __syncthreads, the emulator's threadIdx ...).
// Comments and string literals are not code and are skipped.
std::vector<BuildTell> find_build_tells(const std::string& source);

// Identifiers that are macros in some of the three builds and not in others; a lab's
// preprocessor conditions must not test them. Kept beside the kit's headers by a kit test.
const std::vector<std::string>& build_dependent_macros();

// The kit's public macros a lab may use (the registration macros, REDUCE_LAB_TODO).
const std::vector<std::string>& public_kit_macros();

}  // namespace reduce_lab::grader
