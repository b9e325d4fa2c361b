// Lab 10: lab 5 with COARSE_FACTOR chosen for n and the device: correct for any n at the factors it
// chooses, each input byte loaded once; its choice timed against a sweep of factors at four sizes.
#include "grade.hpp"
#include "checks/sweep_speed_check.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab10 correctness") { grade(10, "correctness", check_correctness(10, correctness_plan(10))); }

TEST_CASE("lab10 requests") { grade(10, "requests", check_traffic(10, traffic_plan(10))); }

TEST_CASE("lab10 speedup") { grade(10, "speedup", check_sweep_speedup(10)); }

TEST_CASE("lab10 races") { grade(10, "races", check_correctness(10, races_plan(10))); }
