// A timed matrix's expected rows, checked where a timed sample leaves its results. Lab 8's speed
// test checks every row of every sample: 9.6 million rows at its tall shape, for the lab and for
// CUB, twenty-odd samples each. Copied back and checked on the host, those rows took most of the
// test's time; on a GPU they are checked on the device and only the count of wrong rows and the
// first of them come back. The rule is wrong_rows()'s, the message first_wrong_row()'s
// (base/reference.hpp): a sample is right or wrong exactly as it was.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/reference.hpp"
#include "run/device.hpp"

namespace reduce_lab::grader {

class RowCheck {
 public:
  // Rows of `columns` elements each, of type `dtype`, one expected value each.
  RowCheck(std::vector<Reference> expected, DType dtype, std::size_t columns);

  std::size_t rows() const { return expected_.size(); }
  const Reference& expected(std::size_t row) const { return expected_[row]; }
  // The largest difference allowed from a row's expected value, and the largest |expected value|.
  double largest_allowed() const { return largest_allowed_; }
  double largest_value() const { return largest_value_; }

  // "row 3: got ..., expected ..." for the first wrong one of the rows' results at `results`
  // (one element of the check's type per row), or nothing when every row is right; row `changed`
  // must be `changed_to` instead of its own expected value.
  std::optional<std::string> first_wrong(const DeviceBuffer& results, std::size_t changed,
                                         const Reference& changed_to) const;

 private:
  struct Tally {
    std::size_t wrong = 0;
    std::size_t first = 0;  // the lowest wrong row, when wrong > 0
  };
  // The backend's count: on the device (row_check.cu), or on the host by wrong_rows()
  // (row_check_emu.cpp).
  Tally tally(const DeviceBuffer& results, std::size_t changed, const Reference& changed_to) const;

  std::vector<Reference> expected_;
  DType dtype_;
  std::size_t columns_;
  std::vector<double> allowed_;  // each row's difference allowed from its expected value
  double largest_allowed_ = 0, largest_value_ = 0;
  // The GPU's copies of the rows' expected values and of allowed_ (made at the first check), and
  // its two counts.
  mutable DeviceBuffer device_value_, device_allowed_, device_tally_;
};

}  // namespace reduce_lab::grader
