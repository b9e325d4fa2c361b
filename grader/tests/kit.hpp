// What every lab test file uses: the checks, and grade(), which records a verdict for the
// table, prints it, and fails the test case when the verdict does.
#pragma once

#include "catch.hpp"
#include "checks.hpp"

namespace reduce_lab::grader {

void grade(int lab, const char* test, const Verdict& verdict);

// Labs 1-3 (multipass, n a power of two): every power of two from 2 to 2^20 with random
// inputs, and the other patterns at a few sizes.
CorrectnessPlan power_of_two_plan();

// Labs 4-7 (any n): the odd sizes of design §2 and the powers of two, random inputs, and
// the other patterns (all-negative too, for max) at a few of them.
CorrectnessPlan any_size_plan();

// Sizes at which labs 4-7 are counted: one element, a partial warp, a partial block,
// many blocks with a ragged end.
std::vector<std::size_t> traffic_sizes();

// What the races test runs under compute-sanitizer: a few sizes, one and many blocks.
CorrectnessPlan sanitizer_plan(const std::vector<std::size_t>& sizes);

}  // namespace reduce_lab::grader
