#include "measure/cub_baseline.hpp"

#include <algorithm>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <reduce_lab/check.h>

namespace reduce_lab::grader {

CubSum::CubSum(std::size_t max_items) {
  check(cub::DeviceReduce::Sum(nullptr, temp_bytes_, static_cast<const float*>(nullptr), static_cast<float*>(nullptr),
                               static_cast<long long>(max_items)),
        "sizing CUB's temporary storage");
  check(cudaMalloc(&temp_, temp_bytes_), "allocating CUB's temporary storage");
}

CubSum::~CubSum() {
  if (temp_) cudaFree(temp_);
}

void CubSum::enqueue(const float* input, float* output, std::size_t n) {
  std::size_t bytes = temp_bytes_;
  check(cub::DeviceReduce::Sum(temp_, bytes, input, output, static_cast<long long>(n)), "running cub::DeviceReduce::Sum");
}

namespace {

// Where row r starts: this toolkit's CUB has no overload for segments of one size.
struct RowStart {
  long long columns;
  __host__ __device__ long long operator()(long long row) const { return row * columns; }
};

auto row_starts(std::size_t columns) {
  return thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0),
                                         RowStart{static_cast<long long>(columns)});
}

}  // namespace

CubRowSum::CubRowSum(std::size_t rows, std::size_t columns) : rows_(rows), columns_(columns) {
  const auto starts = row_starts(columns);
  check(cub::DeviceSegmentedReduce::Sum(nullptr, temp_bytes_, static_cast<const float*>(nullptr),
                                        static_cast<float*>(nullptr), static_cast<long long>(rows), starts, starts + 1),
        "sizing CUB's temporary storage");
  check(cudaMalloc(&temp_, std::max<std::size_t>(temp_bytes_, 1)), "allocating CUB's temporary storage");
}

CubRowSum::~CubRowSum() {
  if (temp_) cudaFree(temp_);
}

void CubRowSum::enqueue(const float* matrix, float* out) {
  const auto starts = row_starts(columns_);
  std::size_t bytes = temp_bytes_;
  check(cub::DeviceSegmentedReduce::Sum(temp_, bytes, matrix, out, static_cast<long long>(rows_), starts, starts + 1),
        "running cub::DeviceSegmentedReduce::Sum");
}

}  // namespace reduce_lab::grader
