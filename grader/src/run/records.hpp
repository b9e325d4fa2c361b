// What each graded test recorded, kept as small files so that one grade can be read after CTest
// has run every test in its own process (the table: table.hpp; report.json: report.hpp), and
// the current test's progress notes. Each test leaves two files in REDUCE_LAB_RESULTS_DIR:
// lab<lab>.<test> (the status, the summary on one line, then the message: what the table and
// simple scripts read) and lab<lab>.<test>.json (the same with the figures, thresholds and
// seeds, which report.json gathers), and beside them lab<lab>.<test>.source: a copy of the
// lab file the verdict judged, as its module was compiled from it (modules.hpp, compiled_from),
// by which the speed test knows whether a verdict is of the file it is about to time.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/verdict.hpp"

namespace reduce_lab::grader {

// Writes both files of test `test` of lab `lab` (nothing when REDUCE_LAB_RESULTS_DIR is unset).
void record(int lab, const std::string& test, const Verdict& verdict);
// The same for a record that is no check's verdict (the traffic test's comparison,
// timed_traffic.hpp): it does not tell the supervising parent that the test has recorded its
// verdict, so a test that dies afterwards is still named as such.
void record_beside(int lab, const std::string& test, const Verdict& verdict);

// The graded test this process runs ("lab3 speedup" on the command line), so that code which
// cannot know it (the watchdog, the supervising parent) can still record a verdict for it.
void set_current_test(int lab, const std::string& test);
// Records `verdict` for the current test; false when there is none.
bool record_current(const Verdict& verdict);

// A note on the current test while it runs ("lab 4 at n = 5 has run for 15 s ..."): printed to
// stderr, and left in REDUCE_LAB_RESULTS_DIR as lab<lab>.<test>.note, which ./lab grade shows
// as it appears (CTest shows a test's output only when the test ends).
void note_progress(const std::string& text);

// One recorded result, as read back from its files.
struct RecordedResult {
  std::string status;   // PASS, FAIL or SKIP (report.hpp adds MISSING and ERROR)
  std::string summary;
  std::string message;
  // The .json record (figures, thresholds, seeds, backend); null when only the text file exists.
  nlohmann::json detail;
};

// The result recorded at `path` (lab3.correctness, or lab3.correctness.emu for the emulator's
// verdict in a GPU grade): the .json record beside it when there is one, else the text file.
std::optional<RecordedResult> read_result(const std::string& path);

// The verdict of one test, as the table shows it and report.json scores it. `emu` is the
// emulator's result of the same test when a GPU grade also ran it there (recorded as lab<lab>.<test>.emu): the cell then shows both, and passes
// only when both do ("PASS gpu 48 ok, emu 48 ok", "FAIL gpu ok, emu deadlock at ...").
RecordedResult table_cell(const RecordedResult* own, const RecordedResult* emu);

// What a test records before it starts (the supervisor does), so that a test that crashes or is
// stopped reads as failed rather than as not run, until it records its real verdict. grade-all
// and the broken-lab runner recognise it by its summary.
Verdict unfinished_verdict();

// The copy of the lab file the verdict at `path` judged (`path`.source); none when it kept none.
std::optional<std::string> recorded_source(const std::string& path);

// "gpu" or "emu": the backend this grader was built for.
const char* built_backend();

}  // namespace reduce_lab::grader
