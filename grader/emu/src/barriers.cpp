// Block barriers: __syncthreads and its _count/_and/_or forms, the rule that releases them
// (every thread of the block at the same one), and the report of a block that can never go
// on (a deadlock: threads waiting at different sync points, or some exited).

#include "internal.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace reduce_emu {
namespace detail {

namespace {

const char* barrier_name(BarrierOp op) {
  switch (op) {
    case BarrierOp::plain: return "__syncthreads";
    case BarrierOp::count: return "__syncthreads_count";
    case BarrierOp::all: return "__syncthreads_and";
    case BarrierOp::any: return "__syncthreads_or";
  }
  return "__syncthreads";
}

}  // namespace

std::string ranges_text(const std::vector<unsigned>& ids) {
  std::string text;
  std::size_t shown = 0;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!text.empty()) text += ", ";
    if (++shown > 12) {
      text += "... (" + std::to_string(ids.size()) + " threads)";
      break;
    }
    text += std::to_string(ids[i]);
    if (j > i) text += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return text;
}

bool Runner::release_barrier() {
  if (at_barrier_ != thread_count_) return false;
  const Thread& first = threads_[0];
  unsigned long long agreeing = first.value != 0;
  for (unsigned i = 1; i < thread_count_; ++i) {
    const Thread& t = threads_[i];
    if (!same_place(t, first) || t.barrier_op != first.barrier_op) return false;
    agreeing += t.value != 0;
  }
  unsigned long long result = 0;
  switch (first.barrier_op) {
    case BarrierOp::plain: result = 0; break;
    case BarrierOp::count: result = agreeing; break;
    case BarrierOp::all: result = agreeing == thread_count_; break;
    case BarrierOp::any: result = agreeing != 0; break;
  }
  // Every block barrier counts, whichever form (the gpu-counted build counts each once per
  // arriving warp: __syncthreads, its _count/_and/_or forms and cooperative groups' sync).
  if (counting) totals.barrier_warps += launch->warps_per_block;
  for (unsigned w = 0; w < launch->warps_per_block; ++w) flush(warps_[w], w);
  if (recording) record_barrier(first);
  at_barrier_ = 0;
  for (unsigned i = 0; i < thread_count_; ++i) {
    Thread& t = threads_[i];
    t.result = result;
    t.state = State::runnable;
    runnable_.push_back(&t);
  }
  return true;
}

std::string Runner::deadlock_report() const {
  // Group the threads by what they are stuck on, in order of first appearance.
  std::vector<std::pair<std::string, std::vector<unsigned>>> groups;
  std::map<std::string, std::size_t> index;
  bool barrier_involved = false, collective_involved = false;
  for (unsigned i = 0; i < thread_count_; ++i) {
    const Thread& t = threads_[i];
    std::string what;
    switch (t.state) {
      case State::at_barrier:
        barrier_involved = true;
        what = std::string("wait at ") + barrier_name(t.barrier_op) + "() at " + short_file(t.file) + ":" +
               std::to_string(t.line);
        break;
      case State::at_collective: {
        collective_involved = true;
        char mask_text[16];
        std::snprintf(mask_text, sizeof mask_text, "0x%08x", t.mask);
        what = std::string("wait in ") + op_name(t.op) + "(" + (t.op == WarpOp::activemask ? "" : mask_text) +
               ") at " + short_file(t.file) + ":" + std::to_string(t.line);
        break;
      }
      case State::exited: what = "have exited"; break;
      case State::runnable: what = "are runnable (bug)"; break;
    }
    auto found = index.find(what);
    if (found == index.end()) {
      index.emplace(what, groups.size());
      groups.push_back({what, {i}});
    } else {
      groups[found->second].second.push_back(i);
    }
  }
  std::string text = "emulator: deadlock in block " + coords_text(block_index_) + " of kernel " +
                     launch->kernel_name() + ": ";
  if (barrier_involved)
    text += "every thread of a block must reach the same __syncthreads(); none may wait at another one, in a "
            "warp collective, or exit first.";
  else if (collective_involved)
    text += "every non-exited lane named in a warp collective's mask must reach a matching call with the same "
            "mask.";
  for (const auto& group : groups) {
    text += "\n  thread";
    text += group.second.size() > 1 ? "s " : " ";
    text += ranges_text(group.second) + ": " + group.first;
  }
  if (launch->block.y > 1 || launch->block.z > 1)
    text += "\n  (thread numbers are linear: x + y*blockDim.x + z*blockDim.x*blockDim.y)";
  return text + "\n  " + launch->seed_note();
}

void syncthreads_at(const char* file, int line) { syncthreads_with(BarrierOp::plain, 0, file, line); }

int syncthreads_with(BarrierOp op, int predicate, const char* file, int line) {
  Thread* t = current_thread;
  if (t == nullptr) return 0;  // host code: nothing to wait for
  t->state = State::at_barrier;
  t->barrier_op = op;
  t->value = static_cast<unsigned long long>(predicate != 0);
  t->file = file;
  t->line = line;
  t->runner->suspend();
  return static_cast<int>(t->result);
}

}  // namespace detail
}  // namespace reduce_emu
