// Which idea a failure points to: the "Revisit:" line of every check's message. It is chosen
// from what was measured (the fault, the sizes and patterns of the wrong cases, whether one
// block alone was right, the counters), and falls back on the lab's own idea only where the
// measurements point nowhere more precise. The checks measure; this file only chooses words.
#pragma once

#include <optional>
#include <string>

#include "base/faults.hpp"

namespace reduce_lab::grader {

// One line a student can act on: the idea of lab `lab` to revisit (its "revisit" in grader/labs.json).
const char* idea_to_revisit(int lab);

// What the wrong cases of a correctness check have in common.
struct WrongResults {
  bool single_launch = false;        // one call reduces any n (labs 4-7), blocks combine into output[0]
  bool race = false;                 // some case's result depended on the thread order
  bool any_nan = false;              // output[0] came back as the grader's NaN poison
  bool all_extremum_identity = false;  // max/min cases that gave 0, or failed only on all-negative input
  bool all_sums = false;             // every wrong case is a sum: its identity is 0
  bool all_large = false;            // only the large-value pattern was wrong
  bool one_type_of_several = false;  // wrong in one type only, of several graded
  bool all_odd_sizes = false;        // every wrong n is not a power of two ...
  bool power_of_two_passed = false;  // ... while a power of two passed
  bool all_several_blocks = false;   // every wrong case launched more than one block ...
  bool one_block_passed = false;     // ... while a case of one block was right
  bool block_size_ignored = false;   // some case launched another block size than the grader asked for
  bool all_other_block_sizes = false;  // every wrong case ran in a block size besides the lab's own (lab 9)
};
// The hint for wrong results; empty when nothing points anywhere but the lab's own idea.
std::string wrong_result_hint(const WrongResults& wrong);

// The hint for a fault at a case. `whole_segments`: every block of the case had all
// 2 x blockDim.x of its elements (labs 1-3, n a power of two), so no element was missing and
// a read past the end cannot be a missing bounds check.
std::string fault_hint_at(FaultKind kind, bool whole_segments);

// Every timed call must do the whole reduction (the speed test's wrong timed result).
const char* timed_hint();

// What can be wrong with a single-launch lab's global-memory traffic, the root cause first:
// the first kind found names the summary and the hint.
enum class TrafficProblem {
  block_result_stored,  // atomics missing where each block stored (or +=) its result instead
  loads_missing,
  loads_repeated,
  uncoalesced,
  stores,
  atomics,
  row_stores,   // row labs: not exactly one store per row (where no block shares its row)
  row_atomics,  // row labs: atomics where no row is shared, or more than one per block
  barriers,
  shared_memory,  // the tree has bank conflicts or divergent owners' idle lanes (shared_checks.hpp)
};
const char* traffic_summary(TrafficProblem problem);
// `generic_ops`: the lab combines with every op (lab 7), not with atomicAdd alone.
std::string traffic_hint(TrafficProblem problem, bool generic_ops, int lab);

}  // namespace reduce_lab::grader
