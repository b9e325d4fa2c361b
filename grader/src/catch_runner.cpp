// With Catch2 v2 this file also compiles Catch2's whole implementation (CATCH_CONFIG_RUNNER):
// about 30 s of CPU at -O3, here in a file of its own so that an edit to main.cpp does not
// compile it again, and built at -O0 without the grader's precompiled header (which holds Catch2
// without its implementation): grader/CMakeLists.txt.
#if REDUCE_LAB_CATCH2_MAJOR < 3
#define CATCH_CONFIG_RUNNER
#endif
#include "catch_compat.hpp"

#include "catch_runner.hpp"

namespace reduce_lab::grader {

int run_catch_session(int argc, char** argv) {
  Catch::Session session;
  return session.run(argc, argv);
}

}  // namespace reduce_lab::grader
