// Lab 5: correct for any n, each input byte loaded once, COARSE_FACTOR 2: half as many blocks, and atomics, as lab 4.
#include "grade.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab5 correctness") { grade(5, "correctness", check_correctness(5, correctness_plan(5))); }

TEST_CASE("lab5 requests") { grade(5, "requests", check_traffic(5, traffic_plan(5))); }

TEST_CASE("lab5 speedup") { grade(5, "speedup", check_speedup(5)); }

TEST_CASE("lab5 races") { grade(5, "races", check_correctness(5, races_plan(5))); }
