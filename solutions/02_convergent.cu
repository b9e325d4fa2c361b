// Lab 2 - convergent sum reduction (PMPP Fig. 10.9).
//
// The same tree as lab 1, with the owners kept next to each other: thread t owns element t
// and adds the element `stride` places away while t < stride, the stride halving from
// blockDim down to 1. Whole warps now stay busy or fall idle together until fewer than 32
// threads remain, and each warp's accesses are contiguous: this version cuts the requests
// to about 3N/32 (a sixth of lab 1's) and keeps 66% of lanes at work, but still reads and
// writes every partial sum through global memory.
//
// Read docs/02-convergent.md, then grade with: ./lab grade 2

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in the book

__global__ void ConvergentSumReductionKernel(Global<float> input, Global<float> output) {
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    // BEGIN EXERCISE
    unsigned int i = threadIdx.x;
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
