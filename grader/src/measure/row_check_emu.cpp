// RowCheck's count on the emulator, whose device memory the host reads only through copies: the
// host's own check of the rows, copied back.
#include "measure/row_check.hpp"

namespace reduce_lab::grader {

RowCheck::Tally RowCheck::tally(const DeviceBuffer& results, std::size_t changed, const Reference& changed_to) const {
  const std::size_t element = dtype_bytes(dtype_);
  std::vector<unsigned char> bytes(rows() * element);
  results.download(bytes.data(), bytes.size());
  std::vector<double> values(rows());
  for (std::size_t r = 0; r < rows(); ++r) values[r] = value_of(dtype_, bytes.data() + r * element);
  const WrongRows wrong = wrong_rows(values, expected_, dtype_, columns_, changed, &changed_to);
  return {wrong.count, wrong.first};
}

}  // namespace reduce_lab::grader
