// A stub and its solution differ only inside the exercise regions (design §1), so what a
// student is given is exactly what the solutions were graded with.
#include <fstream>
#include <sstream>
#include <string>

#include "base/catalog.hpp"
#include "catch_compat.hpp"
#include "kit.hpp"

using namespace reduce_lab::grader;

namespace {

struct Stripped {
  std::string text;  // the file with each region's inside removed
  int regions = 0;
  std::string problem;
};

Stripped strip_exercises(const std::string& path) {
  std::ifstream in(path);
  Stripped result;
  if (!in) {
    result.problem = "cannot read " + path;
    return result;
  }
  std::string line;
  bool inside = false;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const bool begin = line.find("// BEGIN EXERCISE") != std::string::npos;
    const bool end = line.find("// END EXERCISE") != std::string::npos;
    if (begin && inside) result.problem = path + ":" + std::to_string(number) + ": BEGIN EXERCISE inside a region";
    if (end && !inside) result.problem = path + ":" + std::to_string(number) + ": END EXERCISE without BEGIN";
    if (begin) {
      inside = true;
      ++result.regions;
    }
    if (!inside || begin || end) result.text += line + "\n";
    if (end) inside = false;
  }
  if (inside) result.problem = path + ": a region is never closed";
  return result;
}

}  // namespace

TEST_CASE("kit sources") {
  int compared = 0;
  for (int lab = 1; lab <= lab_count(); ++lab) {
    const std::string stem = lab_info(lab).stem;
    const std::string stub_path = source_root() + "/labs/" + stem + ".cu";
    if (!std::ifstream(stub_path)) continue;  // labs not written yet
    INFO("lab " << lab);
    const Stripped stub = strip_exercises(stub_path);
    const Stripped solution = strip_exercises(source_root() + "/solutions/" + stem + ".cu");
    REQUIRE(stub.problem.empty());
    REQUIRE(solution.problem.empty());
    CHECK(stub.regions >= 1);
    CHECK(stub.regions == solution.regions);
    CHECK(stub.text == solution.text);
    ++compared;
  }
  CHECK(compared >= 3);
}
