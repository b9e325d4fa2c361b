// One grade as data: report.json, built from the records the tests left in a build folder's
// results/ (records.hpp) and scored with the points file. ./lab grade, the Gradescope
// autograder and grade-all all write this one layout (grade-all adds the student's fields);
// Gradescope's results.json (gradescope.hpp) is made from it. The table (table.hpp) and the
// report read the same records through the same table_cell(), so a score never disagrees with
// the table.
//
// A check's status is one of (docs/grading.md, "report.json"):
//   PASS     the test passed: its points count in the score and the maximum
//   FAIL     the test failed: none in the score, its points in the maximum
//   SKIP     it could not run on this backend or machine: in neither
//   MISSING  the lab's file was not handed in: none in the score, its points in the maximum,
//            except a check that never runs on this backend (not_run_on(), grader/labs.json)
//   ERROR    the lab was handed in but its test left no result: as FAIL
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace reduce_lab::grader {

// Version of report.json's layout (docs/grading.md, "report.json").
constexpr int kReportSchema = 3;

// The emulator's correctness in a GPU grade, which a points file may score on its own.
constexpr const char* kEmulatorCorrectness = "correctness.emu";

// Points per lab and per check, from the one file instructors edit (grader/points.json):
//   {"lab1": {"correctness": 6, "requests": 4, "speedup": 3, "races": 1}, ..., "lab7": {...}}
// A lab the file leaves out is worth the default points of its entry in grader/labs.json.
// A check may also be "correctness.emu": the CPU emulator's correctness in a GPU grade, scored
// on its own (correctness is then scored on the GPU's verdict alone).
struct Points {
  std::string file;
  std::map<int, std::map<std::string, double>> labs;
  bool has(int lab, const std::string& check) const;
  double of(int lab, const std::string& check) const;  // 0 when the file gives none
};

// Reads and checks a points file. Throws std::runtime_error naming the file and the problem.
// The kit's one validator: labgrader --check-points, tools/check-points and grade-all use it.
Points load_points(const std::string& path);

// What a grade with `points` is out of on `backend` ("gpu" or "emu"): every check that can
// run there (on the emulator not those not_run_on() names, nor correctness.emu).
double points_out_of(const Points& points, const std::string& backend);

// Why `check` never runs on `backend` (grader/labs.json, "not_run_on"); empty when it can.
std::string not_run_on(const std::string& backend, const std::string& check);

struct ReportInput {
  std::string results_dir;
  std::string title;        // the table's heading: what graded ("GPU", "CPU emulator ...")
  std::string kit_version;  // git describe, or the version a handout was made from
  const Points* points = nullptr;  // null: no scores
  // The labs graded, each in the report whatever it recorded; none: the labs with records.
  std::optional<std::vector<int>> labs;
  // The labs whose file was handed in; none: every lab graded. A graded lab not handed in is
  // MISSING, out of the same maximum as a lab that was.
  std::optional<std::vector<int>> handed_in;
};

// report.json's content (docs/grading.md): kit version, backend, device, seeds, and per lab
// and check the status, summary, message, figures, thresholds and score.
nlohmann::json build_report(const ReportInput& input);

// Fills in every check's score and maximum, each lab's and the report's totals, from `points`
// and the report's own statuses and backend: the one scorer, of a report being built and of one
// written before (a class's reports after the points file changed: labgrader --rescore).
void score_report(nlohmann::json& report, const Points& points);

// labgrader --rescore of one report.json, `report` as read from `path`: scored with `points`
// and written back only when that changed it, so that a rescore which changes nothing leaves
// the file (and its time, which grade-all's runs and their tests read as "graded") as it was.
// True when it was written.
bool rescore_file(const std::string& path, nlohmann::json report, const Points& points);

}  // namespace reduce_lab::grader
