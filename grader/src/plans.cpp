#include "plans.hpp"

#include "catalog.hpp"

namespace reduce_lab::grader {

CorrectnessPlan power_of_two_plan() {
  CorrectnessPlan plan;
  plan.sizes = powers_of_two(2, std::size_t{1} << 20);
  plan.special_sizes = {2, 64, 2048, std::size_t{1} << 16, std::size_t{1} << 20};
  plan.special_patterns = {Pattern::ones, Pattern::cancellation, Pattern::integers};
  return plan;
}

CorrectnessPlan any_size_plan() {
  CorrectnessPlan plan;
  plan.sizes = powers_of_two(2, std::size_t{1} << 20);
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{31}, std::size_t{1000}, std::size_t{2047},
                        std::size_t{2049}, std::size_t{1000007}, (std::size_t{1} << 24) + 1})
    plan.sizes.push_back(n);
  plan.special_sizes = {1, 31, 2049, 1000007};
  plan.special_patterns = {Pattern::ones, Pattern::cancellation, Pattern::integers, Pattern::all_negative,
                           Pattern::large};
  return plan;
}

std::vector<std::size_t> traffic_sizes() { return {1, 31, 1000, 2049, 1000007, std::size_t{1} << 20}; }

// Every plan follows from the lab's entry in grader/labs.json: its kind and its plan parameters.
CorrectnessPlan correctness_plan(int lab) {
  const LabInfo& info = lab_info(lab);
  if (info.kind == LabKind::multipass) return power_of_two_plan();
  CorrectnessPlan plan = any_size_plan();
  plan.dtypes = info.dtypes;
  plan.ops = info.ops;
  return plan;
}

std::vector<std::size_t> book_request_sizes() { return powers_of_two(2, std::size_t{1} << 20); }

TrafficPlan traffic_plan(int lab) {
  const LabInfo& info = lab_info(lab);
  TrafficPlan plan;
  plan.sizes = traffic_sizes();
  plan.shared_tree_bound = info.shared_tree_bound;
  plan.elements_per_block = info.elements_per_block;
  plan.max_barriers_per_block = info.max_barriers_per_block;
  plan.dtypes = info.dtypes;
  plan.ops = info.ops;
  return plan;
}

CorrectnessPlan races_plan(int lab) {
  const LabInfo& info = lab_info(lab);
  CorrectnessPlan plan;
  if (info.kind == LabKind::multipass) {
    plan.sizes = {256, 2048, std::size_t{1} << 16};
    return plan;
  }
  plan.sizes = {1, 3, 31, 1000, 2049, 100003};
  plan.dtypes = info.dtypes;
  plan.ops = info.ops;
  return plan;
}

}  // namespace reduce_lab::grader
