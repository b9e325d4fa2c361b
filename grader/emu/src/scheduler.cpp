// Blocks, fibers and sync points: how one launch runs on the CPU.
//
// A launch hands its blocks out to a pool of worker OS threads. A worker runs one block at
// a time, every thread of it a fiber on the worker's own stack pool. The block advances in
// rounds: every runnable fiber, in an order shuffled from the seed, runs until it stops at
// a sync point or ends, and hands over to the next one itself; then the sync points whose rules
// are met release their threads.
// A round that releases nobody while some threads are still alive is a deadlock.

//
// This file holds the fibers and their scheduling; the sync points' rules live beside it:
// barriers.cpp (__syncthreads and the deadlock report), warp_sync.cpp (shuffles, votes,
// __syncwarp) and launch.cpp (a launch's checks, workers, watchdog and crash messages).

#include "internal.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

namespace reduce_emu {
namespace detail {
namespace {
// Host code that reads threadIdx outside a kernel sees zeros rather than crashing.
constexpr Coords outside_kernel_coords{{0, 0, 0}, {0, 0, 0}, dim3(1, 1, 1), dim3(1, 1, 1)};
}  // namespace
}  // namespace detail
}  // namespace reduce_emu

__thread const reduce_emu::detail::Coords* reduce_emu_current_coords
    __attribute__((tls_model("initial-exec"))) = &reduce_emu::detail::outside_kernel_coords;

namespace reduce_emu {
namespace detail {

__thread Thread* current_thread __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

void fiber_entry(fcontext::transfer_t from) {
  // Whoever starts a fiber, the scheduler or the fiber before it in a round, makes it current first.
  Thread& thread = *current_thread;
  Runner& runner = *thread.runner;
  runner.arrive(from.fctx);
  // Nothing may switch fibers inside a catch block: the C++ runtime keeps the exceptions
  // being handled per OS thread, and fibers share it. Only the message leaves the handler.
  std::string fault;
  try {
    if (!runner.aborting) runner.launch->kernel.invoke(runner.launch->kernel.closure);
  } catch (const BlockAbandoned&) {
    runner.abandoning = true;
  } catch (const KernelFault& error) {
    fault = error.what();
  } catch (const std::exception& error) {
    fault = "emulator: the kernel threw an exception (" + std::string(error.what()) + ")\n  " +
            runner.where(thread);
  } catch (...) {
    fault = "emulator: the kernel threw an exception of unknown type\n  " + runner.where(thread);
  }
  if (!fault.empty() && runner.fault.empty()) runner.fault = std::move(fault);
  thread.state = State::exited;
  fcontext::jump_fcontext(runner.leave(thread), nullptr);
  std::abort();  // an exited fiber is never resumed
}

}  // namespace

// ---------------------------------------------------------------------------------------
// StackPool

namespace {
std::atomic<long>& guard_budget() {
  static std::atomic<long>* budget = [] {
    long limit = 65530;
    if (std::FILE* file = std::fopen("/proc/sys/vm/max_map_count", "r")) {
      if (std::fscanf(file, "%ld", &limit) != 1) limit = 65530;
      std::fclose(file);
    }
    return new std::atomic<long>(limit / 4);
  }();
  return *budget;
}
}  // namespace

StackPool::StackPool(std::size_t stack_bytes) : page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
  stack_bytes_ = (std::max<std::size_t>(stack_bytes, 16 * 1024) + page_ - 1) / page_ * page_;
}

StackPool::~StackPool() {
  for (const Chunk& chunk : chunks_) munmap(chunk.base, chunk.bytes);
}

void StackPool::reserve(unsigned count) {
  constexpr unsigned kStacksPerChunk = 64;
  while (tops_.size() < count) {
    const std::size_t slot = page_ + stack_bytes_;
    const std::size_t bytes = slot * kStacksPerChunk;
    void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) throw std::runtime_error("emulator: cannot map fiber stacks (out of memory?)");
    chunks_.push_back({base, bytes});
    for (unsigned i = 0; i < kStacksPerChunk; ++i) {
      char* slot_base = static_cast<char*>(base) + i * slot;
      // Every guard splits the mapping, and the kernel limits mappings per process
      // (vm.max_map_count); past half of that, stacks go unguarded rather than starve malloc.
      if (guard_budget().fetch_sub(1) > 0) (void)mprotect(slot_base, page_, PROT_NONE);
      tops_.push_back(slot_base + slot);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Runner

Runner::Runner() : stacks_(fiber_stack_bytes()) { ensure_signal_stack(); }

Runner& Runner::here() {
  thread_local Runner runner;
  return runner;
}

std::string Runner::where(const Thread& thread) const {
  std::string text = "in kernel " + launch->kernel_name() + ", block " + coords_text(block_index_) +
                     ", thread " + coords_text(thread.coords.thread_index);
  if (launch->block.y > 1 || launch->block.z > 1) text += " (linear " + std::to_string(thread.linear) + ")";
  return text + "\n  " + launch->seed_note();
}

void Runner::fault_in_fiber(const Thread& thread, const std::string& what) {
  if (recording) record_fault_at(thread);
  throw KernelFault("emulator: " + what + "\n  " + where(thread));
}

void Runner::check_clock_in_fiber(const Thread& thread) {
  if (launch->failed.load(std::memory_order_relaxed)) throw BlockAbandoned{};
  if (Clock::now() > launch->deadline)
    fault_in_fiber(thread, "the kernel ran past the emulator's time limit of " +
                               std::to_string(static_cast<long>(launch->timeout_seconds)) +
                               " s (REDUCE_LAB_EMU_TIMEOUT); an endless loop, or a thread waiting for another "
                               "one without a sync point?");
}

void Runner::resume(Thread& thread) {
  handing_ = nullptr;
  current_thread = &thread;
  reduce_emu_current_coords = &thread.coords;
  const fcontext::transfer_t back = fcontext::jump_fcontext(thread.context, nullptr);
  arrive(back.fctx);  // handing_: the fiber that came back, the last of a round's chain
}

namespace {
// A resumed fiber reads its saved registers at its stack pointer and returns through the frames
// above them (the sync call, the kernel), about 512 bytes.
void fetch_stack(const Thread* thread) {
  for (int line = 0; line < 8; ++line) __builtin_prefetch(static_cast<const char*>(thread->context) + 64 * line);
}
}  // namespace

fcontext::fcontext_t Runner::leave(Thread& self) {
  // An atomic the fiber issued has completed: what it observed is the block's from now on.
  block_races_.settle();
  handing_ = &self;
  if (chaining_) {
    switch (self.state) {
      case State::at_barrier: ++at_barrier_; break;
      case State::at_collective:
        ++at_collective_;
        warps_[self.warp].waiting |= 1u << self.lane;
        break;
      case State::exited:
        ++exited_;
        warps_[self.warp].exited |= 1u << self.lane;
        break;
      case State::runnable: break;
    }
    bool stop = !fault.empty() || abandoning;
    if (!stop && (++switch_tick_ & 255) == 0 && Clock::now() > launch->deadline) {
      fault = timeout_report();
      stop = true;
    }
    const std::size_t count = runnable_.size();
    if (!stop && chain_next_ < count) {
      // The order is random, so no prefetcher guesses the next fiber: the stacks of the fibers
      // two ahead, and the threads three ahead (whose stack pointers that needs) are fetched
      // now. A round touches every fiber of the block, more than a core's caches hold.
      const std::size_t k = chain_next_++;
      if (k + 3 < count) {
        const Thread* ahead = runnable_[k + 3];
        __builtin_prefetch(ahead);
        __builtin_prefetch(reinterpret_cast<const char*>(ahead) + 64);
      }
      if (k + 2 < count) fetch_stack(runnable_[k + 2]);
      Thread& next = *runnable_[k];
      current_thread = &next;
      reduce_emu_current_coords = &next.coords;
      return next.context;
    }
  }
  current_thread = nullptr;
  reduce_emu_current_coords = &outside_kernel_coords;
  return scheduler_context;
}

void Runner::run_blocks(LaunchState& state) {
  launch = &state;
  // Uninitialised on a GPU too: poisoned here (NaN for floats), so a block that reads
  // before it writes cannot pass by luck. 16 spare bytes keep every vector type aligned.
  dynamic_shared.assign(state.shared_bytes + 16, 0xFF);
  counting = state.counters != nullptr;
  recording = state.recorded;
  reduce_emu_shared_observed = counting;  // shared.cuh: whether shared accesses call in
  checking_races = state.races != nullptr && state.races->checking();
  totals = reduce_lab::Counters{};
  for (auto& entry : cache_) entry = CachedAllocation{};
  for (;;) {
    if (state.failed.load(std::memory_order_acquire)) break;
    const unsigned long long handed = state.next_block.fetch_add(1, std::memory_order_relaxed);
    if (handed >= state.blocks) break;
    shuffling_ = handed < kShuffledBlocks;
    run_block(state.block_at(handed));
    if (!fault.empty()) {
      state.record_fault(fault);
      break;
    }
  }
  if (counting) {
    reduce_lab::Counters* out = state.counters;
    for (int k = 0; k < reduce_lab::kAccessKinds; ++k) {
      __atomic_fetch_add(&out->instructions[k], totals.instructions[k], __ATOMIC_RELAXED);
      __atomic_fetch_add(&out->requests[k], totals.requests[k], __ATOMIC_RELAXED);
      __atomic_fetch_add(&out->sectors[k], totals.sectors[k], __ATOMIC_RELAXED);
      __atomic_fetch_add(&out->active_lanes[k], totals.active_lanes[k], __ATOMIC_RELAXED);
      __atomic_fetch_add(&out->bytes[k], totals.bytes[k], __ATOMIC_RELAXED);
    }
    __atomic_fetch_add(&out->barrier_warps, totals.barrier_warps, __ATOMIC_RELAXED);
    add_shared_totals(totals, out);
  }
  launch = nullptr;
}

void Runner::run_block(unsigned long long block_linear) {
  const LaunchState& L = *launch;
  const dim3 grid = L.grid, block = L.block;
  block_index_ = uint3{static_cast<unsigned>(block_linear % grid.x),
                       static_cast<unsigned>((block_linear / grid.x) % grid.y),
                       static_cast<unsigned>(block_linear / (1ull * grid.x * grid.y))};
  thread_count_ = L.threads_per_block;
  if (threads_.size() < thread_count_) {
    threads_.resize(thread_count_);
    stacks_.reserve(thread_count_);
  }
  if (warps_.size() < L.warps_per_block) warps_.resize(L.warps_per_block);

  for (unsigned i = 0; i < thread_count_; ++i) {
    Thread& t = threads_[i];
    t.coords = Coords{uint3{i % block.x, (i / block.x) % block.y, i / (block.x * block.y)}, block_index_, block,
                      grid};
    t.runner = this;
    t.linear = i;
    t.lane = i % 32;
    t.warp = i / 32;
    t.state = State::runnable;
    t.sites.clear();
    t.last_site = 0;
    t.context = fcontext::make_fcontext(stacks_.top(i), stacks_.stack_bytes(), &fiber_entry);
  }
  for (unsigned w = 0; w < L.warps_per_block; ++w) {
    Warp& warp = warps_[w];
    warp.log.clear();
    const unsigned lanes = std::min(32u, thread_count_ - w * 32);
    warp.existing = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1);
    warp.exited = 0;
    warp.waiting = 0;
  }
  aborting = false;
  abandoning = false;
  fault.clear();
  if (checking_races) block_races_.begin(launch->races, block_linear);
  exited_ = at_barrier_ = at_collective_ = 0;
  // Each block's order depends only on (seed, launch, block): replays do not depend on
  // which worker happened to pick the block up.
  rng_state_ = L.seed ^ (L.launch_index * 0xD1B54A32D192ED03ull) ^ (block_linear * 0xABC98388FB8FAC03ull);
  splitmix64(rng_state_);

  runnable_.clear();
  for (unsigned i = 0; i < thread_count_; ++i) runnable_.push_back(&threads_[i]);

  for (;;) {
    if (!run_round()) {
      abort_block();
      return;
    }
    if (exited_ == thread_count_) break;
    bool progressed = at_collective_ > 0 && release_collectives();
    if (!fault.empty()) {
      abort_block();
      return;
    }
    if (!progressed && at_barrier_ > 0) progressed = release_barrier();
    if (!progressed) {
      fault = deadlock_report();
      if (recording) record_stop(true);
      abort_block();
      return;
    }
    if (L.failed.load(std::memory_order_relaxed)) {
      abort_block();
      return;
    }
    if (Clock::now() > L.deadline) {
      fault = timeout_report();
      abort_block();
      return;
    }
  }
  for (unsigned w = 0; w < L.warps_per_block; ++w) flush(warps_[w], w);
}

bool Runner::run_round() {
  // Fisher-Yates with the block's own generator; a block past a launch's first kShuffledBlocks
  // runs its threads in index order (internal.h says why).
  if (shuffling_)
    for (std::size_t i = runnable_.size(); i > 1; --i) {
      const std::size_t j = static_cast<std::size_t>(((splitmix64(rng_state_) >> 32) * i) >> 32);
      std::swap(runnable_[i - 1], runnable_[j]);
    }
  // The round is a chain: each fiber that stops jumps straight to the next (leave()), the last
  // one back here. Lab 4's correctness test on one core, interleaved runs: 6.2-6.4 s with a
  // switch to the scheduler between fibers and the next fiber's first two lines fetched one
  // ahead; 5.5-5.7 s with 512 bytes of stack fetched two ahead; 3.9-4.1 s chained as well.
  const std::size_t count = runnable_.size();
  if (count > 0) {
    // What leave() would have fetched for the first fibers.
    for (std::size_t k = 0; k < count && k < 3; ++k) fetch_stack(runnable_[k]);
    if (count > 3) __builtin_prefetch(runnable_[3]);
    chain_next_ = 1;
    chaining_ = true;
    resume(*runnable_[0]);  // back when the last fiber stops, or one faults
    chaining_ = false;
    if (!fault.empty() || abandoning) return false;
  }
  runnable_.clear();
  return true;
}

void Runner::abort_block() {
  if (recording) record_stop(false);  // before the fibers unwind: where each one stopped
  aborting = true;
  for (unsigned i = 0; i < thread_count_; ++i) {
    Thread& t = threads_[i];
    if (t.state != State::exited) resume(t);
  }
  runnable_.clear();
  for (unsigned w = 0; w < launch->warps_per_block; ++w) warps_[w].log.clear();
  if (fault.empty() && !launch->failed.load()) fault = "emulator: a block was abandoned without a reason (bug)";
}

std::string Runner::timeout_report() const {
  return "emulator: the kernel ran past the emulator's time limit of " +
         std::to_string(static_cast<long>(launch->timeout_seconds)) +
         " s (REDUCE_LAB_EMU_TIMEOUT); its threads keep meeting at sync points but the block never finishes\n  "
         "in kernel " +
         launch->kernel_name() + ", block " + coords_text(block_index_) + "\n  " + launch->seed_note();
}

void thread_fence() {
  // Blocks run on several OS threads, so a fence must really order host memory accesses.
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (Thread* t = current_thread) t->runner->fence();
}

void* dynamic_shared_memory() {
  Thread* t = current_thread;
  if (t == nullptr) throw std::logic_error("extern __shared__ memory used outside a kernel");
  return t->runner->dynamic_shared.data();
}

}  // namespace detail
}  // namespace reduce_emu
