// Broken lab 2 (convergent): lab 1's owner index kept. Thread t still owns element 2t, but
// the stride now starts at blockDim.x: at the first step thread blockDim.x - 1 adds element
// 2 * blockDim.x - 2 + blockDim.x, past its block's segment and, in the last block, past n.
// Every n of labs 1-3 is a power of two and fills every block's segment, so the hint is the
// owner index, not a bounds check with the op's identity (which this lab never needs).
//
// expect emu correctness FAIL "out of bounds: n = 4" "owner index"
// expect emu requests FAIL "out of bounds: n = 4" "owner index"

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in the book

__global__ void ConvergentSumReductionKernel(Global<float> input, Global<float> output) {
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    // BEGIN EXERCISE
    unsigned int i = 2 * threadIdx.x;
    for (unsigned int stride = blockDim.x; stride >= 1; stride /= 2) {
        if (threadIdx.x < stride) {
            input[i] += input[i + stride];
        }
        __syncthreads();
    }
    // END EXERCISE
    if (threadIdx.x == 0) {  // provided: the segment's sum is now in its first element
        output[blockIdx.x] = input[0];
    }
}

// Provided host code: one pass turns every 2*blockDim elements (n a power of two) into one
// value of output; the grader repeats passes until one value is left.
unsigned convergent_sum_pass(Global<float> input, Global<float> output, unsigned n) {
    const unsigned block = n / 2 < MAX_BLOCK_DIM ? n / 2 : MAX_BLOCK_DIM;
    const unsigned grid = n / (2 * block);
    launch(ConvergentSumReductionKernel, grid, block, input, output);
    return grid;
}

REDUCE_LAB_MULTIPASS(2, "convergent", convergent_sum_pass)
