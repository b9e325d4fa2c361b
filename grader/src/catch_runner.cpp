// With Catch2 v2 this file also compiles Catch2's whole implementation (CATCH_CONFIG_RUNNER):
// about 30 s of CPU at -O3, here in a file of its own so that an edit to main.cpp does not
// compile it again, and built at -O0 without the grader's precompiled header (which holds Catch2
// without its implementation): grader/CMakeLists.txt.
#if REDUCE_LAB_CATCH2_MAJOR < 3
#define CATCH_CONFIG_RUNNER
#endif
#include "catch_compat.hpp"

#include "catch_runner.hpp"

#include <vector>

namespace reduce_lab::grader {

int run_catch_session(int argc, char** argv) {
  // A test name that matches no test case would otherwise pass (Catch2 v2; v3 when another name
  // of the run matched): CTest registers every test by name, so a renamed or uncompiled TEST_CASE
  // would leave a test that cannot fail. The warning makes such a run fail with "No test cases
  // matched": v2 calls it NoTests, v3 UnmatchedTestSpec (v3 rejects the old name).
  std::vector<char*> args(argv, argv + argc);
#if REDUCE_LAB_CATCH2_MAJOR < 3
  static char warn[] = "--warn", unmatched[] = "NoTests";
#else
  static char warn[] = "--warn", unmatched[] = "UnmatchedTestSpec";
#endif
  args.insert(args.begin() + 1, {warn, unmatched});
  Catch::Session session;
  return session.run(static_cast<int>(args.size()), args.data());
}

}  // namespace reduce_lab::grader
