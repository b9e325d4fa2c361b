// Speed of a row lab (lab 8): its median time on three matrices of the benchmark's size -
// tall-skinny, square, short-wide - against the student's own baseline lab (7) reducing the
// same elements as one vector, with CUB's segmented reduction of the same matrix beside it
// where the grader was built with CUB. Every timed sample gets one of two inputs with one
// element changed, and every row of its result is checked. Returns a Verdict and never throws.
#pragma once

#include <nlohmann/json.hpp>

#include "base/inputs.hpp"
#include "run/modules.hpp"
#include "base/verdict.hpp"

namespace reduce_lab::grader {

// The matrices timed, of about `elements` floats each: tall-skinny (7 columns), square, and
// short-wide (3 rows).
std::vector<Shape> rows_speed_shapes(std::size_t elements);

// The minimum is the lab's, as for check_speedup (REDUCE_LAB_MIN_SPEEDUP, else its gates), and
// must hold at every shape; the ratio to CUB and the share of copy bandwidth are reported beside it.
Verdict check_rows_speedup(int lab);

// The row lengths of lab 8's table that fit in a matrix of `elements`: 1, 7, 32, 33, 1000, 4096,
// 10^5 and 10^7, each with m = elements / n rows.
std::vector<std::size_t> bench_rows_lengths(std::size_t elements);

// Lab 8's table (docs/08-rows.md; labgrader --bench-rows, and ./lab bench's "rows"): at each row
// length, `module` (lab 8's) timed beside CUB's segmented reduction where built, and a copy of
// `elements` floats; "lab" and "name" say which lab. Each of "shapes" holds "rows" (m),
// "columns" (n), "bytes" (4 m n), "lab" and "cub" (sample figures, with "copy_share": their
// GB/s over "copy_gbs") and "cub_ratio" (CUB's time over the lab's). Throws std::runtime_error
// where a run failed or a timed result was wrong.
nlohmann::json bench_rows(const ModuleInfo* module, int samples, std::size_t elements);

}  // namespace reduce_lab::grader
