// The three ways a lab is graded (design §2, §4-§6). Each returns a Verdict and never
// throws: a broken lab is a failed check with a reason, not a crashed grader.
#pragma once

#include <vector>

#include "inputs.hpp"
#include "modules.hpp"
#include "verdict.hpp"

namespace reduce_lab::grader {

struct CorrectnessPlan {
  std::vector<std::size_t> sizes;              // every size, with random inputs
  std::vector<std::size_t> special_sizes;      // sizes that also get the other patterns
  std::vector<Pattern> special_patterns;
  std::vector<DType> dtypes{DType::f32};
  std::vector<Op> ops{Op::sum};
  // Random sizes stop after this many wrong ones (per type and op); the other patterns still run.
  int stop_after_wrong = 6;
  Origin origin = Origin::graded;
};

// The cases a plan runs when every one passes: (sizes + special sizes x patterns) x types x ops.
std::size_t case_count(const CorrectnessPlan& plan);

// Powers of two from `low` to `high`.
std::vector<std::size_t> powers_of_two(std::size_t low, std::size_t high);

Verdict check_correctness(int lab, const CorrectnessPlan& plan);

// Labs 1-3: one pass at every size is counted and must equal the book kernel's model; lab 3's
// tree in shared memory may cost no more wavefronts than a conflict-free convergent tree.
Verdict check_book_requests(int lab, const std::vector<std::size_t>& sizes, Origin origin = Origin::graded);

// Labs 4-7: what a single-launch reduction must do with global memory at every size:
// every input byte loaded exactly once (n x sizeof(T) bytes) in as few sectors as that takes
// (ceil(bytes / 32), plus the seam sectors its contiguous warp-wide runs may share with one
// another: Counters::seam_sectors), no stores, and the atomics and barriers the lesson promises.
struct TrafficPlan {
  std::vector<std::size_t> sizes;
  std::vector<DType> dtypes{DType::f32};
  std::vector<Op> ops{Op::sum};
  // Elements one block covers, for "one atomic per block": atomics = ceil(n / this).
  // 0: one atomic per block launched, however many the lab chose to launch.
  std::size_t elements_per_block = 0;
  unsigned max_barriers_per_block = 0;  // 0: not graded
  Origin origin = Origin::graded;
  // Labs 4-6: shared-memory wavefronts at most a conflict-free convergent tree's (shared_checks.hpp).
  bool shared_tree_bound = false;
};
Verdict check_traffic(int lab, const TrafficPlan& plan);

// Median time of lab `lab` against its baseline in grader/labs.json (the CPU loop of Fig. 10.1,
// or the student's own earlier lab). The minimum comes from REDUCE_LAB_MIN_SPEEDUP, else the
// lab's gates; a lab gated on bandwidth must also reach REDUCE_LAB_MIN_BANDWIDTH (else its
// gate) of the device's measured copy bandwidth. Every timed sample gets one of two inputs of
// different contents at the same address, and its result is checked: work cannot be cached or
// skipped.
Verdict check_speedup(int lab);

// The number of floats the speed tests time: 2^26, less when the device has too little free
// memory, or REDUCE_LAB_BENCH_N.
std::size_t benchmark_floats();

// The standard "not implemented yet" / "does not compile" verdicts, shared by all checks.
Verdict not_loadable(int lab, const LoadedLab& loaded);
Verdict not_implemented(int lab, Origin origin);


}  // namespace reduce_lab::grader
