// Lab 7: float, double and int with sum, max and min, for any n; the same traffic bound for
// every type; faster than lab 6 and close to the device's copy bandwidth.
#include "kit.hpp"

using namespace reduce_lab;
using namespace reduce_lab::grader;

namespace {
const std::vector<DType> kAllTypes = {DType::f32, DType::f64, DType::i32};
const std::vector<Op> kAllOps = {Op::sum, Op::max, Op::min};
}  // namespace

TEST_CASE("lab7 correctness") {
  CorrectnessPlan plan = any_size_plan();
  plan.dtypes = kAllTypes;
  plan.ops = kAllOps;
  grade(7, "correctness", check_correctness(7, plan));
}

TEST_CASE("lab7 requests") {
  TrafficPlan plan;
  plan.sizes = traffic_sizes();
  plan.dtypes = kAllTypes;
  plan.ops = kAllOps;
  plan.max_barriers_per_block = 6;  // log2(1024) - 4, lab 6's bound, whatever the block size
  grade(7, "requests", check_traffic(7, plan));
}

TEST_CASE("lab7 speedup") { grade(7, "speedup", check_speedup(7)); }

TEST_CASE("lab7 races") {
  CorrectnessPlan plan = sanitizer_plan({1, 2049, 100003});
  plan.dtypes = kAllTypes;
  plan.ops = kAllOps;
  grade(7, "races", check_correctness(7, plan));
}
