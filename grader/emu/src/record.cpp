// Recording a run (reduce_emu/record.h): every access the counting hooks log is kept with its
// value, and when the counters group a warp's log into instructions (Runner::flush) the same
// instructions are written to the record, so the record shows exactly what was counted.
//
// Values are read through the address the access goes through, at the moment they are
// certain: a load's before it happens (nothing runs between the hook and the load: a fiber is
// not interrupted, and a recorded launch runs on one worker thread), a global store's and a
// global atomic's result just after, that is when the same fiber next enters the emulator (its
// next access, or the grouping at the end of the interval), before any other access can touch
// the element. Shared stores and atomics call their hook after the access, so theirs are read
// at once.

#include <reduce_emu/record.h>

#include "internal.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

namespace reduce_emu {
namespace detail {

namespace {

struct Recorder {
  std::mutex mutex;  // start/take against a launch's begin/end
  std::atomic<bool> on{false};
  RecordOptions options;
  Record record;
  std::size_t buffered = 0;  // lane accesses logged but not yet grouped
  reduce_lab::Counters scratch{};  // where a recorded launch without counters counts

  // The launch and block being recorded.
  RecordedLaunch* launch = nullptr;
  unsigned long long block = ~0ull;
  unsigned interval = 0;
  bool stopped = false;
  int faulting_thread = -1;

  // The global store or atomic whose result is read when its fiber next enters the emulator.
  bool pending = false;
  unsigned pending_warp = 0;
  std::size_t pending_index = 0;

  // Whether `count` more events fit under the cap; the first that does not marks the record.
  bool room_for(std::size_t count) {
    if (record.truncated) return false;
    if (record.events + buffered + count <= options.max_events) return true;
    record.truncated = true;
    return false;
  }
};

Recorder& recorder() {
  static Recorder* instance = new Recorder;  // never destroyed, as the emulator's settings
  return *instance;
}

constexpr unsigned kValueBytes = sizeof(LaneAccess{}.value);

void copy_value(unsigned char (&to)[16], const void* from, unsigned bytes) {
  std::memcpy(to, from, std::min(bytes, kValueBytes));
}

long long floor_index(long long offset, long long size) {
  return offset >= 0 ? offset / size : -((-offset + size - 1) / size);
}

StoppedThread::State stopped_state(State state) {
  switch (state) {
    case State::runnable: return StoppedThread::State::running;
    case State::at_barrier: return StoppedThread::State::at_barrier;
    case State::at_collective: return StoppedThread::State::at_warp_collective;
    case State::exited: return StoppedThread::State::exited;
  }
  return StoppedThread::State::running;
}

}  // namespace

bool begin_recorded_launch(LaunchState& state) {
  Recorder& r = recorder();
  if (!r.on.load(std::memory_order_acquire)) return false;
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.on.load()) return false;
  r.record.launches.emplace_back();
  RecordedLaunch& launch = r.record.launches.back();
  launch.kernel = state.name;
  launch.grid = state.grid;
  launch.block = state.block;
  launch.dynamic_shared_bytes = state.shared_bytes;
  r.launch = &launch;
  r.block = ~0ull;
  r.interval = 0;
  r.stopped = false;
  r.faulting_thread = -1;
  r.pending = false;
  r.buffered = 0;
  // Accesses are grouped only in counted launches: count this one somewhere.
  if (state.counters == nullptr) {
    r.scratch = reduce_lab::Counters{};
    state.counters = &r.scratch;
  }
  state.recorded = true;
  return true;
}

void end_recorded_launch(const LaunchState& state) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.launch == nullptr) return;
  RecordedLaunch& launch = *r.launch;
  if (state.failed.load()) {
    launch.end.message = state.fault;
    if (!r.stopped) launch.end.outcome = LaunchOutcome::fault;  // stopped where no block could say
  }
  // Static __shared__ arrays are thread_local variables, placed where the host's TLS puts
  // them; offsets from the lowest one the launch touched keep their layout (one worker thread
  // ran every block, so the addresses are the same in every block).
  std::uintptr_t lowest = ~std::uintptr_t{0};
  for (const RecordedInstruction& ins : launch.instructions)
    if (ins.space == MemorySpace::shared && !ins.dynamic_shared)
      for (const LaneAccess& lane : ins.lanes) lowest = std::min(lowest, lane.address);
  for (RecordedInstruction& ins : launch.instructions) {
    if (ins.space != MemorySpace::shared || ins.dynamic_shared) continue;
    for (LaneAccess& lane : ins.lanes) {
      lane.shared_offset = static_cast<long long>(lane.address - lowest);
      lane.element = lane.shared_offset / static_cast<long long>(ins.bytes);
    }
  }
  r.launch = nullptr;
  r.pending = false;
}

// The block the runner is in, as the record numbers it; a new block starts at interval 0.
static unsigned long long block_linear(const LaunchState& launch, uint3 index) {
  return index.x + 1ull * launch.grid.x * (index.y + 1ull * launch.grid.y * index.z);
}

void Runner::settle_recorded_store() {
  Recorder& r = recorder();
  if (!r.pending) return;
  r.pending = false;
  std::vector<RecordedValue>& values = warps_[r.pending_warp].recorded;
  if (r.pending_index >= values.size()) return;
  RecordedValue& v = values[r.pending_index];
  copy_value(v.value, v.data, v.bytes);
}

void Runner::record_access(const Thread& thread, unsigned kind, std::uintptr_t address, unsigned bytes,
                           const void* data) {
  Recorder& r = recorder();
  settle_recorded_store();
  if (!r.room_for(1)) return;
  ++r.buffered;
  Warp& warp = warps_[thread.warp];
  warp.recorded.emplace_back();
  RecordedValue& v = warp.recorded.back();
  v.data = data;
  v.bytes = bytes;
  const bool shared = kind >= kSharedKindBase;
  const auto access = static_cast<reduce_lab::Access>(shared ? kind - kSharedKindBase : kind);
  if (shared) {
    // Loads are hooked before they happen, stores and atomics after: either way the element
    // holds the value the record wants now.
    copy_value(v.value, data, bytes);
    if (launch->shared_bytes > 0) {
      const auto first = reinterpret_cast<std::uintptr_t>(dynamic_shared.data());
      v.dynamic_shared = address >= first && address < first + launch->shared_bytes;
      if (v.dynamic_shared) v.shared_offset = static_cast<long long>(address - first);
    }
    return;
  }
  Allocation found;
  if (find_allocation(reinterpret_cast<const void*>(address), &found)) {
    v.allocation = found.base;
    v.allocation_bytes = found.bytes;
  }
  if (access == reduce_lab::Access::load) {
    copy_value(v.value, data, bytes);
  } else {
    if (access == reduce_lab::Access::atomic) copy_value(v.old, data, bytes);
    r.pending = true;
    r.pending_warp = thread.warp;
    r.pending_index = warp.recorded.size() - 1;
  }
}

void Runner::record_flush(Warp& warp, unsigned warp_index) {
  Recorder& r = recorder();
  settle_recorded_store();
  std::vector<RecordedValue>& values = warp.recorded;
  r.buffered -= std::min(r.buffered, values.size());
  if (r.launch == nullptr || values.size() != warp.log.size()) {
    // Cut short by the cap: this warp's accesses since it last met are not all there.
    values.clear();
    return;
  }
  const unsigned long long block = block_linear(*launch, block_index_);
  if (block != r.block) {
    r.block = block;
    r.interval = 0;
  }
  // The counters' instructions (Runner::flush just made them), in the order they were made.
  std::map<std::tuple<const void*, unsigned, unsigned>, std::size_t> slot;
  std::vector<RecordedInstruction> made(instructions_.size());
  for (std::size_t i = 0; i < instructions_.size(); ++i) {
    const Instruction& ins = instructions_[i];
    slot[{ins.site, ins.occurrence, ins.kind}] = i;
    RecordedInstruction& out = made[i];
    out.block = block;
    out.warp = warp_index;
    out.interval = r.interval;
    out.space = ins.kind >= kSharedKindBase ? MemorySpace::shared : MemorySpace::global;
    out.kind = static_cast<AccessKind>(ins.kind >= kSharedKindBase ? ins.kind - kSharedKindBase : ins.kind);
    out.bytes = ins.bytes;
    out.site = ins.site;
    out.has_old = out.space == MemorySpace::global && out.kind == AccessKind::atomic;
  }
  for (std::size_t i = 0; i < warp.log.size(); ++i) {
    const AccessRecord& access = warp.log[i];
    const RecordedValue& v = values[i];
    RecordedInstruction& out = made[slot.at({access.site, access.occurrence, access.kind})];
    LaneAccess lane;
    lane.lane = access.lane;
    lane.address = access.address;
    std::memcpy(lane.value, v.value, sizeof lane.value);
    std::memcpy(lane.old, v.old, sizeof lane.old);
    if (out.space == MemorySpace::global) {
      out.allocation = v.allocation;
      out.allocation_bytes = v.allocation_bytes;
      lane.element = floor_index(static_cast<long long>(access.address - v.allocation), access.bytes);
    } else {
      out.dynamic_shared = v.dynamic_shared;
      lane.shared_offset = v.shared_offset;
      lane.element = v.shared_offset / static_cast<long long>(access.bytes);
    }
    out.mask |= 1u << access.lane;
    out.lanes.push_back(lane);
  }
  for (RecordedInstruction& out : made) {
    std::sort(out.lanes.begin(), out.lanes.end(),
              [](const LaneAccess& a, const LaneAccess& b) { return a.lane < b.lane; });
    r.record.events += out.lanes.size();
    r.launch->instructions.push_back(std::move(out));
  }
  values.clear();
}

void Runner::record_barrier(const Thread& first) {
  Recorder& r = recorder();
  if (r.launch == nullptr) return;
  const unsigned long long block = block_linear(*launch, block_index_);
  if (block != r.block) {
    r.block = block;
    r.interval = 0;
  }
  if (r.room_for(1)) {
    r.launch->barriers.push_back(RecordedBarrier{block, r.interval, short_file(first.file), first.line});
    ++r.record.events;
  }
  ++r.interval;
}

void Runner::record_fault_at(const Thread& thread) {
  Recorder& r = recorder();
  if (r.faulting_thread < 0) r.faulting_thread = static_cast<int>(thread.linear);
}

void Runner::record_stop(bool deadlock) {
  Recorder& r = recorder();
  if (r.launch == nullptr || r.stopped) return;
  // What the warps did since they last met is part of the story of where the block stopped.
  for (unsigned w = 0; w < launch->warps_per_block; ++w) flush(warps_[w], w);
  r.stopped = true;
  const unsigned long long block = block_linear(*launch, block_index_);
  if (block != r.block) {
    r.block = block;
    r.interval = 0;
  }
  LaunchEnd& end = r.launch->end;
  end.outcome = deadlock ? LaunchOutcome::deadlock : LaunchOutcome::fault;
  end.block = block;
  end.interval = r.interval;
  end.faulting_thread = deadlock ? -1 : r.faulting_thread;
  end.threads.clear();
  for (unsigned i = 0; i < thread_count_; ++i) {
    const Thread& t = threads_[i];
    StoppedThread stopped;
    stopped.thread = i;
    stopped.state = static_cast<int>(i) == end.faulting_thread ? StoppedThread::State::faulted : stopped_state(t.state);
    if (t.state == State::at_barrier || t.state == State::at_collective) {
      stopped.file = short_file(t.file);
      stopped.line = t.line;
    }
    end.threads.push_back(std::move(stopped));
  }
}

}  // namespace detail

void start_recording(RecordOptions options) {
  detail::Recorder& r = detail::recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.options = options;
  r.record = Record{};
  r.record.max_events = options.max_events;
  r.buffered = 0;
  r.launch = nullptr;
  r.on.store(true, std::memory_order_release);
}

Record take_record() {
  detail::Recorder& r = detail::recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.on.store(false, std::memory_order_release);
  Record taken = std::move(r.record);
  r.record = Record{};
  r.launch = nullptr;
  return taken;
}

bool recording() { return detail::recorder().on.load(std::memory_order_acquire); }

}  // namespace reduce_emu
