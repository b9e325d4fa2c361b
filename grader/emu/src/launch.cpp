// A launch: its configuration checked as CUDA checks it, its blocks handed out to worker
// OS threads in an order drawn from the seed, the emulator's settings, and what ends a launch
// badly (a fault's message, the watchdog of a fiber that never stops, a crash's message).

#include "internal.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>

namespace reduce_emu {
namespace detail {

namespace {

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
  std::atomic<std::uintptr_t> read_only_input{0};  // an allocation's base (set_read_only_input)
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

std::size_t fiber_stack_bytes() { return settings().stack_bytes; }

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
  state.read_only_base = s.read_only_input.load();
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

void set_read_only_input(const void* device_pointer) {
  detail::Allocation found;
  const bool known = device_pointer != nullptr && detail::find_allocation(device_pointer, &found);
  detail::settings().read_only_input.store(known ? found.base : 0);
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
