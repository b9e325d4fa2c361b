// Lab 11 - neighbored-less: lab 1's pairs, its owners kept together.
//
// Lab 1's tree adds the same pairs as this one: element 2 stride t' + stride into element
// 2 stride t' at each step. But there the owner of a pair is the thread whose index is a multiple
// of the stride, so the owners spread out and from the second step on every warp of the block has
// a few busy lanes and many idle ones. Here the owner of the t-th pair is thread t: the busy
// threads stay together in the first warps, and the others have nothing to do and skip the step
// whole. The accesses are lab 1's (the same elements, so the same memory requests); the warp
// instructions are far fewer. A CUDA tutorial series calls this reduceNeighboredLess.
//
// Read docs/11-neighbored-less.md, then grade with: ./lab grade 11

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in lab 1

__global__ void NeighboredLessSumReductionKernel(Global<float> input, Global<float> output) {
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    // BEGIN EXERCISE
    for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {
        unsigned int index = 2 * stride * threadIdx.x;
        if (index < 2 * blockDim.x) {
            input[index] += input[index + stride];
        }
        __syncthreads();
    }
    // END EXERCISE
    if (threadIdx.x == 0) {  // provided: the segment's sum is now in its first element
        output[blockIdx.x] = input[0];
    }
}

// Provided host code: as lab 1.
unsigned neighbored_less_sum_pass(Global<float> input, Global<float> output, unsigned n) {
    const unsigned block = n / 2 < MAX_BLOCK_DIM ? n / 2 : MAX_BLOCK_DIM;
    const unsigned grid = n / (2 * block);
    launch(NeighboredLessSumReductionKernel, grid, block, input, output);
    return grid;
}

REDUCE_LAB_MULTIPASS(11, "neighbored-less", neighbored_less_sum_pass)
