// Every CUDA call in the kit goes through check(): a failed call becomes an exception that
// names what was being done, so the grader can report it instead of exiting.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace reduce_lab {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what)
      : std::runtime_error(what + ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")"),
        code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

inline void check(cudaError_t code, const char* what) {
  if (code != cudaSuccess) throw CudaError(code, what);
}

}  // namespace reduce_lab
