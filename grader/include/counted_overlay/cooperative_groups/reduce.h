// On the include path of the gpu-counted lab modules only (cmake/ReduceLab.cmake), ahead of the
// CUDA toolkit's headers: a lab that includes <cooperative_groups/reduce.h> gets the toolkit's
// header, then the overloads below. Not in reduce_lab/shared.cuh, which every counted module
// includes: there they made each one parse <cooperative_groups.h>, about two thirds of the
// counted compile of a lab that does not use it (lab 3: 3.0 s with it, 1.2 s without).
//
// cooperative_groups::reduce(tile, input_s[t], op) takes its value by forwarding reference and
// checks that it is op's argument type: an element of a counted array is read once, here, and
// the value reduced, as the plain build's reduce reads the float. (The emulator's reduce takes
// the value itself.) Declared in the namespace the CUDA overloads live in, so the qualified call
// sees both and picks these as the more specialised.
#pragma once

#include_next <cooperative_groups/reduce.h>

#include <type_traits>

#include <reduce_lab/shared.cuh>

#if defined(REDUCE_LAB_COUNTING) && !defined(REDUCE_LAB_EMU)
namespace cooperative_groups {
namespace _CG_NAMESPACE {
template <class Group, class T, class Op>
__device__ __forceinline__ auto reduce(const Group& group, ::reduce_lab::SharedRef<T>&& value, Op&& op) {
  return reduce(group, static_cast<std::remove_cv_t<T>>(value), static_cast<Op&&>(op));
}
template <class Group, class T, class Op>
__device__ __forceinline__ auto reduce(const Group& group, ::reduce_lab::SharedRef<T>& value, Op&& op) {
  return reduce(group, static_cast<std::remove_cv_t<T>>(value), static_cast<Op&&>(op));
}
}  // namespace _CG_NAMESPACE
}  // namespace cooperative_groups
#endif
