// The reduction operators of lab 7 and their identities, and lab 12's Order. Labs 1-6 reduce
// float sums.
#pragma once

#include <climits>
#include <cmath>
#include <cstring>

#include "order_probe.h"

namespace reduce_lab {

namespace detail {
template <class T>
struct limits;
template <>
struct limits<float> {
  __host__ __device__ static float lowest() { return -HUGE_VALF; }
  __host__ __device__ static float highest() { return HUGE_VALF; }
};
template <>
struct limits<double> {
  __host__ __device__ static double lowest() { return -HUGE_VAL; }
  __host__ __device__ static double highest() { return HUGE_VAL; }
};
template <>
struct limits<int> {
  __host__ __device__ static int lowest() { return INT_MIN; }
  __host__ __device__ static int highest() { return INT_MAX; }
};
}  // namespace detail

// Each op is a combine function plus the identity a missing element stands for.
template <class T>
struct Sum {
  __host__ __device__ static T identity() { return T(0); }
  __host__ __device__ T operator()(T a, T b) const { return a + b; }
};

template <class T>
struct Max {
  // -infinity: 0 or FLT_MIN (the smallest positive float) would beat every all-negative input.
  __host__ __device__ static T identity() { return detail::limits<T>::lowest(); }
  __host__ __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};

template <class T>
struct Min {
  __host__ __device__ static T identity() { return detail::limits<T>::highest(); }
  __host__ __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};

// Lab 12: associative but not commutative, on int. order(a, b) is a's positions followed by b's
// (order_probe.h): a tree's result says whether it combined the input left to right.
template <class T>
struct Order {
  static_assert(sizeof(T) == sizeof(unsigned), "Order runs on int");
  __host__ __device__ static T identity() { return from_bits(order_probe::kIdentityBits); }
  __host__ __device__ T operator()(T a, T b) const { return from_bits(order_probe::combine(to_bits(a), to_bits(b))); }

 private:
  __host__ __device__ static unsigned to_bits(T value) {
    unsigned bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
  }
  __host__ __device__ static T from_bits(unsigned bits) {
    T value;
    memcpy(&value, &bits, sizeof value);
    return value;
  }
};

}  // namespace reduce_lab
