// Results of each graded test, kept as small files so ./lab grade can print one table after
// CTest has run every test in its own process.
#pragma once

#include <string>

#include "verdict.hpp"

namespace reduce_lab::grader {

// Writes REDUCE_LAB_RESULTS_DIR/lab<lab>.<test> (nothing when the variable is unset): the
// status, the summary on one line, then the whole message.
void record(int lab, const std::string& test, const Verdict& verdict);

// The graded test this process runs ("lab3 speedup" on the command line), so that code which
// cannot know it (the watchdog, the supervising parent) can still record a verdict for it.
void set_current_test(int lab, const std::string& test);
// Records `verdict` for the current test; false when there is none.
bool record_current(const Verdict& verdict);

// One recorded result, as read back from its file.
struct RecordedResult {
  std::string status;   // PASS, FAIL or SKIP
  std::string summary;
};

// The table cell of one test. `emu` is the emulator's result of the same test when a GPU grade
// also ran it there (recorded as lab<lab>.<test>.emu): the cell then shows both, and passes
// only when both do ("PASS gpu 48 ok, emu 48 ok", "FAIL gpu ok, emu deadlock at ...").
RecordedResult table_cell(const RecordedResult* own, const RecordedResult* emu);

// What a test records before it starts, so that a test that crashes or is stopped reads as
// failed rather than as not run, until it records its real verdict.
Verdict unfinished_verdict();

// Prints the table of everything recorded in `dir`; returns true when every lab passed
// every test that ran. `backend` names what graded ("GPU", "emulator").
bool print_table(const std::string& dir, const std::string& backend);

}  // namespace reduce_lab::grader
