// Broken lab 11 (neighbored-less): lab 1's tree handed in as lab 11. The same pairs, so the same
// sum and the same requests; but the owners are still the multiples of the stride, spread over
// every warp, so it issues lab 1's warp instructions, not the neighbored-less kernel's.
//
// expect all correctness PASS
// expect all requests FAIL "1151/1151 @2048 (differs)"

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in lab 1

__global__ void NeighboredLessSumReductionKernel(Global<float> input, Global<float> output) {
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

// Provided host code: as lab 1.
unsigned neighbored_less_sum_pass(Global<float> input, Global<float> output, unsigned n) {
    const unsigned block = n / 2 < MAX_BLOCK_DIM ? n / 2 : MAX_BLOCK_DIM;
    const unsigned grid = n / (2 * block);
    launch(NeighboredLessSumReductionKernel, grid, block, input, output);
    return grid;
}

REDUCE_LAB_MULTIPASS(11, "neighbored-less", neighbored_less_sum_pass)
