// Correctness (design §6): a lab's result against the reference on every case of a plan, with
// the wrong cases run again under other thread orders to tell a race from a mistake. Returns
// a Verdict and never throws: a broken lab is a failed check with a reason, not a crashed grader.
#pragma once

#include <vector>

#include "base/inputs.hpp"
#include "run/modules.hpp"
#include "base/verdict.hpp"

namespace reduce_lab::grader {

struct CorrectnessPlan {
  std::vector<std::size_t> sizes;              // every size, with random inputs
  std::vector<std::size_t> special_sizes;      // sizes that also get the other patterns
  // Row labs: the matrices, in place of sizes and special sizes.
  std::vector<Shape> shapes;
  std::vector<Shape> special_shapes;
  // Random inputs in the first type and op only: the emulator's largest cases (a grid or an
  // accuracy edge, which no type or op changes), each of which takes seconds of one core there.
  std::vector<std::size_t> once_sizes;
  std::vector<Shape> once_shapes;
  std::vector<Pattern> special_patterns;
  std::vector<DType> dtypes{DType::f32};
  std::vector<Op> ops{Op::sum};
  // A lab's variants (catalog.hpp: lab 9's fan-in K), each graded on the whole plan; the once
  // sizes run in the first only. {0}: a lab without.
  std::vector<unsigned> variants{0};
  // Each variant again in other block sizes (catalog.hpp's with_block_size: lab 9's 512, 256 and
  // 128 threads), on the special sizes with random inputs only; each run must launch that size.
  std::vector<unsigned> block_variants;
  // Random sizes stop after this many wrong ones (per type and op); the other patterns still run.
  int stop_after_wrong = 6;
  Origin origin = Origin::graded;
};

// The cases a plan runs when every one passes: (sizes + special sizes x patterns) x types x ops
// x variants, plus the once sizes and the block variants' special sizes (shapes in place of
// sizes for a row lab).
std::size_t case_count(const CorrectnessPlan& plan);

// Powers of two from `low` to `high`.
std::vector<std::size_t> powers_of_two(std::size_t low, std::size_t high);

Verdict check_correctness(int lab, const CorrectnessPlan& plan);

}  // namespace reduce_lab::grader
