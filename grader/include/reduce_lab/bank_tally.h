// Turns one warp-level shared-memory instruction (the lanes that executed it together and
// the addresses they accessed) into wavefronts and bank conflicts, as the hardware serves
// it (design §11). Host code only: the emulator and the grader's models count through it;
// observe_shared() in shared.cuh is its device-side twin for the gpu-counted build.
//
// Shared memory has 32 banks of 4 bytes; byte b lies in bank (b / 4) % 32. An access of at
// most 4 bytes is served for the whole warp at once; an 8-byte access for each half-warp
// (lanes 0-15, 16-31) apart, a 16-byte access for each quarter-warp apart. Within one such
// phase, lanes that touch the same 4-, 8- or 16-byte unit share it (a broadcast), and a bank
// holding k distinct units the phase touches takes k wavefronts: the deepest bank decides.
// The ideal is one wavefront per phase with an active lane; conflicts are the rest.
#pragma once

#include <algorithm>
#include <cstdint>

#include "abi.h"

namespace reduce_lab {

class BankTally {
 public:
  // Lane `lane` (0-31) accessed `bytes` bytes (1, 2, 4, 8 or 16, aligned to their size) at
  // shared byte address `address`. One instruction accesses one size.
  void add(unsigned lane, std::uintptr_t address, unsigned bytes) {
    if (count_ < 32) {
      lanes_[count_] = static_cast<unsigned char>(lane & 31u);
      addresses_[count_++] = address;
      bytes_ = bytes;
    }
  }
  unsigned lanes() const { return count_; }

  struct Cost {
    unsigned wavefronts = 0;
    unsigned ideal = 0;
  };

  // This instruction's cost, without adding it anywhere.
  Cost cost() const {
    Cost c;
    const unsigned unit_bytes = bytes_ <= 4 ? 4u : bytes_;
    const unsigned lanes_per_phase = 128u / unit_bytes;
    for (unsigned phase = 0; phase < 32u / lanes_per_phase; ++phase) {
      std::uintptr_t units[32];
      unsigned n = 0;
      for (unsigned i = 0; i < count_; ++i)
        if (lanes_[i] / lanes_per_phase == phase) units[n++] = addresses_[i] / unit_bytes;
      if (n == 0) continue;
      c.ideal += 1;
      std::sort(units, units + n);
      n = static_cast<unsigned>(std::unique(units, units + n) - units);
      unsigned depth[32] = {};
      unsigned deepest = 0;
      for (unsigned i = 0; i < n; ++i) deepest = std::max(deepest, ++depth[units[i] % lanes_per_phase]);
      c.wavefronts += deepest;
    }
    return c;
  }

  // Adds this instruction to `counters` and starts a new one.
  void flush(Access kind, Counters& counters) {
    if (count_ == 0) return;
    const int k = static_cast<int>(kind);
    const Cost c = cost();
    counters.shared_instructions[k] += 1;
    counters.shared_wavefronts[k] += c.wavefronts;
    counters.shared_conflicts[k] += c.wavefronts - c.ideal;
    counters.shared_active_lanes[k] += count_;
    counters.shared_bytes[k] += static_cast<unsigned long long>(count_) * bytes_;
    count_ = 0;
  }

 private:
  std::uintptr_t addresses_[32];
  unsigned char lanes_[32];
  unsigned count_ = 0;
  unsigned bytes_ = 4;
};

}  // namespace reduce_lab
