// Legal lab 3 (shared-memory): interleaved addressing with a padded layout. Element i lives
// at input_s[i + i / 32], one spare word after every 32, so the words a warp touches at
// any stride spread over all 32 banks: the owners are interleaved, but no wavefront is
// wasted (73 load and 68 store wavefronts at n = 2048, as sequential addressing).
//
// expect all correctness PASS
// expect all requests PASS

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in the book

__global__ void SharedMemorySumReductionKernel(Global<const float> input, Global<float> output) {
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    __shared__ float input_s[MAX_BLOCK_DIM + MAX_BLOCK_DIM / 32];
    // BEGIN EXERCISE
    unsigned int t = threadIdx.x;
    input_s[t + t / 32] = input[t] + input[t + blockDim.x];
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        unsigned int index = 2 * stride * t;
        if (index < blockDim.x) {
            input_s[index + index / 32] += input_s[index + stride + (index + stride) / 32];
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
