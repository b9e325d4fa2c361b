// ./lab bench's sweep of every lab over sizes, with lab 8's rows table: measurements that are
// not a lab's grade (labtools --bench). CUB is there only in GPU builds (REDUCE_LAB_HAVE_CUB);
// on the emulator these run too, which the kit's own tests use to check the files they write,
// but their times mean nothing there.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace reduce_lab::grader {

struct BenchPlan {
  int low_log = 16;   // sizes 2^low_log ... 2^high_log floats, as far as they fit
  // 2^31: the largest power of two the labs' `unsigned n` holds. The sweep stops earlier, with
  // a note, at the first size that does not fit in the device's free memory.
  int high_log = 31;
  std::string sources = "solutions";  // what the modules were built from: labs or solutions
};

// The matrix of lab 8's table (labtools --bench-rows): 2^26 floats, the speed tests' size.
constexpr std::size_t kRowsTableFloats = std::size_t{1} << 26;

// bench.json: for each size that fits in the device's free memory, every lab that is right at
// the smallest size, CUB and the copy: median time, spread and GB/s. Prints progress.
// A row lab (lab 8) right on a small matrix gets "rows" instead, its table (bench_rows() in
// rows_speed_check.hpp) on a matrix of kRowsTableFloats or 2^high_log floats, the smaller. A lab
// whose variants also run in other block sizes (lab 9) gets "block_sizes": every variant in
// every block size at 2^26 floats (or 2^high_log, the smaller).
nlohmann::json run_bench(const BenchPlan& plan);

// The sweep as two tables (GB/s, then median ms): sizes down, contenders across; then the
// rows table where there is one.
std::string bench_table(const nlohmann::json& bench);

// The rows table (bench.json's "rows", --bench-rows's rows.json): one row length per line, the
// lab's and CUB's median ms and GB/s, their share of the copy bandwidth, and CUB's time over the lab's.
std::string bench_rows_table(const nlohmann::json& rows);

// bench.json's "block_sizes" (lab 9): a row per block size, a column per variant, GB/s.
std::string block_sizes_table(const nlohmann::json& table);

}  // namespace reduce_lab::grader
