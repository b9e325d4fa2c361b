// Recording a run: every global and shared access of every warp instruction of the kernels
// launched between start_recording() and take_record(), with its lanes, addresses, values
// and the barrier interval it falls in, plus each block's barriers and how each launch ended.
// Meant for one small run (the book's figure sizes, a few warps): the record is capped
// (RecordOptions::max_events) and says when it was cut short. docs/emulator.md, "Recording a
// run", says what every field means.
//
//   reduce_emu::start_recording();
//   lab.run(&call);                       // any host code that launches kernels
//   reduce_emu::Record record = reduce_emu::take_record();
//
// The record's warp instructions are the counters' (the same grouping, made at the same
// moment), so a picture drawn from it shows what was counted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <reduce_emu/runtime.h>

namespace reduce_emu {

enum class MemorySpace : unsigned char { global, shared };
enum class AccessKind : unsigned char { load, store, atomic };

// One lane's part of a warp instruction.
struct LaneAccess {
  unsigned lane = 0;  // 0-31; the thread is warp * 32 + lane (linear in the block)
  // Global: the device address (what cudaMalloc returned, plus the offset). Shared: the
  // emulator's host address of the element (only differences between addresses mean anything).
  std::uintptr_t address = 0;
  // Global: the element's index in its allocation, in units of the access's size. Shared:
  // shared_offset / bytes (the element's index when the array starts at offset 0).
  long long element = 0;
  // Shared: the offset in bytes within the block's shared memory (RecordedInstruction::
  // dynamic_shared says from where it counts). Global: 0.
  long long shared_offset = 0;
  // The bytes of the value (little-endian, `bytes` of them, the rest zero): for a load the
  // value loaded, for a store the value stored, for an atomic the value the element holds just
  // after it. `old` is the value just before an atomic (global atomics only: has_old).
  unsigned char value[16] = {};
  unsigned char old[16] = {};

  template <class T>
  T as() const {
    return bits_as<T>(value);
  }
  template <class T>
  T old_as() const {
    return bits_as<T>(old);
  }

 private:
  template <class T>
  static T bits_as(const unsigned char (&bytes)[16]) {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 16, "a recorded value has at most 16 bytes");
    T v;
    std::memcpy(&v, bytes, sizeof(T));
    return v;
  }
};

// One warp instruction: the accesses of the active lanes that a GPU would issue together.
struct RecordedInstruction {
  unsigned long long block = 0;  // linear: blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)
  unsigned warp = 0;             // in the block: linear thread index / 32
  unsigned interval = 0;         // the block barriers (__syncthreads and its forms) the block passed before it
  MemorySpace space = MemorySpace::global;
  AccessKind kind = AccessKind::load;
  unsigned bytes = 0;  // per lane
  unsigned mask = 0;   // the active lanes: bit k set when lane k took part
  // The call site in the compiled lab code: equal for the passes of one source access, so it
  // tells the two loads of `input[i] += input[i + stride]` apart. Not a source line.
  const void* site = nullptr;
  // Global: the allocation the lanes' elements lie in (its device address and size).
  std::uintptr_t allocation = 0;
  std::size_t allocation_bytes = 0;
  // Shared: whether the elements are the launch's dynamic shared memory (extern __shared__),
  // whose shared_offset counts from its first byte, or static __shared__ arrays, whose offsets
  // count from the lowest static shared address the launch touched (so a kernel with one
  // static array that touches its element 0, as every tree does, gets offset = index * size).
  bool dynamic_shared = false;
  bool has_old = false;            // global atomics: LaneAccess::old holds the value before
  std::vector<LaneAccess> lanes;   // in lane order, one per bit of mask
};

// A block barrier every thread of the block passed: it closes interval `interval`.
struct RecordedBarrier {
  unsigned long long block = 0;
  unsigned interval = 0;
  std::string file;  // where the threads met (file name without directories)
  int line = 0;
};

enum class LaunchOutcome { finished, deadlock, fault };

// Where one thread of the block that stopped a launch was.
struct StoppedThread {
  // running: had not reached its next sync point; faulted: the faulting thread.
  enum class State { running, at_barrier, at_warp_collective, exited, faulted };
  unsigned thread = 0;  // linear in the block
  State state = State::running;
  std::string file;     // where it waits (at_barrier, at_warp_collective)
  int line = 0;
};

struct LaunchEnd {
  LaunchOutcome outcome = LaunchOutcome::finished;
  std::string message;                // the emulator's report (what launch() threw), empty when finished
  unsigned long long block = 0;       // deadlock/fault: the block that stopped
  unsigned interval = 0;              // and the barrier interval it was in
  int faulting_thread = -1;           // fault: the thread whose access or call faulted, where known
  std::vector<StoppedThread> threads; // deadlock/fault: every thread of that block
};

struct RecordedLaunch {
  std::string kernel;  // demangled name
  dim3 grid, block;
  std::size_t dynamic_shared_bytes = 0;
  std::vector<RecordedInstruction> instructions;  // per block in order; within an interval, in execution order
  std::vector<RecordedBarrier> barriers;
  LaunchEnd end;
};

struct Record {
  std::vector<RecordedLaunch> launches;
  std::size_t events = 0;      // lane accesses and barriers recorded
  std::size_t max_events = 0;  // the cap it ran under
  bool truncated = false;      // the cap was reached: later accesses and barriers are missing
};

struct RecordOptions {
  // Lane accesses plus barriers kept at most (about 100 bytes each). Lab 1 at 2048 elements
  // records some 6,200; the cap keeps a mistaken large run from taking the machine's memory.
  std::size_t max_events = std::size_t{1} << 20;
};

// Starts recording the launches that follow (a record already being made is dropped).
// While recording, launches run their blocks one after another on one worker thread, so
// the record is deterministic for a seed and its values are exactly what each access saw,
// and accesses are grouped into instructions even when no counters are set.
void start_recording(RecordOptions options = {});
// Stops recording and hands the record over (empty if nothing was recording).
Record take_record();
bool recording();

}  // namespace reduce_emu
