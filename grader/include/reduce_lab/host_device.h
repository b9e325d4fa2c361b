// Functions that both the host and the GPU compile: marked for nvcc, plain for a host compiler
// (the emulator's, the grader's C++ files).
#pragma once

#if defined(__CUDACC__)
#define REDUCE_LAB_HOST_DEVICE __host__ __device__
#else
#define REDUCE_LAB_HOST_DEVICE
#endif
