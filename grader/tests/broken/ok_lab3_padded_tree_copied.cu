// Legal lab 3 (shared-memory): sequential addressing in a padded shared array of the
// student's own (element i at padded_s[i + i / 32], the layout tutorials give against bank
// conflicts), its sum copied to input_s[0] at the end for the provided line to read. The
// padding is not needed here, and the copy costs thread 0 one more load and store: 143
// shared wavefronts at n = 2048 where the book's tree takes 141, with no bank conflict and
// no idle warp. Neither is the lesson's flaw, so the requests test passes it; the speed
// test judges what the copy costs.
//
// expect all correctness PASS
// expect all requests PASS

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in the book

__global__ void SharedMemorySumReductionKernel(Global<const float> input, Global<float> output) {
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    __shared__ float input_s[MAX_BLOCK_DIM];
    // BEGIN EXERCISE
    __shared__ float padded_s[MAX_BLOCK_DIM + MAX_BLOCK_DIM / 32];  // one spare word after every 32
    unsigned int t = threadIdx.x;
    padded_s[t + t / 32] = input[t] + input[t + blockDim.x];
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            padded_s[t + t / 32] += padded_s[t + stride + (t + stride) / 32];
        }
    }
    if (t == 0) {
        input_s[0] = padded_s[0];
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
