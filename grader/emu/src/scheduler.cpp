// Blocks, fibers and sync points: how one launch runs on the CPU.
//
// A launch hands its blocks out to a pool of worker OS threads. A worker runs one block at
// a time, every thread of it a fiber on the worker's own stack pool. The block advances in
// rounds: every runnable fiber, in an order shuffled from the seed, runs until it stops at
// a sync point or ends; then the sync points whose rules are met release their threads.
// A round that releases nobody while some threads are still alive is a deadlock.

#include "internal.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <random>
#include <thread>

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

unsigned long long splitmix64(unsigned long long& state) {
  unsigned long long z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double env_double(const char* name, double fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  return (end != text && value > 0) ? value : fallback;
}

unsigned long long initial_seed() {
  if (const char* text = std::getenv("REDUCE_LAB_EMU_SEED"); text != nullptr && *text != '\0')
    return std::strtoull(text, nullptr, 0);
  std::random_device device;
  return (static_cast<unsigned long long>(device()) << 32) ^ device();
}

unsigned initial_workers() {
  if (const char* text = std::getenv("REDUCE_LAB_EMU_THREADS"); text != nullptr && *text != '\0') {
    const long value = std::strtol(text, nullptr, 10);
    if (value > 0) return static_cast<unsigned>(std::min(value, 1024l));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

std::size_t initial_stack_bytes() {
  const double kib = env_double("REDUCE_LAB_EMU_STACK_KIB", 256);
  return static_cast<std::size_t>(kib) * 1024;
}

struct Settings {
  std::atomic<unsigned long long> seed{initial_seed()};
  std::atomic<unsigned long long> launches{0};
  std::atomic<unsigned long long> serials{0};  // every launch of the process, never reset
  std::atomic<unsigned> workers{initial_workers()};
  std::atomic<double> timeout_seconds{env_double("REDUCE_LAB_EMU_TIMEOUT", 60)};
  std::atomic<reduce_lab::Counters*> counters{nullptr};
  std::size_t stack_bytes = initial_stack_bytes();
};

Settings& settings() {
  static Settings* instance = new Settings;  // never destroyed: worker threads outlive main
  return *instance;
}

std::string hex(unsigned long long value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", value);
  return text;
}

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

const char* barrier_name(BarrierOp op) {
  switch (op) {
    case BarrierOp::plain: return "__syncthreads";
    case BarrierOp::count: return "__syncthreads_count";
    case BarrierOp::all: return "__syncthreads_and";
    case BarrierOp::any: return "__syncthreads_or";
  }
  return "__syncthreads";
}

bool same_place(const Thread& a, const Thread& b) {
  return a.line == b.line && (a.file == b.file || std::strcmp(a.file, b.file) == 0);
}

// "0-63, 65, 70-71": thread lists in messages stay one line long.
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

void fiber_entry(fcontext::transfer_t from) {
  Thread& thread = *static_cast<Thread*>(from.data);
  Runner& runner = *thread.runner;
  runner.scheduler_context = from.fctx;
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
  fcontext::jump_fcontext(runner.scheduler_context, nullptr);
  std::abort();  // an exited fiber is never resumed
}

// Stops a process whose kernel loops where no hook can see it (no sync point, no global
// access): such a fiber cannot be interrupted, and a clear message beats a silent hang.
class Watchdog {
 public:
  static Watchdog& instance() {
    static Watchdog* watchdog = new Watchdog;
    return *watchdog;
  }
  void arm(const LaunchState& launch, Clock::time_point kill_at) {
    std::lock_guard<std::mutex> lock(mutex_);
    watched_ = &launch;
    kill_at_ = kill_at;
    wake_.notify_all();
  }
  void disarm() {
    std::lock_guard<std::mutex> lock(mutex_);
    watched_ = nullptr;
  }

 private:
  Watchdog() { std::thread([this] { watch(); }).detach(); }
  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (watched_ == nullptr) {
        wake_.wait(lock);
        continue;
      }
      if (wake_.wait_until(lock, kill_at_) == std::cv_status::timeout && watched_ != nullptr &&
          Clock::now() >= kill_at_) {
        const std::string message =
            "emulator: kernel " + watched_->kernel_name() + " is still running well past its time limit of " +
            std::to_string(static_cast<long>(watched_->timeout_seconds)) +
            " s (REDUCE_LAB_EMU_TIMEOUT), inside code that reaches no sync point and no global access (an "
            "endless loop, or a spin-wait on shared memory?). A running fiber cannot be interrupted, so the "
            "process stops here.\n  " +
            watched_->seed_note() + "\n";
        std::fputs(message.c_str(), stderr);
        std::fflush(stderr);
        _exit(124);
      }
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  const LaunchState* watched_ = nullptr;
  Clock::time_point kill_at_;
};

// Worker OS threads, started on first need and kept for the life of the process.
class Pool {
 public:
  static Pool& instance() {
    static Pool* pool = new Pool;  // never destroyed: its threads never exit
    return *pool;
  }

  void run(LaunchState& launch, unsigned workers) {
    const unsigned long long wanted_helpers =
        std::min<unsigned long long>(workers > 0 ? workers - 1 : 0, launch.blocks - 1);
    const unsigned helpers = static_cast<unsigned>(wanted_helpers);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (threads_started_ < helpers) {
        const unsigned index = threads_started_++;
        std::thread([this, index] { work(index); }).detach();
      }
      launch_ = &launch;
      helpers_wanted_ = helpers;
      helpers_running_ = helpers;
      ++generation_;
    }
    wake_.notify_all();
    run_safely(launch);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return helpers_running_ == 0; });
    launch_ = nullptr;
  }

 private:
  static void run_safely(LaunchState& launch) {
    try {
      Runner::here().run_blocks(launch);
    } catch (const std::exception& error) {
      launch.record_fault(std::string("emulator: internal error: ") + error.what());
    }
  }

  void work(unsigned index) {
    unsigned long long seen = 0;
    for (;;) {
      LaunchState* launch = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (index >= helpers_wanted_) continue;
        launch = launch_;
      }
      run_safely(*launch);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--helpers_running_ == 0) done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, done_;
  unsigned threads_started_ = 0;
  LaunchState* launch_ = nullptr;
  unsigned long long generation_ = 0;
  unsigned helpers_wanted_ = 0;
  unsigned helpers_running_ = 0;
};

std::mutex& launch_mutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}

// A permutation of the blocks from (seed, launch): start + i * step (mod blocks), the step
// prime to the count. Not every order, but under other seeds other blocks come first and
// last, and neighbours are handed to different workers.
void choose_block_order(LaunchState& state) {
  unsigned long long rng = state.seed ^ (state.launch_index * 0x9FB21C651E98DF25ull) ^ 0x5851F42D4C957F2Dull;
  const unsigned long long blocks = state.blocks;
  state.order_start = splitmix64(rng) % blocks;
  unsigned long long step = blocks > 1 ? 1 + splitmix64(rng) % (blocks - 1) : 1;
  while (std::gcd(step, blocks) != 1) step = step % (blocks - 1) + 1;
  state.order_step = step;
}

}  // namespace

// A fiber that overflows its stack hits the guard page below it, and a raw-pointer access
// to nowhere faults as well. Either way the process is lost, but the message can still say
// which kernel thread it was. The handler runs on an alternate signal stack (the fiber's
// own is gone), prints, restores the previous handler and returns, so the faulting
// instruction runs again and the process ends exactly as it would have without us.
struct sigaction previous_segv_action, previous_bus_action;

void crash_handler(int signal_number, siginfo_t* info, void*) {
  Thread* thread = current_thread;
  const char* address = static_cast<const char*>(info->si_addr);
  Allocation device{};
  const bool around_global = device_reservation(address, &device);
  char what[512];
  if (around_global) {
    // Lab code reached device memory without Global<T>: name it, with the element.
    std::snprintf(what, sizeof what,
                  "an access around Global<T>: %s touched device memory directly (byte %lld of a %llu-byte "
                  "allocation) instead of through Global<T>, which checks and counts every access; on a GPU "
                  "such an access from host code crashes, and from a kernel it escapes the kit's counters. "
                  "Index the Global (input[i]) or use reduce_lab::load_vector (docs/emulator.md)",
                  thread != nullptr ? "the kernel" : "host code",
                  static_cast<long long>(reinterpret_cast<std::uintptr_t>(address) - device.base),
                  static_cast<unsigned long long>(device.bytes));
  }
  if (thread != nullptr && thread->runner->launch != nullptr) {
    const Runner& runner = *thread->runner;
    const LaunchState& L = *runner.launch;
    const char* stack_top = static_cast<const char*>(runner.stacks().top(thread->linear));
    const std::size_t stack_bytes = runner.stacks().stack_bytes();
    const bool overflow = address < stack_top - stack_bytes && address >= stack_top - stack_bytes - 65536;
    char text[2048];
    const uint3 b = runner.block_index(), t = thread->coords.thread_index;
    const int length = std::snprintf(
        text, sizeof text,
        "emulator: %s in kernel %s, block (%u,%u,%u), thread (%u,%u,%u), address %p: %s\n  emulator seed 0x%llx "
        "(launch %llu): set REDUCE_LAB_EMU_SEED=0x%llx to replay this run's thread order\n",
        signal_number == SIGSEGV ? "segmentation fault" : "bus error", L.name.c_str(), b.x, b.y, b.z, t.x, t.y, t.z,
        info->si_addr,
        around_global ? what
        : overflow    ? "the thread overflowed its fiber stack (REDUCE_LAB_EMU_STACK_KIB; a large local array?)"
                      : "an access through a raw pointer outside valid memory (accesses through Global<T> are "
                        "checked before they happen)",
        L.seed, L.launch_index, L.seed);
    if (length > 0) {
      ssize_t ignored = write(STDERR_FILENO, text, std::min<std::size_t>(static_cast<std::size_t>(length), sizeof text - 1));
      (void)ignored;
    }
  } else if (around_global) {
    char text[768];
    const int length = std::snprintf(text, sizeof text, "emulator: segmentation fault at %p: %s\n", info->si_addr, what);
    if (length > 0) {
      ssize_t ignored = write(STDERR_FILENO, text, std::min<std::size_t>(static_cast<std::size_t>(length), sizeof text - 1));
      (void)ignored;
    }
  }
  sigaction(signal_number, signal_number == SIGSEGV ? &previous_segv_action : &previous_bus_action, nullptr);
}

// Called at every launch and allocation: a test framework (Catch2 installs its own fatal
// signal handlers per test case) may have put itself in front since the last time. The one
// found there becomes the previous handler, which ours hands the signal back to.
void install_crash_handler() {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  for (int signal_number : {SIGSEGV, SIGBUS}) {
    struct sigaction current {};
    sigaction(signal_number, nullptr, &current);
    if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == &crash_handler) continue;
    struct sigaction action {};
    action.sa_sigaction = &crash_handler;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(signal_number, &action, signal_number == SIGSEGV ? &previous_segv_action : &previous_bus_action);
  }
}

// Every OS thread that runs fibers needs its own alternate signal stack.
void ensure_signal_stack() {
  stack_t current{};
  if (sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE) == 0) return;
  constexpr std::size_t bytes = 64 * 1024;
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return;
  stack_t fresh{};
  fresh.ss_sp = memory;
  fresh.ss_size = bytes;
  fresh.ss_flags = 0;
  sigaltstack(&fresh, nullptr);  // kept for the life of the thread
}

// ---------------------------------------------------------------------------------------
// LaunchState

void LaunchState::record_fault(const std::string& message) {
  std::lock_guard<std::mutex> lock(fault_mutex);
  if (fault.empty()) fault = message;
  failed.store(true, std::memory_order_release);
}


std::string LaunchState::seed_note() const {
  return "emulator seed " + hex(seed) + " (launch " + std::to_string(launch_index) +
         "): set REDUCE_LAB_EMU_SEED=" + hex(seed) + " to replay this run's thread order";
}

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

Runner::Runner() : stacks_(settings().stack_bytes) { ensure_signal_stack(); }

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

void Runner::suspend() {
  const fcontext::transfer_t back = fcontext::jump_fcontext(scheduler_context, nullptr);
  scheduler_context = back.fctx;
  if (aborting) throw BlockAbandoned{};
}

void Runner::resume(Thread& thread) {
  current_thread = &thread;
  reduce_emu_current_coords = &thread.coords;
  const fcontext::transfer_t back = fcontext::jump_fcontext(thread.context, &thread);
  thread.context = back.fctx;
  current_thread = nullptr;
  // An atomic the fiber issued has completed: what it observed is the block's from now on.
  block_races_.settle();
  reduce_emu_current_coords = &outside_kernel_coords;
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
  // Fisher-Yates with the block's own generator.
  for (std::size_t i = runnable_.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(((splitmix64(rng_state_) >> 32) * i) >> 32);
    std::swap(runnable_[i - 1], runnable_[j]);
  }
  const std::size_t count = runnable_.size();
  for (std::size_t k = 0; k < count; ++k) {
    Thread* t = runnable_[k];
    // The order is random, so no prefetcher guesses the next fiber: fetch the thread two ahead
    // and the top of the next one's stack (where its saved registers lie) while this one runs;
    // the next one's stack pointer is then read from a thread already fetched. A round touches
    // every fiber of the block, more than a core's caches hold.
    if (k + 2 < count) {
      const Thread* after_next = runnable_[k + 2];
      __builtin_prefetch(after_next);
      __builtin_prefetch(reinterpret_cast<const char*>(after_next) + 64);
    }
    if (k + 1 < count) {
      const Thread* next = runnable_[k + 1];
      __builtin_prefetch(next->context);
      __builtin_prefetch(static_cast<const char*>(next->context) + 64);
    }
    resume(*t);
    switch (t->state) {
      case State::at_barrier: ++at_barrier_; break;
      case State::at_collective:
        ++at_collective_;
        warps_[t->warp].waiting |= 1u << t->lane;
        break;
      case State::exited:
        ++exited_;
        warps_[t->warp].exited |= 1u << t->lane;
        break;
      case State::runnable: break;
    }
    if (!fault.empty() || abandoning) return false;
    if ((++switch_tick_ & 255) == 0 && Clock::now() > launch->deadline) {
      fault = timeout_report();
      return false;
    }
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

bool Runner::release_barrier() {
  if (at_barrier_ != thread_count_) return false;
  const Thread& first = threads_[0];
  for (unsigned i = 1; i < thread_count_; ++i)
    if (!same_place(threads_[i], first) || threads_[i].barrier_op != first.barrier_op) return false;

  unsigned long long agreeing = 0;
  for (unsigned i = 0; i < thread_count_; ++i) agreeing += threads_[i].value != 0;
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

std::string Runner::timeout_report() const {
  return "emulator: the kernel ran past the emulator's time limit of " +
         std::to_string(static_cast<long>(launch->timeout_seconds)) +
         " s (REDUCE_LAB_EMU_TIMEOUT); its threads keep meeting at sync points but the block never finishes\n  "
         "in kernel " +
         launch->kernel_name() + ", block " + coords_text(block_index_) + "\n  " + launch->seed_note();
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

// ---------------------------------------------------------------------------------------
// Fiber-side entry points.

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

void run_launch(const KernelLaunch& kernel, dim3 grid, dim3 block, std::size_t shared_bytes) {
  if (current_thread != nullptr)
    current_thread->runner->fault_in_fiber(*current_thread,
                                           "launch() from inside a kernel (dynamic parallelism) is not emulated");
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  const unsigned long long blocks = 1ull * grid.x * grid.y * grid.z;
  auto invalid = [&](const std::string& why) {
    throw std::runtime_error("emulator: invalid launch configuration for kernel " +
                             demangled_symbol(kernel.kernel_address) + ": grid (" + std::to_string(grid.x) + "," +
                             std::to_string(grid.y) + "," + std::to_string(grid.z) + "), block (" +
                             std::to_string(block.x) + "," + std::to_string(block.y) + "," +
                             std::to_string(block.z) + "): " + why + " (cudaErrorInvalidConfiguration)");
  };
  if (threads == 0 || threads > 1024) invalid("a block must have 1 to 1024 threads");
  if (block.z > 64) invalid("blockDim.z is at most 64");
  if (blocks == 0) invalid("the grid must have at least one block");
  if (grid.x > 2147483647u || grid.y > 65535u || grid.z > 65535u)
    invalid("gridDim is at most (2147483647, 65535, 65535)");
  // A Hopper block's most (227 KB); launch() opts the kernel in past 48 KB on a GPU.
  if (shared_bytes > 227 * 1024) invalid("dynamic shared memory is at most 227 KB per block");

  std::lock_guard<std::mutex> serial(launch_mutex());
  Settings& s = settings();
  LaunchState state;
  state.kernel = kernel;
  state.grid = grid;
  state.block = block;
  state.threads_per_block = static_cast<unsigned>(threads);
  state.warps_per_block = static_cast<unsigned>((threads + 31) / 32);
  state.blocks = blocks;
  state.shared_bytes = shared_bytes;
  state.counters = s.counters.load();
  state.seed = s.seed.load();
  state.launch_index = s.launches.fetch_add(1);
  choose_block_order(state);
  // Correctness runs are checked for races between blocks; counted runs measure traffic
  // only, as the gpu-counted build does (and the checks cost nothing there).
  static LaunchRaces* races = new LaunchRaces;  // under launch_mutex(); reused for its table
  races->begin(s.serials.fetch_add(1) + 1, blocks, state.counters == nullptr);
  state.races = races;
  state.timeout_seconds = s.timeout_seconds.load();
  state.name = demangled_symbol(kernel.kernel_address);
  install_crash_handler();
  state.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(state.timeout_seconds));
  Watchdog::instance().arm(state, state.deadline + std::chrono::seconds(5));
  const bool recorded = begin_recorded_launch(state);  // one worker: the record's order and values are exact
  Pool::instance().run(state, recorded ? 1 : s.workers.load());
  Watchdog::instance().disarm();
  if (recorded) end_recorded_launch(state);
  races->end();
  if (state.failed.load()) throw std::runtime_error(state.fault);
}

}  // namespace detail

void set_counters(reduce_lab::Counters* counters) {
  // The grader hands over device memory; the emulator adds up through the kit's mapping.
  detail::settings().counters.store(counters ? static_cast<reduce_lab::Counters*>(detail::kit_address(counters))
                                             : nullptr);
}

unsigned long long seed() { return detail::settings().seed.load(); }

void set_seed(unsigned long long value) {
  detail::settings().seed.store(value);
  detail::settings().launches.store(0);
}

void set_worker_threads(unsigned count) { detail::settings().workers.store(std::max(1u, count)); }

unsigned worker_threads() { return detail::settings().workers.load(); }

void set_timeout(double seconds) {
  if (seconds > 0) detail::settings().timeout_seconds.store(seconds);
}

}  // namespace reduce_emu
