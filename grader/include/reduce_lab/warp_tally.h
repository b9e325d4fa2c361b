// Turns one warp-level memory instruction (the addresses of the lanes that executed it
// together) into the counts of design §4. Host code only: the book models and the emulator
// both count through it, so their figures follow one definition.
#pragma once

#include <algorithm>
#include <cstdint>

#include "abi.h"
#include "run_seams.h"

namespace reduce_lab {

class WarpTally {
 public:
  // One lane's access of `bytes` (aligned to its size, so it never straddles a sector).
  void add(std::uintptr_t address, unsigned bytes) {
    if (lanes_ < 32) {
      if (lanes_ == 0) width_ = bytes;
      if (bytes != width_) width_ = 0;  // lanes of different widths: never one run
      addresses_[lanes_++] = address;
      bytes_ += bytes;
    }
  }
  unsigned lanes() const { return lanes_; }

  // Adds this instruction to `counters` and starts a new one.
  void flush(Access kind, Counters& counters) {
    if (lanes_ == 0) return;
    const int k = static_cast<int>(kind);
    counters.instructions[k] += 1;
    counters.active_lanes[k] += lanes_;
    counters.bytes[k] += bytes_;
    counters.requests[k] += distinct(7);
    counters.sectors[k] += distinct(5);
    counters.seam_sectors[k] += seam_sectors();
    lanes_ = 0;
    bytes_ = 0;
  }

 private:
  unsigned distinct(unsigned shift) const {
    std::uintptr_t keys[32];
    for (unsigned i = 0; i < lanes_; ++i) keys[i] = addresses_[i] >> shift;
    std::sort(keys, keys + lanes_);
    return static_cast<unsigned>(std::unique(keys, keys + lanes_) - keys);
  }

  // run_seams.h: when the lanes read one contiguous run of distinct addresses (in any lane
  // order), the seam sectors at its ends; otherwise none.
  unsigned seam_sectors() const {
    if (width_ == 0) return 0;
    std::uintptr_t sorted[32];
    std::copy(addresses_, addresses_ + lanes_, sorted);
    std::sort(sorted, sorted + lanes_);
    for (unsigned i = 1; i < lanes_; ++i)
      if (sorted[i] != sorted[i - 1] + width_) return 0;
    return run_seam_sectors(sorted[0], sorted[0] + static_cast<unsigned long long>(lanes_) * width_);
  }

  std::uintptr_t addresses_[32];
  unsigned lanes_ = 0;
  unsigned width_ = 0;  // bytes each lane accessed (0: not the same for all)
  unsigned long long bytes_ = 0;
};

}  // namespace reduce_lab
