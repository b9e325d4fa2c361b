// Shared between the emulator's translation units; not part of its interface.
#pragma once

#include <reduce_emu/emu.h>

#include "block_races.h"
#include "fiber_switch.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace reduce_emu {
namespace detail {

namespace fcontext = fiber;
using Clock = std::chrono::steady_clock;

// A fault inside a kernel (bad access, misused collective, time limit), thrown inside the
// fiber that caused it and caught at that fiber's entry.
class KernelFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown into the fibers of a block that is being given up (a fault elsewhere), so they
// unwind their stacks instead of being left half-run. Not a std::exception on purpose: a
// kernel's catch (const std::exception&) must not stop it.
struct BlockAbandoned {};

enum class State : unsigned char { runnable, at_barrier, at_collective, exited };

struct SiteCount {
  const void* site;
  unsigned kind;
  unsigned count;
};

class Runner;

// Aligned to cache lines: a switch reads and writes the first two (coords, context, state and
// where the thread waits), which then never straddle a third (lab 4's correctness test: 2-3%
// less CPU).
struct alignas(64) Thread {
  Coords coords;  // what threadIdx, blockIdx, ... read while this fiber runs
  fcontext::fcontext_t context = nullptr;
  Runner* runner = nullptr;
  unsigned linear = 0, lane = 0, warp = 0;
  State state = State::runnable;

  // Where the thread waits, for the sync point's rules and for deadlock reports.
  const char* file = nullptr;
  int line = 0;
  BarrierOp barrier_op = BarrierOp::plain;
  WarpOp op = WarpOp::syncwarp;
  unsigned mask = 0;
  int parameter = 0;
  int width = 32;
  unsigned long long value = 0;
  unsigned long long result = 0;

  // How often this lane has passed each access site since its warp last converged: the
  // n-th pass of a site by each lane is the same warp instruction.
  std::vector<SiteCount> sites;
  unsigned last_site = 0;
};

struct AccessRecord {
  std::uintptr_t address;
  const void* site;
  unsigned occurrence;
  unsigned char lane;
  unsigned char kind;
  unsigned short bytes;  // this lane's access size
};

// What a recorded launch keeps of one logged access besides the log's entry (record.cpp).
struct RecordedValue {
  const void* data = nullptr;  // where the access's bytes really are
  unsigned bytes = 0;
  unsigned char value[16] = {};
  unsigned char old[16] = {};
  std::uintptr_t allocation = 0;  // global: the allocation's device address and size
  std::size_t allocation_bytes = 0;
  long long shared_offset = 0;
  bool dynamic_shared = false;
};

struct Warp {
  std::vector<AccessRecord> log;  // accesses not yet grouped into instructions
  std::vector<RecordedValue> recorded;  // beside the log, in a recorded launch only
  unsigned existing = 0;          // lanes the block has in this warp
  unsigned exited = 0;
  unsigned waiting = 0;  // lanes stopped at a warp collective
};

struct LaunchState {
  KernelLaunch kernel;
  dim3 grid, block;
  unsigned threads_per_block = 0;
  unsigned warps_per_block = 0;
  unsigned long long blocks = 0;
  std::size_t shared_bytes = 0;  // dynamic shared memory per block
  std::atomic<unsigned long long> next_block{0};
  std::atomic<bool> failed{false};
  reduce_lab::Counters* counters = nullptr;
  std::uintptr_t read_only_base = 0;  // the allocation kernels may only load from (set_read_only_input)
  bool recorded = false;  // reduce_emu/record.h: record.cpp keeps its accesses
  unsigned long long seed = 0;
  unsigned long long launch_index = 0;
  // Blocks are handed out in the order start, start + step, ... (mod blocks), both from the
  // seed: another seed is another order of blocks, as of the threads within each.
  unsigned long long order_start = 0, order_step = 1;
  LaunchRaces* races = nullptr;
  Clock::time_point deadline;
  double timeout_seconds = 0;

  std::mutex fault_mutex;
  std::string fault;  // the first fault wins; later ones are usually its consequences
  std::string name;   // the kernel's demangled name, looked up once (the crash handler needs it ready)

  void record_fault(const std::string& message);
  unsigned long long block_at(unsigned long long handed) const {
    return static_cast<unsigned long long>((order_start + static_cast<unsigned __int128>(handed) * order_step) % blocks);
  }
  const std::string& kernel_name() const { return name; }
  std::string seed_note() const;
};

// Recording (record.cpp): a launch started while recording is recorded (one worker thread,
// counted); its end (finished, or the fault launch() throws) closes its record.
bool begin_recorded_launch(LaunchState& state);
void end_recorded_launch(const LaunchState& state);

// Allocation registry (runtime.cpp), consulted by the bounds checks.
struct Allocation {
  std::uintptr_t base = 0;  // the device address cudaMalloc returned
  std::size_t bytes = 0;
  std::uintptr_t kit = 0;   // where those bytes really are (runtime.cpp)
  AllocationShadow* shadow = nullptr;  // who touched which word in this launch (block_races.h)
};
bool find_allocation(const void* pointer, Allocation* found);
// Whether `pointer` lies in the reserved device range of an allocation (including the page
// rounding past its end). Safe to call from a signal handler; may say no under contention.
bool device_reservation(const void* pointer, Allocation* found);
void* kit_address(const void* pointer);
void install_crash_handler();
// Bumped whenever an allocation goes away, so cached look-ups know to look again.
extern std::atomic<unsigned long long> allocation_generation;

std::string demangled_symbol(const void* address);
std::string short_file(const char* path);
std::string coords_text(uint3 c);  // "(x,y,z)"

// The scheduler's helpers, shared by its files (scheduler, barriers, warp_sync, launch).
inline unsigned long long splitmix64(unsigned long long& state) {
  unsigned long long z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
const char* op_name(WarpOp op);                          // "__shfl_down_sync" (warp_sync.cpp)
std::string ranges_text(const std::vector<unsigned>& ids);  // "0-63, 65" (barriers.cpp)
std::size_t fiber_stack_bytes();                         // REDUCE_LAB_EMU_STACK_KIB (launch.cpp)
void ensure_signal_stack();                              // per OS thread that runs fibers (launch.cpp)

}  // namespace detail
}  // namespace reduce_emu

namespace reduce_emu {
namespace detail {

// Fixed-size fiber stacks, reused from block to block. Each has an inaccessible guard page
// below it, so an overflow faults at once instead of overwriting the next fiber's stack.
class StackPool {
 public:
  explicit StackPool(std::size_t stack_bytes);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  void reserve(unsigned count);
  void* top(unsigned index) const { return tops_[index]; }
  std::size_t stack_bytes() const { return stack_bytes_; }

 private:
  struct Chunk {
    void* base;
    std::size_t bytes;
  };
  std::size_t stack_bytes_;
  std::size_t page_;
  std::vector<Chunk> chunks_;
  std::vector<void*> tops_;
};

struct Instruction {
  unsigned kind;  // an AccessRecord's kind
  const void* site;
  unsigned occurrence;
  unsigned bytes;  // per lane; one instruction accesses one size
  unsigned count;
  std::uintptr_t addresses[32];
  unsigned char lanes[32];
};

// AccessRecord::kind: a global access logs its reduce_lab::Access (0-2), a shared access
// kSharedKindBase plus it, so the two are never grouped into one instruction.
constexpr unsigned kSharedKindBase = 3;
// One grouped shared-memory instruction: its wavefronts and conflicts (shared_counting.cpp).
void count_shared_instruction(const Instruction& instruction, reduce_lab::Counters& totals);
// Adds the shared-memory part of one runner's totals to a launch's counters.
void add_shared_totals(const reduce_lab::Counters& totals, reduce_lab::Counters* out);

// One per OS thread that runs blocks: the fibers of the block it is running and the
// scheduler that interleaves them.
class Runner {
 public:
  Runner();
  static Runner& here();

  void run_blocks(LaunchState& launch);

  // Fiber side.
  void suspend();  // on to the round's next fiber (or the scheduler) until released; throws if the block is given up
  // The stopping fiber's way on (scheduler.cpp): accounts for `self` as the round's bookkeeping
  // would, and returns the context to jump to: the round's next fiber, made current, or the
  // scheduler's. A round runs as a chain, fiber to fiber, one switch a stop instead of two.
  __attribute__((visibility("hidden"))) fcontext::fcontext_t leave(Thread& self);
  // The first thing a fiber (or the scheduler) does where a jump lands: keep the context of
  // whoever jumped, so that it can be resumed there.
  void arrive(fcontext::fcontext_t from) { (handing_ != nullptr ? handing_->context : scheduler_context) = from; }
  [[noreturn]] void fault_in_fiber(const Thread& thread, const std::string& what);
  void check_clock_in_fiber(const Thread& thread);
  std::string where(const Thread& thread) const;
  const StackPool& stacks() const { return stacks_; }
  void fence() { block_races_.fence(); }
  uint3 block_index() const { return block_index_; }

  // Counting side (counting.cpp).
  // `data`: where the accessed bytes really are (the kit's address of a global element).
  void log_access(Thread& thread, reduce_lab::Access kind, std::uintptr_t address, unsigned bytes,
                  const void* site, const void* data);
  // Faults unless the access lies inside the allocation `origin` points into; returns the
  // kit's address of the bytes (runtime.cpp maps device memory twice).
  void* check_bounds(const Thread& thread, reduce_lab::Access kind, std::uintptr_t address, unsigned bytes,
                     const void* origin);
  // Faults: a store or atomic to the lab's input, which its kernels only load.
  [[noreturn]] void read_only_fault(const Thread& thread, reduce_lab::Access kind, std::uintptr_t address,
                                    unsigned bytes, std::uintptr_t base, std::uintptr_t end);
  // Faults if another block of the launch touched the same word and nothing orders the two.
  void check_block_race(const Thread& thread, reduce_lab::Access kind, std::uintptr_t address, unsigned bytes,
                        std::uintptr_t base, std::uintptr_t end, AllocationShadow& shadow);
  void flush(Warp& warp, unsigned warp_index);

  // Recording side (record.cpp), called only while `recording`.
  void record_access(const Thread& thread, unsigned kind, std::uintptr_t address, unsigned bytes, const void* data);
  void record_flush(Warp& warp, unsigned warp_index);
  void record_barrier(const Thread& first);
  void record_fault_at(const Thread& thread);
  void record_stop(bool deadlock);

  LaunchState* launch = nullptr;
  fcontext::fcontext_t scheduler_context = nullptr;
  bool aborting = false;     // fibers resumed now must unwind
  bool abandoning = false;   // some fiber saw another block's fault
  std::string fault;         // this block's fault, if any
  unsigned access_tick = 0;
  bool counting = false;
  bool recording = false;  // this launch is recorded (reduce_emu/record.h)
  bool checking_races = false;
  std::vector<unsigned char> dynamic_shared;  // the running block's extern __shared__ memory
  reduce_lab::Counters totals{};  // this runner's share of the current launch

 private:
  void run_block(unsigned long long block_linear);
  void resume(Thread& thread);
  bool run_round();
  bool release_collectives();
  bool release_barrier();
  void complete_collective(unsigned warp_index, unsigned members);
  void abort_block();
  std::string deadlock_report() const;
  std::string timeout_report() const;
  Thread& lane_thread(unsigned warp_index, unsigned lane) { return threads_[warp_index * 32 + lane]; }
  void settle_recorded_store();

  std::vector<Thread> threads_;
  std::vector<Warp> warps_;
  std::vector<Thread*> runnable_;
  bool chaining_ = false;       // a round's fibers hand over to each other (run_round)
  // Whether the running block's rounds are shuffled: in a launch's first kShuffledBlocks blocks
  // handed out (a permutation of the grid from the seed), every block of every launch of up to
  // that many blocks. Past them threads run in index order: a race inside a block is in every
  // block, so 1024 shuffled ones show it as well as 8193 would, and in index order a round costs
  // less (no shuffle; a branch on threadIdx is taken in long runs). Lab 4's correctness test,
  // whose launch past 2^24 elements is 8193 blocks: 2.43 s of CPU instead of 2.70 (docs/emulator.md).
  bool shuffling_ = true;
  static constexpr unsigned long long kShuffledBlocks = 1024;
  std::size_t chain_next_ = 0;  // the index in runnable_ of the round's next fiber
  Thread* handing_ = nullptr;   // the fiber jumping now; null while the scheduler jumps
  StackPool stacks_;
  unsigned thread_count_ = 0;
  unsigned exited_ = 0;
  unsigned at_barrier_ = 0;
  unsigned at_collective_ = 0;
  unsigned switch_tick_ = 0;
  unsigned long long rng_state_ = 0;
  uint3 block_index_{};

  // Bounds-check cache: Globals of one launch point into very few allocations.
  struct CachedAllocation {
    std::uintptr_t base = 0, end = 0, kit = 0;
    AllocationShadow* shadow = nullptr;
    unsigned long long generation = ~0ull;
    bool read_only = false;  // the lab's input, which its kernels only load (set_read_only_input)
  };
  BlockRaces block_races_;
  CachedAllocation cache_[4];
  unsigned cache_next_ = 0;

  // Instruction grouping scratch (counting.cpp).
  std::vector<Instruction> instructions_;
  std::vector<int> slot_of_;
  std::vector<unsigned> slot_stamp_;
  unsigned stamp_ = 0;
};

// The thread whose fiber runs on this OS thread right now (null outside kernels).
extern __thread Thread* current_thread __attribute__((tls_model("initial-exec")));

// Every sync point's way back to the scheduler (barriers.cpp, warp_sync.cpp): inline, so that
// the hottest call of a block's run is not a call through the library's PLT.
inline void Runner::suspend() {
  const fcontext::transfer_t back = fcontext::jump_fcontext(leave(*current_thread), nullptr);
  arrive(back.fctx);
  if (aborting) throw BlockAbandoned{};
}

// Two threads wait at the same sync point: the same line of the same file.
inline bool same_place(const Thread& a, const Thread& b) {
  return a.line == b.line && (a.file == b.file || std::strcmp(a.file, b.file) == 0);
}

}  // namespace detail
}  // namespace reduce_emu
