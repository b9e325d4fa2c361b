// Races between blocks: global-memory accesses of two blocks of one launch that nothing
// orders. Not part of the emulator's interface.
//
// Blocks of a launch run in no set order and at the same time, so two of them touching one
// word, at least one without an atomic, is a race: which one wins depends on scheduling, and
// a re-run under another order may well hide it. This finds it whatever the order. Every
// allocation has a shadow that remembers, for each 4-byte word and the current launch, which
// block and thread last stored to it, which last updated it with an atomic, and which last
// loaded it. An access checks the shadow before it happens:
//   - a load of a word another block stored to, or updates with atomics;
//   - a store to a word another block loaded, stored to, or updates with atomics;
//   - an atomic on a word another block loaded or stored to;
// is a race unless something orders the two. Atomics never race with atomics. The one order
// CUDA gives between blocks of a launch is the one cuda-samples' threadFenceReduction relies
// on: block Y's accesses, then __threadfence() in Y, then an atomic of Y on a word C, come
// before everything block X does after its own atomic on C observed Y's (a later place in C's
// order of atomics). So a block counts the fences its threads executed (its epoch), and a
// store carries its block's epoch; an atomic after a fence publishes the stores of earlier
// epochs (and the block's loads) through its word; and a block acquires what was published
// through a word by its own atomic on it.
//
// Thread-safe without locks: shadow entries are changed with atomic read-modify-writes, and
// a block's releases are written only by the runner of that block.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include <reduce_lab/abi.h>

namespace reduce_emu {
namespace detail {

// What the shadow remembers of one 4-byte word's changes in the current launch.
struct WordChanges {
  std::atomic<std::uint64_t> stored{0};  // the last store
  std::atomic<std::uint64_t> atomic{0};  // the atomic that took the latest clock
};

// The shadow of one allocation, reserved with it: the last load of each word (4 bytes), and
// its changes (16 bytes), which loads look at only once a block of the launch has stored to
// the allocation or updated it with an atomic. An input that is only read costs 4 bytes a word,
// and pages cost memory only once touched.
class AllocationShadow {
 public:
  explicit AllocationShadow(std::size_t bytes);
  ~AllocationShadow();
  AllocationShadow(const AllocationShadow&) = delete;
  AllocationShadow& operator=(const AllocationShadow&) = delete;

  // Makes the shadow hold launch `serial`'s accesses, forgetting an earlier launch's. Called
  // by every runner before its first access of the launch to this allocation.
  void begin(unsigned long long serial);
  std::atomic<std::uint32_t>* reads() const { return reads_; }
  WordChanges* changes() const { return changes_; }
  std::size_t word_count() const { return count_; }
  // Whether a block of this launch stored to the allocation or updated it with an atomic.
  bool changed() const { return changed_.load(std::memory_order_seq_cst); }
  void mark_changed() {
    if (!changed_.load(std::memory_order_seq_cst)) changed_.store(true, std::memory_order_seq_cst);
  }

 private:
  std::atomic<std::uint32_t>* reads_ = nullptr;
  WordChanges* changes_ = nullptr;
  std::size_t count_ = 0;
  bool reads_present_ = false;  // the shadow of loads mapped with its pages present (block_races.cpp)
  std::atomic<bool> changed_{false};
  std::atomic<unsigned long long> serial_{0};  // the launch whose accesses it holds; 0: none yet
  std::mutex mutex_;
};

// A block's atomic after a __threadfence(): it publishes the block's accesses of epochs below
// `epoch` through `word`, to every block whose own atomic on `word` comes later.
struct Release {
  std::uintptr_t word = 0;
  std::uint64_t clock = 0;  // the launch clock just before the atomic
  std::uint32_t epoch = 0;
};

constexpr unsigned kReleasesPerBlock = 8;

struct BlockReleases {
  std::atomic<unsigned> count{0};
  Release entries[kReleasesPerBlock];
};

// One launch's side: on when the launch is checked, its clock of atomics, each block's releases.
class LaunchRaces {
 public:
  void begin(unsigned long long serial, unsigned long long blocks, bool check);
  void end();
  bool checking() const { return checking_; }
  unsigned long long serial() const { return serial_; }

  std::uint64_t tick() { return clock_.fetch_add(1, std::memory_order_seq_cst); }
  std::uint64_t now() const { return clock_.load(std::memory_order_seq_cst); }
  BlockReleases& releases(unsigned long long block) { return releases_[block]; }

 private:
  bool checking_ = false;
  unsigned long long serial_ = 0;
  std::atomic<std::uint64_t> clock_{1};
  BlockReleases* releases_ = nullptr;  // one per block, zero pages until a block publishes
  std::size_t mapped_ = 0;
};

// The two accesses of a race, for the message.
struct Conflict {
  reduce_lab::Access before = reduce_lab::Access::load;  // what the other block did
  unsigned long long other_block = 0;                     // linear, within the grid
  unsigned other_thread = 0;                              // linear, within its block
};

// The running block's side, kept by its runner.
class BlockRaces {
 public:
  void begin(LaunchRaces* launch, unsigned long long block);
  // __threadfence(): the block's accesses so far are published by its next atomic.
  void fence() {
    if (epoch_ < kMaxStamp) ++epoch_;
  }
  // Called when the block's fibers come back to the runner and before each access: an atomic
  // the block issued has completed by then, so what it observed can be acquired.
  void settle() {
    if (pending_ != 0) acquire_pending();
  }
  // Checks (and records) one access of `bytes` bytes at byte `offset` of an allocation whose
  // device address is `base`. Returns false, with `conflict` filled in, on a race.
  bool access(AllocationShadow& shadow, std::uintptr_t base, std::size_t offset, unsigned bytes,
              reduce_lab::Access kind, unsigned thread, Conflict* conflict);

  static constexpr std::uint64_t kMaxStamp = (1ull << 29) - 1;

 private:
  bool check_word(AllocationShadow& shadow, std::size_t word, std::uintptr_t address, reduce_lab::Access kind,
                  unsigned thread, std::uint64_t clock, Conflict* conflict);
  void acquire_pending();
  // Whether `block`'s accesses of epoch `epoch` are published to this block.
  bool published(unsigned long long block, std::uint64_t epoch) const;
  // Whether this block acquired `word` after the atomic at `clock`.
  bool acquired_after(std::uintptr_t word, std::uint64_t clock) const;

  struct Acquire {
    std::uintptr_t word;
    std::uint64_t clock;
  };
  LaunchRaces* launch_ = nullptr;
  unsigned long long block_ = 0;
  std::uint64_t epoch_ = 0;
  std::uintptr_t pending_ = 0;  // the word of an atomic not yet acquired
  std::vector<Acquire> acquires_;
};


}  // namespace detail
}  // namespace reduce_emu
