// Lab 9: lab 6's block with its tree adding K values a step, for K in 2, 4, 8 and 16: correct for
// any n in every K, each input byte loaded once, at most ceil(log_K(block size)) barriers per
// block; every K timed against the student's own K = 2 in one run.
#include "grade.hpp"
#include "checks/variant_speed_check.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab9 correctness") { grade(9, "correctness", check_correctness(9, correctness_plan(9))); }

TEST_CASE("lab9 requests") { grade(9, "requests", check_traffic(9, traffic_plan(9))); }

TEST_CASE("lab9 speedup") { grade(9, "speedup", check_variant_speedup(9)); }

TEST_CASE("lab9 races") { grade(9, "races", check_correctness(9, races_plan(9))); }
