// cooperative_groups::reduce on the emulator: every thread of a warp tile gets the tile's
// reduction, through the tile's own shuffles (so a lane missing from it is a fault, as the
// GPU's rules say).
#pragma once

#include <cooperative_groups.h>

#include <utility>

namespace cooperative_groups {

template <unsigned N, class Parent, class V, class Op, class T = ::reduce_emu::detail::value_of_t<V>>
T reduce(const thread_block_tile<N, Parent>& tile, const V& argument, Op&& op, const char* file = __builtin_FILE(),
         int line = __builtin_LINE()) {
  T value = argument;  // a shared element is read once, as the GPU's reduce takes its value
  for (unsigned offset = N / 2; offset >= 1; offset /= 2) value = op(value, tile.shfl_xor(value, offset, file, line));
  return value;
}

template <class Group, class T, class Op>
T reduce(const Group&, T, Op&&) {
  static_assert(details::unsupported<Group>,
                "the emulator supports cooperative_groups::reduce over tiled_partition<N> tiles only "
                "(docs/emulator.md)");
  return T();
}

}  // namespace cooperative_groups
