// Stand-in for the CUDA toolkit's <cuda_runtime.h> in the emulator build: host code written
// against the CUDA runtime (the grader, check.h) compiles unchanged and runs on host memory.
#pragma once

#include <reduce_emu/emu.h>
