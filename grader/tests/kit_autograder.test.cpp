// The Gradescope autograder end to end: ./lab autograder gradescope packs the zip, which is
// unpacked into a fake /autograder tree in a temporary folder; run_autograder grades a
// submission of two correct labs (one at the top, one in labs/ beside an old attempt), one
// wrong, one that does not compile and files that are no lab, on the CPU emulator; results.json is checked field by
// field against Gradescope's specification and grader/points.json.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/catalog.hpp"
#include "base/files.hpp"
#include "kit.hpp"
#include "report/report.hpp"
#include "base/settings.hpp"

extern char** environ;

using namespace reduce_lab::grader;

namespace {

std::string quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

// The grade this test starts is a grade of its own: nothing of this test's environment (the
// results folder, the supervisor's page, the seeds) may reach its tests.
void forget_grader_environment() {
  std::vector<std::string> names;
  for (char** entry = environ; *entry; ++entry) {
    const std::string text = *entry;
    const std::string name = text.substr(0, text.find('='));
    if (name.rfind("REDUCE_LAB_", 0) == 0 || name == "CMAKE_ARGS") names.push_back(name);
  }
  for (const std::string& name : names) set_environment(name.c_str(), std::nullopt);
}

}  // namespace

TEST_CASE("kit autograder") {
  const char* source = std::getenv("REDUCE_LAB_SOURCE_ROOT");
  REQUIRE(source);
  const std::filesystem::path root = source;
  forget_grader_environment();
  // The points file is checked by the kit's grader: this one, rather than a build of its own.
  set_environment("REDUCE_LAB_GRADER", std::filesystem::read_symlink("/proc/self/exe").string());
  const auto dir = fresh_dir("autograder");
  const auto zip = dir / "autograder.zip";
  const auto top = dir / "autograder";
  const auto unpacked = top / "source";
  const auto submission = top / "submission";

  REQUIRE(std::system((quoted(root / "lab") + " autograder gradescope " + quoted(zip) + " >" +
                       quoted(dir / "pack.log") + " 2>&1").c_str()) == 0);
  std::filesystem::create_directories(unpacked);
  REQUIRE(std::system(("cd " + quoted(unpacked) + " && cmake -E tar xf " + quoted(zip)).c_str()) == 0);
  CHECK(access((unpacked / "setup.sh").c_str(), X_OK) == 0);
  REQUIRE(access((unpacked / "run_autograder").c_str(), X_OK) == 0);
  CHECK(std::filesystem::exists(unpacked / "kit" / "lab"));
  CHECK(std::filesystem::exists(unpacked / "stubs" / "07_templated.cu"));
  CHECK_FALSE(std::filesystem::exists(unpacked / "kit" / "solutions"));  // students never see them

  std::filesystem::create_directories(submission / "labs");
  std::filesystem::copy_file(root / "solutions" / "01_simple.cu", submission / "01_simple.cu");
  std::filesystem::copy_file(root / "solutions" / "02_convergent.cu", submission / "labs" / "02_convergent.cu");
  // Lab 3 drops the first add on load: half the input is never summed.
  std::string wrong = read_text(root / "solutions" / "03_shared_memory.cu");
  const std::string add = "input_s[t] = input[t] + input[t + blockDim.x];";
  REQUIRE(wrong.find(add) != std::string::npos);
  wrong.replace(wrong.find(add), add.size(), "input_s[t] = input[t];");
  std::ofstream(submission / "03_shared_memory.cu") << wrong;
  std::ofstream(submission / "04_segmented.cu") << read_text(root / "solutions" / "04_segmented.cu") << "\nthis is not C++;\n";
  std::ofstream(submission / "notes.cu") << "// not a lab\n";
  // An old attempt beside the real lab 2, at the same depth: the labs/ one is graded, as
  // ./lab grade-all grades it (tools/pick-labs). A copy of the kit's sources: one note for all.
  std::filesystem::create_directories(submission / "attempt1");
  std::filesystem::copy_file(root / "labs" / "02_convergent.cu", submission / "attempt1" / "02_convergent.cu");
  std::filesystem::create_directories(submission / "kit-copy" / "grader" / "src");
  for (int i = 0; i < 20; ++i) std::ofstream(submission / "kit-copy" / "grader" / "src" / ("part" + std::to_string(i) + ".cu")) << "\n";

  const auto results_file = top / "results" / "results.json";
  // On Gradescope, setup.sh builds the grader once and each submission compiles only its lab
  // files. Here the unpacked kit reuses this build's grader instead (REDUCE_LAB_HARNESS, which
  // checks that the copy's headers, CMake code and manifest are this build's): building it again
  // took minutes of a 2-core CI machine and tests nothing the kit's own build does not.
  const std::string harness = std::filesystem::read_symlink("/proc/self/exe").parent_path().string();
  const int status = std::system(("CMAKE_ARGS=" + quoted(std::filesystem::path("-DREDUCE_LAB_HARNESS=" + harness)) +
                                  " REDUCE_LAB_AUTOGRADER_ROOT=" + quoted(top) + " " + quoted(unpacked / "run_autograder") +
                                  " >" + quoted(dir / "run.log") + " 2>&1").c_str());
  INFO("run_autograder's output:\n" << read_text(dir / "run.log").substr(0, 6000));
  CHECK(status == 0);
  REQUIRE(std::filesystem::exists(results_file));
  const nlohmann::json results = read_json(results_file.string());
  const Points points = load_points((root / "grader" / "points.json").string());
  INFO(results.dump(1).substr(0, 6000));

  // Top level.
  REQUIRE(results["score"].is_number());
  CHECK(results["score"] == points.of(1, "correctness") + points.of(1, "requests") + points.of(2, "correctness") +
                                points.of(2, "requests"));
  REQUIRE(results["execution_time"].is_number_integer());
  CHECK(results["execution_time"] >= 0);
  CHECK(results["visibility"] == "visible");
  CHECK_FALSE(results.contains("leaderboard"));  // no GPU, no bandwidth
  const std::string output = results["output"];
  CHECK(output.find("05_coarsened.cu was not in the submission") != std::string::npos);
  const std::string others = "21 other .cu files are not graded";
  CHECK(output.find(others) != std::string::npos);
  CHECK(output.find(others) == output.rfind(others));  // once, not once per file
  CHECK(output.find("not graded (") == output.rfind("not graded ("));
  CHECK(output.find("lab 2: graded labs/02_convergent.cu, not attempt1/02_convergent.cu") != std::string::npos);
  CHECK(output.find("1 simple") != std::string::npos);  // the table
  CHECK(output.find("Not graded here") != std::string::npos);

  // One test per lab and check the emulator grades: correctness and requests.
  std::map<std::string, nlohmann::json> tests;
  double maximum = 0;
  for (const nlohmann::json& test : results["tests"]) {
    for (const char* field : {"name", "score", "max_score", "status", "output", "visibility"}) {
      INFO(test.dump() << " needs " << field);
      CHECK(test.contains(field));
    }
    CHECK(test["visibility"] == "visible");
    CHECK((test["status"] == "passed" || test["status"] == "failed"));
    tests[test["name"]] = test;
    maximum += test["max_score"].get<double>();
  }
  std::size_t graded_here = 0;
  for (int lab = 1; lab <= lab_count(); ++lab)
    for (const char* check : {"correctness", "requests"}) graded_here += has_check(lab, check) ? 1 : 0;
  CHECK(tests.size() == graded_here);  // lab 12's requests is no test: the lab has none
  double expected_maximum = 0;
  for (int lab = 1; lab <= lab_count(); ++lab)
    for (const char* check : {"correctness", "requests"}) {
      if (!has_check(lab, check)) continue;
      const std::string name = lab_title(lab) + ": " + check;
      INFO(name);
      REQUIRE(tests.count(name));
      const nlohmann::json& test = tests[name];
      const bool right = lab <= 2;
      CHECK(test["status"] == (right ? "passed" : "failed"));
      CHECK(test["score"] == (right ? points.of(lab, check) : 0.0));
      CHECK(test["max_score"] == points.of(lab, check));
      expected_maximum += points.of(lab, check);
      const std::string said = test["output"];
      if (lab == 3 && std::string(check) == "correctness") CHECK(said.find("FAIL wrong: n = ") == 0);
      if (lab == 4) {
        CHECK(said.find("does not compile") != std::string::npos);
        // The compiler's own lines, not a path on the grading machine that students cannot open.
        CHECK(said.find("The compiler's output:") != std::string::npos);
        CHECK(said.find("Full compiler output: /") == std::string::npos);
      }
      if (lab >= 5) CHECK(said.find("not implemented yet") != std::string::npos);
    }
  CHECK(maximum == expected_maximum);
  for (const auto& [name, test] : tests) CHECK(name.find("speedup") == std::string::npos);
  std::filesystem::remove_all(dir);
}
