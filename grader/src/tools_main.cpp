// labtools: the grader's second program, for what grades nothing (tool_commands.hpp): ./lab
// show, bench and calibrate run it. Kept out of labgrader so that a student's first grade
// compiles only what grading needs.
#include <cstdio>

#include "tool_commands.hpp"

int main(int argc, char** argv) {
  if (const int code = reduce_lab::grader::run_tool_command(argc, argv); code >= 0) return code;
  std::fprintf(stderr,
               "usage: labtools --show N --student DIR [...] | --show-docs DOCS_DIR --reference DIR | --bench OUT_DIR "
               "[...] | --bench-rows OUT_DIR | --spread OUT_DIR [...] | --calibrate ROUNDS_DIR THRESHOLDS_FILE [--margin M]\n");
  return 2;
}
