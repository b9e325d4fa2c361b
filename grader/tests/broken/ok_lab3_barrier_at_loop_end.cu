// Legal lab 3 (shared-memory): the barrier at the end of each step instead of the top, with
// one more after the loads, as many textbooks write the tree. It runs one more barrier per
// block than the reference, which labs 1-3 do not grade; the memory accesses are the same.
//
// expect all correctness PASS
// expect all requests PASS
// expect gpu speedup PASS
// expect gpu races PASS

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in the book

__global__ void SharedMemorySumReductionKernel(Global<float> input, Global<float> output) {
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    __shared__ float input_s[MAX_BLOCK_DIM];
    // BEGIN EXERCISE
    unsigned int t = threadIdx.x;
    input_s[t] = input[t] + input[t + blockDim.x];
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        if (threadIdx.x < stride) {
            input_s[t] += input_s[t + stride];
        }
        __syncthreads();
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
