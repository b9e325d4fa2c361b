// Turns one warp-level memory instruction (the addresses of the lanes that executed it
// together) into the counts of design §4. Host code only: the book models and the emulator
// both count through it, so their figures follow one definition.
#pragma once

#include <algorithm>
#include <cstdint>

#include "abi.h"

namespace reduce_lab {

class WarpTally {
 public:
  // One lane's access of `bytes` (aligned to its size, so it never straddles a sector).
  void add(std::uintptr_t address, unsigned bytes) {
    if (lanes_ < 32) {
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

  std::uintptr_t addresses_[32];
  unsigned lanes_ = 0;
  unsigned long long bytes_ = 0;
};

}  // namespace reduce_lab
