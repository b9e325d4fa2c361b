// The glue that turns one lab file into a module the grader can load: the REDUCE_LAB_*
// registration macros at the end of each lab, and REDUCE_LAB_TODO(), the marker a stub's
// exercise region carries until the student replaces it.
#pragma once

#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "abi.h"
#include "check.h"
#include "global.cuh"
#include "launch.cuh"
#include "ops.cuh"

#if defined(REDUCE_LAB_EMU)
#define REDUCE_LAB_BACKEND_NAME "emu"
#define REDUCE_LAB_IS_COUNTING 1
#elif defined(REDUCE_LAB_COUNTING)
#define REDUCE_LAB_BACKEND_NAME "gpu-counted"
#define REDUCE_LAB_IS_COUNTING 1
#else
#define REDUCE_LAB_BACKEND_NAME "gpu"
#define REDUCE_LAB_IS_COUNTING 0
#endif

namespace reduce_lab {
namespace detail {

// Set by REDUCE_LAB_TODO() when a kernel runs a stub's exercise region unchanged.
#if defined(REDUCE_LAB_EMU)
static int todo_flag = 0;
#define REDUCE_LAB_TODO_MARK_() (::reduce_lab::detail::todo_flag = 1)
#else
// On a GPU, an int in page-locked host memory that the kernels write through this pointer: read
// after the wait for the kernels, it costs no copy, and no wait of its own for the device's turn
// (run/device.cpp says why those count). static, as the counters' pointer: one for each module.
static __device__ int* todo_flag = nullptr;
#define REDUCE_LAB_TODO_MARK_() (*::reduce_lab::detail::todo_flag = 1)

namespace {
struct TodoMarker {
  int* host;
  int* device;
};

// Set up on the module's first call (the unnamed namespace keeps a copy in each module, as the
// device pointer is, whatever the host compiler does with inline functions' statics).
const TodoMarker& todo_marker() {
  static const TodoMarker marker = [] {
    TodoMarker m{nullptr, nullptr};
    check(cudaHostAlloc(reinterpret_cast<void**>(&m.host), sizeof(int), cudaHostAllocMapped),
          "allocating the TODO marker");
    *m.host = 0;
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&m.device), m.host, 0), "mapping the TODO marker");
    check(cudaMemcpyToSymbol(todo_flag, &m.device, sizeof m.device), "handing the TODO marker to the lab");
    return m;
  }();
  return marker;
}

#if defined(REDUCE_LAB_COUNTING)
// Hands the call's counters to the kernels, copying the pointer only when it changes: each copy
// waits for the device.
void hand_counters(Counters* counters) {
  static bool handed = false;
  static Counters* current = nullptr;
  if (handed && current == counters) return;
  check(cudaMemcpyToSymbol(device_counters, &counters, sizeof(Counters*)), "handing the counters to the lab");
  handed = true;
  current = counters;
}
#endif
}  // namespace
#endif

// Whether the lab's signature only reads the call's input (a Global<const T>). On the emulator a
// kernel's store to such an input is then a fault, and its loads skip the race checks between
// blocks (reduce_emu::set_read_only_input); the GPU builds run the same either way.
enum class Input { written, read_only };

// Runs one grader call: resets what the module reports, runs the lab's host code, and turns
// any failure into Call::error so a broken lab never takes the grader down with it.
template <class Body>
int run_call(Call* call, Body&& body, Input input = Input::written) {
  call->launches = LaunchStats{0, 0, 0};
  call->todo = 0;
  call->variant_used = call->variant;
  call->error[0] = '\0';
  call->outputs_written = 0;
  current_call = call;
  int status = 0;
  try {
    const int zero = 0;
#if defined(REDUCE_LAB_EMU)
    todo_flag = zero;
    ::reduce_emu::set_counters(call->device_counters);
    ::reduce_emu::set_read_only_input(input == Input::read_only ? call->input : nullptr);
#else
    const TodoMarker& todo = todo_marker();
    // In stream order, behind any kernel of an earlier call still running.
    if (call->synchronize) check(cudaMemsetAsync(todo.device, zero, sizeof zero), "resetting the TODO marker");
#if defined(REDUCE_LAB_COUNTING)
    hand_counters(call->device_counters);
#endif
#endif
    body();
    if (call->synchronize) {
#if defined(REDUCE_LAB_EMU)
      call->todo = todo_flag;
#else
      check(cudaDeviceSynchronize(), "running the lab's kernels");
      call->todo = *static_cast<volatile int*>(todo.host);
#endif
    }
  } catch (const std::exception& e) {
    std::snprintf(call->error, sizeof call->error, "%s", e.what());
    status = 1;
  } catch (...) {
    std::snprintf(call->error, sizeof call->error, "the lab threw an unknown exception");
    status = 1;
  }
#if defined(REDUCE_LAB_EMU)
  ::reduce_emu::set_read_only_input(nullptr);
#else
  (void)input;
#endif
  current_call = nullptr;
  return status;
}

inline int float_sum_only(DType dtype, Op op) { return dtype == DType::f32 && op == Op::sum; }

// The device's properties, read once (lab 10's choice of a coarsening factor takes them).
inline const cudaDeviceProp& device_properties() {
  static const cudaDeviceProp properties = [] {
    cudaDeviceProp p{};
    int device = 0;
    check(cudaGetDevice(&device), "asking for the device");
    check(cudaGetDeviceProperties(&p, device), "reading the device properties");
    return p;
  }();
  return properties;
}

template <unsigned (*Pass)(Global<float>, Global<float>, unsigned)>
int run_multipass(Call* call) {
  return run_call(call, [call] {
    call->outputs_written = Pass(Global<float>(static_cast<float*>(call->input)),
                                 Global<float>(static_cast<float*>(call->output)),
                                 static_cast<unsigned>(call->n));
  });
}

template <void (*Reduce)(Global<const float>, Global<float>, unsigned)>
int run_single(Call* call) {
  return run_call(call, [call] {
    Reduce(Global<const float>(static_cast<const float*>(call->input)),
           Global<float>(static_cast<float*>(call->output)), static_cast<unsigned>(call->n));
    call->outputs_written = 1;
  }, Input::read_only);
}

// Labs 7 and 8: every type with sum, max and min (lab 12's Order is a probe, not a lab 7 op).
inline int every_type_and_op(DType, Op op) { return op != Op::order; }

// Lab 12: its trees sum floats (./lab show draws them) and ints, and run Order on ints.
inline int sum_or_order(DType dtype, Op op) {
  return (op == Op::sum && (dtype == DType::f32 || dtype == DType::i32)) || (op == Op::order && dtype == DType::i32);
}

template <template <class, class> class Run, class T>
int run_op(Call* call) {
  switch (call->op) {
    case Op::sum: return Run<T, Sum<T>>::run(call);
    case Op::max: return Run<T, Max<T>>::run(call);
    case Op::min: return Run<T, Min<T>>::run(call);
    case Op::order: break;  // not an op of labs 7 and 8 (every_type_and_op)
  }
  return 1;
}

// Calls Run<T, Op>::run for the call's type and op (labs 7 and 8).
template <template <class, class> class Run>
int run_type_and_op(Call* call) {
  switch (call->dtype) {
    case DType::f32: return run_op<Run, float>(call);
    case DType::f64: return run_op<Run, double>(call);
    case DType::i32: return run_op<Run, int>(call);
  }
  return 1;
}

}  // namespace detail
}  // namespace reduce_lab

// Marks an exercise region that has not been written yet; the grader then says "not
// implemented yet" instead of "wrong". Delete it when you fill the region in.
#define REDUCE_LAB_TODO() ((void)(REDUCE_LAB_TODO_MARK_()))

#define REDUCE_LAB_DEFINE_MODULE_(LAB, NAME, KIND, SUPPORTS, RUN)                              \
  extern "C" const ::reduce_lab::ModuleInfo* reduce_lab_module(void) {                        \
    static const ::reduce_lab::ModuleInfo info = {::reduce_lab::kAbiVersion, LAB, NAME, KIND,  \
                                                  REDUCE_LAB_IS_COUNTING,                       \
                                                  REDUCE_LAB_BACKEND_NAME, SUPPORTS, RUN};      \
    return &info;                                                                              \
  }

// Labs 1-3: PASS(input, output, n) reduces each 2*blockDim segment of input (n a power of
// two) to one value in output and returns how many values it wrote.
#define REDUCE_LAB_MULTIPASS(LAB, NAME, PASS)                                            \
  REDUCE_LAB_DEFINE_MODULE_(LAB, NAME, ::reduce_lab::LabKind::multipass,                 \
                            &::reduce_lab::detail::float_sum_only,                       \
                            &::reduce_lab::detail::run_multipass<PASS>)

// Labs 4-6: REDUCE(input, output, n) leaves the sum of any n >= 1 floats in output[0].
#define REDUCE_LAB_SINGLE(LAB, NAME, REDUCE)                                             \
  REDUCE_LAB_DEFINE_MODULE_(LAB, NAME, ::reduce_lab::LabKind::single,                    \
                            &::reduce_lab::detail::float_sum_only,                       \
                            &::reduce_lab::detail::run_single<REDUCE>)

// Lab 7: REDUCE<T, Op>(input, output, n) leaves Op's reduction of any n >= 1 elements in
// output[0], for T in float, double, int and Op in Sum, Max, Min.
#define REDUCE_LAB_GENERIC(LAB, NAME, REDUCE)                                                     \
  namespace reduce_lab_generated {                                                               \
  template <class T, class Op>                                                                   \
  struct RunOne {                                                                                \
    static int run(::reduce_lab::Call* call) {                                                   \
      return ::reduce_lab::detail::run_call(call, [call] {                                       \
        REDUCE<T, Op>(::reduce_lab::Global<const T>(static_cast<const T*>(call->input)),         \
                      ::reduce_lab::Global<T>(static_cast<T*>(call->output)), call->n);          \
        call->outputs_written = 1;                                                               \
      }, ::reduce_lab::detail::Input::read_only);                                                \
    }                                                                                            \
  };                                                                                             \
  }                                                                                              \
  REDUCE_LAB_DEFINE_MODULE_(LAB, NAME, ::reduce_lab::LabKind::generic,                           \
                            &::reduce_lab::detail::every_type_and_op,                            \
                            &::reduce_lab::detail::run_type_and_op<reduce_lab_generated::RunOne>)

// Lab 8: REDUCE<T, Op>(matrix, output, m, n) leaves Op's reduction of row r of the row-major
// m x n matrix in output[r], for every r < m (any m, n >= 1), for the types and ops of lab 7.
#define REDUCE_LAB_ROWS(LAB, NAME, REDUCE)                                                        \
  namespace reduce_lab_generated {                                                               \
  template <class T, class Op>                                                                   \
  struct RunOne {                                                                                \
    static int run(::reduce_lab::Call* call) {                                                   \
      return ::reduce_lab::detail::run_call(call, [call] {                                       \
        REDUCE<T, Op>(::reduce_lab::Global<const T>(static_cast<const T*>(call->input)),         \
                      ::reduce_lab::Global<T>(static_cast<T*>(call->output)), call->rows, call->n); \
        call->outputs_written = call->rows;                                                      \
      }, ::reduce_lab::detail::Input::read_only);                                                \
    }                                                                                            \
  };                                                                                             \
  }                                                                                              \
  REDUCE_LAB_DEFINE_MODULE_(LAB, NAME, ::reduce_lab::LabKind::rows,                              \
                            &::reduce_lab::detail::every_type_and_op,                            \
                            &::reduce_lab::detail::run_type_and_op<reduce_lab_generated::RunOne>)

// Lab 9: REDUCE<K>(input, output, n, block_dim) leaves the sum of any n >= 1 floats in output[0],
// in blocks of block_dim threads whose tree adds K values a step, for K in 2, 4, 8 and 16.
// Call::variant is K (0 means 2) in its low 16 bits and the block size above them (0 means
// 1024, the size every check but correctness's block-size cases runs).
#define REDUCE_LAB_FAN_IN(LAB, NAME, REDUCE)                                                      \
  namespace reduce_lab_generated {                                                               \
  inline int run_fan_in(::reduce_lab::Call* call) {                                              \
    return ::reduce_lab::detail::run_call(call, [call] {                                         \
      const ::reduce_lab::Global<const float> input(static_cast<const float*>(call->input));     \
      const ::reduce_lab::Global<float> output(static_cast<float*>(call->output));               \
      const unsigned n = static_cast<unsigned>(call->n);                                         \
      const unsigned block_dim = (call->variant >> 16) != 0 ? call->variant >> 16 : 1024u;       \
      switch (call->variant & 0xffffu) {                                                         \
        case 0:                                                                                  \
        case 2: call->variant_used = 2; REDUCE<2>(input, output, n, block_dim); break;           \
        case 4: REDUCE<4>(input, output, n, block_dim); break;                                   \
        case 8: REDUCE<8>(input, output, n, block_dim); break;                                   \
        case 16: REDUCE<16>(input, output, n, block_dim); break;                                 \
        default:                                                                                 \
          throw std::runtime_error("this lab has no fan-in K = " + std::to_string(call->variant & 0xffffu)); \
      }                                                                                          \
      call->outputs_written = 1;                                                                 \
    }, ::reduce_lab::detail::Input::read_only);                                                  \
  }                                                                                              \
  }                                                                                              \
  REDUCE_LAB_DEFINE_MODULE_(LAB, NAME, ::reduce_lab::LabKind::single,                            \
                            &::reduce_lab::detail::float_sum_only, &reduce_lab_generated::run_fan_in)

// Lab 12: PASS<T, Op>(input, output, n, tree) runs one pass of lab `tree`'s tree (1, 2, 4 or 7)
// over the n elements of input (n a power of two; input its own to overwrite) and returns how
// many values it wrote to output; the grader repeats passes until one value is left, as for
// labs 1-3. T, Op: float with Sum, int with Sum or Order. Call::variant is the tree (0 means 1).
#define REDUCE_LAB_ORDER(LAB, NAME, PASS)                                                         \
  namespace reduce_lab_generated {                                                               \
  template <class T, class Op>                                                                   \
  int run_tree(::reduce_lab::Call* call) {                                                       \
    return ::reduce_lab::detail::run_call(call, [call] {                                         \
      const unsigned tree = call->variant != 0 ? call->variant : 1u;                             \
      call->variant_used = tree;                                                                 \
      call->outputs_written = PASS<T, Op>(::reduce_lab::Global<T>(static_cast<T*>(call->input)), \
                                          ::reduce_lab::Global<T>(static_cast<T*>(call->output)), \
                                          static_cast<unsigned>(call->n), tree);                 \
    });                                                                                          \
  }                                                                                              \
  inline int run_order(::reduce_lab::Call* call) {                                               \
    if (call->op == ::reduce_lab::Op::order) return run_tree<int, ::reduce_lab::Order<int>>(call); \
    if (call->dtype == ::reduce_lab::DType::i32) return run_tree<int, ::reduce_lab::Sum<int>>(call); \
    return run_tree<float, ::reduce_lab::Sum<float>>(call);                                      \
  }                                                                                              \
  }                                                                                              \
  REDUCE_LAB_DEFINE_MODULE_(LAB, NAME, ::reduce_lab::LabKind::multipass,                         \
                            &::reduce_lab::detail::sum_or_order, &reduce_lab_generated::run_order)

// Lab 10: REDUCE(input, output, n, factor) leaves the sum of any n >= 1 floats in output[0], each
// thread first adding 2 x factor elements; CHOOSE(n, properties) picks the factor for n on this
// device. Call::variant 0 runs the choice (Call::variant_used says which it was); any other is
// the factor to run, as the speed test's sweep asks.
#define REDUCE_LAB_CHOSEN_FACTOR(LAB, NAME, REDUCE, CHOOSE)                                       \
  namespace reduce_lab_generated {                                                               \
  inline int run_chosen_factor(::reduce_lab::Call* call) {                                       \
    return ::reduce_lab::detail::run_call(call, [call] {                                         \
      unsigned factor = call->variant;                                                           \
      if (factor == 0) factor = CHOOSE(call->n, ::reduce_lab::detail::device_properties());      \
      if (factor == 0)                                                                           \
        throw std::runtime_error("the coarsening factor chosen for n = " + std::to_string(call->n) + \
                                 " is 0: each thread must add at least 2 x 1 elements");         \
      call->variant_used = factor;                                                               \
      REDUCE(::reduce_lab::Global<const float>(static_cast<const float*>(call->input)),          \
             ::reduce_lab::Global<float>(static_cast<float*>(call->output)),                     \
             static_cast<unsigned>(call->n), factor);                                            \
      call->outputs_written = 1;                                                                 \
    }, ::reduce_lab::detail::Input::read_only);                                                  \
  }                                                                                              \
  }                                                                                              \
  REDUCE_LAB_DEFINE_MODULE_(LAB, NAME, ::reduce_lab::LabKind::single,                            \
                            &::reduce_lab::detail::float_sum_only, &reduce_lab_generated::run_chosen_factor)
