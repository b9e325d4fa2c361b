// Lab 12's check: each of its trees run with Order (abi.h, order_probe.h), an associative operator
// that is not commutative, at every power of two up to 2^15 elements; what the result says of the
// order the tree combined the input in, held to the lab's "keeps_order" (grader/labs.json).
#pragma once

#include "checks/correctness_check.hpp"
#include "base/verdict.hpp"

namespace reduce_lab::grader {

// What Order's result of one tree says about the order it kept.
enum class TreeOrder {
  keeps,     // positions 0 .. n-1, left to right
  mirrored,  // positions n-1 .. 0: every combination put its right-hand operand first
  mixed,     // every position once, in neither order
  lost,      // not positions 0 .. n-1: an element dropped or combined twice
};
const char* tree_order_name(TreeOrder order);
// Order's result `bits` of a reduction of positions 0 .. n-1.
TreeOrder classify_order(unsigned bits, std::size_t n);

// Lab 12's correctness test: the sums of `plan` (check_correctness), then the order of each tree.
Verdict check_order(int lab, const CorrectnessPlan& plan);

}  // namespace reduce_lab::grader
