// The broken-lab suite's own parts that need no device: its expectation parser, and the
// suite itself (every case parses, and it covers what it promises).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "broken_suite.hpp"
#include "catch_compat.hpp"

using namespace reduce_lab::grader;
using namespace reduce_lab::grader::broken;

namespace {

const std::string kLab4Tail = "\nvoid f() {}\nREDUCE_LAB_SINGLE(4, \"segmented\", f)\n";

std::string parse_error(const std::string& path, const std::string& text) {
  try {
    parse_case(path, text);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(parsed)";
}

}  // namespace

TEST_CASE("kit broken") {
  SECTION("an expectation block is read word for word") {
    const Case c = parse_case("grader/tests/broken/lab4_no_bounds_check.cu",
                              "// Lab 4 without the i < n checks.\n"
                              "//\n"
                              "// expect emu correctness FAIL \"out of bounds\" \"i < n\"\n"
                              "// expect gpu races FAIL \"memcheck\"\n"
                              "// expect all requests PASS\n"
                              "// expect emu speedup SKIP \"skipped\"\n"
                              "// env REDUCE_LAB_EMU_TIMEOUT=5\n"
                              "// expect gpu correctness FAIL \"quote \\\" and backslash \\\\\"\n" +
                                  kLab4Tail);
    CHECK(c.name == "lab4_no_bounds_check");
    CHECK(c.lab == 4);
    CHECK_FALSE(c.legal);
    REQUIRE(c.expectations.size() == 5);
    CHECK(c.expectations[0].backend == "emu");
    CHECK(c.expectations[0].check == "correctness");
    CHECK(c.expectations[0].status == Status::fail);
    CHECK(c.expectations[0].summary == "out of bounds");
    CHECK(c.expectations[0].message == "i < n");
    CHECK(c.expectations[0].line == 3);
    CHECK(c.expectations[2].summary.empty());
    CHECK(c.expectations[4].summary == "quote \" and backslash \\");
    REQUIRE(c.environment.size() == 1);
    CHECK(c.environment[0].first == "REDUCE_LAB_EMU_TIMEOUT");
    CHECK(c.environment[0].second == "5");

    const std::vector<Expectation> gpu = expectations_for(c, "gpu");
    REQUIRE(gpu.size() == 3);  // in check order: correctness, requests, races
    CHECK(gpu[0].check == "correctness");
    CHECK(gpu[1].check == "requests");
    CHECK(gpu[2].check == "races");
    CHECK(expectations_for(c, "emu").size() == 3);
    CHECK(speed_prerequisites(c, "gpu").empty());  // the GPU expects no speed verdict of it
  }

  SECTION("a case the GPU times also records the verdicts its speed test reads, on both backends") {
    const Case c = parse_case("grader/tests/broken/lab3_barrier_inside_if.cu",
                              "// Lab 3 with its barrier inside the if.\n//\n"
                              "// expect emu correctness FAIL \"deadlock at\"\n"
                              "// expect gpu speedup FAIL \"not correct yet\"\n"
                              "\nvoid f() {}\nREDUCE_LAB_SINGLE(3, \"shared-memory\", f)\n");
    using Needed = std::vector<std::pair<int, std::string>>;
    // Its own lab's and its baseline's (lab 2): on the GPU correctness and races, on the
    // emulator the correctness the GPU's run reads from there, though it expects nothing of it.
    CHECK(speed_prerequisites(c, "gpu") == Needed{{3, "correctness"}, {3, "races"}, {2, "correctness"}, {2, "races"}});
    CHECK(speed_prerequisites(c, "emu") == Needed{{3, "correctness"}, {2, "correctness"}});
  }

  SECTION("a verdict meets an expectation by status, summary and message") {
    Expectation e;
    e.status = Status::fail;
    e.summary = "out of bounds";
    std::string why;
    CHECK(meets(e, fail("out of bounds: n = 1", "element 1024 of 1"), &why));
    CHECK_FALSE(meets(e, pass("out of bounds", ""), &why));
    CHECK_THAT(why, Catch::Contains("status is PASS"));
    CHECK_FALSE(meets(e, fail("wrong: n = 1", ""), &why));
    CHECK_THAT(why, Catch::Contains("summary"));
    e.message = "i < n";
    CHECK_FALSE(meets(e, fail("out of bounds: n = 1", "no hint"), &why));
    CHECK_THAT(why, Catch::Contains("message"));
    CHECK(meets(e, fail("out of bounds: n = 1", "check i < n first"), &why));
  }

  SECTION("anything the parser does not understand is an error with its line") {
    const std::string path = "lab4_x.cu";
    CHECK_THAT(parse_error(path, "// x\n// expect emu correctnes FAIL \"a\"\n" + kLab4Tail),
               Catch::Contains("lab4_x.cu:2: unknown check"));
    CHECK_THAT(parse_error(path, "// x\n// expect cpu correctness FAIL \"a\"\n" + kLab4Tail),
               Catch::Contains("unknown backend"));
    CHECK_THAT(parse_error(path, "// x\n// expect emu correctness WRONG \"a\"\n" + kLab4Tail),
               Catch::Contains("unknown status"));
    CHECK_THAT(parse_error(path, "// x\n// expect emu correctness FAIL\n" + kLab4Tail),
               Catch::Contains("a FAIL says which summary"));
    CHECK_THAT(parse_error(path, "// x\n// expect emu correctness FAIL \"a\n" + kLab4Tail),
               Catch::Contains("not closed"));
    CHECK_THAT(parse_error(path, "// x\n// expect emu correctness FAIL wrong\n" + kLab4Tail),
               Catch::Contains("quoted"));
    CHECK_THAT(parse_error(path, "// x\n// expect emu correctness FAIL \"a\" \"b\" \"c\"\n" + kLab4Tail),
               Catch::Contains("lab4_x.cu:2"));
    CHECK_THAT(parse_error(path, "// x\n// expect all correctness FAIL \"a\"\n// expect emu correctness FAIL \"b\"\n" +
                                     kLab4Tail),
               Catch::Contains("lab4_x.cu:3: the correctness check of the emu backend is already expected on line 2"));
    CHECK_THAT(parse_error(path, "// x\n// env PATH=/tmp\n// expect emu correctness FAIL \"a\"\n" + kLab4Tail),
               Catch::Contains("lab4_x.cu:2: write // env REDUCE_LAB_"));
    CHECK_THAT(parse_error(path, "// x\n" + kLab4Tail + "// expect emu correctness FAIL \"a\"\n"),
               Catch::Contains("belong in the header"));
    CHECK_THAT(parse_error(path, "// x\n" + kLab4Tail), Catch::Contains("no '// expect' lines"));
    CHECK_THAT(parse_error(path, "// expect emu correctness FAIL \"a\"\n" + kLab4Tail),
               Catch::Contains("must say what the student did"));
    CHECK_THAT(parse_error(path, "// x\n// expect emu requests PASS\n" + kLab4Tail),
               Catch::Contains("at least one check to FAIL"));
    CHECK_THAT(parse_error("lab5_x.cu", "// x\n// expect emu correctness FAIL \"a\"\n" + kLab4Tail),
               Catch::Contains("does not register itself as lab 5"));
    CHECK_THAT(parse_error("lab4-x.cu", "// x\n// expect emu correctness FAIL \"a\"\n" + kLab4Tail),
               Catch::Contains("a case is named"));
    CHECK_THAT(parse_error("ok_lab4_x.cu", "// x\n// expect all correctness PASS\n// expect emu requests PASS\n" +
                                               kLab4Tail),
               Catch::Contains("must expect PASS for requests on the gpu backend"));
    CHECK(parse_error("ok_lab4_x.cu", "// x\n// expect all correctness PASS\n// expect all requests PASS\n" +
                                          kLab4Tail) == "(parsed)");
  }

  SECTION("every case of the suite parses, and the suite covers what it promises") {
    const char* root = std::getenv("REDUCE_LAB_SOURCE_ROOT");
    REQUIRE(root != nullptr);
    int broken = 0, legal = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(root) / "grader/tests/broken")) {
      if (entry.path().extension() != ".cu") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      INFO(entry.path().filename().string());
      CHECK(parse_error(entry.path().string(), text.str()) == "(parsed)");
      (entry.path().filename().string().rfind("ok_", 0) == 0 ? legal : broken) += 1;
    }
    CHECK(broken >= 25);
    CHECK(legal >= 8);
  }
}
