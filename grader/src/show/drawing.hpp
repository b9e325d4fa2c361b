// What the two writers (terminal.hpp, svg.hpp) draw: the student's picture, the reference's
// beside it when there is one, the first difference, and how a row too wide is summarised.
// Both writers summarise the same way, so the terminal and the SVG always agree.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>

#include "show/layout.hpp"

namespace reduce_lab::grader::show {

struct Drawing {
  std::string title;                   // "lab 1 (simple) at n = 16: one block of 8 threads"
  const Picture* reference = nullptr;  // null: no solutions/ here
  std::string reference_label;         // "reference (solutions/01_simple.cu)"
  const Picture* yours = nullptr;      // null: drawing the reference alone (the docs' figures)
  std::string yours_label;             // "yours (labs/01_simple.cu)"
  Difference difference;
  std::string note;  // a line under the picture (why no reference, the SVG's path)
};

// One area of a row (the threads, or one memory) as columns: each column stands for `per`
// items. Up to kMaxColumns columns an item gets its own; past that, items are grouped, and the
// heading says how many a column holds: a wide step is summarised, never wrapped.
struct Columns {
  long long items = 0;
  long long per = 1;
  long long count() const { return per ? (items + per - 1) / per : 0; }
};

// Threads: one column per thread up to a warp; past that one per warp, shaded by its lanes.
inline bool threads_by_warp(const Picture& p) { return p.threads > 32; }
inline long long thread_columns(const Picture& p) { return threads_by_warp(p) ? p.warps() : p.threads; }

// The most columns one memory gets, so that a row of the picture fits a 100-column terminal:
// what the step label, a stop mark and the threads leave, shared among the memories (32 at most).
constexpr long long kRowWidth = 100;
inline long long memory_cap(const Picture& p) {
  const long long memories = std::max<long long>(1, static_cast<long long>(p.memories.size()));
  const long long left = kRowWidth - 16 - std::max<long long>(thread_columns(p), 7) - 1 - memories;
  return std::clamp<long long>(left / memories, 8, 32);
}

inline Columns columns_of(const Picture& p, long long items) {
  const long long cap = memory_cap(p);
  Columns c;
  c.items = items;
  // A power of two per column, as a tree's strides are: a summarised column lines up with them.
  while (c.per * cap < items) c.per *= 2;
  return c;
}

// The uses of the cells one column stands for (Use bits, or-ed).
inline unsigned char column_use(const std::vector<Cell>& cells, const Columns& c, long long column) {
  unsigned char use = 0;
  const long long end = std::min<long long>(c.items, (column + 1) * c.per);
  for (long long i = column * c.per; i < end; ++i) use |= cells[static_cast<std::size_t>(i)].use;
  return use;
}

// "input", or "input[0..2047], 64 a column" where summarised.
inline std::string area_heading(const std::string& name, const Columns& c) {
  if (c.per == 1) return name;
  return name + " (" + std::to_string(c.per) + " a column)";
}

// A step's counts as both writers print them: requests "ld+st" (+atomic when there are any),
// and the totals over the kinds of access; "-" for the SIMD share of a step without accesses.
struct StepCounts {
  std::string requests;
  unsigned long long sectors = 0, wavefronts = 0, conflicts = 0;
  std::string simd;
};
inline StepCounts counts_of(const Step& step) {
  const Counters& c = step.counts;
  StepCounts out;
  out.requests = std::to_string(c.requests[0]) + "+" + std::to_string(c.requests[1]);
  if (c.requests[2]) out.requests += "+" + std::to_string(c.requests[2]);
  unsigned long long instructions = 0, lanes = 0;
  for (int k = 0; k < kAccessKinds; ++k) {
    out.sectors += c.sectors[k];
    out.wavefronts += c.shared_wavefronts[k];
    out.conflicts += c.shared_conflicts[k];
    instructions += c.instructions[k] + c.shared_instructions[k];
    lanes += c.active_lanes[k] + c.shared_active_lanes[k];  // SIMD efficiency: lanes / 32 per instruction
  }
  char simd[16] = "-";
  if (instructions)
    std::snprintf(simd, sizeof simd, "%.0f%%",
                  100.0 * static_cast<double>(lanes) / (32.0 * static_cast<double>(instructions)));
  out.simd = simd;
  return out;
}

}  // namespace reduce_lab::grader::show
