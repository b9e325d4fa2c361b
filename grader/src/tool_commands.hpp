// The commands of labtools, the grader's second program: ./lab show's pictures (--show,
// --show-docs), ./lab bench's sweep (--bench, --bench-rows) and ./lab calibrate's thresholds
// (--calibrate). None of them grades, so a student's first grade does not build them: ./lab
// builds labtools when one of them is asked for (or a failed grade is drawn). The kit's own
// tests call them in labgrader too.
#pragma once

#include <string_view>

namespace reduce_lab::grader {

inline bool is_tool_command(std::string_view command) {
  return command == "--show" || command == "--show-docs" || command == "--bench" || command == "--bench-rows" ||
         command == "--calibrate";
}

// Runs the command that argv[1] names and returns its exit status, or -1 when argv[1] names
// none of them.
int run_tool_command(int argc, char** argv);

}  // namespace reduce_lab::grader
