// RowCheck's count on the emulator, whose device memory the host reads only through copies.
#include "measure/row_check.hpp"

#include "base/row_rule.hpp"

namespace reduce_lab::grader {

RowCheck::Tally RowCheck::tally(const DeviceBuffer& results, std::size_t changed, double changed_value,
                                double changed_allowed) const {
  const std::size_t element = dtype_bytes(dtype_);
  std::vector<unsigned char> bytes(rows() * element);
  results.download(bytes.data(), bytes.size());
  Tally counted;
  for (std::size_t r = 0; r < rows(); ++r) {
    const bool is_changed = r == changed;
    if (within_allowed(value_of(dtype_, bytes.data() + r * element), is_changed ? changed_value : value_[r],
                       is_changed ? changed_allowed : allowed_[r]))
      continue;
    if (counted.wrong++ == 0) counted.first = r;
  }
  return counted;
}

}  // namespace reduce_lab::grader
