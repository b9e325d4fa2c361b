#include "checks/plans.hpp"

#include "base/catalog.hpp"

namespace reduce_lab::grader {

PlanFor this_backend() {
#if defined(REDUCE_LAB_EMU)
  return PlanFor::emulator;
#else
  return PlanFor::gpu;
#endif
}

CorrectnessPlan power_of_two_plan() {
  CorrectnessPlan plan;
  plan.sizes = powers_of_two(2, std::size_t{1} << 20);
  plan.special_sizes = {2, 64, 2048, std::size_t{1} << 16, std::size_t{1} << 20};
  plan.special_patterns = {Pattern::ones, Pattern::cancellation, Pattern::integers};
  return plan;
}

CorrectnessPlan any_size_plan(PlanFor where) {
  CorrectnessPlan plan;
  plan.sizes = powers_of_two(2, std::size_t{1} << 20);
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{31}, std::size_t{1000}, std::size_t{2047},
                        std::size_t{2049}, std::size_t{1000007}})
    plan.sizes.push_back(n);
  // Past 2^24, where a float no longer counts every element, and the largest grid: seconds of one
  // core per run on the emulator, so there it runs in the first type and op only (lab 7's nine
  // pairs spent most of their correctness test on it).
  (where == PlanFor::emulator ? plan.once_sizes : plan.sizes).push_back((std::size_t{1} << 24) + 1);
  plan.special_sizes = {1, 31, 2049, 1000007};
  plan.special_patterns = {Pattern::ones, Pattern::cancellation, Pattern::integers, Pattern::all_negative,
                           Pattern::large};
  return plan;
}

// m past the grid's y limit (65535), in rows short enough that a block per row is the mapping a
// student may well pick: 70000 blocks of fibers on the emulator, about half a minute of a core, so
// there it runs in the first type and op only.
constexpr Shape kPastGridY{70000, 3};

CorrectnessPlan any_shape_plan(PlanFor where) {
  CorrectnessPlan plan;
  const bool gpu = where == PlanFor::gpu;
  // The emulator grades the shapes it runs in seconds, every edge included: one element, one row,
  // one column, m past the grid's y limit (65535), rows that are not a multiple of a warp.
  plan.shapes = {{1, 1}, {1, 2}, {1, 7}, {1, 1000007}, {4099, 1}, {3, 100003}, {1000, 1000}, {40, 5000}, {300, 5000}};
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                        std::size_t{1000}, std::size_t{4097}})
    plan.shapes.push_back({257, n});
  (gpu ? plan.shapes : plan.once_shapes).push_back(kPastGridY);
  if (gpu) {
    // Seconds on a GPU, minutes on the emulator (a block per row of 2^20 rows is 2^20 blocks of fibers).
    plan.shapes.push_back({100003, 1});
    plan.shapes.push_back({(std::size_t{1} << 20) + 1, 2});
    plan.shapes.push_back({1100, 5000});
    plan.shapes.push_back({1, std::size_t{1} << 28});
  }
  plan.special_shapes = {{1, 1}, {3, 100003}, {1000, 1000}};
  if (gpu) plan.special_shapes.push_back(kPastGridY);
  plan.special_patterns = {Pattern::ones, Pattern::cancellation, Pattern::integers, Pattern::all_negative,
                           Pattern::large};
  return plan;
}

std::vector<Shape> traffic_shapes(PlanFor where) {
  // 103 x 33: 3399 elements end 3 floats into a 16-byte vector, which must be read as a tail is.
  std::vector<Shape> shapes{{1, 1}, {1, 31}, {1000, 1}, {103, 33}, {3, 100003}, {1000, 1000}, {40, 5000}, {1, 1000007}};
  if (where == PlanFor::gpu) shapes.insert(shapes.begin() + 3, kPastGridY);
  return shapes;
}

std::vector<std::size_t> traffic_sizes() { return {1, 31, 1000, 2049, 1000007, std::size_t{1} << 20}; }

// Every plan follows from the lab's entry in grader/labs.json: its kind and its plan parameters.
CorrectnessPlan correctness_plan(int lab, PlanFor where) {
  const LabInfo& info = lab_info(lab);
  CorrectnessPlan plan = info.kind == LabKind::multipass ? power_of_two_plan()
                         : info.kind == LabKind::rows    ? any_shape_plan(where)
                                                         : any_size_plan(where);
  plan.dtypes = info.dtypes;
  plan.ops = info.ops;
  plan.variants = info.variants;
  for (unsigned block_size : info.block_sizes)
    for (unsigned variant : info.variants) plan.block_variants.push_back(with_block_size(variant, block_size));
  return plan;
}

std::vector<std::size_t> book_request_sizes() { return powers_of_two(2, std::size_t{1} << 20); }

TrafficPlan traffic_plan(int lab, PlanFor where) {
  const LabInfo& info = lab_info(lab);
  TrafficPlan plan;
  if (info.kind == LabKind::rows) {
    plan.shapes = traffic_shapes(where);
    if (where == PlanFor::emulator) plan.once_shapes = {kPastGridY};
  } else
    plan.sizes = traffic_sizes();
  plan.shared_tree_bound = info.shared_tree_bound;
  plan.elements_per_block = info.elements_per_block;
  plan.max_barriers_per_block = info.max_barriers_per_block;
  plan.barriers_per_fan_in_step = info.barriers_per_fan_in_step;
  plan.dtypes = info.dtypes;
  plan.ops = info.ops;
  plan.variants = info.variants;
  return plan;
}

CorrectnessPlan races_plan(int lab) {
  const LabInfo& info = lab_info(lab);
  CorrectnessPlan plan;
  if (info.kind == LabKind::multipass)
    plan.sizes = {256, 2048, std::size_t{1} << 16};
  else if (info.kind == LabKind::rows)
    plan.shapes = {{1, 1}, {5, 7}, {1000, 33}, {3, 1000}, {40, 5000}, {1, 100003}};
  else
    plan.sizes = {1, 3, 31, 1000, 2049, 100003};
  plan.dtypes = info.dtypes;
  plan.ops = info.ops;
  plan.variants = info.variants;
  return plan;
}

}  // namespace reduce_lab::grader
