// One grade as data: report.json (everything recorded, with scores) and Gradescope's
// results.json, built from the records the tests left in a build folder's results/. The
// table (report.hpp) and these files read the same records through the same table_cell(), so
// a score never disagrees with the table.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace reduce_lab::grader {

// Version of report.json's layout (docs/grading.md, "report.json").
constexpr int kReportSchema = 2;

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
Points load_points(const std::string& path);

struct ReportInput {
  std::string results_dir;
  std::string title;        // the table's heading: what graded ("GPU", "CPU emulator ...")
  std::string kit_version;  // git describe, or the version a handout was made from
  const Points* points = nullptr;  // null: no scores
};

// report.json's content (docs/grading.md): kit version, backend, device, seeds, and per lab
// and check the status, summary, message, figures, thresholds and score.
nlohmann::json build_report(const ReportInput& input);

// Gradescope's results.json for `report`: one test per check that could run here, its score
// and maximum from the points file; checks that cannot run on this backend are left out of
// the maximum, and the output says so. `notes` (may be empty) comes first in the output.
nlohmann::json gradescope_results(const nlohmann::json& report, const std::string& table, double execution_seconds,
                                  const std::string& notes);

// Reads a JSON file; throws std::runtime_error naming the file when it is missing or invalid.
nlohmann::json read_json(const std::string& path);
// Writes `value` to `path` in one step (a temporary file renamed over it). Throws
// std::runtime_error naming the path when it cannot be written.
void write_json(const std::string& path, const nlohmann::json& value);
void write_text(const std::string& path, const std::string& text);

}  // namespace reduce_lab::grader
