// Pointer parameters of a lab's __device__ helpers, as the counting builds see them.
//
// A helper that takes shared memory as a raw pointer is legal CUDA and common
// (`__device__ void warpReduce(volatile float* sdata, unsigned tid)` called as
// warpReduce(sdata, tid)). In the counting builds a shared array is a counted type, so the
// build (cmake/counting_rewrite_parameters.cmake) makes each raw pointer parameter of a
// lab's __device__ function a template parameter, and declares the parameter's own name at
// the top of the body with the type chosen here from the argument:
//
//   raw pointer, array, nullptr  ->  the declared pointer itself (volatile float*): the helper
//                                    compiles exactly as written for that call
//   counted shared array, &sdata[k], sdata + k
//                                ->  SharedPtr<volatile float>: every access in the helper is
//                                    counted as it would be in the kernel
//   anything else                ->  no type: the helper is not a candidate for that call,
//                                    as a pointer parameter would not be
//
// The plain gpu build never sees this file.
#pragma once

#if defined(REDUCE_LAB_COUNTING) || defined(REDUCE_LAB_EMU)

#include <type_traits>

#include "shared.cuh"

namespace reduce_lab {
namespace detail {

// The kit's counted pointers to shared memory, and the element type each points to.
template <class D>
struct counted_shared : std::false_type {};
template <class A>
struct counted_shared<SharedArray<A>> : std::true_type {
  using item = std::remove_extent_t<A>;
};
template <class U>
struct counted_shared<SharedPtr<U>> : std::true_type {
  using item = U;
};

template <class E, class P, class D = std::remove_cv_t<std::remove_reference_t<P>>, class = void>
struct pointer_parameter {};
// A counted type converts to a raw pointer only to name the kit's refusal, so it is never
// taken for a raw argument here.
template <class E, class P, class D>
struct pointer_parameter<E, P, D, std::enable_if_t<!counted_shared<D>::value && std::is_convertible<P, E*>::value>> {
  using type = E*;
};
template <class E, class P, class D>
struct pointer_parameter<
    E, P, D,
    std::enable_if_t<counted_shared<D>::value && std::is_convertible<typename counted_shared<D>::item*, E*>::value>> {
  using type = SharedPtr<E>;
};

// The rewrite's overload check: a type only where the argument could bind to an `E*`.
template <class E, class P>
using PointerArgument = typename pointer_parameter<E, P>::type;

// Whether a call passes a counted shared pointer or array (the rewrite's refusal below).
template <class... A>
using CountedSharedAmong =
    std::enable_if_t<(counted_shared<std::remove_cv_t<std::remove_reference_t<A>>>::value || ...)>;

// What a call of a helper `template <class T> f(T* p)` with a shared argument meets: T would
// be deduced from a raw pointer, which a counted argument is not. Instantiated at the call
// (its return type is deduced), so the message points there.
template <class... A>
__device__ auto refuse_deduced_pointer() {
  static_assert(sizeof...(A) == 0,
                "the kit cannot count __shared__ memory passed to a helper that deduces the pointer's element type "
                "(template <class T> f(T* p) called as f(input_s)): give the template argument, f<float>(input_s), "
                "or declare the parameter with its element type, float* p (docs/grading.md, \"Shared memory\")");
  return 0;
}

}  // namespace detail

// What a helper's parameter `E* name` is for an argument of type P.
template <class E, class P>
using PointerParameter = typename detail::pointer_parameter<E, P>::type;

}  // namespace reduce_lab

#endif  // counting builds
