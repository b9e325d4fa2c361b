// Lab 4: correct for any n, each input byte loaded once, one launch for any n, one atomic per block.
#include "grade.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab4 correctness") { grade(4, "correctness", check_correctness(4, correctness_plan(4))); }

TEST_CASE("lab4 requests") { grade(4, "requests", check_traffic(4, traffic_plan(4))); }

TEST_CASE("lab4 speedup") { grade(4, "speedup", check_speedup(4)); }

TEST_CASE("lab4 races") { grade(4, "races", check_correctness(4, races_plan(4))); }
