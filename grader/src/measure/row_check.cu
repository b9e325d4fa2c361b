// RowCheck's count on the GPU: one thread a row, the rule of base/row_rule.hpp.
#include "measure/row_check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include <reduce_lab/check.h>

#include "base/row_rule.hpp"

namespace reduce_lab::grader {

namespace {

template <class T>
__global__ void tally_kernel(const T* got, const double* value, const double* allowed, unsigned long long rows,
                             unsigned long long changed, double changed_value, double changed_allowed,
                             unsigned long long* tally) {
  const unsigned long long stride = 1ull * gridDim.x * blockDim.x;
  for (unsigned long long r = 1ull * blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += stride) {
    const bool is_changed = r == changed;
    if (within_allowed(static_cast<double>(got[r]), is_changed ? changed_value : value[r],
                       is_changed ? changed_allowed : allowed[r]))
      continue;
    atomicAdd(&tally[0], 1ull);
    atomicMin(&tally[1], r);
  }
}

}  // namespace

RowCheck::Tally RowCheck::tally(const DeviceBuffer& results, std::size_t changed, const Reference& changed_to) const {
  if (device_tally_.count() == 0) {
    std::vector<double> values;
    values.reserve(rows());
    for (const Reference& ref : expected_) values.push_back(ref.value);
    device_value_ = DeviceBuffer(rows(), sizeof(double));
    device_value_.upload(values.data(), rows() * sizeof(double));
    device_allowed_ = DeviceBuffer(rows(), sizeof(double));
    device_allowed_.upload(allowed_.data(), rows() * sizeof(double));
    device_tally_ = DeviceBuffer(2, sizeof(unsigned long long));
  }
  // No wrong row yet, and the lowest wrong row past every row.
  const unsigned long long start[2] = {0, ~0ull};
  const double changed_value = changed_to.value, changed_allowed = tolerance(changed_to, dtype_, columns_);
  device_tally_.upload(start, sizeof start);
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((rows() + threads - 1) / threads, 65536));
  const auto* value = static_cast<const double*>(device_value_.data());
  const auto* allowed = static_cast<const double*>(device_allowed_.data());
  auto* tally = static_cast<unsigned long long*>(device_tally_.data());
  switch (dtype_) {
    case DType::f32:
      tally_kernel<<<blocks, threads>>>(static_cast<const float*>(results.data()), value, allowed, rows(), changed,
                                        changed_value, changed_allowed, tally);
      break;
    case DType::f64:
      tally_kernel<<<blocks, threads>>>(static_cast<const double*>(results.data()), value, allowed, rows(), changed,
                                        changed_value, changed_allowed, tally);
      break;
    case DType::i32:
      tally_kernel<<<blocks, threads>>>(static_cast<const int*>(results.data()), value, allowed, rows(), changed,
                                        changed_value, changed_allowed, tally);
      break;
  }
  check(cudaGetLastError(), "checking a timed sample's rows");
  unsigned long long counts[2];
  device_tally_.download(counts, sizeof counts);
  return {static_cast<std::size_t>(counts[0]), static_cast<std::size_t>(counts[1])};
}

}  // namespace reduce_lab::grader
