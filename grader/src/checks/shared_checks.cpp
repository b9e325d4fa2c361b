#include "checks/shared_checks.hpp"

#include <cstdio>

#include <reduce_lab/bank_tally.h>

namespace reduce_lab::grader {

namespace {

unsigned long long total(const unsigned long long (&values)[kAccessKinds]) {
  unsigned long long sum = 0;
  for (int k = 0; k < kAccessKinds; ++k) sum += values[k];
  return sum;
}

double percent(unsigned long long part, unsigned long long whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
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

// One step of a tree: the owners load input_s[t + stride] and input_s[t], and store input_s[t].
template <class Owner>
void step(Counters& c, unsigned warps, unsigned stride, Owner owner) {
  auto own = [](unsigned t) { return t; };
  instruction(c, Access::load, warps, owner, [stride](unsigned t) { return t + stride; });
  instruction(c, Access::load, warps, owner, own);
  instruction(c, Access::store, warps, owner, own);
}

}  // namespace

Counters shared_tree_model(unsigned warps, Owners owners) {
  Counters c{};
  unsigned threads = 32;
  while (threads < 32 * warps) threads *= 2;  // the tree of the next power of two covers the block
  auto own = [](unsigned t) { return t; };
  instruction(c, Access::store, warps, [](unsigned) { return true; }, own);
  if (owners == Owners::adjacent) {
    for (unsigned stride = threads / 2; stride >= 1; stride /= 2)
      step(c, warps, stride, [stride](unsigned t) { return t < stride; });
  } else {
    for (unsigned stride = 1; stride < threads; stride *= 2)
      step(c, warps, stride, [stride](unsigned t) { return t % (2 * stride) == 0; });
  }
  instruction(c, Access::load, 1, [](unsigned t) { return t == 0; }, own);
  return c;
}

unsigned long long shared_idle_lanes(const Counters& c) {
  return 32 * total(c.shared_instructions) - total(c.shared_active_lanes);
}

SharedJudgement judge_shared_tree(const Counters& counters, const LaunchStats& launches) {
  SharedJudgement j;
  j.conflicts = total(counters.shared_conflicts);
  j.idle_lanes = shared_idle_lanes(counters);
  if (launches.blocks == 0) return j;
  const unsigned warps = static_cast<unsigned>(launches.warps / launches.blocks);
  const Counters adjacent = shared_tree_model(warps, Owners::adjacent);
  const Counters divergent = shared_tree_model(warps, Owners::divergent);
  j.adjacent_idle_lanes = shared_idle_lanes(adjacent) * launches.blocks;
  j.divergent_idle_lanes = shared_idle_lanes(divergent) * launches.blocks;
  // In a block of one warp both trees issue the same instructions: idle lanes there are the
  // tree's own, and there is no divergence to judge.
  if (j.divergent_idle_lanes > j.adjacent_idle_lanes)
    j.max_idle_lanes = (j.adjacent_idle_lanes + j.divergent_idle_lanes) / 2;

  const unsigned long long wavefronts = total(counters.shared_wavefronts);
  const unsigned long long instructions = total(counters.shared_instructions);
  const unsigned long long lanes = total(counters.shared_active_lanes);
  char text[640];
  if (j.conflicts > 0) {
    j.problem = SharedProblem::bank_conflicts;
    std::snprintf(text, sizeof text,
                  "shared-memory wavefronts %llu (load %llu, store %llu) in %llu warp instructions, of which %llu "
                  "are bank conflicts; expected 0 bank conflicts (the ideal of these instructions is %llu wavefronts)",
                  wavefronts, counters.shared_wavefronts[0], counters.shared_wavefronts[1], instructions, j.conflicts,
                  wavefronts - j.conflicts);
    j.lines.push_back(text);
    j.summary = "bank conflicts: " + std::to_string(j.conflicts) + " of " + std::to_string(wavefronts) + " wf";
  }
  if (j.max_idle_lanes && j.idle_lanes > j.max_idle_lanes) {
    const unsigned long long adjacent_instructions = total(adjacent.shared_instructions) * launches.blocks;
    const unsigned long long divergent_instructions = total(divergent.shared_instructions) * launches.blocks;
    std::snprintf(text, sizeof text,
                  "shared-memory warp instructions %llu with %llu active lanes (SIMD efficiency %.1f%%): %llu lanes "
                  "idle%s; a convergent tree needs %llu instructions with %llu idle (%.1f%%), divergent owners %llu "
                  "with %llu idle (%.1f%%); expected at most %llu idle lanes (halfway between the two)",
                  instructions, lanes, percent(lanes, 32 * instructions), j.idle_lanes,
                  j.conflicts ? "" : ", with no bank conflicts", adjacent_instructions, j.adjacent_idle_lanes,
                  percent(32 * adjacent_instructions - j.adjacent_idle_lanes, 32 * adjacent_instructions),
                  divergent_instructions, j.divergent_idle_lanes,
                  percent(32 * divergent_instructions - j.divergent_idle_lanes, 32 * divergent_instructions),
                  j.max_idle_lanes);
    j.lines.push_back(text);
    if (!j.problem) {
      j.problem = SharedProblem::divergence;
      j.summary =
          "divergence: " + std::to_string(j.idle_lanes) + " idle lanes, max " + std::to_string(j.max_idle_lanes);
    }
  }
  return j;
}

nlohmann::json shared_bound_json(const SharedJudgement& j) {
  return {{"conflicts", 0},
          {"idle_lanes", j.max_idle_lanes ? nlohmann::json(j.max_idle_lanes) : nlohmann::json(nullptr)},
          {"adjacent_owners_idle_lanes", j.adjacent_idle_lanes},
          {"divergent_owners_idle_lanes", j.divergent_idle_lanes},
          {"measured_idle_lanes", j.idle_lanes}};
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
  }
  return "";
}

std::string describe_shared(const Counters& c) {
  return std::to_string(total(c.shared_wavefronts)) + " wf (" + std::to_string(total(c.shared_conflicts)) +
         " conflicts)";
}

std::string describe_shared_short(const Counters& c) { return std::to_string(total(c.shared_wavefronts)) + " wf"; }

}  // namespace reduce_lab::grader
