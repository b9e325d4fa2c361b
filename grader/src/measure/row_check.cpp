#include "measure/row_check.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace reduce_lab::grader {

RowCheck::RowCheck(std::vector<Reference> expected, DType dtype, std::size_t columns)
    : expected_(std::move(expected)),
      dtype_(dtype),
      columns_(columns),
      allowed_(tolerances(expected_, dtype, columns)) {
  for (const Reference& ref : expected_) largest_value_ = std::max(largest_value_, std::fabs(ref.value));
  for (const double allowed : allowed_) largest_allowed_ = std::max(largest_allowed_, allowed);
}

std::optional<std::string> RowCheck::first_wrong(const DeviceBuffer& results, std::size_t changed,
                                                 const Reference& changed_to) const {
  if (results.count() < rows())
    throw std::out_of_range("RowCheck: " + std::to_string(results.count()) + " results for " +
                            std::to_string(rows()) + " rows");
  const Tally counted = tally(results, changed, changed_to);
  if (counted.wrong == 0) return std::nullopt;
  unsigned char element[8];
  results.download_at(counted.first, element, 1);
  const Reference& expected = counted.first == changed ? changed_to : expected_[counted.first];
  return "row " + std::to_string(counted.first) + ": " + compare(value_of(dtype_, element), expected, dtype_, columns_).text;
}

}  // namespace reduce_lab::grader
