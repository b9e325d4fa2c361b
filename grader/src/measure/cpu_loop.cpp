#include "measure/cpu_loop.hpp"

namespace reduce_lab::grader {

float sequential_sum(const float* input, std::size_t n) {
  float sum = 0.0f;
  for (std::size_t i = 0; i < n; ++i) sum += input[i];
  return sum;
}

}  // namespace reduce_lab::grader
