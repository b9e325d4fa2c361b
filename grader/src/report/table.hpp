// The grade table a student reads in one look, one line per lab and one column per check, and
// every failure's message once, all from the records the tests left (records.hpp).
#pragma once

#include <string>

namespace reduce_lab::grader {

// The table of everything recorded in `dir`, one line per lab that has results. `backend`
// names what graded ("GPU", "emulator"). `all_passed` (may be null): every lab passed every
// test that ran, and at least one test was graded (not every one skipped).
std::string table_text(const std::string& dir, const std::string& backend, bool* all_passed);
// Every failed check's message, once: a lab's checks that failed with the same message are
// named together, and labs not started yet (REDUCE_LAB_TODO()) share one paragraph.
std::string failures_text(const std::string& dir);

// Prints failures_text(), then table_text() and a key to it; returns all_passed.
bool print_table(const std::string& dir, const std::string& backend);

}  // namespace reduce_lab::grader
