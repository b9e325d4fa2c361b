#include "base/reference.hpp"

#include <reduce_lab/order_probe.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <future>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "base/row_rule.hpp"

namespace reduce_lab::grader {

namespace {

// A reference of 2^28 elements took a core seconds per case (lab 8's one row of 2^28, every type
// and op), while the GPU ran it in milliseconds: past this many elements the work is shared
// among threads, split the same way whatever the machine, so every value is what one thread
// computes (the pairwise tree's top levels become threads) or, for the sum of magnitudes that
// only scales the tolerance, always the same eight partial sums.
constexpr std::size_t kParallelElements = std::size_t{1} << 22;
constexpr int kSplitLevels = 3;  // 2^3 parts
constexpr std::size_t kParallelRows = std::size_t{1} << 18;

template <class T>
long double pairwise_sum(const T* x, std::size_t n, int split_levels = 0) {
  if (n <= 16) {
    long double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += x[i];
    return s;
  }
  if (split_levels > 0) {
    auto left = std::async(std::launch::async, [=] { return pairwise_sum(x, n / 2, split_levels - 1); });
    const long double right = pairwise_sum(x + n / 2, n - n / 2, split_levels - 1);
    return left.get() + right;
  }
  return pairwise_sum(x, n / 2) + pairwise_sum(x + n / 2, n - n / 2);
}

// f(first, count) for the fixed parts of [0, n), each on a thread of its own when `parallel`
// (else one part); the parts' results in order.
template <class F>
auto over_parts(std::size_t n, bool parallel, F f) -> std::vector<decltype(f(std::size_t{}, std::size_t{}))> {
  // One part is computed here, without a future: a future's shared state cost more than the sum of
  // a short row (lab 8's tall matrix, 9.6 million rows of 7: 1.4 s of two cores for its row
  // references).
  if (!parallel) return {f(0, n)};
  const std::size_t parts = std::size_t{1} << kSplitLevels;
  std::vector<std::future<decltype(f(std::size_t{}, std::size_t{}))>> futures;
  for (std::size_t p = 0; p < parts; ++p) {
    const std::size_t first = n * p / parts, last = n * (p + 1) / parts;
    futures.push_back(std::async(std::launch::async, f, first, last - first));
  }
  std::vector<decltype(f(std::size_t{}, std::size_t{}))> results;
  for (auto& future : futures) results.push_back(future.get());
  return results;
}

template <class T>
Reference reference_of(const T* x, std::size_t n, Op op) {
  Reference ref;
  ref.exact = true;
  if (op == Op::order) {
    // Lab 12's probe: the input's positions combined left to right, exactly (order_probe.h).
    if constexpr (!std::is_same<T, int>::value) throw std::invalid_argument("Order runs on int only");
    unsigned value = order_probe::kIdentityBits;
    for (std::size_t i = 0; i < n; ++i) {
      unsigned bits;
      std::memcpy(&bits, &x[i], sizeof bits);
      value = order_probe::combine(value, bits);
    }
    std::int32_t as_int;
    std::memcpy(&as_int, &value, sizeof as_int);
    ref.value = as_int;
    return ref;
  }
  if (op != Op::sum) {
    // Max and min are exact in any order; no tolerance, so no sum of magnitudes either.
    auto best_of = [op](T a, T b) { return op == Op::max ? (a < b ? b : a) : (b < a ? b : a); };
    const std::vector<T> bests = over_parts(n, n >= kParallelElements, [&](std::size_t first, std::size_t count) {
      T best = x[first];
      for (std::size_t i = first + 1; i < first + count; ++i) best = best_of(best, x[i]);
      return best;
    });
    T best = bests.front();
    for (const T b : bests) best = best_of(best, b);
    ref.value = static_cast<double>(best);
    return ref;
  }
  struct Part {
    long double sum_abs = 0;
    std::uint32_t wrapped = 0;
    bool whole = true;
  };
  const std::vector<Part> parts = over_parts(n, n >= kParallelElements, [&](std::size_t first, std::size_t count) {
    Part part;
    for (std::size_t i = first; i < first + count; ++i) {
      part.sum_abs += std::fabs(static_cast<long double>(x[i]));
      if constexpr (std::is_integral<T>::value)
        part.wrapped += static_cast<std::uint32_t>(x[i]);
      else
        part.whole = part.whole && std::floor(x[i]) == x[i];
    }
    return part;
  });
  long double sum_abs = 0;
  std::uint32_t wrapped = 0;
  bool whole = true;
  for (const Part& part : parts) {
    sum_abs += part.sum_abs;
    wrapped += part.wrapped;
    whole = whole && part.whole;
  }
  ref.sum_abs = static_cast<double>(sum_abs);
  if constexpr (std::is_integral<T>::value) {
    // int sums wrap modulo 2^32 on the device, as the type defines; so does the reference.
    std::int32_t value;
    std::memcpy(&value, &wrapped, sizeof value);
    ref.value = value;
  } else {
    ref.value = static_cast<double>(pairwise_sum(x, n, n >= kParallelElements ? kSplitLevels : 0));
    // Whole numbers whose sum of magnitudes fits the mantissa add up exactly in any order.
    const double mantissa_limit = std::is_same<T, float>::value ? 16777216.0 : 9007199254740992.0;
    ref.exact = whole && ref.sum_abs <= mantissa_limit;
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
  std::vector<Reference> rows(input.rows);
  // Each row's reference is its own: many rows are shared among threads by rows (one long row
  // is shared inside reference_at).
  over_parts(input.rows, input.rows > 1 && input.n >= kParallelElements, [&](std::size_t first, std::size_t count) {
    for (std::size_t r = first; r < first + count; ++r) rows[r] = reference_at(input, r * columns, columns, op);
    return 0;
  });
  return rows;
}

namespace {
// tolerance()'s factor of the sum of magnitudes: it depends on the type and n alone.
double tolerance_factor(DType dtype, std::size_t n) {
  const double eps = dtype == DType::f64 ? DBL_EPSILON : FLT_EPSILON;
  const double depth = std::max(1.0, std::ceil(std::log2(static_cast<double>(std::max<std::size_t>(n, 2)))));
  return 2.0 * depth * eps;
}

// The difference allowed from `ref`, for a factor of tolerance_factor()'s.
double allowed_difference(const Reference& ref, double factor) { return ref.exact ? 0 : factor * ref.sum_abs; }

bool within(double got, const Reference& ref, double factor) {
  return within_allowed(got, ref.value, allowed_difference(ref, factor));
}
}  // namespace

double tolerance(const Reference& ref, DType dtype, std::size_t n) {
  return allowed_difference(ref, tolerance_factor(dtype, n));
}

std::vector<double> tolerances(const std::vector<Reference>& refs, DType dtype, std::size_t n) {
  const double factor = tolerance_factor(dtype, n);
  std::vector<double> allowed;
  allowed.reserve(refs.size());
  for (const Reference& ref : refs) allowed.push_back(allowed_difference(ref, factor));
  return allowed;
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
  return within(got, ref, tolerance_factor(dtype, n));
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
  if (values.size() < expected.size())
    throw std::out_of_range("wrong_rows: " + std::to_string(values.size()) + " results for " +
                            std::to_string(expected.size()) + " rows");
  // Lab 8's speed test checks every row of every timed sample, millions of rows each: the rows
  // are shared among threads there, and the tolerance's factor is computed once, not per row.
  const double factor = tolerance_factor(dtype, columns);
  auto expected_of = [&](std::size_t r) -> const Reference& {
    return changed_to && r == changed ? *changed_to : expected[r];
  };
  const std::vector<WrongRows> parts =
      over_parts(expected.size(), expected.size() >= kParallelRows, [&](std::size_t first, std::size_t count) {
        WrongRows part;
        for (std::size_t r = first; r < first + count; ++r) {
          if (within(values[r], expected_of(r), factor)) continue;
          if (part.count++ == 0) part.first = r;
        }
        return part;
      });
  WrongRows wrong;
  for (const WrongRows& part : parts) {
    if (part.count > 0 && wrong.count == 0) wrong.first = part.first;
    wrong.count += part.count;
  }
  if (wrong.count > 0) {
    wrong.first_comparison = compare(values[wrong.first], expected_of(wrong.first), dtype, columns);
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
