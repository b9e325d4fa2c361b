// The value a lab must produce, and how far a floating-point result may be from it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/inputs.hpp"

namespace reduce_lab::grader {

struct Reference {
  double value = 0;     // exact for max/min and int; pairwise long double for float/double sums
  double sum_abs = 0;   // sum of |x|, what the rounding error of any summation order scales with
  bool exact = false;   // no rounding can occur in any order: the result must equal value
};

Reference reference(const HostArray& input, Op op);
// A matrix's (input.rows rows): the reference of each row, in order.
std::vector<Reference> row_references(const HostArray& input, Op op);

// Largest accepted |got - value| (design §6): k * ceil(log2 n) * eps(type) * sum|x|, k = 2,
// which bounds a tree of any shape; 0 when the reference is exact.
double tolerance(const Reference& ref, DType dtype, std::size_t n);
// tolerance() of each of `refs`, its factor computed once: for millions of rows.
std::vector<double> tolerances(const std::vector<Reference>& refs, DType dtype, std::size_t n);

// Reads element 0 of a device-order result as a double (int results as their exact value).
double value_of(DType dtype, const void* element);

// Whether `got` is right by compare()'s rule, without its text: for checks of millions of rows.
bool within_tolerance(double got, const Reference& ref, DType dtype, std::size_t n);

struct Comparison {
  bool ok = false;
  std::string text;  // "got 12.5, expected 12.499999 (allowed error 3e-05)"
};
Comparison compare(double got, const Reference& ref, DType dtype, std::size_t n);

// A matrix's row results (`values`, one per row of `columns` elements) against `expected`, by
// compare()'s rule: how many rows are wrong, and the first of them with its comparison. Where
// `changed_to` is given it stands for row `changed`'s reference. Only the first wrong row's text
// is formatted: a line per row of millions of rows would take seconds.
struct WrongRows {
  std::size_t count = 0;
  std::size_t first = 0;
  Comparison first_comparison;  // of row `first`, when count > 0
};
WrongRows wrong_rows(const std::vector<double>& values, const std::vector<Reference>& expected, DType dtype,
                     std::size_t columns, std::size_t changed = 0, const Reference* changed_to = nullptr);

// The first wrong row of wrong_rows() as "row 3: got ..."; nothing when every row is right.
std::optional<std::string> first_wrong_row(const std::vector<double>& values, const std::vector<Reference>& expected,
                                           DType dtype, std::size_t columns, std::size_t changed = 0,
                                           const Reference* changed_to = nullptr);

}  // namespace reduce_lab::grader
