// The plans each lab's checks run: sizes, patterns, types and operators. They follow from the
// lab's kind and plan parameters in grader/labs.json, and live here once: the lab tests, the
// count dump and the docs test (which checks every figure the docs state about them) all read
// these objects.
#pragma once

#include <cstddef>
#include <vector>

#include "checks/correctness_check.hpp"
#include "checks/count_checks.hpp"

namespace reduce_lab::grader {

// Where a plan runs. The emulator runs its largest cases (seconds of one core each) in one type
// and op only; the docs test reads both plans, so each page can state both figures.
enum class PlanFor { gpu, emulator };
// This build's backend: what the lab tests run.
PlanFor this_backend();

// Multipass labs (1-3, n a power of two): every power of two from 2 to 2^20 with random
// inputs, and the other patterns at a few sizes.
CorrectnessPlan power_of_two_plan();

// Single and generic labs (4-7, any n): the odd sizes of design §2 and the powers of two,
// random inputs, and the other patterns (all-negative too, for max) at a few of them.
CorrectnessPlan any_size_plan(PlanFor where = this_backend());

// Row labs (8, any m and n): one element, one long row, one tall column, past the grid's y limit
// (65535 rows) and past 2^20 rows, the row lengths around a warp, and every mapping a reference
// picks by shape (lanes, a warp, a block, several blocks per row); on a GPU also one row of 2^28.
CorrectnessPlan any_shape_plan(PlanFor where = this_backend());

// Matrices at which row labs are counted: each mapping, rows that start partway through sectors.
// The emulator counts 70000 x 3 (past the grid's y limit) in the first type and op only.
std::vector<Shape> traffic_shapes(PlanFor where = this_backend());

// Sizes at which single and generic labs are counted: one element, a partial warp, a partial
// block, many blocks with a ragged end.
std::vector<std::size_t> traffic_sizes();

// The plan of each lab's tests (labN.correctness, labN.requests, labN.races), from its kind and
// plan parameters in grader/labs.json.
CorrectnessPlan correctness_plan(int lab, PlanFor where = this_backend());
std::vector<std::size_t> book_request_sizes();  // multipass labs: one pass counted at each
TrafficPlan traffic_plan(int lab, PlanFor where = this_backend());  // single and generic labs
// What the races test runs under compute-sanitizer: sizes of one and many blocks, and for
// single and generic labs small odd ones, where a read past n is past the end of the allocation.
CorrectnessPlan races_plan(int lab);

}  // namespace reduce_lab::grader
