// The device side of the CPU emulator: what a lab kernel sees when its .cu file is compiled
// by the host compiler with -DREDUCE_LAB_EMU (lab.cuh includes this first).
//
// Every block runs on one worker OS thread, each of its threads a fiber. A fiber runs until
// it reaches a sync point (__syncthreads, __syncwarp, a shuffle or vote, or its end); the
// scheduler then runs the next one, in an order shuffled from the emulator's seed. So code
// that is correct for CUDA's independent thread scheduling gives the same result under
// every seed, and code that silently relies on warp lockstep does not.
#pragma once

#include <cmath>
#include <cstdint>
#include <math.h>
#include <tuple>
#include <type_traits>

#include <reduce_emu/runtime.h>
#include <reduce_lab/abi.h>

// ---------------------------------------------------------------------------------------
// Built-in coordinates. They are per fiber, so they are read through a pointer that the
// scheduler swaps on every context switch.

namespace reduce_emu {
namespace detail {
struct Coords {
  uint3 thread_index;
  uint3 block_index;
  dim3 block_dim;
  dim3 grid_dim;
};
}  // namespace detail
}  // namespace reduce_emu

// __thread (no dynamic initialisation) with the initial-exec model: one fs-relative load,
// no TLS wrapper call, however often a kernel reads threadIdx.
extern __thread const reduce_emu::detail::Coords* reduce_emu_current_coords
    __attribute__((tls_model("initial-exec")));

#define threadIdx (reduce_emu_current_coords->thread_index)
#define blockIdx (reduce_emu_current_coords->block_index)
#define blockDim (reduce_emu_current_coords->block_dim)
#define gridDim (reduce_emu_current_coords->grid_dim)

constexpr int warpSize = 32;

// ---------------------------------------------------------------------------------------
// Sync points. Each one records where it was called from, so a deadlock report can name the
// source line every waiting thread is stuck at.

namespace reduce_emu {
namespace detail {

enum class WarpOp : unsigned char {
  syncwarp,
  shfl_idx,
  shfl_up,
  shfl_down,
  shfl_xor,
  ballot,
  all,
  any,
  activemask,
  match_any,
  match_all,
};

enum class BarrierOp : unsigned char { plain, count, all, any };

void syncthreads_at(const char* file, int line);
int syncthreads_with(BarrierOp op, int predicate, const char* file, int line);
// One entry for every warp-level collective: the lane deposits `value`, waits for the lanes
// named in `mask`, and gets back what the operation computes from the deposited values.
unsigned long long warp_collective(WarpOp op, unsigned mask, unsigned long long value, int parameter,
                                   int width, const char* file, int line);

// What a shuffle moves for an argument of type V: V itself, or the value a kit reference
// (an element of a counted __shared__ array, reduce_lab/shared.cuh) reads as. On a GPU the
// shuffles are overloads for each value type, so such a reference converts to its value.
template <class V, class = void>
struct value_of {
  using type = V;
};
template <class V>
struct value_of<V, std::void_t<typename V::kit_value_type>> {
  using type = typename V::kit_value_type;
};
template <class V>
using value_of_t = typename value_of<V>::type;

template <class T>
inline unsigned long long to_bits(T value) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                "warp shuffles move values of at most 8 bytes");
  unsigned long long bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}
template <class T>
inline T from_bits(unsigned long long bits) {
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

}  // namespace detail
}  // namespace reduce_emu

#define __syncthreads() ::reduce_emu::detail::syncthreads_at(__FILE__, __LINE__)
#define __syncthreads_count(p) \
  ::reduce_emu::detail::syncthreads_with(::reduce_emu::detail::BarrierOp::count, (p) ? 1 : 0, __FILE__, __LINE__)
#define __syncthreads_and(p) \
  ::reduce_emu::detail::syncthreads_with(::reduce_emu::detail::BarrierOp::all, (p) ? 1 : 0, __FILE__, __LINE__)
#define __syncthreads_or(p) \
  ::reduce_emu::detail::syncthreads_with(::reduce_emu::detail::BarrierOp::any, (p) ? 1 : 0, __FILE__, __LINE__)

// The rest take the caller's position as defaulted arguments (__builtin_FILE/LINE are
// evaluated at the call site), which keeps them ordinary functions.
inline void __syncwarp(unsigned mask = 0xffffffffu, const char* file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
  reduce_emu::detail::warp_collective(reduce_emu::detail::WarpOp::syncwarp, mask, 0, 0, warpSize, file, line);
}

template <class V, class T = reduce_emu::detail::value_of_t<V>>
inline T __shfl_sync(unsigned mask, V var, int src_lane, int width = warpSize,
                     const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  using namespace reduce_emu::detail;
  return from_bits<T>(warp_collective(WarpOp::shfl_idx, mask, to_bits(static_cast<T>(var)), src_lane, width, file, line));
}
template <class V, class T = reduce_emu::detail::value_of_t<V>>
inline T __shfl_up_sync(unsigned mask, V var, unsigned int delta, int width = warpSize,
                        const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  using namespace reduce_emu::detail;
  return from_bits<T>(
      warp_collective(WarpOp::shfl_up, mask, to_bits(static_cast<T>(var)), static_cast<int>(delta), width, file, line));
}
template <class V, class T = reduce_emu::detail::value_of_t<V>>
inline T __shfl_down_sync(unsigned mask, V var, unsigned int delta, int width = warpSize,
                          const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  using namespace reduce_emu::detail;
  return from_bits<T>(
      warp_collective(WarpOp::shfl_down, mask, to_bits(static_cast<T>(var)), static_cast<int>(delta), width, file, line));
}
template <class V, class T = reduce_emu::detail::value_of_t<V>>
inline T __shfl_xor_sync(unsigned mask, V var, int lane_mask, int width = warpSize,
                         const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  using namespace reduce_emu::detail;
  return from_bits<T>(warp_collective(WarpOp::shfl_xor, mask, to_bits(static_cast<T>(var)), lane_mask, width, file, line));
}

inline unsigned __ballot_sync(unsigned mask, int predicate, const char* file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
  using namespace reduce_emu::detail;
  return static_cast<unsigned>(warp_collective(WarpOp::ballot, mask, predicate != 0, 0, warpSize, file, line));
}
inline int __all_sync(unsigned mask, int predicate, const char* file = __builtin_FILE(),
                      int line = __builtin_LINE()) {
  using namespace reduce_emu::detail;
  return static_cast<int>(warp_collective(WarpOp::all, mask, predicate != 0, 0, warpSize, file, line));
}
inline int __any_sync(unsigned mask, int predicate, const char* file = __builtin_FILE(),
                      int line = __builtin_LINE()) {
  using namespace reduce_emu::detail;
  return static_cast<int>(warp_collective(WarpOp::any, mask, predicate != 0, 0, warpSize, file, line));
}
// The lanes that reach this call together: those of the warp that stopped at this same
// source line before any of them went on.
inline unsigned __activemask(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  using namespace reduce_emu::detail;
  return static_cast<unsigned>(warp_collective(WarpOp::activemask, 0xffffffffu, 0, 0, warpSize, file, line));
}
template <class T>
inline unsigned __match_any_sync(unsigned mask, T value, const char* file = __builtin_FILE(),
                                 int line = __builtin_LINE()) {
  using namespace reduce_emu::detail;
  return static_cast<unsigned>(warp_collective(WarpOp::match_any, mask, to_bits(value), 0, warpSize, file, line));
}
template <class T>
inline unsigned __match_all_sync(unsigned mask, T value, int* predicate, const char* file = __builtin_FILE(),
                                 int line = __builtin_LINE()) {
  using namespace reduce_emu::detail;
  const unsigned result =
      static_cast<unsigned>(warp_collective(WarpOp::match_all, mask, to_bits(value), 0, warpSize, file, line));
  *predicate = result != 0;
  return result;
}

// Read-only cached load: an ordinary load here (and not counted: it takes a raw pointer).
template <class T>
inline T __ldg(const T* address) {
  return *address;
}

// Blocks run on several OS threads, so a fence must really order host memory accesses. A
// device-wide fence also tells the race checks that the block's accesses so far are published
// by its next atomic (docs/emulator.md, "Races between blocks"); a block-wide one orders
// nothing between blocks.
namespace reduce_emu {
namespace detail {
void thread_fence();
}  // namespace detail
}  // namespace reduce_emu
inline void __threadfence() { reduce_emu::detail::thread_fence(); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { reduce_emu::detail::thread_fence(); }

// ---------------------------------------------------------------------------------------
// Integer intrinsics, with CUDA's results for zero inputs.

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1u);
  return r;
}
inline int __float_as_int(float x) { return reduce_emu::detail::from_bits<int>(reduce_emu::detail::to_bits(x)); }
inline unsigned __float_as_uint(float x) {
  return reduce_emu::detail::from_bits<unsigned>(reduce_emu::detail::to_bits(x));
}
inline float __int_as_float(int x) { return reduce_emu::detail::from_bits<float>(reduce_emu::detail::to_bits(x)); }
inline float __uint_as_float(unsigned x) {
  return reduce_emu::detail::from_bits<float>(reduce_emu::detail::to_bits(x));
}
inline long long __double_as_longlong(double x) {
  return reduce_emu::detail::from_bits<long long>(reduce_emu::detail::to_bits(x));
}
inline double __longlong_as_double(long long x) {
  return reduce_emu::detail::from_bits<double>(reduce_emu::detail::to_bits(x));
}

// CUDA's global min/max overloads, mixed signedness included (the unsigned type wins, as in
// CUDA's math headers).
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a < b ? b : a; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a < b ? b : a; }
inline unsigned min(int a, unsigned b) { return min(static_cast<unsigned>(a), b); }
inline unsigned max(int a, unsigned b) { return max(static_cast<unsigned>(a), b); }
inline unsigned min(unsigned a, int b) { return min(a, static_cast<unsigned>(b)); }
inline unsigned max(unsigned a, int b) { return max(a, static_cast<unsigned>(b)); }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a < b ? b : a; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline double min(float a, double b) { return fmin(a, b); }
inline double max(float a, double b) { return fmax(a, b); }
inline double min(double a, float b) { return fmin(a, b); }
inline double max(double a, float b) { return fmax(a, b); }

// ---------------------------------------------------------------------------------------
// Atomics: only the overloads CUDA has. Real host atomics, since blocks run concurrently
// on several OS threads.

namespace reduce_emu {
namespace detail {
template <class F, class Bits, class Update>
inline F atomic_float_update(F* address, Update update) {
  static_assert(sizeof(F) == sizeof(Bits), "bit pattern of the same size");
  Bits* bits = reinterpret_cast<Bits*>(address);
  Bits expected = __atomic_load_n(bits, __ATOMIC_RELAXED);
  for (;;) {
    const F old = from_bits<F>(expected);
    const Bits desired = static_cast<Bits>(to_bits(update(old)));
    if (__atomic_compare_exchange_n(bits, &expected, desired, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
      return old;
  }
}
// Stores `value` where `better(value, current)` holds, atomically; returns the old value.
template <class T, class Better>
inline T atomic_store_if(T* address, T value, Better better) {
  T old = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (better(value, old) &&
         !__atomic_compare_exchange_n(address, &old, value, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return old;
}
template <class T>
inline T atomic_max(T* address, T value) {
  return atomic_store_if(address, value, [](T a, T b) { return b < a; });
}
template <class T>
inline T atomic_min(T* address, T value) {
  return atomic_store_if(address, value, [](T a, T b) { return a < b; });
}
template <class T>
inline T atomic_cas(T* address, T compare, T value) {
  __atomic_compare_exchange_n(address, &compare, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return compare;  // holds the old value whether or not the exchange happened
}
}  // namespace detail
}  // namespace reduce_emu

inline int atomicAdd(int* a, int v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicAdd(unsigned* a, unsigned v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
inline unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) {
  return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);
}
inline float atomicAdd(float* a, float v) {
  return reduce_emu::detail::atomic_float_update<float, unsigned>(a, [v](float old) { return old + v; });
}
inline double atomicAdd(double* a, double v) {
  return reduce_emu::detail::atomic_float_update<double, unsigned long long>(a,
                                                                              [v](double old) { return old + v; });
}
inline int atomicSub(int* a, int v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicSub(unsigned* a, unsigned v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }
inline int atomicMax(int* a, int v) { return reduce_emu::detail::atomic_max(a, v); }
inline unsigned atomicMax(unsigned* a, unsigned v) { return reduce_emu::detail::atomic_max(a, v); }
inline unsigned long long atomicMax(unsigned long long* a, unsigned long long v) {
  return reduce_emu::detail::atomic_max(a, v);
}
inline long long atomicMax(long long* a, long long v) { return reduce_emu::detail::atomic_max(a, v); }
inline int atomicMin(int* a, int v) { return reduce_emu::detail::atomic_min(a, v); }
inline unsigned atomicMin(unsigned* a, unsigned v) { return reduce_emu::detail::atomic_min(a, v); }
inline unsigned long long atomicMin(unsigned long long* a, unsigned long long v) {
  return reduce_emu::detail::atomic_min(a, v);
}
inline long long atomicMin(long long* a, long long v) { return reduce_emu::detail::atomic_min(a, v); }
inline int atomicExch(int* a, int v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicExch(unsigned* a, unsigned v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }
inline unsigned long long atomicExch(unsigned long long* a, unsigned long long v) {
  return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);
}
inline float atomicExch(float* a, float v) {
  return reduce_emu::detail::from_bits<float>(
      __atomic_exchange_n(reinterpret_cast<unsigned*>(a), __float_as_uint(v), __ATOMIC_SEQ_CST));
}
inline int atomicCAS(int* a, int c, int v) { return reduce_emu::detail::atomic_cas(a, c, v); }
inline unsigned atomicCAS(unsigned* a, unsigned c, unsigned v) { return reduce_emu::detail::atomic_cas(a, c, v); }
inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long c, unsigned long long v) {
  return reduce_emu::detail::atomic_cas(a, c, v);
}
inline int atomicAnd(int* a, int v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicAnd(unsigned* a, unsigned v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }
inline int atomicOr(int* a, int v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicOr(unsigned* a, unsigned v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }
inline int atomicXor(int* a, int v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicXor(unsigned* a, unsigned v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicInc(unsigned* a, unsigned limit) {
  unsigned old = __atomic_load_n(a, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(a, &old, old >= limit ? 0u : old + 1u, true, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED)) {
  }
  return old;
}
inline unsigned atomicDec(unsigned* a, unsigned limit) {
  unsigned old = __atomic_load_n(a, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(a, &old, (old == 0u || old > limit) ? limit : old - 1u, true,
                                      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return old;
}

// ---------------------------------------------------------------------------------------
// Counting and launching.

namespace reduce_emu {
// The two calls the kit's memory types make into the emulator. The emulator declares them and
// the lab-facing headers call them (reduce_lab/global.cuh, shared.cuh); the emulator itself
// names nothing of those headers but the ABI's types, so the arrows run one way.
//
// Called by Global<T> before every element access. It checks the access against the
// allocation `origin` lies in, logs it for the warp's instruction grouping, keyed by the call
// site (its return address, so it must stay an out-of-line call), and returns the address to
// perform the access through: device memory is mapped twice, and only the kit's own mapping
// may be touched (see runtime.cpp).
__attribute__((noinline)) void* count_access(reduce_lab::Access kind, const void* address, unsigned bytes,
                                             const void* origin);
// Called by a counted __shared__ array's element access while the launch is counted
// (reduce_emu_shared_observed below): logged beside the global accesses, keyed by its call
// site, so it too stays an out-of-line call.
__attribute__((noinline)) void count_shared_access(reduce_lab::Access kind, const volatile void* address,
                                                   unsigned bytes);
}  // namespace reduce_emu

// Nonzero while the running launch is counted: shared-memory accesses (reduce_lab/shared.cuh)
// call into the emulator only then, so an uncounted run pays one thread-local load each.
extern __thread unsigned char reduce_emu_shared_observed __attribute__((tls_model("initial-exec")));

namespace reduce_emu {

namespace detail {
struct KernelLaunch {
  void (*invoke)(const void* closure);  // runs the kernel body once, as the current thread
  const void* closure;
  const void* kernel_address;  // for the kernel's name in messages (dladdr)
};
void run_launch(const KernelLaunch& kernel, dim3 grid, dim3 block, std::size_t shared_bytes);

// The running block's dynamic shared memory (extern __shared__): the emulator's build
// rewrites `extern __shared__ T name[];` into a pointer to this.
void* dynamic_shared_memory();
}  // namespace detail

// Runs kernel<<<grid, block, shared_bytes>>>(args...) to completion. Throws
// std::runtime_error with the whole story (kernel, block, thread, seed) on any fault;
// nothing is left running.
template <class... P, class... A>
void launch_with_shared(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t shared_bytes, A... args) {
  static_assert(sizeof...(P) == sizeof...(A), "launch(): wrong number of kernel arguments");
  struct Closure {
    void (*kernel)(P...);
    std::tuple<std::decay_t<P>...> parameters;
  };
  const Closure closure{kernel, std::tuple<std::decay_t<P>...>(static_cast<P>(args)...)};
  detail::KernelLaunch body;
  // Each thread calls the kernel with its own copies of the arguments, as on a GPU.
  body.invoke = [](const void* c) {
    const Closure& cl = *static_cast<const Closure*>(c);
    std::apply(cl.kernel, cl.parameters);
  };
  body.closure = &closure;
  body.kernel_address = reinterpret_cast<const void*>(kernel);
  detail::run_launch(body, grid, block, shared_bytes);
}

// Runs kernel<<<grid, block>>>(args...).
template <class... P, class... A>
void launch(void (*kernel)(P...), dim3 grid, dim3 block, A... args) {
  launch_with_shared(kernel, grid, block, 0, args...);
}

// The kit's own view of device memory (not for lab code): where the bytes of the device
// pointer `p` really are. Lab code that touches device memory any other way than through
// Global<T> faults, as it would on a GPU from host code.
void* kit_view(const void* p);

// Where counted accesses are added up (null: count nothing). Set by the module adapter.
void set_counters(reduce_lab::Counters* counters);

// The allocation holding the input of the kit's call now running, where the lab's signature only
// reads it (Global<const T>); null: none. Set by the module adapter for the call. A kernel's store
// or atomic to it is a fault, so nothing in a launch changes it, and its loads skip the check for
// races between blocks (a compare-and-swap per word first read by a block: 7% of lab 4's
// correctness test).
void set_read_only_input(const void* device_pointer);

// The seed that shuffles lane order; printed in every fault message. REDUCE_LAB_EMU_SEED
// sets it at start-up, set_seed() later (both restart the per-launch sequence).
unsigned long long seed();
void set_seed(unsigned long long seed);

// Defaults come from REDUCE_LAB_EMU_THREADS and REDUCE_LAB_EMU_TIMEOUT.
void set_worker_threads(unsigned count);
unsigned worker_threads();
void set_timeout(double seconds);

}  // namespace reduce_emu
