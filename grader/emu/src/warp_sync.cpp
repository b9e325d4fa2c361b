// Warp-synchronous operations: __syncwarp, the shuffles, votes, __activemask and the match
// functions. A lane that calls one waits until every non-exited lane its mask names has
// called the same one; then each gets the result the hardware would give it.

#include "internal.h"

#include <cstdio>
#include <string>
#include <vector>

namespace reduce_emu {
namespace detail {

const char* op_name(WarpOp op) {
  switch (op) {
    case WarpOp::syncwarp: return "__syncwarp";
    case WarpOp::shfl_idx: return "__shfl_sync";
    case WarpOp::shfl_up: return "__shfl_up_sync";
    case WarpOp::shfl_down: return "__shfl_down_sync";
    case WarpOp::shfl_xor: return "__shfl_xor_sync";
    case WarpOp::ballot: return "__ballot_sync";
    case WarpOp::all: return "__all_sync";
    case WarpOp::any: return "__any_sync";
    case WarpOp::activemask: return "__activemask";
    case WarpOp::match_any: return "__match_any_sync";
    case WarpOp::match_all: return "__match_all_sync";
  }
  return "a warp collective";
}

bool Runner::release_collectives() {
  bool progressed = false;
  for (unsigned w = 0; w < launch->warps_per_block; ++w) {
    Warp& warp = warps_[w];
    unsigned pending = warp.waiting;
    while (pending != 0) {
      const Thread& lead = lane_thread(w, static_cast<unsigned>(__builtin_ctz(pending)));
      unsigned members = 0;
      for (unsigned p = pending; p != 0; p &= p - 1) {
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(p));
        const Thread& other = lane_thread(w, lane);
        if (other.op == lead.op && other.mask == lead.mask &&
            (lead.op != WarpOp::activemask || same_place(other, lead)))
          members |= 1u << lane;
      }
      pending &= ~members;
      if (lead.op != WarpOp::activemask) {
        unsigned named = lead.mask & warp.existing;
        if (lead.op == WarpOp::syncwarp) {
          named &= ~warp.exited;  // __syncwarp waits only for the non-exited lanes it names
        } else if ((named & warp.exited) != 0) {
          std::vector<unsigned> gone;
          for (unsigned p = named & warp.exited; p != 0; p &= p - 1)
            gone.push_back(w * 32 + static_cast<unsigned>(__builtin_ctz(p)));
          char mask_text[16];
          std::snprintf(mask_text, sizeof mask_text, "0x%08x", lead.mask);
          fault = "emulator: " + std::string(op_name(lead.op)) + "(" + mask_text + ") at " +
                  short_file(lead.file) + ":" + std::to_string(lead.line) + " names threads " +
                  ranges_text(gone) +
                  " that have already exited; every lane named in the mask must take part\n  in kernel " +
                  launch->kernel_name() + ", block " + coords_text(block_index_) + "\n  " + launch->seed_note();
          return false;
        }
        if ((named & ~members) != 0) continue;  // someone named is not here (yet)
      }
      complete_collective(w, members);
      warp.waiting &= ~members;
      at_collective_ -= static_cast<unsigned>(__builtin_popcount(members));
      // The whole (live) warp met here: the accesses before it cannot be merged with any
      // after it, so they become instructions now.
      if (members == (warp.existing & ~warp.exited)) flush(warp, w);
      progressed = true;
    }
  }
  return progressed;
}

void Runner::complete_collective(unsigned w, unsigned members) {
  const WarpOp op = lane_thread(w, static_cast<unsigned>(__builtin_ctz(members))).op;
  unsigned ballot = 0;
  for (unsigned p = members; p != 0; p &= p - 1) {
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(p));
    if (lane_thread(w, lane).value != 0) ballot |= 1u << lane;
  }
  for (unsigned p = members; p != 0; p &= p - 1) {
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(p));
    Thread& t = lane_thread(w, lane);
    const unsigned width = static_cast<unsigned>(t.width);
    const unsigned segment = lane & ~(width - 1);
    const unsigned in_segment = lane & (width - 1);
    int source = -1;  // -1: the lane keeps its own value
    switch (op) {
      case WarpOp::shfl_idx: source = static_cast<int>(segment + (static_cast<unsigned>(t.parameter) & (width - 1))); break;
      case WarpOp::shfl_up: {
        const unsigned delta = static_cast<unsigned>(t.parameter);
        if (in_segment >= delta) source = static_cast<int>(lane - delta);
        break;
      }
      case WarpOp::shfl_down: {
        const unsigned delta = static_cast<unsigned>(t.parameter);
        if (in_segment + delta < width) source = static_cast<int>(lane + delta);
        break;
      }
      case WarpOp::shfl_xor: {
        const unsigned other = lane ^ static_cast<unsigned>(t.parameter);
        // Lanes may read from earlier groups of `width`, never from later ones.
        if (other < 32 && other < segment + width) source = static_cast<int>(other);
        break;
      }
      default: break;
    }
    switch (op) {
      case WarpOp::shfl_idx:
      case WarpOp::shfl_up:
      case WarpOp::shfl_down:
      case WarpOp::shfl_xor:
        // Reading a lane that is not taking part is undefined on a GPU; the emulator gives
        // the lane its own value back.
        t.result = (source >= 0 && ((members >> source) & 1u)) ? lane_thread(w, static_cast<unsigned>(source)).value
                                                               : t.value;
        break;
      case WarpOp::ballot: t.result = ballot; break;
      case WarpOp::all: t.result = ballot == members; break;
      case WarpOp::any: t.result = ballot != 0; break;
      case WarpOp::activemask: t.result = members; break;
      case WarpOp::match_any: {
        unsigned same = 0;
        for (unsigned q = members; q != 0; q &= q - 1) {
          const unsigned other = static_cast<unsigned>(__builtin_ctz(q));
          if (lane_thread(w, other).value == t.value) same |= 1u << other;
        }
        t.result = same;
        break;
      }
      case WarpOp::match_all: {
        bool all_same = true;
        for (unsigned q = members; q != 0; q &= q - 1)
          all_same = all_same && lane_thread(w, static_cast<unsigned>(__builtin_ctz(q))).value == t.value;
        t.result = all_same ? members : 0;
        break;
      }
      case WarpOp::syncwarp: t.result = 0; break;
    }
  }
  for (unsigned p = members; p != 0; p &= p - 1) {
    Thread& t = lane_thread(w, static_cast<unsigned>(__builtin_ctz(p)));
    t.state = State::runnable;
    runnable_.push_back(&t);
  }
}

unsigned long long warp_collective(WarpOp op, unsigned mask, unsigned long long value, int parameter, int width,
                                   const char* file, int line) {
  Thread* t = current_thread;
  if (t == nullptr) throw std::logic_error(std::string(op_name(op)) + " called outside a kernel");
  Runner& runner = *t->runner;
  // Built only for a fault: every shuffle of every lab comes through here.
  auto at = [&] { return std::string(op_name(op)) + " at " + short_file(file) + ":" + std::to_string(line); };
  if (op != WarpOp::activemask && ((mask >> t->lane) & 1u) == 0) {
    char mask_text[16];
    std::snprintf(mask_text, sizeof mask_text, "0x%08x", mask);
    runner.fault_in_fiber(*t, at() + " is called by lane " + std::to_string(t->lane) + " with mask " + mask_text +
                                  ", which does not name the lane itself");
  }
  if (width < 1 || width > 32 || (width & (width - 1)) != 0)
    runner.fault_in_fiber(*t, at() + " has width " + std::to_string(width) +
                                  "; it must be a power of two from 1 to 32");
  t->state = State::at_collective;
  t->op = op;
  t->mask = op == WarpOp::activemask ? 0xffffffffu : mask;
  t->value = value;
  t->parameter = parameter;
  t->width = width;
  t->file = file;
  t->line = line;
  runner.suspend();
  return t->result;
}

}  // namespace detail
}  // namespace reduce_emu
