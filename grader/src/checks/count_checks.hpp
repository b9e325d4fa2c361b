// The global-memory counts a lab is graded on (design §4), from the counting builds: labs 1-3
// issue exactly the book kernel's requests; labs 4-7 load every input byte once, in as few
// sectors as that takes. Both also judge the tree in shared memory where the lab asks: no bank
// conflicts, no divergent owners' idle lanes (shared_checks.hpp). Each returns a Verdict and
// never throws.
#pragma once

#include <vector>

#include "base/inputs.hpp"
#include "run/modules.hpp"
#include "base/verdict.hpp"

namespace reduce_lab::grader {

// Labs 1-3: one pass at every size is counted and must equal the book kernel's model; lab 3's
// tree in shared memory must be free of bank conflicts and of divergent owners' idle lanes.
Verdict check_book_requests(int lab, const std::vector<std::size_t>& sizes, Origin origin = Origin::graded);

// Labs 4-7: what a single-launch reduction must do with global memory at every size:
// every input byte loaded exactly once (n x sizeof(T) bytes) in as few sectors as that takes
// (ceil(bytes / 32), plus the seam sectors its contiguous warp-wide runs may share with one
// another: Counters::seam_sectors), no stores, and the atomics and barriers the lesson promises.
struct TrafficPlan {
  std::vector<std::size_t> sizes;
  // Row labs: the matrices counted, in place of sizes. Each row's result is written once: one
  // store per row, or where blocks share rows, one atomic per block (and more blocks than rows).
  std::vector<Shape> shapes;
  std::vector<Shape> once_shapes;  // counted in the first type and op only (plans.hpp: the emulator's)
  std::vector<DType> dtypes{DType::f32};
  std::vector<Op> ops{Op::sum};
  // Elements one block covers, for "one atomic per block": atomics = ceil(n / this).
  // 0: one atomic per block launched, however many the lab chose to launch.
  std::size_t elements_per_block = 0;
  unsigned max_barriers_per_block = 0;  // 0: not graded
  // A lab's variants (catalog.hpp), each counted on the whole plan; {0}: a lab without. Where they
  // are a tree's fan-in K, a block may execute ceil(log_K(block size)) barriers.
  std::vector<unsigned> variants{0};
  bool barriers_per_fan_in_step = false;
  Origin origin = Origin::graded;
  // Labs 4-6: the tree in shared memory without bank conflicts or idle lanes (shared_checks.hpp).
  bool shared_tree_bound = false;
};
Verdict check_traffic(int lab, const TrafficPlan& plan);

}  // namespace reduce_lab::grader
