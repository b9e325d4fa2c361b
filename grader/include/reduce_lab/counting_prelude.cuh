// Included first in every gpu-counted lab module (nvcc -include), before the lab's own
// includes: it counts every block barrier, whichever spelling reaches it. __syncthreads and
// its _count/_and/_or forms are macros over counted versions, and so is __barrier_sync, which
// is what cooperative groups' block sync (this_thread_block().sync(), cg::sync(block),
// barrier_wait) compiles to. Defining them here, ahead of any header the lab includes, is
// what makes <cooperative_groups.h> pick up the counted barrier too.
#pragma once

#if defined(REDUCE_LAB_COUNTING) && !defined(REDUCE_LAB_EMU)

#include <cuda_runtime.h>

#include "abi.h"

namespace reduce_lab {
namespace detail {

// Where the kernels of this module add up their counts; set by the module adapter before
// each call. static: every lab module has its own copy, so modules never share counters.
static __device__ Counters* device_counters = nullptr;

__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

// A barrier counted once per arriving warp; the grader divides by warps per block.
__device__ __forceinline__ void count_barrier() {
  Counters* counters = device_counters;
  if (counters == nullptr) return;
  const unsigned active = __activemask();
  if (lane_id() == static_cast<unsigned>(__ffs(active) - 1)) atomicAdd(&counters->barrier_warps, 1ull);
}

__device__ __forceinline__ void counted_syncthreads() {
  __syncthreads();
  count_barrier();
}
__device__ __forceinline__ int counted_syncthreads_count(int predicate) {
  const int result = __syncthreads_count(predicate);
  count_barrier();
  return result;
}
__device__ __forceinline__ int counted_syncthreads_and(int predicate) {
  const int result = __syncthreads_and(predicate);
  count_barrier();
  return result;
}
__device__ __forceinline__ int counted_syncthreads_or(int predicate) {
  const int result = __syncthreads_or(predicate);
  count_barrier();
  return result;
}
__device__ __forceinline__ void counted_barrier_sync(unsigned id) {
  __barrier_sync(id);
  count_barrier();
}

}  // namespace detail
}  // namespace reduce_lab

// Defined after the counted versions above, which call the real intrinsics.
#define __syncthreads() ::reduce_lab::detail::counted_syncthreads()
#define __syncthreads_count(p) ::reduce_lab::detail::counted_syncthreads_count(p)
#define __syncthreads_and(p) ::reduce_lab::detail::counted_syncthreads_and(p)
#define __syncthreads_or(p) ::reduce_lab::detail::counted_syncthreads_or(p)
#define __barrier_sync(id) ::reduce_lab::detail::counted_barrier_sync(id)

#endif
