// Lab 6: correct for any n, each input byte loaded once, at most log2(1024) - 4 = 6 barriers per block.
#include "grade.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab6 correctness") { grade(6, "correctness", check_correctness(6, correctness_plan(6))); }

TEST_CASE("lab6 requests") { grade(6, "requests", check_traffic(6, traffic_plan(6))); }

TEST_CASE("lab6 speedup") { grade(6, "speedup", check_speedup(6)); }

TEST_CASE("lab6 races") { grade(6, "races", check_correctness(6, races_plan(6))); }
