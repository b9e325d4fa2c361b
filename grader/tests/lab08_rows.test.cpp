// Lab 8: a reduction per row of any m x n matrix, float, double and int with sum, max and min;
// every element loaded once and one value written per row; timed on three shapes against the
// student's own lab 7 over the same elements, with CUB's segmented reduction beside it.
#include "grade.hpp"
#include "checks/rows_speed_check.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab8 correctness") { grade(8, "correctness", check_correctness(8, correctness_plan(8))); }

TEST_CASE("lab8 requests") { grade(8, "requests", check_traffic(8, traffic_plan(8))); }

TEST_CASE("lab8 speedup") { grade(8, "speedup", check_rows_speedup(8)); }

TEST_CASE("lab8 races") { grade(8, "races", check_correctness(8, races_plan(8))); }
