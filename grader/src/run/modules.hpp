// Finding and loading a compiled lab. Each lab is built into its own shared object per
// flavour, so a lab that does not compile costs only its own tests: the loader then reports
// the first compiler error from the build log instead of a missing file.
#pragma once

#include <optional>
#include <string>

#include <reduce_lab/abi.h>

namespace reduce_lab::grader {

enum class Flavor {
  plain,    // gpu: Global<T> is T*; what is timed
  counted,  // gpu-counted (or the emulator): every global access is counted
};

enum class Origin { graded, stub };  // labs under grade, or the kit's own stub copies

struct LoadedLab {
  const ModuleInfo* info = nullptr;  // null when the lab could not be loaded
  std::string problem;               // why not, written for the student
  std::string summary;               // the same for the table: "does not compile", "registers lab 6" ...
  explicit operator bool() const { return info != nullptr; }
};

// Loads lab `number` (1..7). Modules stay loaded for the life of the process.
LoadedLab load_lab(int number, Flavor flavor, Origin origin = Origin::graded);

// The same from the module folder `dir` of any build (./lab show loads the student's and the
// reference's side by side); `source` names the lab file in its messages.
LoadedLab load_lab_from(const std::string& dir, int number, Flavor flavor, const std::string& source);

// Lab `number`'s built modules (the graded ones, every flavour) with their sizes and times of
// change; empty when none is built. Two processes that agree on it run the same build.
std::string module_fingerprint(int number);

// The path of the lab file the build compiled into lab `number`'s modules (the build writes
// it beside them), or an empty string when it is not known.
std::string lab_source_file(int number, Origin origin = Origin::graded);

std::string lab_source_file_in(const std::string& dir, int number);

// The bytes lab `number`'s graded module of `flavor` was compiled from, which the build keeps
// beside it (lab03.gpu.source.cu: tools/capture-build-log): as they were when this process
// loaded the module, else as they are now; none when the build kept no copy. Each verdict
// carries them (records.hpp), and the speed test times only what its verdicts judged.
std::optional<std::string> compiled_from(int number, Flavor flavor);

// File names the build gives a module and its compile log: lab03.gpu.so, lab03.gpu.log ...
std::string module_file_stem(int number, Flavor flavor);
// The module itself in the module folder `dir`: dir/lab03.gpu.so ...
std::string module_file(const std::string& dir, int number, Flavor flavor);

// The first line of a compiler log that reads as an error (with the line before it when that
// names the file), or an empty string.
std::string first_compiler_error(const std::string& log_text);

}  // namespace reduce_lab::grader
