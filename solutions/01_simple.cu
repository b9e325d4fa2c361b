// Lab 1 - simple sum reduction (PMPP Fig. 10.6).
//
// Each block reduces its own segment of 2*blockDim elements in place, in global memory,
// with a stride-doubling tree: thread t owns element 2t and, while t is a multiple of the
// stride, adds the element `stride` places to its right. The owners spread further apart
// every step, so from the second step on most lanes of every warp sit idle: this version
// results in poor SIMD efficiency (29% of lanes at work) and about 9N/16 memory requests.
//
// Read docs/01-simple.md, then grade with: ./lab grade 1

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in the book

__global__ void SimpleSumReductionKernel(Global<float> input, Global<float> output) {
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    // BEGIN EXERCISE
    unsigned int i = 2 * threadIdx.x;
    for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {
        if (threadIdx.x % stride == 0) {
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
unsigned simple_sum_pass(Global<float> input, Global<float> output, unsigned n) {
    const unsigned block = n / 2 < MAX_BLOCK_DIM ? n / 2 : MAX_BLOCK_DIM;
    const unsigned grid = n / (2 * block);
    launch(SimpleSumReductionKernel, grid, block, input, output);
    return grid;
}

REDUCE_LAB_MULTIPASS(1, "simple", simple_sum_pass)
