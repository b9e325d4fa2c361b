// Results of each graded test, kept as small files so ./lab grade can print one table after
// CTest has run every test in its own process.
#pragma once

#include <string>

#include "verdict.hpp"

namespace reduce_lab::grader {

// Writes REDUCE_LAB_RESULTS_DIR/lab<lab>.<test> (nothing when the variable is unset): the
// status, the summary on one line, then the whole message.
void record(int lab, const std::string& test, const Verdict& verdict);

// What a test records before it starts, so that a test that crashes or is stopped reads as
// failed rather than as not run, until it records its real verdict.
Verdict unfinished_verdict();

// Prints the table of everything recorded in `dir`; returns true when every lab passed
// every test that ran. `backend` names what graded ("GPU", "emulator").
bool print_table(const std::string& dir, const std::string& backend);

}  // namespace reduce_lab::grader
