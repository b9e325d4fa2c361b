// Speed of a row lab (lab 8): its median time on three matrices of the benchmark's size -
// tall-skinny, square, short-wide - against the student's own baseline lab (7) reducing the
// same elements as one vector, with CUB's segmented reduction of the same matrix beside it
// where the grader was built with CUB. Every timed sample gets one of two inputs with one
// element changed, and every row of its result is checked. Returns a Verdict and never throws.
#pragma once

#include <nlohmann/json.hpp>

#include "inputs.hpp"
#include "modules.hpp"
#include "verdict.hpp"

namespace reduce_lab::grader {

// The matrices timed, of about `elements` floats each: tall-skinny (7 columns), square, and
// short-wide (3 rows).
std::vector<Shape> rows_speed_shapes(std::size_t elements);

// The minimum is the lab's, as for check_speedup (REDUCE_LAB_MIN_SPEEDUP, else its gates), and
// must hold at every shape; the ratio to CUB and the share of copy bandwidth are reported beside it.
Verdict check_rows_speedup(int lab);

// The reference solution's table for docs/08-rows.md: for each row length, its time beside
// CUB's and a copy of the same bytes (labgrader --bench-rows); `module` is lab 8's.
nlohmann::json bench_rows(const ModuleInfo* module, int samples);

}  // namespace reduce_lab::grader
