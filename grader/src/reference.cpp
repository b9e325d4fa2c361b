#include "reference.hpp"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace reduce_lab::grader {

namespace {

// Pairwise summation in long double: its own error, about log2(n) * 2^-64 * sum|x|, stays
// far below any tolerance the labs are held to.
template <class T>
long double pairwise_sum(const T* x, std::size_t n) {
  if (n <= 16) {
    long double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += x[i];
    return s;
  }
  return pairwise_sum(x, n / 2) + pairwise_sum(x + n / 2, n - n / 2);
}

template <class T>
Reference reference_of(const T* x, std::size_t n, Op op) {
  Reference ref;
  long double sum_abs = 0;
  for (std::size_t i = 0; i < n; ++i) sum_abs += std::fabs(static_cast<long double>(x[i]));
  ref.sum_abs = static_cast<double>(sum_abs);
  if (op == Op::sum) {
    if constexpr (std::is_integral<T>::value) {
      // int sums wrap modulo 2^32 on the device, as the type defines; so does the reference.
      std::uint32_t wrapped = 0;
      for (std::size_t i = 0; i < n; ++i) wrapped += static_cast<std::uint32_t>(x[i]);
      std::int32_t value;
      std::memcpy(&value, &wrapped, sizeof value);
      ref.value = value;
      ref.exact = true;
    } else {
      ref.value = static_cast<double>(pairwise_sum(x, n));
      // Whole numbers whose sum of magnitudes fits the mantissa add up exactly in any order.
      bool whole = true;
      for (std::size_t i = 0; i < n && whole; ++i) whole = std::floor(x[i]) == x[i];
      const double mantissa_limit = std::is_same<T, float>::value ? 16777216.0 : 9007199254740992.0;
      ref.exact = whole && ref.sum_abs <= mantissa_limit;
    }
  } else {
    T best = x[0];
    for (std::size_t i = 1; i < n; ++i) best = op == Op::max ? (best < x[i] ? x[i] : best) : (x[i] < best ? x[i] : best);
    ref.value = static_cast<double>(best);
    ref.exact = true;
  }
  return ref;
}

// The reference of the n elements from element `first` of the input.
Reference reference_at(const HostArray& input, std::size_t first, std::size_t n, Op op) {
  switch (input.dtype) {
    case DType::f32: return reference_of(static_cast<const float*>(input.data()) + first, n, op);
    case DType::f64: return reference_of(static_cast<const double*>(input.data()) + first, n, op);
    case DType::i32: return reference_of(static_cast<const int*>(input.data()) + first, n, op);
  }
  return {};
}

}  // namespace

Reference reference(const HostArray& input, Op op) { return reference_at(input, 0, input.n, op); }

std::vector<Reference> row_references(const HostArray& input, Op op) {
  const std::size_t columns = input.n / input.rows;
  std::vector<Reference> rows;
  rows.reserve(input.rows);
  for (std::size_t r = 0; r < input.rows; ++r) rows.push_back(reference_at(input, r * columns, columns, op));
  return rows;
}

double tolerance(const Reference& ref, DType dtype, std::size_t n) {
  if (ref.exact) return 0;
  const double eps = dtype == DType::f64 ? DBL_EPSILON : FLT_EPSILON;
  const double depth = std::max(1.0, std::ceil(std::log2(static_cast<double>(std::max<std::size_t>(n, 2)))));
  return 2.0 * depth * eps * ref.sum_abs;
}

double value_of(DType dtype, const void* element) {
  switch (dtype) {
    case DType::f32: { float v; std::memcpy(&v, element, sizeof v); return v; }
    case DType::f64: { double v; std::memcpy(&v, element, sizeof v); return v; }
    case DType::i32: { int v; std::memcpy(&v, element, sizeof v); return v; }
  }
  return NAN;
}

bool within_tolerance(double got, const Reference& ref, DType dtype, std::size_t n) {
  return !std::isnan(got) && (std::fabs(got - ref.value) <= tolerance(ref, dtype, n) || got == ref.value);
}

Comparison compare(double got, const Reference& ref, DType dtype, std::size_t n) {
  Comparison result;
  const double allowed = tolerance(ref, dtype, n);
  const double error = std::fabs(got - ref.value);
  result.ok = within_tolerance(got, ref, dtype, n);
  char text[256];
  if (std::isnan(got)) {
    std::snprintf(text, sizeof text, "got NaN (the output was never written, or a NaN was read), expected %.9g", ref.value);
  } else if (ref.exact) {
    std::snprintf(text, sizeof text, "got %.9g, expected exactly %.9g", got, ref.value);
  } else {
    std::snprintf(text, sizeof text, "got %.9g, expected %.9g (error %.3g, allowed %.3g)", got, ref.value, error, allowed);
  }
  result.text = text;
  return result;
}

WrongRows wrong_rows(const std::vector<double>& values, const std::vector<Reference>& expected, DType dtype,
                     std::size_t columns, std::size_t changed, const Reference* changed_to) {
  WrongRows wrong;
  for (std::size_t r = 0; r < expected.size(); ++r) {
    const Reference& ref = changed_to && r == changed ? *changed_to : expected[r];
    if (within_tolerance(values.at(r), ref, dtype, columns)) continue;
    if (wrong.count++ == 0) {
      wrong.first = r;
      wrong.first_comparison = compare(values.at(r), ref, dtype, columns);
    }
  }
  return wrong;
}

std::optional<std::string> first_wrong_row(const std::vector<double>& values, const std::vector<Reference>& expected,
                                           DType dtype, std::size_t columns, std::size_t changed,
                                           const Reference* changed_to) {
  const WrongRows wrong = wrong_rows(values, expected, dtype, columns, changed, changed_to);
  if (wrong.count == 0) return std::nullopt;
  return "row " + std::to_string(wrong.first) + ": " + wrong.first_comparison.text;
}

}  // namespace reduce_lab::grader
