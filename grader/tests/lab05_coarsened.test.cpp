// Lab 5: correct for any n, each input byte loaded once, COARSE_FACTOR 2: half as many blocks, and atomics, as lab 4.
#include "kit.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab5 correctness") { grade(5, "correctness", check_correctness(5, any_size_plan())); }

TEST_CASE("lab5 requests") {
  TrafficPlan plan;
  plan.sizes = traffic_sizes();
  plan.elements_per_block = 4096;
  plan.max_barriers_per_block = 0;
  grade(5, "requests", check_traffic(5, plan));
}

TEST_CASE("lab5 speedup") { grade(5, "speedup", check_speedup(5)); }

TEST_CASE("lab5 races") { grade(5, "races", check_correctness(5, sanitizer_plan({1, 2049, 100003}))); }
