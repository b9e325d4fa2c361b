// Global<T>: how a lab kernel names global memory.
//
// In the plain gpu build it IS a T*, so the graded timings carry no overhead. In the
// counting builds (gpu-counted, emu) it is a small class: every element read, write and
// atomic through it is reported to count_access(), which groups the accesses of one warp
// instruction into 128-byte requests and 32-byte sectors (design §4), and (on the emulator)
// checks the access against its allocation before it happens.
//
// Lab code reads the same in all three builds, and means the same:
//  - Global<const T> (an input that is only read): input[i] and *input ARE values of type T,
//    so `i < n ? input[i] : 0`, `auto x = input[i]` and templates see a T, as on the GPU.
//  - Global<T> (memory the lab writes): input[i] = v, input[i] += x, &input[i] (a Global
//    again, for atomicAdd(&output[0], v)); reads convert to T.
//  - input + offset, input += offset, atomicAdd/Max/Min/... (output, v), __ldg(input + i).
// There is no way to turn a Global into a raw pointer in lab code: an access that went
// around Global<T> would escape the bounds checks and the counters (the emulator reports one
// when it happens: docs/emulator.md).
#pragma once

#include <cstddef>
#include <type_traits>

#include "abi.h"
#include "counting_prelude.cuh"
#include "run_seams.h"

namespace reduce_lab {

namespace detail {
template <class T>
struct identity_type {
  using type = T;
};
// Keeps a parameter out of template deduction: atomicAdd(output, 1.0) with a Global<float>
// then converts the double instead of failing to deduce T.
template <class T>
using non_deduced = typename identity_type<T>::type;
}  // namespace detail

#if !defined(REDUCE_LAB_COUNTING) && !defined(REDUCE_LAB_EMU)

template <class T>
using Global = T*;

namespace detail {
// The kit's own way to the memory behind a Global (atomics, fills, vector loads).
struct GlobalAccess {
  template <class T>
  __host__ __device__ static T* pointer(T* p) {
    return p;
  }
};
}  // namespace detail

#else  // counting builds

namespace detail {
#if !defined(REDUCE_LAB_EMU)
// The seam sectors (run_seams.h) of the instruction the lanes of `active` execute together:
// those at the ends of its run when their accesses of `bytes` each form one contiguous run of
// distinct addresses, in any lane order; otherwise 0. Every lane of `active` calls it and gets
// the same answer. The host's definition (WarpTally) sorts the addresses; here each lane takes
// its offset from the lowest active lane's address in accesses (a contiguous run of at most
// 32 lies within 31 of it), the warp finds the smallest offset with six ballots (a radix
// search over its bits), and the run is contiguous when the offsets are distinct and all lie
// within the `lanes` accesses that follow the smallest.
__device__ __forceinline__ unsigned seam_sectors(unsigned active, unsigned lane, unsigned long long byte,
                                                 unsigned bytes) {
  const unsigned lanes = __popc(active);
  const unsigned long long base = __shfl_sync(active, byte, __ffs(active) - 1);
  const long long offset = static_cast<long long>(byte - base);
  const long long width = static_cast<long long>(bytes);
  const bool near = offset % width == 0 && offset >= -31 * width && offset <= 31 * width;
  const unsigned slot = near ? static_cast<unsigned>(offset / width + 31) : 0u;  // 0 to 62
  unsigned lowest = active, min_slot = 0;
#pragma unroll
  for (int bit = 5; bit >= 0; --bit) {
    const unsigned zeros = __ballot_sync(active, ((slot >> bit) & 1u) == 0) & lowest;
    if (zeros != 0) {
      lowest = zeros;
    } else {
      min_slot |= 1u << bit;
    }
  }
  const bool distinct = __match_any_sync(active, slot) == (1u << lane);
  if (!__all_sync(active, near && distinct && slot - min_slot < lanes)) return 0;
  const unsigned long long lo = base + static_cast<unsigned long long>((static_cast<long long>(min_slot) - 31) * width);
  return run_seam_sectors(lo, lo + static_cast<unsigned long long>(lanes) * bytes);
}

// One lane per group of the active lanes that touch the same segment counts it once: the
// hardware issues one request per distinct 128-byte segment of a warp instruction. Returns
// the address to access (the emulator's version may redirect it; here it is the same).
// Inlined at every access site, which makes a counting build slow to compile (lab 8's reference:
// two minutes of nvcc). A tally in a __noinline__ function was tried, with the active lanes read
// here and handed to it: on an H200 lab 8's reference then failed its own requests test (427
// load sectors at 103 x 33, past the 426 that count's own seams allow), which it passes inlined.
__device__ __forceinline__ void* count_access(Access kind, const void* address, unsigned bytes,
                                              const void* /*origin*/) {
  Counters* counters = device_counters;
  if (counters != nullptr) {
    const unsigned active = __activemask();
    const unsigned lane = lane_id();
    const unsigned long long byte = reinterpret_cast<unsigned long long>(address);
    const unsigned same_segment = __match_any_sync(active, byte >> 7);
    const unsigned same_sector = __match_any_sync(active, byte >> 5);
    const unsigned seams = seam_sectors(active, lane, byte, bytes);
    const int k = static_cast<int>(kind);
    if (lane == static_cast<unsigned>(__ffs(same_segment) - 1)) atomicAdd(&counters->requests[k], 1ull);
    if (lane == static_cast<unsigned>(__ffs(same_sector) - 1)) atomicAdd(&counters->sectors[k], 1ull);
    if (lane == static_cast<unsigned>(__ffs(active) - 1)) {
      atomicAdd(&counters->instructions[k], 1ull);
      atomicAdd(&counters->active_lanes[k], static_cast<unsigned long long>(__popc(active)));
      atomicAdd(&counters->bytes[k], static_cast<unsigned long long>(__popc(active)) * bytes);
      if (seams != 0) atomicAdd(&counters->seam_sectors[k], static_cast<unsigned long long>(seams));
    }
  }
  return const_cast<void*>(address);
}
#else
// The emulator's (reduce_emu/emu.h): it checks the access, logs it and redirects it.
using ::reduce_emu::count_access;
#endif

struct GlobalAccess;

// Counts one access of kind `kind` to `p` and returns the pointer to perform it through.
template <class T>
__device__ __forceinline__ T* counted(Access kind, T* p, const void* origin) {
  return static_cast<T*>(count_access(kind, p, sizeof(T), origin));
}
}  // namespace detail

template <class T>
class Global;

// What input[i] yields for memory the lab may write: reads, writes and read-modify-writes
// each count as the warp instructions the hardware would issue for them.
template <class T>
class GlobalRef {
 public:
  __host__ __device__ GlobalRef(T* p, const void* origin) : p_(p), origin_(origin) {}

  __device__ __forceinline__ operator T() const { return *detail::counted(Access::load, p_, origin_); }
  __device__ __forceinline__ const GlobalRef& operator=(detail::non_deduced<T> v) const {
    *detail::counted(Access::store, p_, origin_) = v;
    return *this;
  }
  __device__ __forceinline__ const GlobalRef& operator=(const GlobalRef& other) const {
    return *this = static_cast<T>(other);
  }
  template <class U>
  __device__ __forceinline__ const GlobalRef& operator=(const GlobalRef<U>& other) const {
    return *this = static_cast<T>(static_cast<U>(other));
  }
  __device__ __forceinline__ const GlobalRef& operator+=(detail::non_deduced<T> v) const {
    return *this = static_cast<T>(static_cast<T>(*this) + v);
  }
  __device__ __forceinline__ const GlobalRef& operator-=(detail::non_deduced<T> v) const {
    return *this = static_cast<T>(static_cast<T>(*this) - v);
  }
  __device__ __forceinline__ const GlobalRef& operator*=(detail::non_deduced<T> v) const {
    return *this = static_cast<T>(static_cast<T>(*this) * v);
  }
  // &input[i] is a Global<T> again, so atomicAdd(&output[0], v) counts too.
  __host__ __device__ Global<T> operator&() const { return Global<T>(p_, origin_); }

 private:
  T* p_;
  const void* origin_;  // the allocation this pointer came from (out-of-bounds messages)
};

template <class T>
class Global {
  static constexpr bool read_only = std::is_const<T>::value;
  using Value = std::remove_const_t<T>;
  // A read-only element is a plain value; a writable one a GlobalRef.
  using Element = std::conditional_t<read_only, Value, GlobalRef<T>>;

 public:
  Global() = default;
  __host__ __device__ Global(T* p) : p_(p), origin_(p) {}
  __host__ __device__ Global(T* p, const void* origin) : p_(p), origin_(origin) {}
  template <class U, class = std::enable_if_t<std::is_same<const U, T>::value>>
  __host__ __device__ Global(const Global<U>& other) : p_(other.p_), origin_(other.origin_) {}

  template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
  __device__ __forceinline__ Element operator[](I i) const {
    return element(p_ + i);
  }
  __device__ __forceinline__ Element operator*() const { return element(p_); }

  template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
  __host__ __device__ Global operator+(I offset) const {
    return Global(p_ + offset, origin_);
  }
  template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
  __host__ __device__ Global operator-(I offset) const {
    return Global(p_ - offset, origin_);
  }
  template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
  __host__ __device__ Global& operator+=(I offset) {
    p_ += offset;
    return *this;
  }
  template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
  __host__ __device__ Global& operator-=(I offset) {
    p_ -= offset;
    return *this;
  }
  __host__ __device__ Global& operator++() { return *this += 1; }
  __host__ __device__ Global& operator--() { return *this -= 1; }

 private:
  template <class U>
  friend class Global;
  friend struct detail::GlobalAccess;

  __device__ __forceinline__ Element element(T* p) const {
    if constexpr (read_only) {
      return *detail::counted(Access::load, p, origin_);
    } else {
      return GlobalRef<T>(p, origin_);
    }
  }

  T* p_ = nullptr;
  const void* origin_ = nullptr;
};

namespace detail {
// The kit's own way to the memory behind a Global (atomics, fills, vector loads).
struct GlobalAccess {
  template <class T>
  __host__ __device__ static T* pointer(const Global<T>& g) {
    return g.p_;
  }
  template <class T>
  __host__ __device__ static const void* origin(const Global<T>& g) {
    return g.origin_;
  }
  // Counts one access of an element at g and returns where to perform it.
  template <class T>
  __device__ __forceinline__ static T* count(Access kind, const Global<T>& g) {
    return counted(kind, g.p_, g.origin_);
  }
};
}  // namespace detail

// Atomics on a Global: one counted atomic each, then CUDA's own on the memory behind it.
#define REDUCE_LAB_COUNTED_ATOMIC(NAME)                                                      \
  template <class T>                                                                         \
  __device__ __forceinline__ T NAME(Global<T> address, detail::non_deduced<T> value) {       \
    return ::NAME(detail::GlobalAccess::count(Access::atomic, address), value);              \
  }
REDUCE_LAB_COUNTED_ATOMIC(atomicAdd)
REDUCE_LAB_COUNTED_ATOMIC(atomicSub)
REDUCE_LAB_COUNTED_ATOMIC(atomicMax)
REDUCE_LAB_COUNTED_ATOMIC(atomicMin)
REDUCE_LAB_COUNTED_ATOMIC(atomicExch)
REDUCE_LAB_COUNTED_ATOMIC(atomicAnd)
REDUCE_LAB_COUNTED_ATOMIC(atomicOr)
REDUCE_LAB_COUNTED_ATOMIC(atomicXor)
REDUCE_LAB_COUNTED_ATOMIC(atomicInc)
REDUCE_LAB_COUNTED_ATOMIC(atomicDec)
#undef REDUCE_LAB_COUNTED_ATOMIC

template <class T>
__device__ __forceinline__ T atomicCAS(Global<T> address, detail::non_deduced<T> compare,
                                       detail::non_deduced<T> value) {
  return ::atomicCAS(detail::GlobalAccess::count(Access::atomic, address), compare, value);
}

// __ldg(input + i): a read-only load, counted like input[i] (found by argument-dependent
// lookup, so lab code calls it unqualified as on the GPU).
template <class T>
__device__ __forceinline__ T __ldg(Global<const T> address) {
  return *address;
}

#endif  // counting builds

}  // namespace reduce_lab

#if (defined(REDUCE_LAB_COUNTING) || defined(REDUCE_LAB_EMU))
// Lab code calls atomicAdd(output, v) unqualified; these make the Global<T> overloads visible.
using reduce_lab::atomicAdd;
using reduce_lab::atomicAnd;
using reduce_lab::atomicCAS;
using reduce_lab::atomicDec;
using reduce_lab::atomicExch;
using reduce_lab::atomicInc;
using reduce_lab::atomicMax;
using reduce_lab::atomicMin;
using reduce_lab::atomicOr;
using reduce_lab::atomicSub;
using reduce_lab::atomicXor;
#endif

namespace reduce_lab {

// N elements read as one access of N*sizeof(T) bytes, as a float4 load would be.
template <class T, int N>
struct alignas(sizeof(T) * N) Vector {
  T element[N];
};

// Elements [i*N, i*N + N) of `p` in ONE load instruction per lane (N*sizeof(T) = 16 bytes
// is the widest): the same bytes in fewer instructions. `p` must be aligned to the vector
// size; every buffer the grader hands a lab is.
template <int N, class T>
__device__ __forceinline__ Vector<std::remove_const_t<T>, N> load_vector(Global<T> p, unsigned long long i) {
  using V = Vector<std::remove_const_t<T>, N>;
  const V* vectors = reinterpret_cast<const V*>(detail::GlobalAccess::pointer(p)) + i;
#if defined(REDUCE_LAB_COUNTING) || defined(REDUCE_LAB_EMU)
  vectors = static_cast<const V*>(
      detail::count_access(Access::load, vectors, sizeof(V), detail::GlobalAccess::origin(p)));
#endif
  return *vectors;
}

}  // namespace reduce_lab
