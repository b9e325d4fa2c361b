// launch(kernel, grid, block, args...): the one way a lab starts a kernel, so the same file
// runs on the GPU and on the emulator, and the grader knows how many blocks and warps ran.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "abi.h"
#include "check.h"
#include "global.cuh"

namespace reduce_lab {

namespace detail {
// The call the grader is making into this module right now (set by the module adapter).
static Call* current_call = nullptr;

inline void record_launch(dim3 grid, dim3 block) {
  if (current_call == nullptr) return;
  const unsigned long long blocks = 1ull * grid.x * grid.y * grid.z;
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  current_call->launches.launches += 1;
  current_call->launches.blocks += blocks;
  current_call->launches.warps += blocks * ((threads + 31) / 32);
}

#if !defined(REDUCE_LAB_EMU)
template <class T>
__global__ void fill_kernel(T* destination, T value, unsigned long long count) {
  const unsigned long long i = 1ull * blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) destination[i] = value;
}
#endif
}  // namespace detail

// How many bytes of dynamic shared memory (extern __shared__ T name[]) each block gets:
// launch(kernel, grid, block, reduce_lab::dynamic_shared(bytes), args...).
struct DynamicShared {
  std::size_t bytes;
};
inline DynamicShared dynamic_shared(std::size_t bytes) { return DynamicShared{bytes}; }

template <class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, DynamicShared shared, Args... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "launch(): wrong number of kernel arguments");
  detail::record_launch(grid, block);
#if defined(REDUCE_LAB_EMU)
  ::reduce_emu::launch_with_shared(kernel, grid, block, shared.bytes, static_cast<Params>(args)...);
#else
  // Past 48 KB a kernel must opt in, as the CUDA programming guide asks.
  if (shared.bytes > 48 * 1024)
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared.bytes)),
          "allowing the kernel that much dynamic shared memory");
  kernel<<<grid, block, shared.bytes>>>(static_cast<Params>(args)...);
  check(cudaGetLastError(), "launching a kernel");
#endif
}

template <class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, Args... args) {
  launch(kernel, grid, block, DynamicShared{0}, args...);
}

// Host code's way to set device values (an output to the op's identity, say) in stream
// order, without a synchronising copy inside the timed region. Not counted as a kernel access.
template <class T>
void fill(Global<T> destination, detail::non_deduced<T> value, unsigned long long count = 1) {
  T* memory = detail::GlobalAccess::pointer(destination);
#if defined(REDUCE_LAB_EMU)
  // Device memory is not host memory, also on the emulator: it is written by a copy.
  const std::vector<T> values(count, value);
  check(cudaMemcpy(memory, values.data(), count * sizeof(T), cudaMemcpyHostToDevice), "filling device memory");
#else
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>((count + threads - 1) / threads);
  detail::fill_kernel<<<blocks, threads>>>(memory, static_cast<T>(value), count);
  check(cudaGetLastError(), "filling the output with the identity");
#endif
}

}  // namespace reduce_lab
