// Speed of a lab graded in variants (lab 9: its tree's fan-in K): every variant timed in one
// interleaved run against the lab's own first variant, every timed result checked. The gate is
// lenient, as an exploring lab's should be: the best of the other variants must not be slower
// than the first by more than the noise (the lab's min_speedup, 0.95 for lab 9). Returns a
// Verdict and never throws.
#pragma once

#include "base/verdict.hpp"

namespace reduce_lab::grader {

Verdict check_variant_speedup(int lab);

}  // namespace reduce_lab::grader
