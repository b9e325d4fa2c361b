// The seam sectors of one warp instruction: the one definition the gpu-counted build
// (global.cuh) and the host-side counts (warp_tally.h: the emulator and the book models) share.
//
// A kernel that reads every byte once, each warp instruction one contiguous run of addresses,
// fetches ceil(bytes / 32) sectors plus one more each time a sector is shared by two runs:
// each fetches it. Where runs meet partway through a sector depends on the grid and on n
// (per-block tiles of an odd number of vectors, a vector part and a scalar tail, several
// launches), so the bound cannot be a constant; each instruction declares instead the sectors
// it may share:
//  - the sector where its run ends partway, if the run covers that sector from its first byte:
//    the run above takes the rest. Where two runs meet, the lower one always does, so every
//    seam between two runs is declared, whatever their widths (one lane's last vector and
//    a tail of one element included);
//  - the sector where it starts partway, if the run is at least a sector long: a neighbour
//    that fills the middle of a sector (a short run strictly inside it) then still leaves
//    one sector shared three ways covered.
// A run shorter than a sector that starts partway declares nothing there: runs that short
// side by side, one element at a time (one lane reading alone), are what uncoalesced reads
// look like, and the sectors they share are the cost the bound is there to show.
#pragma once

#include "host_device.h"

namespace reduce_lab {

// Seam sectors (0-2) of a run that reads the bytes [lo, hi), hi > lo.
REDUCE_LAB_HOST_DEVICE inline unsigned run_seam_sectors(unsigned long long lo, unsigned long long hi) {
  const bool ends_partway = (hi & 31) != 0 && lo <= (hi & ~31ull);
  const bool starts_partway = (lo & 31) != 0 && hi - lo >= 32;
  return static_cast<unsigned>(ends_partway) + static_cast<unsigned>(starts_partway);
}

}  // namespace reduce_lab
