// The points file instructors edit: what it may hold, the clear error for anything else, the
// defaults docs/instructors.md states, and the GitHub Classroom workflow under tools/, whose
// points and tests must be the file's.
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "base/catalog.hpp"
#include "kit.hpp"
#include "report/report.hpp"

using namespace reduce_lab::grader;

namespace {

// The message load_points() throws for a file holding `text`; empty when it loads.
std::string problem_with(const std::filesystem::path& dir, const std::string& text) {
  const std::string path = (dir / "points.json").string();
  std::ofstream(path) << text;
  try {
    load_points(path);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::string all_labs_but(int left_out, const std::string& extra = "") {
  std::string text = "{";
  for (int lab = 1; lab <= lab_count(); ++lab) {
    if (lab == left_out) continue;
    text += std::string(text.size() > 1 ? ", " : "") + "\"lab" + std::to_string(lab) +
            "\": {\"correctness\": 6, \"requests\": 4, \"speedup\": 3, \"races\": 1}";
  }
  return text + extra + "}";
}

}  // namespace

TEST_CASE("kit points") {
  const Points points = load_points(source_root() + "/grader/points.json");

  // The shipped points file and the manifest's default points are the same defaults: the file
  // only holds what an instructor changes.
  for (const LabInfo& lab : labs())
    for (const auto& [check, worth] : lab.points) {
      INFO("lab" << lab.number << "." << check << ": grader/labs.json against grader/points.json");
      CHECK(points.of(lab.number, check) == worth);
    }

  // The defaults docs/instructors.md states, one row per lab.
  const std::string page = read_text(source_root() + "/docs/instructors.md");
  for (int lab = 1; lab <= lab_count(); ++lab) {
    INFO("docs/instructors.md's points table, lab " << lab);
    const std::regex row("\\n\\| " + std::to_string(lab) + " [a-z-]+ \\| ([0-9]+) \\| ([0-9]+) \\| ([0-9]+) \\| ([0-9]+) \\|");
    std::smatch match;
    REQUIRE(std::regex_search(page, match, row));
    for (int check = 0; check < 4; ++check) CHECK(std::stod(match[check + 1]) == points.of(lab, check_names()[check]));
  }

  // The totals the page states: on a GPU every check, on the emulator correctness and requests.
  double everything = 0, emulator = 0;
  for (int lab = 1; lab <= lab_count(); ++lab)
    for (const std::string& check : check_names()) {
      everything += points.of(lab, check);
      if (std::string(check) == "correctness" || std::string(check) == "requests") emulator += points.of(lab, check);
    }
  std::smatch totals;
  REQUIRE(std::regex_search(page, totals, std::regex("So ([0-9]+) points on a GPU, and ([0-9]+) on the emulator")));
  CHECK(std::stod(totals[1]) == everything);
  CHECK(std::stod(totals[2]) == emulator);
  // labgrader --check-points says the same (grader/labs.json's "not_run_on" says what the emulator skips).
  CHECK(points_out_of(points, "gpu") == everything);
  CHECK(points_out_of(points, "emu") == emulator);
  const std::regex stated("([0-9]+) with the default(s| points)");
  int statements = 0;
  for (std::sregex_iterator it(page.begin(), page.end(), stated), end; it != end; ++it, ++statements)
    CHECK(std::stod((*it)[1]) == emulator);
  CHECK(statements >= 2);

  const auto dir = fresh_dir("points");
  CHECK(problem_with(dir, all_labs_but(0)).empty());
  CHECK(problem_with(dir, all_labs_but(0, ", \"lab3\": {\"correctness.emu\": 2}")).empty());
  CHECK(problem_with(dir, "{ \"lab1\": ").find("is not valid JSON") != std::string::npos);
  CHECK(problem_with(dir, "[1, 2]").find("expected an object") != std::string::npos);
  // A lab left out is worth its default points from grader/labs.json.
  CHECK(problem_with(dir, all_labs_but(3)).empty());
  std::ofstream(dir / "points.json") << all_labs_but(3);
  const Points defaults = load_points((dir / "points.json").string());
  for (const auto& [check, worth] : lab_info(3).points) CHECK(defaults.of(3, check) == worth);
  const std::string past = "lab" + std::to_string(lab_count() + 1);  // one past the last lab
  CHECK(problem_with(dir, all_labs_but(0, ", \"" + past + "\": {}")).find("'" + past + "' is not a lab") !=
        std::string::npos);
  CHECK(problem_with(dir, all_labs_but(0, ", \"labs\": {}")).find("'labs' is not a lab") != std::string::npos);
  CHECK(problem_with(dir, all_labs_but(7, ", \"lab7\": {\"speed\": 3}")).find("unknown check 'speed'") != std::string::npos);
  CHECK(problem_with(dir, all_labs_but(7, ", \"lab7\": {\"races\": -1}")).find("lab7.races must be a number") !=
        std::string::npos);
  CHECK(problem_with(dir, all_labs_but(7, ", \"lab7\": {\"races\": \"1\"}")).find("lab7.races must be a number") !=
        std::string::npos);
  CHECK(problem_with(dir, all_labs_but(7, ", \"lab7\": 5")).find("must map check names to points") != std::string::npos);
  try {
    load_points((dir / "missing.json").string());
    FAIL("a missing points file loaded");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("cannot be read") != std::string::npos);
  }
  std::filesystem::remove_all(dir);

  // The GitHub Classroom workflow: one step per lab and check the emulator grades, worth the
  // file's points, running that check's CTest test, and every step reported.
  const std::string workflow = read_text(source_root() + "/tools/classroom/classroom.yml");
  REQUIRE_FALSE(workflow.empty());
  std::set<std::string> steps;
  static const std::regex step(
      R"(- name: (lab([1-9][0-9]*) ([a-z.]+))\n\s+id: (lab[1-9][0-9]*-[a-z.]+)\n\s+uses: education/autograding-command-grader@v1\n\s+with:\n\s+test-name: ([^\n]+)\n\s+setup-command: ''\n\s+command: ([^\n]+)\n\s+timeout: [0-9]+\n\s+max-score: ([0-9]+))");
  for (std::sregex_iterator it(workflow.begin(), workflow.end(), step), end; it != end; ++it) {
    const std::smatch& match = *it;
    INFO(match[1]);
    const int lab = std::stoi(match[2]);
    const std::string check = match[3];
    CHECK(match[4] == "lab" + std::to_string(lab) + "-" + check);
    CHECK(match[5] == match[1].str());
    CHECK(match[6] == "ctest --test-dir build/preset-grade -R '^lab" + std::to_string(lab) + "\\." + check +
                          "$' --output-on-failure");
    CHECK(std::stod(match[7]) == points.of(lab, check));
    CHECK(not_run_on("emu", check).empty());  // GitHub's runners have no GPU
    CHECK(has_check(lab, check));               // nor a step for a check the lab does not have (lab 12's requests)
    steps.insert(match[4]);
  }
  std::size_t emulator_checks = 0;
  for (int lab = 1; lab <= lab_count(); ++lab)
    for (const std::string& check : check_names())
      emulator_checks += not_run_on("emu", check).empty() && has_check(lab, check) ? 1 : 0;
  CHECK(steps.size() == emulator_checks);
  for (const std::string& id : steps) {
    std::string upper = id;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    INFO(id);
    CHECK(workflow.find(upper + "_RESULTS: \"${{steps." + id + ".outputs.result}}\"") != std::string::npos);
  }
  std::smatch runners;
  REQUIRE(std::regex_search(workflow, runners, std::regex("\\n +runners: ([a-z0-9,-]+)\\n")));
  std::set<std::string> reported;
  std::stringstream list(runners[1]);
  for (std::string id; std::getline(list, id, ',');) reported.insert(id);
  CHECK(reported == steps);
}
