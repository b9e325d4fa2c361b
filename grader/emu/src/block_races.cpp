// Races between blocks (block_races.h says what is found and why).

#include "block_races.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace reduce_emu {
namespace detail {

namespace {

// A change: bits 0-23 the block + 1 (0: nobody), 24-33 the thread, 35-63 a stamp (the block's
// epoch for a store, the clock for an atomic).
constexpr std::uint64_t kBlockMask = (1ull << 24) - 1;
constexpr unsigned kThreadShift = 24, kStampShift = 35;

std::uint64_t pack(unsigned long long block, unsigned thread, std::uint64_t stamp) {
  return (block + 1) | (static_cast<std::uint64_t>(thread & 1023u) << kThreadShift) |
         (std::min(stamp, BlockRaces::kMaxStamp) << kStampShift);
}
std::uint64_t block_of(std::uint64_t e) { return e & kBlockMask; }  // block + 1
unsigned thread_of(std::uint64_t e) { return static_cast<unsigned>((e >> kThreadShift) & 1023u); }
std::uint64_t stamp_of(std::uint64_t e) { return e >> kStampShift; }

// A load: bits 0-21 the block + 1, 22-31 the thread. Its epoch is not kept: a load is taken as
// published by any release of its block (an order that is in doubt is given to the lab).
constexpr std::uint32_t kReadBlockMask = (1u << 22) - 1;
std::uint32_t pack_read(unsigned long long block, unsigned thread) {
  return static_cast<std::uint32_t>(block + 1) | ((thread & 1023u) << 22);
}
std::uint32_t read_block(std::uint32_t r) { return r & kReadBlockMask; }  // block + 1
unsigned read_thread(std::uint32_t r) { return r >> 22; }

// Atomics order blocks through the 8-byte-aligned word they touch (atomics are 4 or 8 bytes).
std::uintptr_t sync_word(std::uintptr_t address) { return address & ~static_cast<std::uintptr_t>(7); }

constexpr std::size_t kWordBytes = 4;

}  // namespace

// ---------------------------------------------------------------------------------------

namespace {

// The shadow of loads, up to this size, is mapped with its pages present and written over
// between launches. A load reads its word before it records itself with a read-modify-write,
// so a lazily mapped page is first the shared zero page and then, at that write, a page of its
// own; swapping the two flushes every core's TLB (an interprocessor interrupt, costly in a
// virtual machine): a third of lab 7's correctness test went there. Larger shadows, which a
// lab's scratch allocation may have and mostly leave untouched, stay lazy.
constexpr std::size_t kPresentShadowBytes = std::size_t{256} << 20;

void* reserve(std::size_t bytes, bool present) {
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (present ? MAP_POPULATE : 0), -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  return memory;  // zero pages: every word untouched
}

// An earlier launch's accesses: gone. Large lazy shadows give their pages back (zero again when
// next touched) instead of being written over.
void forget(void* memory, std::size_t bytes, bool present) {
  if (!present && bytes >= (64u << 10))
    madvise(memory, bytes, MADV_DONTNEED);
  else
    std::memset(memory, 0, bytes);
}

}  // namespace

AllocationShadow::AllocationShadow(std::size_t bytes) : count_((bytes + kWordBytes - 1) / kWordBytes) {
  if (count_ == 0) return;
  reads_present_ = count_ * sizeof *reads_ <= kPresentShadowBytes;
  reads_ = static_cast<std::atomic<std::uint32_t>*>(reserve(count_ * sizeof *reads_, reads_present_));
  try {
    // Only a launch that stores or updates the allocation touches these (not its inputs').
    changes_ = static_cast<WordChanges*>(reserve(count_ * sizeof *changes_, false));
  } catch (...) {
    munmap(reads_, count_ * sizeof *reads_);
    throw;
  }
}

AllocationShadow::~AllocationShadow() {
  if (count_ == 0) return;
  munmap(reads_, count_ * sizeof *reads_);
  munmap(changes_, count_ * sizeof *changes_);
}

void AllocationShadow::begin(unsigned long long serial) {
  if (serial_.load(std::memory_order_acquire) == serial) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const unsigned long long held = serial_.load(std::memory_order_relaxed);
  if (held == serial) return;
  if (held != 0 && count_ != 0) {
    forget(static_cast<void*>(reads_), count_ * sizeof *reads_, reads_present_);
    if (changed_.load(std::memory_order_relaxed))
      forget(static_cast<void*>(changes_), count_ * sizeof *changes_, false);
  }
  changed_.store(false, std::memory_order_relaxed);
  serial_.store(serial, std::memory_order_release);
}

// ---------------------------------------------------------------------------------------

void LaunchRaces::begin(unsigned long long serial, unsigned long long blocks, bool check) {
  serial_ = serial;
  // Block numbers are 22 bits in the shadow of loads; larger grids go unchecked.
  checking_ = false;
  clock_.store(1);
  if (!check || blocks >= kReadBlockMask) return;
  mapped_ = blocks * sizeof(BlockReleases);
  releases_ = static_cast<BlockReleases*>(reserve(mapped_, false));
  checking_ = true;
}

void LaunchRaces::end() {
  if (releases_ != nullptr) munmap(releases_, mapped_);
  releases_ = nullptr;
  checking_ = false;
}

// ---------------------------------------------------------------------------------------

void BlockRaces::begin(LaunchRaces* launch, unsigned long long block) {
  launch_ = launch;
  block_ = block;
  epoch_ = 0;
  pending_ = 0;
  acquires_.clear();
}

void BlockRaces::acquire_pending() {
  // After the block's atomic completed: every atomic on the word that took the clock before
  // now came before it in the word's order, so what those published is this block's now.
  const std::uint64_t clock = launch_->now();
  const std::uintptr_t word = pending_;
  pending_ = 0;
  for (Acquire& a : acquires_) {
    if (a.word == word) {
      a.clock = clock;
      return;
    }
  }
  acquires_.push_back(Acquire{word, clock});
}

bool BlockRaces::acquired_after(std::uintptr_t word, std::uint64_t clock) const {
  for (const Acquire& a : acquires_)
    if (a.word == word) return a.clock > clock;
  return false;
}

bool BlockRaces::published(unsigned long long block, std::uint64_t epoch) const {
  const BlockReleases& releases = launch_->releases(block);
  const unsigned count = std::min(releases.count.load(std::memory_order_acquire), kReleasesPerBlock);
  for (unsigned i = 0; i < count; ++i) {
    const Release& r = releases.entries[i];
    if (r.epoch > epoch && acquired_after(r.word, r.clock)) return true;
  }
  return false;
}

bool BlockRaces::access(AllocationShadow& shadow, std::uintptr_t base, std::size_t offset, unsigned bytes,
                        reduce_lab::Access kind, unsigned thread, Conflict* conflict) {
  settle();
  const std::size_t first = offset / kWordBytes;
  const std::size_t last = std::min((offset + std::max(bytes, 1u) - 1) / kWordBytes, shadow.word_count() - 1);
  const bool atomic = kind == reduce_lab::Access::atomic;
  const std::uint64_t clock = atomic ? launch_->tick() : 0;
  for (std::size_t w = first; w <= last; ++w) {
    if (!check_word(shadow, w, base + w * kWordBytes, kind, thread, clock, conflict)) return false;
  }
  if (atomic) {
    const std::uintptr_t word = sync_word(base + offset);
    if (epoch_ > 0) {
      // Publishes the accesses before the block's last fence, unless an earlier atomic on
      // the same word already did (a later one would only be acquired later).
      BlockReleases& mine = launch_->releases(block_);
      const unsigned count = mine.count.load(std::memory_order_relaxed);
      bool known = false;
      for (unsigned i = 0; i < count && !known; ++i)
        known = mine.entries[i].word == word && mine.entries[i].epoch == epoch_;
      if (!known && count < kReleasesPerBlock) {
        mine.entries[count] = Release{word, clock, static_cast<std::uint32_t>(epoch_)};
        mine.count.store(count + 1, std::memory_order_release);
      }
    }
    pending_ = word;
  }
  return true;
}

bool BlockRaces::check_word(AllocationShadow& shadow, std::size_t w, std::uintptr_t address,
                            reduce_lab::Access kind, unsigned thread, std::uint64_t clock, Conflict* conflict) {
  using reduce_lab::Access;
  const std::uint64_t me = block_ + 1;
  auto race = [&](Access before, std::uint64_t block_plus_one, unsigned other_thread) {
    conflict->before = before;
    conflict->other_block = block_plus_one - 1;
    conflict->other_thread = other_thread;
    return false;
  };
  // Whether the last store to the word (by another block) comes before this access.
  auto after_store = [&](std::uint64_t stored) {
    const std::uint64_t by = block_of(stored);
    if (by == 0 || by == me || published(by - 1, stamp_of(stored))) return true;
    return race(Access::store, by, thread_of(stored));
  };
  // Whether every atomic on the word (by another block) comes before this plain access: this
  // block acquired the word after the latest of them.
  auto after_atomics = [&](std::uint64_t atomic) {
    const std::uint64_t by = block_of(atomic);
    if (by == 0 || by == me || acquired_after(sync_word(address), stamp_of(atomic))) return true;
    return race(Access::atomic, by, thread_of(atomic));
  };
  // Whether the last load of the word (by another block) comes before this access. A word
  // loaded by this block after others is checked against this block only (documented).
  auto after_load = [&](std::uint32_t read) {
    const std::uint64_t by = read_block(read);
    if (by == 0 || by == me || published(by - 1, 0)) return true;
    return race(Access::load, by, read_thread(read));
  };

  // Each side records itself with a sequentially consistent read-modify-write (a store or an
  // atomic also marks the allocation changed first) before it looks at the other sides'
  // records, so of two blocks that touch a word at the same time at least one sees the other.
  std::atomic<std::uint32_t>& read = shadow.reads()[w];
  WordChanges& changes = shadow.changes()[w];
  switch (kind) {
    case Access::load: {
      std::uint32_t old = read.load(std::memory_order_relaxed);
      // This block's own earlier load, recorded by a read-modify-write already, stands.
      while (read_block(old) != me &&
             !read.compare_exchange_weak(old, pack_read(block_, thread), std::memory_order_seq_cst)) {
      }
      if (!shadow.changed()) return true;  // nothing stored or updated in the allocation yet
      return after_store(changes.stored.load(std::memory_order_seq_cst)) &&
             after_atomics(changes.atomic.load(std::memory_order_seq_cst));
    }
    case Access::store: {
      shadow.mark_changed();
      const std::uint64_t old = changes.stored.exchange(pack(block_, thread, epoch_), std::memory_order_seq_cst);
      return after_store(old) && after_atomics(changes.atomic.load(std::memory_order_seq_cst)) &&
             after_load(read.load(std::memory_order_seq_cst));
    }
    case Access::atomic: {
      shadow.mark_changed();
      std::uint64_t old = changes.atomic.load(std::memory_order_relaxed);
      for (;;) {
        // Only the latest atomic is kept: a block that acquired after it acquired after all.
        const std::uint64_t fresh =
            (block_of(old) != 0 && stamp_of(old) >= std::min(clock, kMaxStamp)) ? old : pack(block_, thread, clock);
        if (changes.atomic.compare_exchange_weak(old, fresh, std::memory_order_seq_cst)) break;
      }
      // Atomics never race with atomics.
      return after_store(changes.stored.load(std::memory_order_seq_cst)) &&
             after_load(read.load(std::memory_order_seq_cst));
    }
  }
  return true;
}

}  // namespace detail
}  // namespace reduce_emu
