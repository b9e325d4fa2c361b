// atomic_combine<Op>(output, value): output = Op(output, value) as one atomic, for every
// type and op of lab 7. CUDA has atomicAdd for float, double and int and atomicMax/Min for
// int only; max and min of floating point are a compare-and-swap loop on the bits. The
// counters see one atomic per call, as the lesson's "one atomic per block" means.
#pragma once

#include <cstring>

#include "global.cuh"
#include "ops.cuh"

namespace reduce_lab {

namespace detail {

template <class Bits, class T>
__device__ inline Bits to_bits(T value) {
  Bits bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

template <class T, class Bits>
__device__ inline T from_bits(Bits bits) {
  T value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

template <class Op, class T, class Bits>
__device__ inline void compare_and_swap_combine(T* address, T value) {
  Bits* word = reinterpret_cast<Bits*>(address);
  Bits seen = ::atomicCAS(word, Bits(0), Bits(0));  // an atomic read: writes 0 only over 0
  for (;;) {
    const T current = from_bits<T>(seen);
    const T combined = Op()(current, value);
    if (to_bits<Bits>(combined) == seen) return;  // value does not change the result
    const Bits before = ::atomicCAS(word, seen, to_bits<Bits>(combined));
    if (before == seen) return;
    seen = before;
  }
}

template <class Op, class T>
struct AtomicCombine {
  __device__ static void apply(T* address, T value) {
    if constexpr (sizeof(T) == 8) {
      compare_and_swap_combine<Op, T, unsigned long long>(address, value);
    } else {
      compare_and_swap_combine<Op, T, unsigned int>(address, value);
    }
  }
};
template <class T>
struct AtomicCombine<Sum<T>, T> {
  __device__ static void apply(T* address, T value) { ::atomicAdd(address, value); }
};
template <>
struct AtomicCombine<Max<int>, int> {
  __device__ static void apply(int* address, int value) { ::atomicMax(address, value); }
};
template <>
struct AtomicCombine<Min<int>, int> {
  __device__ static void apply(int* address, int value) { ::atomicMin(address, value); }
};

}  // namespace detail

template <class Op, class T>
__device__ __forceinline__ void atomic_combine(Global<T> output, detail::non_deduced<T> value) {
#if defined(REDUCE_LAB_COUNTING) || defined(REDUCE_LAB_EMU)
  detail::AtomicCombine<Op, T>::apply(detail::GlobalAccess::count(Access::atomic, output), value);
#else
  detail::AtomicCombine<Op, T>::apply(output, value);
#endif
}

}  // namespace reduce_lab
