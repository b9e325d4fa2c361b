#include "show/layout.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include <reduce_lab/bank_tally.h>
#include <reduce_lab/warp_tally.h>

namespace reduce_lab::grader::show {

namespace {

using reduce_emu::AccessKind;
using reduce_emu::MemorySpace;

Access access_of(AccessKind kind) {
  switch (kind) {
    case AccessKind::load:
      return Access::load;
    case AccessKind::store:
      return Access::store;
    default:
      return Access::atomic;
  }
}

unsigned char use_of(AccessKind kind) {
  switch (kind) {
    case AccessKind::load:
      return kRead;
    case AccessKind::store:
      return kWritten;
    default:
      return kAtomic;
  }
}

// The value one cell of a lane's access holds: the labs' element types are 4 or 8 bytes wide;
// a wider (vector) access is read cell by cell.
bool cell_value(const reduce_emu::LaneAccess& lane, unsigned offset, unsigned cell_bytes, double* value) {
  if (cell_bytes == 4) {
    float v;
    std::memcpy(&v, lane.value + offset, 4);
    *value = v;
    return true;
  }
  if (cell_bytes == 8) {
    double v;
    std::memcpy(&v, lane.value + offset, 8);
    *value = v;
    return true;
  }
  return false;
}

std::string text_of(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// "0-3", "0, 2, 4, 6", "0-7, 9": threads or cells, runs joined.
std::string ranges(const std::vector<long long>& items, const std::string& prefix, const std::string& suffix) {
  if (items.empty()) return "nothing";
  std::string out;
  // A constant stride above one over more than four items reads best as its ends.
  if (items.size() > 4) {
    const long long stride = items[1] - items[0];
    bool even = stride > 1;
    for (std::size_t i = 2; even && i < items.size(); ++i) even = items[i] - items[i - 1] == stride;
    if (even)
      return prefix + std::to_string(items[0]) + ", " + std::to_string(items[1]) + ", ... " +
             std::to_string(items.back()) + suffix;
  }
  std::size_t runs = 0;
  for (std::size_t i = 0; i < items.size();) {
    std::size_t j = i;
    while (j + 1 < items.size() && items[j + 1] == items[j] + 1) ++j;
    if (runs == 6) {
      out += ", ... (" + std::to_string(items.size()) + " in all)";
      break;
    }
    out += (runs ? ", " : "") + std::to_string(items[i]) + (j > i ? ".." + std::to_string(items[j]) : "");
    ++runs;
    i = j + 1;
  }
  return prefix + out + suffix;
}

std::string thread_ranges(const std::vector<bool>& active) {
  std::vector<long long> ids;
  for (std::size_t t = 0; t < active.size(); ++t)
    if (active[t]) ids.push_back(static_cast<long long>(t));
  if (ids.empty()) return "no thread";
  return (ids.size() == 1 ? "thread " : "threads ") + ranges(ids, "", "");
}

const char* state_name(reduce_emu::StoppedThread::State state) {
  switch (state) {
    case reduce_emu::StoppedThread::State::running:
      return "still running";
    case reduce_emu::StoppedThread::State::at_barrier:
      return "wait at a barrier";
    case reduce_emu::StoppedThread::State::at_warp_collective:
      return "wait in a warp collective";
    case reduce_emu::StoppedThread::State::exited:
      return "had exited";
    default:
      return "faulted";
  }
}

// "threads 0-3 wait at a barrier (01_simple.cu:20); 4-7 had exited"
std::string where_threads_were(const std::vector<reduce_emu::StoppedThread>& threads) {
  std::map<std::string, std::vector<long long>> groups;
  std::vector<std::string> order;
  for (const reduce_emu::StoppedThread& t : threads) {
    std::string what = state_name(t.state);
    if (!t.file.empty()) what += " (" + t.file + ":" + std::to_string(t.line) + ")";
    if (!groups.count(what)) order.push_back(what);
    groups[what].push_back(t.thread);
  }
  std::string out;
  for (const std::string& what : order) {
    const std::vector<long long>& ids = groups[what];
    out += (out.empty() ? "" : "; ") + std::string(ids.size() == 1 ? "thread " : "threads ") + ranges(ids, "", "") +
           " " + what;
  }
  return out;
}

}  // namespace

Picture layout(const reduce_emu::Record& record, std::uintptr_t input, std::size_t n) {
  Picture picture;
  picture.n = n;
  picture.truncated = record.truncated;

  // The block drawn in each launch: the one that stopped it, else block 0.
  std::vector<unsigned long long> drawn(record.launches.size(), 0);
  for (std::size_t l = 0; l < record.launches.size(); ++l) {
    const reduce_emu::RecordedLaunch& launch = record.launches[l];
    if (launch.end.outcome != reduce_emu::LaunchOutcome::finished) drawn[l] = launch.end.block;
    const unsigned threads = launch.block.x * launch.block.y * launch.block.z;
    if (l == 0) {
      picture.kernel = launch.kernel.substr(0, launch.kernel.find('('));
      picture.blocks = 1ull * launch.grid.x * launch.grid.y * launch.grid.z;
    }
    picture.threads = std::max(picture.threads, threads);
  }

  // The arrays, in the order the kernel first touched them; a cell is the narrowest access.
  std::map<std::uintptr_t, std::size_t> global_index;  // allocation -> memory
  int shared_index = -1;
  for (std::size_t l = 0; l < record.launches.size(); ++l)
    for (const reduce_emu::RecordedInstruction& ins : record.launches[l].instructions) {
      if (ins.block != drawn[l]) continue;
      Memory* memory;
      if (ins.space == MemorySpace::shared) {
        if (shared_index < 0) {
          shared_index = static_cast<int>(picture.memories.size());
          picture.memories.push_back({"shared", true, 0, ins.bytes, 0});
        }
        memory = &picture.memories[static_cast<std::size_t>(shared_index)];
        for (const reduce_emu::LaneAccess& lane : ins.lanes)
          memory->cells = std::max(memory->cells, (lane.shared_offset + ins.bytes + 3) / 4);  // in 4-byte cells for now
      } else {
        auto [at, fresh] = global_index.emplace(ins.allocation, picture.memories.size());
        if (fresh) {
          Memory m;
          m.allocation = ins.allocation;
          m.cell_bytes = ins.bytes;
          m.cells = static_cast<long long>(ins.allocation_bytes);  // in bytes until the end
          picture.memories.push_back(m);
        }
        memory = &picture.memories[at->second];
      }
      memory->cell_bytes = std::min(memory->cell_bytes, ins.bytes);
    }
  int others = 0;
  bool have_output = false;
  for (Memory& memory : picture.memories) {
    if (memory.shared) {
      memory.cells = (memory.cells * 4 + memory.cell_bytes - 1) / memory.cell_bytes;
      continue;
    }
    memory.cells /= memory.cell_bytes;
    if (memory.allocation == input) {
      memory.name = "input";
    } else if (!have_output) {
      memory.name = "output";
      have_output = true;
    } else {
      memory.name = "global " + std::to_string(++others + 1);
    }
  }
  // input first, then output, then the rest: the order the book's figures read in.
  std::stable_sort(picture.memories.begin(), picture.memories.end(), [](const Memory& a, const Memory& b) {
    auto rank = [](const Memory& m) { return m.name == "input" ? 0 : m.shared ? 1 : m.name == "output" ? 3 : 2; };
    return rank(a) < rank(b);
  });
  std::map<std::uintptr_t, std::size_t> memory_of;
  std::size_t shared_memory = 0;
  for (std::size_t i = 0; i < picture.memories.size(); ++i) {
    if (picture.memories[i].shared)
      shared_memory = i;
    else
      memory_of[picture.memories[i].allocation] = i;
  }

  // Every interval of every launch gets its row, accessed or not (a step of only a barrier), up
  // to kStepsDrawn of them; past those only the interval the launch stopped in.
  std::map<std::pair<std::size_t, unsigned>, std::size_t> step_of;
  std::vector<unsigned> rows_made(record.launches.size(), 0);  // intervals 0 .. rows_made - 1 have rows
  auto add_row = [&](std::size_t l, unsigned interval) {
    Step step;
    step.launch = l;
    step.interval = interval;
    step.lanes_per_warp.assign(picture.warps(), 0);
    step.thread_active.assign(picture.threads, false);
    for (const Memory& memory : picture.memories) step.cells.emplace_back(static_cast<std::size_t>(memory.cells));
    step_of[{l, interval}] = picture.steps.size();
    picture.steps.push_back(std::move(step));
  };
  auto step_at = [&](std::size_t l, unsigned interval) -> Step& {
    for (; rows_made[l] <= interval && rows_made[l] < kStepsDrawn; ++rows_made[l]) add_row(l, rows_made[l]);
    if (interval >= kStepsDrawn && step_of.count({l, interval}) == 0) add_row(l, interval);
    return picture.steps[step_of[{l, interval}]];
  };

  for (std::size_t l = 0; l < record.launches.size(); ++l) {
    const reduce_emu::RecordedLaunch& launch = record.launches[l];
    const bool stopped = launch.end.outcome != reduce_emu::LaunchOutcome::finished;
    auto drawn_interval = [&](unsigned interval) {
      return interval < kStepsDrawn || (stopped && interval == launch.end.interval);
    };
    unsigned last_interval = stopped ? launch.end.interval : 0;
    std::map<std::pair<unsigned, unsigned>, unsigned> lanes;  // (interval, warp) -> union of masks
    for (const reduce_emu::RecordedInstruction& ins : launch.instructions) {
      if (ins.block != drawn[l]) continue;
      last_interval = std::max(last_interval, ins.interval);
      if (!drawn_interval(ins.interval)) continue;
      Step& step = step_at(l, ins.interval);
      lanes[{ins.interval, ins.warp}] |= ins.mask;
      const bool shared = ins.space == MemorySpace::shared;
      const std::size_t m = shared ? shared_memory : memory_of[ins.allocation];
      const Memory& memory = picture.memories[m];
      std::vector<Cell>& cells = step.cells[m];
      WarpTally global_tally;
      BankTally bank_tally;
      for (const reduce_emu::LaneAccess& lane : ins.lanes) {
        const unsigned thread = ins.warp * 32 + lane.lane;
        if (thread < step.thread_active.size()) step.thread_active[thread] = true;
        const long long first =
            shared ? lane.shared_offset / memory.cell_bytes : lane.element * ins.bytes / memory.cell_bytes;
        for (unsigned part = 0; part < ins.bytes / memory.cell_bytes; ++part) {
          const long long c = first + part;
          if (c < 0 || c >= memory.cells) continue;
          Cell& cell = cells[static_cast<std::size_t>(c)];
          cell.use |= use_of(ins.kind);
          if (ins.kind != AccessKind::load)
            cell.has_value = cell_value(lane, part * memory.cell_bytes, memory.cell_bytes, &cell.value);
        }
        if (shared)
          bank_tally.add(lane.lane, static_cast<std::uintptr_t>(lane.shared_offset), ins.bytes);
        else
          global_tally.add(lane.address, ins.bytes);
      }
      if (shared)
        bank_tally.flush(access_of(ins.kind), step.counts);
      else
        global_tally.flush(access_of(ins.kind), step.counts);
    }
    for (const auto& [key, mask] : lanes)
      step_at(l, key.first).lanes_per_warp[key.second] = static_cast<unsigned>(__builtin_popcount(mask));
    for (const reduce_emu::RecordedBarrier& barrier : launch.barriers) {
      if (barrier.block != drawn[l]) continue;
      last_interval = std::max(last_interval, barrier.interval + 1);
      if (drawn_interval(barrier.interval))
        step_at(l, barrier.interval).barrier = barrier.file + ":" + std::to_string(barrier.line);
    }
    if (last_interval >= kStepsDrawn)  // the rows between the last one drawn and the stop
      picture.steps_left_out += last_interval - kStepsDrawn + (stopped ? 0 : 1);
    if (stopped && !picture.stop.stopped) {
      step_at(l, launch.end.interval);
      picture.stop.stopped = true;
      picture.stop.kind = launch.end.outcome == reduce_emu::LaunchOutcome::deadlock ? "deadlock"
                          : launch.end.message.find("time limit") != std::string::npos ? "time limit"
                                                                                          : "fault";
      picture.stop.step = step_of[{l, launch.end.interval}];
      picture.stop.where = where_threads_were(launch.end.threads);
      picture.stop.message = launch.end.message.substr(0, launch.end.message.find('\n'));
      if (drawn[l] != 0) picture.stop.where = "block " + std::to_string(drawn[l]) + ": " + picture.stop.where;
    }
  }
  // Each row's number in the run, counting the rows left out before it.
  for (std::size_t s = 0; s < picture.steps.size(); ++s) {
    Step& step = picture.steps[s];
    const Step* before = s > 0 ? &picture.steps[s - 1] : nullptr;
    step.number = before == nullptr ? 0
                  : before->launch == step.launch ? before->number + (step.interval - before->interval)
                                                  : before->number + 1;
  }
  return picture;
}

std::string stop_words(const Picture& picture, const std::string& whose) {
  const Stop& stop = picture.stop;
  const std::size_t step = stop.step < picture.steps.size() ? picture.steps[stop.step].number : stop.step;
  const std::string head = stop.kind == "time limit"
                               ? "the time limit stopped " + whose + " in step " + std::to_string(step)
                               : whose + " stopped in step " + std::to_string(step) + " with a " + stop.kind;
  return head + ": " + stop.where + ". " + stop.message;
}

std::string gap_words(const Picture& picture, std::size_t s) {
  if (s == 0 || s >= picture.steps.size()) return {};
  const Step& before = picture.steps[s - 1];
  const Step& step = picture.steps[s];
  if (step.number <= before.number + 1) return {};
  return "steps " + std::to_string(before.number + 1) + " to " + std::to_string(step.number - 1) + " not drawn";
}

std::string cell_list(const Memory& memory, const std::vector<long long>& cells) {
  return ranges(cells, memory.name + "[", "]");
}

std::vector<unsigned> active_threads(const Picture& picture) {
  std::vector<unsigned> counts;
  for (const Step& step : picture.steps)
    counts.push_back(static_cast<unsigned>(std::count(step.thread_active.begin(), step.thread_active.end(), true)));
  return counts;
}

namespace {

// What one step did to the memories, in words: "reads input[0, 8] and writes input[0]".
std::string what_step_did(const Picture& picture, const Step& step) {
  std::string reads, writes, atomics;
  for (std::size_t m = 0; m < picture.memories.size(); ++m) {
    std::vector<long long> r, w, a;
    for (std::size_t c = 0; c < step.cells[m].size(); ++c) {
      const unsigned char use = step.cells[m][c].use;
      if (use & kRead) r.push_back(static_cast<long long>(c));
      if (use & kWritten) w.push_back(static_cast<long long>(c));
      if (use & kAtomic) a.push_back(static_cast<long long>(c));
    }
    auto add = [&](std::string& list, const std::vector<long long>& cells) {
      if (!cells.empty()) list += (list.empty() ? "" : " and ") + cell_list(picture.memories[m], cells);
    };
    add(reads, r);
    add(writes, w);
    add(atomics, a);
  }
  std::string out;
  if (!reads.empty()) out += "reads " + reads;
  if (!writes.empty()) out += (out.empty() ? "" : ", ") + std::string("writes ") + writes;
  if (!atomics.empty()) out += (out.empty() ? "" : ", ") + std::string("updates ") + atomics + " atomically";
  return out.empty() ? "touches no memory" : out;
}

const Memory* find_memory(const Picture& picture, const std::string& name, std::size_t* index) {
  for (std::size_t i = 0; i < picture.memories.size(); ++i)
    if (picture.memories[i].name == name) {
      *index = i;
      return &picture.memories[i];
    }
  return nullptr;
}

}  // namespace

Difference first_difference(const Picture& reference, const Picture& yours) {
  Difference d;
  if (reference.matrix.drawn && yours.matrix.drawn) {
    d.words = matrix_difference(reference.matrix, yours.matrix);
    d.found = !d.words.empty();
    return d;
  }
  const std::size_t steps = std::max(reference.steps.size(), yours.steps.size());
  for (std::size_t i = 0; i < steps; ++i) {
    const std::string label = "step " + std::to_string(i) + ": ";
    d.step = i;
    if (i >= yours.steps.size()) {
      d.found = true;
      d.words = label + "the reference " + what_step_did(reference, reference.steps[i]) + "; yours has no step " +
                std::to_string(i) +
                (yours.stop.stopped ? " (it stopped with a " + yours.stop.kind + ")" : " (it ended)");
      return d;
    }
    if (i >= reference.steps.size()) {
      d.found = true;
      d.words = label + "the reference had ended; yours goes on and " + what_step_did(yours, yours.steps[i]);
      return d;
    }
    const Step& a = reference.steps[i];
    const Step& b = yours.steps[i];
    // Which cells each used differently, memory by memory (by name: the same array in both).
    std::vector<std::string> names;
    for (const Memory& m : reference.memories) names.push_back(m.name);
    for (const Memory& m : yours.memories)
      if (std::find(names.begin(), names.end(), m.name) == names.end()) names.push_back(m.name);
    std::vector<std::string> parts;
    std::string value_words;
    for (const std::string& name : names) {
      std::size_t ia = 0, ib = 0;
      const Memory* ma = find_memory(reference, name, &ia);
      const Memory* mb = find_memory(yours, name, &ib);
      const Memory& shown = ma ? *ma : *mb;
      const long long cells = std::max(ma ? ma->cells : 0, mb ? mb->cells : 0);
      for (unsigned char use : {kRead, kWritten, kAtomic}) {
        std::vector<long long> only_reference, only_yours;
        for (long long c = 0; c < cells; ++c) {
          const bool in_a = ma && c < ma->cells && (a.cells[ia][static_cast<std::size_t>(c)].use & use);
          const bool in_b = mb && c < mb->cells && (b.cells[ib][static_cast<std::size_t>(c)].use & use);
          if (in_a && !in_b) only_reference.push_back(c);
          if (in_b && !in_a) only_yours.push_back(c);
        }
        const char* verb = use == kRead ? "reads " : use == kWritten ? "writes " : "updates ";
        const char* after = use == kAtomic ? " atomically" : "";
        if (!only_reference.empty())
          parts.push_back("the reference " + std::string(verb) + cell_list(shown, only_reference) + after +
                          ", yours does not");
        if (!only_yours.empty())
          parts.push_back("yours " + std::string(verb) + cell_list(shown, only_yours) + after +
                          ", the reference does not");
      }
      if (value_words.empty() && ma && mb)
        for (long long c = 0; c < std::min(ma->cells, mb->cells); ++c) {
          const Cell& ca = a.cells[ia][static_cast<std::size_t>(c)];
          const Cell& cb = b.cells[ib][static_cast<std::size_t>(c)];
          if (ca.has_value && cb.has_value && ca.value != cb.value) {
            value_words = label + "both write " + name + "[" + std::to_string(c) + "], the reference " +
                          text_of(ca.value) + " and yours " + text_of(cb.value);
            break;
          }
        }
    }
    if (!parts.empty()) {
      d.found = true;
      d.words = label;
      for (std::size_t k = 0; k < parts.size() && k < 3; ++k) d.words += (k ? "; " : "") + parts[k];
      if (parts.size() > 3) d.words += "; ...";
      // A tree cut short or run too long shows in the number of steps as well.
      if (reference.steps.size() != yours.steps.size())
        d.words += " (the reference has " + std::to_string(reference.steps.size()) + " steps, yours " +
                   std::to_string(yours.steps.size()) + ")";
      return d;
    }
    if (!value_words.empty()) {
      d.found = true;
      d.words = value_words;
      return d;
    }
    if (a.thread_active != b.thread_active) {
      d.found = true;
      d.words = label + "the same cells, but the reference's work is done by " + thread_ranges(a.thread_active) +
                " and yours by " + thread_ranges(b.thread_active);
      return d;
    }
    const bool stops_a = reference.stop.stopped && reference.stop.step == i;
    const bool stops_b = yours.stop.stopped && yours.stop.step == i;
    if (stops_a != stops_b) {
      d.found = true;
      d.words = label + (stops_b ? "yours stopped here with a " + yours.stop.kind + ": " + yours.stop.where
                                 : "the reference stopped here with a " + reference.stop.kind);
      return d;
    }
  }
  d.step = 0;
  return d;
}

}  // namespace reduce_lab::grader::show
