// The shared-memory part of the requests checks (design §11): a lab's tree is judged on the
// two flaws the lessons name, each against the book's trees over the same blocks: bank
// conflicts (wavefronts beyond one per warp instruction) and idle lanes (warp instructions
// issued for a few active lanes, as divergent owners do). Extra conflict-free work with busy
// lanes (a copy, a padded layout, a second buffer) is no flaw here; the speed test judges it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/modules.hpp"

namespace reduce_lab::grader {

// Who adds at each step of a tree over one block's shared array.
enum class Owners {
  adjacent,   // t < stride, stride = blockDim/2 ... 1: lab 2's owners (Fig. 10.9), the lesson's tree
  divergent,  // t % (2 * stride) == 0, stride = 1 ... blockDim/2: lab 1's owners (Fig. 10.6)
};

// A tree over one block of `warps` warps: every thread stores its partial sum, each step's
// owners load two elements and store one, and thread 0 reads the result. Counted with the
// kit's bank model (reduce_lab/bank_tally.h), so it is the same arithmetic that counts the lab.
// Blocks of W warps are modelled as the tree of the next power of two >= 32W threads.
Counters shared_tree_model(unsigned warps, Owners owners = Owners::adjacent);

// Lane slots of shared-memory warp instructions that no active lane used: 32 per
// instruction, less the active lanes (1 - SIMD efficiency, in lanes).
unsigned long long shared_idle_lanes(const Counters& counters);

enum class SharedProblem { bank_conflicts, divergence };

struct SharedJudgement {
  std::optional<SharedProblem> problem;  // the first flaw found, bank conflicts first
  unsigned long long conflicts = 0;      // the lab's, all kinds
  unsigned long long idle_lanes = 0;     // the lab's
  // The same blocks' trees: adjacent owners (the lesson's) and divergent owners, and the idle
  // lanes allowed, halfway between them. 0 allowed: not judged (a block of one warp, where
  // both trees issue the same instructions).
  unsigned long long adjacent_idle_lanes = 0, divergent_idle_lanes = 0, max_idle_lanes = 0;
  std::vector<std::string> lines;        // what was measured against what, one per flaw found
  std::string summary;                   // "bank conflicts: 465 of 606 wf"
};

// Labs 3-6: the launch's shared-memory accesses have no bank conflicts, and leave at most
// halfway between the idle lanes of adjacent and of divergent owners over the same blocks.
SharedJudgement judge_shared_tree(const Counters& counters, const LaunchStats& launches);

// The bounds of a judgement as report.json lists them.
nlohmann::json shared_bound_json(const SharedJudgement& judgement);

// The hint and the page for a shared-memory problem.
std::string shared_hint(SharedProblem problem);

// "141 wf (0 conflicts)": the figures a grade table shows.
std::string describe_shared(const Counters& counters);
// "141 wf": the same, for the grade table's requests column.
std::string describe_shared_short(const Counters& counters);

}  // namespace reduce_lab::grader
