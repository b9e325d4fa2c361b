// CUDA's execution spaces, checked without nvcc. The emulator's host compiler ignores
// __device__ and __global__, so a kernel that calls a plain (host) function compiles and runs
// there while nvcc stops with "calling a __host__ function from a __global__ function is not
// allowed". Where nvcc is present the emulator build runs its front end on every lab file;
// where it is not, this checker finds the same mistakes in a lab file's own functions, so that
// the emulator never accepts what CUDA rejects (docs/emulator.md).
//
// It reads one file as written (no preprocessing) and reports only what it is sure of:
//   - a __global__ or __device__ function (or a lambda inside one) that calls a function of
//     this file that has no __device__ (constexpr ones too: without --expt-relaxed-constexpr,
//     which the kit does not use, nvcc rejects them in device code even in constant
//     expressions), or the operator() of a struct of this file that has no __device__;
//   - a host function of this file that calls a __device__ (not __host__ __device__) one;
//   - a __global__ function whose return type is not void.
// Calls it cannot resolve (members, std:: and the kit's functions, templates' operations on
// their parameters, macros) are left to nvcc.
#pragma once

#include <string>
#include <vector>

namespace reduce_lab::spaces {

struct Finding {
  int line = 0;         // 1-based, in the file as written
  std::string message;  // "<caller> calls <callee>, a host function: ..."
};

// Every call across execution spaces that nvcc rejects, found in `source` (a lab file's text),
// in the order of the file.
std::vector<Finding> check_execution_spaces(const std::string& source);

}  // namespace reduce_lab::spaces
