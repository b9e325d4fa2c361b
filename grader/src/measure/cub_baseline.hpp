// cub::DeviceReduce::Sum, the library reduction lab 7's reference solution is held against, and
// cub::DeviceSegmentedReduce::Sum over the rows of a matrix, lab 8's.
#pragma once

#include <cstddef>

namespace reduce_lab::grader {

class CubSum {
 public:
  explicit CubSum(std::size_t max_items);
  ~CubSum();
  CubSum(const CubSum&) = delete;
  CubSum& operator=(const CubSum&) = delete;
  // Enqueues the sum of n floats at `input` into `output` (device pointers); no sync.
  void enqueue(const float* input, float* output, std::size_t n);

 private:
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

// The sum of each row of a row-major rows x columns float matrix (segments of one length,
// given to CUB as begin and end offsets computed on the fly).
class CubRowSum {
 public:
  CubRowSum(std::size_t rows, std::size_t columns);
  ~CubRowSum();
  CubRowSum(const CubRowSum&) = delete;
  CubRowSum& operator=(const CubRowSum&) = delete;
  // Enqueues out[r] = the sum of row r of `matrix` (device pointers); no sync.
  void enqueue(const float* matrix, float* out);

 private:
  std::size_t rows_, columns_;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

}  // namespace reduce_lab::grader
