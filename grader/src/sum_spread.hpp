// How far apart the sums of the same floats lie when they are added in other orders: the CPU
// loop (in float and in double), labs 1, 2 and 4 (float), lab 7 (float and double), each run
// again and again (labs 4 and 7 end in atomics, whose order changes from run to run). The
// figures behind the kit's tolerance (docs/grading.md, "Why the tolerance"): labtools --spread.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace reduce_lab::grader {

// n random floats in [-1, 1) (the correctness test's uniform pattern, from the input seed),
// summed `runs` times by each lab that loads and by the CPU loop, against their sum in long
// double with compensation (exact to far below a float's or a double's rounding). Each row:
// {"name", "type", "results": [...], "distinct", "largest_error", "in_tolerance": largest error
// / the kit's tolerance for that type}. A lab that cannot be loaded is in "left_out".
nlohmann::json sum_spread(std::size_t n, int runs);

// The rows as a table: what, type, distinct results, the largest error and its share of the
// tolerance.
std::string sum_spread_table(const nlohmann::json& spread);

}  // namespace reduce_lab::grader
