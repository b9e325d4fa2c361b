// The grader's commands that grade nothing themselves: they turn what the tests recorded into
// the table, report.json, the staircase and Gradescope's results.json (--table); --check-points
// checks a points file and says what a grade is out of; --probe-gpu answers whether the CUDA
// runtime can use a GPU here (./lab's last check before a GPU grade). ./lab and grade-all run
// them; docs/instructors.md shows each. The pictures, the bench and calibration are labtools'
// (tool_commands.hpp).
//
//   --table RESULTS_DIR TITLE [options]   the grade of the records in RESULTS_DIR:
//       --report FILE      report.json (default: beside RESULTS_DIR)
//       --svg FILE         the staircase (default: staircase.svg beside RESULTS_DIR)
//       --points FILE      the points file (default: grader/points.json, or $REDUCE_LAB_POINTS)
//       --gradescope FILE  also Gradescope's results.json (--elapsed SECONDS, --notes FILE)
//       --reference FILE   the reference's figures for the staircase's outlines
//       --labs LIST        the labs graded ("1,2,5"): each is in report.json whatever it
//                          recorded (default: the labs with records)
//       --handed-in LIST   the labs whose file was handed in ("" for none): a graded lab left
//                          out is MISSING (default: every lab graded). grade-all passes both,
//                          so that a submission with nothing to grade is out of the same maximum
//       --quiet            print nothing (grade-all reads report.json); the status is the same
//     exits 0 when every lab passed, 1 when not, 2 on a bad command line or points file
//   --check-points [FILE]  checks a points file (default: grader/points.json) as every grade
//     reads it, and prints what a grade is out of on a GPU and on the emulator; exits 2 when
//     it is not usable
//   --rescore REPORT... [--points FILE]   scores reports written before again, in place, with
//     the points file as it is now (grade-all's roster, after the points changed)
//   --kit-version          the kit's version as reports name it (.kit-version, else git's):
//     decided here only; grade-all asks for it
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace reduce_lab::grader {

// Runs the command that argv[1] names and returns its exit status, or -1 when argv[1] names
// none of them (the caller then runs a test).
int run_command(int argc, char** argv);

// The staircase of `report` (report.json's content): on a GPU, where labs were timed, it is
// printed (when `print`) and written to `svg_path`; elsewhere a stale `svg_path` is removed.
// Returns report.json's "staircase" entry. `reference` (may be null) holds the reference
// solutions' figures; `reference_note` says why none could be read.
nlohmann::json draw_staircase(const nlohmann::json& report, const nlohmann::json& reference, std::string reference_note,
                              const std::string& svg_path, bool print);

// --device-figures: measures the device for the staircase and records results/device.json.
int record_device_figures();

}  // namespace reduce_lab::grader
