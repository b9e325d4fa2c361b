// Broken lab 3 (shared-memory): divergent __syncthreads(). The student moved the barrier
// inside if (threadIdx.x < stride), "since only those threads touch input_s", so threads at
// or above the stride never reach the barrier the others wait at. The emulator reports the
// deadlock and its line; a GPU may well finish it with the right result (design section 9),
// and it is still not timed there: the speed test reads the emulator's verdict (section 13).
//
// expect emu correctness FAIL "deadlock at" "lab3_barrier_inside_if.cu:22"
// expect gpu speedup FAIL "not correct yet" "correctness test on the CPU emulator failed: deadlock"

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in the book

__global__ void SharedMemorySumReductionKernel(Global<float> input, Global<float> output) {
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    __shared__ float input_s[MAX_BLOCK_DIM];
    // BEGIN EXERCISE
    unsigned int t = threadIdx.x;
    input_s[t] = input[t] + input[t + blockDim.x];
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        if (threadIdx.x < stride) {
            __syncthreads();
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
