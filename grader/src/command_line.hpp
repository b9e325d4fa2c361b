// What every command of the grader's two programs (labgrader, and labtools for ./lab show,
// bench and calibrate) shares: its usage errors, its "--name value" options, where the kit's
// sources are and the kit's version.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace reduce_lab::grader {

// Thrown for a bad command line or input file: the command prints it and exits with 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "--name value" options after a command's positional arguments.
using Options = std::map<std::string, std::vector<std::string>>;

// The options from argv[first] on; `allowed` maps each name to its count of values.
Options parse_options(int argc, char** argv, int first, const std::map<std::string, int>& allowed, const char* usage);

// The option's first value, or the fallback when it was not given.
std::string option(const Options& options, const std::string& name, const std::string& fallback = "");

// The option as a number (UsageError when it is not one), or the fallback when it was not given.
double number_option(const Options& options, const std::string& name, double fallback);

// The kit this grader was built from (its top folder).
std::string grader_source_root();

// The kit's version, for reports, decided here only: the version a handout or an autograder copy
// was made from (.kit-version), else git's, of the kit this grader was built from.
// REDUCE_LAB_KIT_VERSION replaces it (the kit's own tests).
std::string kit_version();

}  // namespace reduce_lab::grader
