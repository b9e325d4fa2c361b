// The shared-memory part of the requests checks (design §11): what a lab's tree costs in
// shared-memory wavefronts, against a conflict-free convergent tree of the same blocks.
#pragma once

#include <optional>
#include <string>

#include "modules.hpp"

namespace reduce_lab::grader {

// A conflict-free convergent tree over one block of `warps` warps: every thread stores its
// partial sum, each step's active threads (stride = blockDim/2 ... 1, adjacent owners) load
// two elements and store one, and thread 0 reads the result. Counted with the kit's bank
// model (reduce_lab/bank_tally.h), so it is the same arithmetic that counts the lab.
Counters shared_tree_model(unsigned warps);

enum class SharedProblem { bank_conflicts, divergence, excess };

struct SharedJudgement {
  std::optional<SharedProblem> problem;
  unsigned long long wavefronts = 0;  // the lab's, all kinds
  unsigned long long conflicts = 0;
  unsigned long long bound = 0;       // the conflict-free convergent tree's, for the same blocks
  std::string line;                   // what was measured against what, for a failure's message
  std::string summary;                // "bank conflicts: 606 wavefronts, tree 141"
};

// Labs 3-6: the launch's shared-memory wavefronts may not exceed those of a conflict-free
// convergent tree over the same blocks (a bound: sequential addressing, padding, a swizzle
// or shuffles all stay within it).
SharedJudgement judge_shared_tree(const Counters& counters, const LaunchStats& launches);

// The hint and the page for a shared-memory problem of lab `lab`.
std::string shared_hint(SharedProblem problem);

// "141 wf (0 conflicts)": the figures a grade table shows.
std::string describe_shared(const Counters& counters);
// "141 wf": the same, for the grade table's requests column.
std::string describe_shared_short(const Counters& counters);

}  // namespace reduce_lab::grader
