// What the L2 flush before every timed sample does to the device (design §5, §13).
#pragma once

#include <cstddef>

namespace reduce_lab::grader {

// Reads every byte of `bytes` of device memory at `data` (16-byte aligned, a multiple of 16
// bytes), in stream order on the default stream, without writing anything back to it. Read
// through a buffer twice the L2's size, it evicts every line an earlier sample or an input
// copy left in the cache (their write-backs happen here, untimed) and leaves only clean
// lines behind, so a timed kernel pays neither for a cached input nor for someone else's
// dirty lines. `sink` is 4 bytes of device memory the kernel could write (it never does
// for a buffer of zeros): the only way to keep the compiler from dropping the reads.
void read_through_cache(const void* data, std::size_t bytes, void* sink);

}  // namespace reduce_lab::grader
