// Results of each graded test, kept as small files so ./lab grade can print one table after
// CTest has run every test in its own process.
#pragma once

#include <string>

#include "verdict.hpp"

namespace reduce_lab::grader {

// Writes REDUCE_LAB_RESULTS_DIR/lab<lab>.<test> (nothing when the variable is unset): the
// status (PASS, FAIL or SKIP), the summary on one line, then the message.
void record(int lab, const std::string& test, const Verdict& verdict);

// Prints the table of everything recorded in `dir`; returns true when every lab passed
// every test that ran. `backend` names what graded ("GPU", "emulator").
bool print_table(const std::string& dir, const std::string& backend);

}  // namespace reduce_lab::grader
