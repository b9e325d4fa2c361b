// Broken lab 3 (shared-memory): lab 1's owners in shared memory (cuda-samples' reduce0).
// Thread t adds when t % (2 * stride) == 0: no bank conflicts (the active lanes' words lie
// in different banks), and the global requests are the book's, but every warp keeps
// issuing each step for a handful of active lanes: at n = 2048 the tree takes 606 shared
// warp instructions (SIMD efficiency 21.1%, 15298 lanes idle) where adjacent owners take
// 141 (418 idle).
//
// expect all correctness PASS
// expect all requests FAIL "divergence: 15298 idle lanes" "a convergent tree needs 141 instructions with 418 idle"

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in the book

__global__ void SharedMemorySumReductionKernel(Global<const float> input, Global<float> output) {
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    __shared__ float input_s[MAX_BLOCK_DIM];
    // BEGIN EXERCISE
    unsigned int t = threadIdx.x;
    input_s[t] = input[t] + input[t + blockDim.x];
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        if (t % (2 * stride) == 0) {
            input_s[t] += input_s[t + stride];
        }
    }
    // END EXERCISE
    if (threadIdx.x == 0) {  // provided: the block's sum is now in input_s[0]
        output[blockIdx.x] = input_s[0];
    }
}

// Provided host code: one pass turns every 2*blockDim elements (n a power of two) into one
// value of output; the grader repeats passes until one value is left.
unsigned shared_memory_sum_pass(Global<float> input, Global<float> output, unsigned n) {
    const unsigned block = n / 2 < MAX_BLOCK_DIM ? n / 2 : MAX_BLOCK_DIM;
    const unsigned grid = n / (2 * block);
    launch(SharedMemorySumReductionKernel, grid, block, input, output);
    return grid;
}

REDUCE_LAB_MULTIPASS(3, "shared-memory", shared_memory_sum_pass)
