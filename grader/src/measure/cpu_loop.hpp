#pragma once
#include <cstddef>
namespace reduce_lab::grader {
// Fig. 10.1: the sequential sum lab 1 is measured against. Built at -O2 on its own (see
// grader/CMakeLists.txt) so the baseline is the book's plain loop, not a vectorised one.
float sequential_sum(const float* input, std::size_t n);
}  // namespace reduce_lab::grader
