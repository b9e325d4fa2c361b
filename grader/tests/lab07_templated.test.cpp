// Lab 7: float, double and int with sum, max and min, for any n; the same traffic bound for
// every type; not slower than lab 6, and close to the device's copy bandwidth.
#include "grade.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab7 correctness") { grade(7, "correctness", check_correctness(7, correctness_plan(7))); }

TEST_CASE("lab7 requests") { grade(7, "requests", check_traffic(7, traffic_plan(7))); }

TEST_CASE("lab7 speedup") { grade(7, "speedup", check_speedup(7)); }

TEST_CASE("lab7 races") { grade(7, "races", check_correctness(7, races_plan(7))); }
