// Shared memory as the counting builds see it (design §11).
//
// The plain gpu build never includes this file: there `__shared__ float input_s[1024];` is
// CUDA's own array and costs nothing extra. In the counting builds (gpu-counted, emu) the
// build rewrites each `__shared__` declaration of a lab file (cmake/counting_rewrite.cmake)
// into one of the types below, on the same line:
//
//   __shared__ float input_s[BLOCK_DIM];   ->  REDUCE_LAB_SHARED ::reduce_lab::Shared<float[BLOCK_DIM]> input_s;
//   extern __shared__ float input_s[];     ->  a SharedPtr<float> to the block's dynamic memory
//   volatile float* last = input_s;        ->  ::reduce_lab::SharedPtr<volatile float> last = input_s;
//
// The storage is the same bytes at the same place; every element read, write and atomic
// through it is reported to observe_shared(), which groups a warp's accesses into warp
// instructions and counts their wavefronts (bank_tally.h says how). Lab code reads the same:
// input_s[t] += input_s[t + stride], &input_s[i], input_s + k, atomicAdd(&input_s[0], v),
// 2-D arrays (tile[y][x]). What the kit cannot follow (a raw pointer made from a shared
// array other than in a declaration the rewrite sees, a shared struct) stops the build with
// a message naming docs/grading.md, so no access is silently left out.
#pragma once

#if defined(REDUCE_LAB_COUNTING) || defined(REDUCE_LAB_EMU)

#include <type_traits>

#include "abi.h"
#include "counting_prelude.cuh"
#include "global.cuh"

// The memory space of the rewritten declarations (thread_local per block on the emulator).
#define REDUCE_LAB_SHARED __shared__

namespace reduce_lab {
namespace detail {

template <class T>
constexpr bool always_false = false;

#if defined(REDUCE_LAB_EMU)
// The emulator logs the access for the warp's instruction grouping (reduce_emu/emu.h);
// reduce_emu_shared_observed says whether this launch is counted.
__device__ __forceinline__ void observe_shared(Access kind, const volatile void* address, unsigned bytes) {
  if (reduce_emu_shared_observed) ::reduce_emu::count_shared_access(kind, address, bytes);
}
#else
// One warp instruction's shared-memory wavefronts, counted as the hardware splits it: an
// access of at most 4 bytes is served 32 lanes at a time, 8 bytes 16 lanes (half-warps),
// 16 bytes 8 lanes (quarter-warps). Within one such phase, lanes touching the same
// 4/8/16-byte unit share it, and the deepest bank (the most distinct units in one bank, or
// bank pair or quad) is the number of wavefronts the phase takes. The ideal is one per phase
// with an active lane; conflicts are the wavefronts beyond it. bank_tally.h is the host-side
// twin of this function (the emulator and the grader's models count through it).
__device__ __forceinline__ void observe_shared(Access kind, const volatile void* address, unsigned bytes) {
  Counters* counters = device_counters;
  if (counters == nullptr) return;
  const unsigned active = __activemask();
  const unsigned lane = lane_id();
  const unsigned offset = static_cast<unsigned>(__cvta_generic_to_shared(const_cast<const void*>(address)));
  const unsigned unit_bytes = bytes <= 4 ? 4 : bytes;
  const unsigned units_per_phase = 128 / unit_bytes;  // 32, 16 or 8 lanes per wavefront
  const unsigned phase = lane / units_per_phase;
  const unsigned unit = offset / unit_bytes;
  const unsigned bank = unit % units_per_phase;
  const unsigned same_unit = __match_any_sync(active, (static_cast<unsigned long long>(phase) << 32) | unit);
  const bool unit_leader = lane == static_cast<unsigned>(__ffs(same_unit) - 1);
  // Distinct units per bank of each phase: only one lane per unit takes part (the others
  // get keys of their own that no bank uses).
  const unsigned key = unit_leader ? (phase << 8) | bank : 0x10000u | lane;
  const unsigned same_bank = __match_any_sync(active, key);
  const unsigned depth = unit_leader ? static_cast<unsigned>(__popc(same_bank)) : 0u;
  unsigned wavefronts = 0, ideal = 0;
  for (unsigned p = 0; p < 32 / units_per_phase; ++p) {
    if (__ballot_sync(active, phase == p) == 0) continue;
    ++ideal;
    unsigned deepest = 0;  // the largest depth in phase p, found bit by bit (at most 32)
    for (unsigned bit = 32; bit >= 1; bit /= 2)
      if (__any_sync(active, phase == p && depth >= (deepest | bit))) deepest |= bit;
    wavefronts += deepest;
  }
  if (lane == static_cast<unsigned>(__ffs(active) - 1)) {
    const int k = static_cast<int>(kind);
    ::atomicAdd(&counters->shared_instructions[k], 1ull);
    ::atomicAdd(&counters->shared_wavefronts[k], static_cast<unsigned long long>(wavefronts));
    ::atomicAdd(&counters->shared_conflicts[k], static_cast<unsigned long long>(wavefronts - ideal));
    ::atomicAdd(&counters->shared_active_lanes[k], static_cast<unsigned long long>(__popc(active)));
    ::atomicAdd(&counters->shared_bytes[k], static_cast<unsigned long long>(__popc(active)) * bytes);
  }
}
#endif

struct SharedAccess;

}  // namespace detail

template <class T>
class SharedPtr;

// What input_s[t] is: reads, writes and read-modify-writes count as the warp instructions a
// GPU issues for them (input_s[t] += x is a load and a store).
template <class T>
class SharedRef {
  using Value = std::remove_cv_t<T>;
  static_assert(std::is_arithmetic<Value>::value,
                "the kit counts __shared__ arrays of arithmetic types (float, double, int, ...); a shared struct "
                "is not counted: use one array per field (docs/grading.md, \"Shared memory\")");

 public:
  using kit_value_type = Value;  // what templates that take it by value should see (the emulator's shuffles)

  __device__ __forceinline__ explicit SharedRef(T* p) : p_(p) {}

  __device__ __forceinline__ operator Value() const {
    detail::observe_shared(Access::load, p_, sizeof(Value));
    return *p_;
  }
  __device__ __forceinline__ const SharedRef& operator=(Value v) const {
    *p_ = v;  // stored first: the emulator's record reads the value written
    detail::observe_shared(Access::store, p_, sizeof(Value));
    return *this;
  }
  __device__ __forceinline__ const SharedRef& operator=(const SharedRef& other) const {
    return *this = static_cast<Value>(other);
  }
  template <class U>
  __device__ __forceinline__ const SharedRef& operator=(const SharedRef<U>& other) const {
    return *this = static_cast<Value>(static_cast<std::remove_cv_t<U>>(other));
  }
#define REDUCE_LAB_SHARED_COMPOUND(OP)                                                 \
  __device__ __forceinline__ const SharedRef& operator OP##=(Value v) const {         \
    return *this = static_cast<Value>(static_cast<Value>(*this) OP v);                 \
  }
  REDUCE_LAB_SHARED_COMPOUND(+)
  REDUCE_LAB_SHARED_COMPOUND(-)
  REDUCE_LAB_SHARED_COMPOUND(*)
  REDUCE_LAB_SHARED_COMPOUND(/)
#undef REDUCE_LAB_SHARED_COMPOUND
#define REDUCE_LAB_SHARED_INTEGER_COMPOUND(OP)                                         \
  template <class V = Value, class = std::enable_if_t<std::is_integral<V>::value>>     \
  __device__ __forceinline__ const SharedRef& operator OP##=(Value v) const {         \
    return *this = static_cast<Value>(static_cast<Value>(*this) OP v);                 \
  }
  REDUCE_LAB_SHARED_INTEGER_COMPOUND(%)
  REDUCE_LAB_SHARED_INTEGER_COMPOUND(&)
  REDUCE_LAB_SHARED_INTEGER_COMPOUND(|)
  REDUCE_LAB_SHARED_INTEGER_COMPOUND(^)
  REDUCE_LAB_SHARED_INTEGER_COMPOUND(<<)
  REDUCE_LAB_SHARED_INTEGER_COMPOUND(>>)
#undef REDUCE_LAB_SHARED_INTEGER_COMPOUND
  __device__ __forceinline__ const SharedRef& operator++() const { return *this += Value(1); }
  __device__ __forceinline__ const SharedRef& operator--() const { return *this -= Value(1); }
  __device__ __forceinline__ Value operator++(int) const {
    const Value old = *this;
    *this = static_cast<Value>(old + Value(1));
    return old;
  }
  __device__ __forceinline__ Value operator--(int) const {
    const Value old = *this;
    *this = static_cast<Value>(old - Value(1));
    return old;
  }
  // &input_s[i] is a counted pointer again (atomicAdd(&input_s[0], v) counts too).
  __device__ __forceinline__ SharedPtr<T> operator&() const { return SharedPtr<T>(p_); }

 private:
  T* p_;
};

// A pointer into shared memory: what a shared array decays to, &input_s[i], input_s + k,
// and the pointer declarations the rewrite turns into it.
template <class T>
class SharedPtr {
  // An element is a SharedRef; a row of a 2-D array a SharedPtr to its first element.
  using Element = std::conditional_t<std::is_array<T>::value, SharedPtr<std::remove_extent_t<T>>, SharedRef<T>>;

 public:
  SharedPtr() = default;
  __device__ __forceinline__ explicit SharedPtr(T* p) : p_(p) {}
  // Adding const or volatile, as a raw pointer converts (float* -> volatile float*).
  template <class U, class = std::enable_if_t<!std::is_same<U, T>::value && std::is_convertible<U*, T*>::value>>
  __device__ __forceinline__ SharedPtr(const SharedPtr<U>& other) : p_(other.p_) {}

  template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
  __device__ __forceinline__ Element operator[](I i) const {
    return element(p_ + i);
  }
  __device__ __forceinline__ Element operator*() const { return element(p_); }

  template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
  __device__ __forceinline__ SharedPtr operator+(I k) const {
    return SharedPtr(p_ + k);
  }
  template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
  __device__ __forceinline__ SharedPtr operator-(I k) const {
    return SharedPtr(p_ - k);
  }
  __device__ __forceinline__ long long operator-(const SharedPtr& other) const { return p_ - other.p_; }
  template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
  __device__ __forceinline__ SharedPtr& operator+=(I k) {
    p_ += k;
    return *this;
  }
  template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
  __device__ __forceinline__ SharedPtr& operator-=(I k) {
    p_ -= k;
    return *this;
  }
  __device__ __forceinline__ SharedPtr& operator++() { return *this += 1; }
  __device__ __forceinline__ SharedPtr& operator--() { return *this -= 1; }
  __device__ __forceinline__ bool operator==(const SharedPtr& other) const { return p_ == other.p_; }
  __device__ __forceinline__ bool operator!=(const SharedPtr& other) const { return p_ != other.p_; }
  __device__ __forceinline__ bool operator<(const SharedPtr& other) const { return p_ < other.p_; }
  // As a raw pointer tests (a helper's `if (out)` or `out != nullptr`, rewritten parameters).
  __device__ __forceinline__ explicit operator bool() const { return p_ != nullptr; }
  __device__ __forceinline__ bool operator==(decltype(nullptr)) const { return p_ == nullptr; }
  __device__ __forceinline__ bool operator!=(decltype(nullptr)) const { return p_ != nullptr; }

  // A raw pointer would take its accesses out of the count: named where it happens.
  template <class U>
  __device__ operator U*() const {
    static_assert(detail::always_false<U>,
                  "a raw pointer to __shared__ memory is not counted by the kit: index the shared array, or declare "
                  "the pointer on its own line as `T* name = shared_array;` (the build rewrites that form), or take "
                  "it as a template parameter (docs/grading.md, \"Shared memory\")");
    return nullptr;
  }

 private:
  template <class U>
  friend class SharedPtr;
  friend struct detail::SharedAccess;

  __device__ __forceinline__ static Element element(T* p) {
    if constexpr (std::is_array<T>::value) {
      return Element(*p);
    } else {
      return Element(p);
    }
  }

  T* p_ = nullptr;
};

// `__shared__ T name[N]...;` as the counting builds declare it: the same bytes (so sizeof,
// alignment and the layout are the array's), used through counted elements.
template <class A>
class SharedArray {
  using Item = std::remove_extent_t<A>;

 public:
  SharedArray() = default;
  SharedArray(const SharedArray&) = delete;  // an array is not copied on a GPU either
  SharedArray& operator=(const SharedArray&) = delete;

  template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
  __device__ __forceinline__ auto operator[](I i) {
    return decay()[i];
  }
  template <class I, class = std::enable_if_t<std::is_integral<I>::value>>
  __device__ __forceinline__ SharedPtr<Item> operator+(I k) {
    return decay() + k;
  }
  __device__ __forceinline__ auto operator*() { return *decay(); }
  // The array-to-pointer decay: volatile float* p = input_s (rewritten), f(input_s) with a
  // template or SharedPtr parameter.
  __device__ __forceinline__ SharedPtr<Item> decay() { return SharedPtr<Item>(data_); }
  template <class U, class = std::enable_if_t<std::is_convertible<Item*, U*>::value>>
  __device__ __forceinline__ operator SharedPtr<U>() {
    return SharedPtr<U>(decay());
  }
  // Stops the build with SharedPtr's message: a raw pointer would not be counted.
  template <class U>
  __device__ operator U*() {
    return static_cast<U*>(decay());
  }

 private:
  A data_;
};

// `__shared__ T name;` (one variable): reads and writes of it are counted like an element.
template <class T>
class SharedVariable {
 public:
  SharedVariable() = default;
  SharedVariable(const SharedVariable&) = delete;
  SharedVariable& operator=(const SharedVariable&) = delete;

  __device__ __forceinline__ SharedRef<T> ref() { return SharedRef<T>(&value_); }
  __device__ __forceinline__ operator std::remove_cv_t<T>() { return ref(); }
  template <class V>
  __device__ __forceinline__ SharedVariable& operator=(const V& v) {
    ref() = static_cast<std::remove_cv_t<T>>(v);
    return *this;
  }
  template <class V>
  __device__ __forceinline__ SharedVariable& operator+=(const V& v) {
    ref() += static_cast<std::remove_cv_t<T>>(v);
    return *this;
  }
  template <class V>
  __device__ __forceinline__ SharedVariable& operator-=(const V& v) {
    ref() -= static_cast<std::remove_cv_t<T>>(v);
    return *this;
  }
  __device__ __forceinline__ SharedPtr<T> operator&() { return SharedPtr<T>(&value_); }

 private:
  T value_;
};

template <class A>
using Shared = std::conditional_t<std::is_array<A>::value, SharedArray<A>, SharedVariable<A>>;

namespace detail {
// The kit's own way to the memory behind a SharedPtr (atomics).
struct SharedAccess {
  template <class T>
  __device__ __forceinline__ static T* pointer(const SharedPtr<T>& p) {
    return p.p_;
  }
};

// What the rewrite makes of `extern __shared__ T name[];`.
template <class T>
__device__ __forceinline__ SharedPtr<T> dynamic_shared(void* memory) {
  return SharedPtr<T>(static_cast<T*>(memory));
}
}  // namespace detail

// Atomics on shared memory: one counted atomic each, then CUDA's own on the memory.
#define REDUCE_LAB_SHARED_ATOMIC(NAME)                                                        \
  template <class T>                                                                          \
  __device__ __forceinline__ T NAME(SharedPtr<T> address, detail::non_deduced<T> value) {     \
    T* p = detail::SharedAccess::pointer(address);                                            \
    const T old = ::NAME(p, value);                                                           \
    detail::observe_shared(Access::atomic, p, sizeof(T));                                     \
    return old;                                                                               \
  }
REDUCE_LAB_SHARED_ATOMIC(atomicAdd)
REDUCE_LAB_SHARED_ATOMIC(atomicSub)
REDUCE_LAB_SHARED_ATOMIC(atomicMax)
REDUCE_LAB_SHARED_ATOMIC(atomicMin)
REDUCE_LAB_SHARED_ATOMIC(atomicExch)
REDUCE_LAB_SHARED_ATOMIC(atomicAnd)
REDUCE_LAB_SHARED_ATOMIC(atomicOr)
REDUCE_LAB_SHARED_ATOMIC(atomicXor)
REDUCE_LAB_SHARED_ATOMIC(atomicInc)
REDUCE_LAB_SHARED_ATOMIC(atomicDec)
#undef REDUCE_LAB_SHARED_ATOMIC

template <class T>
__device__ __forceinline__ T atomicCAS(SharedPtr<T> address, detail::non_deduced<T> compare,
                                       detail::non_deduced<T> value) {
  T* p = detail::SharedAccess::pointer(address);
  const T old = ::atomicCAS(p, compare, value);
  detail::observe_shared(Access::atomic, p, sizeof(T));
  return old;
}

}  // namespace reduce_lab

// cooperative_groups::reduce over a counted shared element: see
// grader/include/counted_overlay/cooperative_groups/reduce.h.

#endif  // counting builds
