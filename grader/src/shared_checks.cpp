#include "shared_checks.hpp"

#include <reduce_lab/bank_tally.h>

namespace reduce_lab::grader {

namespace {

unsigned long long total(const unsigned long long (&values)[kAccessKinds]) {
  unsigned long long sum = 0;
  for (int k = 0; k < kAccessKinds; ++k) sum += values[k];
  return sum;
}

// One shared-memory instruction per warp with an active lane: lanes t with active(t) touch
// float element element(t).
template <class Active, class Element>
void instruction(Counters& c, Access kind, unsigned warps, Active active, Element element) {
  for (unsigned w = 0; w < warps; ++w) {
    BankTally tally;
    for (unsigned lane = 0; lane < 32; ++lane) {
      const unsigned t = 32 * w + lane;
      if (active(t)) tally.add(lane, 4u * element(t), 4);
    }
    tally.flush(kind, c);
  }
}

}  // namespace

Counters shared_tree_model(unsigned warps) {
  Counters c{};
  unsigned threads = 32;
  while (threads < 32 * warps) threads *= 2;  // the tree of the next power of two covers the block
  auto everyone = [](unsigned) { return true; };
  auto own = [](unsigned t) { return t; };
  instruction(c, Access::store, warps, everyone, own);
  for (unsigned stride = threads / 2; stride >= 1; stride /= 2) {
    auto owner = [stride](unsigned t) { return t < stride; };
    instruction(c, Access::load, warps, owner, [stride](unsigned t) { return t + stride; });
    instruction(c, Access::load, warps, owner, own);
    instruction(c, Access::store, warps, owner, own);
  }
  instruction(c, Access::load, 1, [](unsigned t) { return t == 0; }, own);
  return c;
}

SharedJudgement judge_shared_tree(const Counters& counters, const LaunchStats& launches) {
  SharedJudgement j;
  j.wavefronts = total(counters.shared_wavefronts);
  j.conflicts = total(counters.shared_conflicts);
  const unsigned warps = launches.blocks ? static_cast<unsigned>(launches.warps / launches.blocks) : 0;
  j.bound = total(shared_tree_model(warps).shared_wavefronts) * launches.blocks;
  if (j.wavefronts <= j.bound) return j;

  const unsigned long long instructions = total(counters.shared_instructions);
  const unsigned long long lanes = total(counters.shared_active_lanes);
  const double efficiency = instructions ? 100.0 * static_cast<double>(lanes) / (32.0 * static_cast<double>(instructions)) : 0;
  char text[640];
  if (j.conflicts > 0) {
    j.problem = SharedProblem::bank_conflicts;
    std::snprintf(text, sizeof text,
                  "shared-memory wavefronts %llu (load %llu, store %llu), of which %llu are bank conflicts; a "
                  "conflict-free convergent tree needs %llu (the ideal of these %llu instructions is %llu)",
                  j.wavefronts, counters.shared_wavefronts[0], counters.shared_wavefronts[1], j.conflicts, j.bound,
                  instructions, j.wavefronts - j.conflicts);
    j.summary = "bank conflicts";
  } else {
    // No conflicts, yet more wavefronts: more instructions, each with few active lanes.
    j.problem = (efficiency < 50) ? SharedProblem::divergence : SharedProblem::excess;
    std::snprintf(text, sizeof text,
                  "shared-memory wavefronts %llu in %llu warp instructions with %.1f%% of their lanes active (no "
                  "bank conflicts); a convergent tree needs %llu",
                  j.wavefronts, instructions, efficiency, j.bound);
    j.summary = j.problem == SharedProblem::divergence ? "divergence" : "shared traffic";
  }
  j.line = text;
  j.summary += ": " + std::to_string(j.wavefronts) + " wf, tree " + std::to_string(j.bound);
  return j;
}

std::string shared_hint(SharedProblem problem) {
  switch (problem) {
    case SharedProblem::bank_conflicts:
      return "bank conflicts: lanes of a warp that touch different words of one bank wait for each other. With "
             "interleaved addressing (index = 2 * stride * t) the lanes of a warp are 2 * stride words apart, so "
             "at stride 16 all 32 of them fall in one bank; sequential addressing (t < stride, input_s[t] += "
             "input_s[t + stride]) keeps consecutive lanes on consecutive words. docs/03-shared-memory.md, "
             "\"Banks\".";
    case SharedProblem::divergence:
      return "divergence: owners t % (2 * stride) == 0 leave most lanes of every warp idle, so each step issues an "
             "instruction in every warp for a few lanes; adjacent owners (t < stride) keep whole warps busy and "
             "retire the others. docs/02-convergent.md.";
    case SharedProblem::excess:
      return "the tree in shared memory: each element is stored once, every step reads two values and writes "
             "one, only the threads below the stride work. docs/03-shared-memory.md.";
  }
  return "";
}

std::string describe_shared(const Counters& c) {
  return std::to_string(total(c.shared_wavefronts)) + " wf (" + std::to_string(total(c.shared_conflicts)) +
         " conflicts)";
}

std::string describe_shared_short(const Counters& c) { return std::to_string(total(c.shared_wavefronts)) + " wf"; }

}  // namespace reduce_lab::grader
