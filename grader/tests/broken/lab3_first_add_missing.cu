// Broken lab 3 (shared-memory): the first add is missing. The student loads only input[t]
// into input_s[t], so the second half of each segment is never read: half the sum is lost,
// and one load request per warp goes missing from the book's count.
//
// expect all correctness FAIL "wrong: n = 2"
// expect all requests FAIL "differs"

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in the book

__global__ void SharedMemorySumReductionKernel(Global<float> input, Global<float> output) {
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    __shared__ float input_s[MAX_BLOCK_DIM];
    // BEGIN EXERCISE
    unsigned int t = threadIdx.x;
    input_s[t] = input[t];
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (threadIdx.x < stride) {
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
