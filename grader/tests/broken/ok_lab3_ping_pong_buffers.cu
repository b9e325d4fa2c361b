// Legal lab 3 (shared-memory): the tree moves between two shared arrays, each step reading
// one and writing the other (a "ping-pong" of buffers), instead of adding in place. Each
// step's owners are adjacent (t < stride), so it issues the book's shared instructions with
// no bank conflict; where the tree has an odd number of steps (blocks of 2, 8, ..., 512
// threads) the sum ends in other_s, and thread 0 copies it to input_s[0]: two warp
// instructions more than the book's tree, which the requests test does not count against it.
//
// expect all correctness PASS
// expect all requests PASS

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in the book

__global__ void SharedMemorySumReductionKernel(Global<const float> input, Global<float> output) {
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    __shared__ float input_s[MAX_BLOCK_DIM];
    // BEGIN EXERCISE
    __shared__ float other_s[MAX_BLOCK_DIM / 2];
    unsigned int t = threadIdx.x;
    input_s[t] = input[t] + input[t + blockDim.x];
    bool sums_in_input_s = true;  // where the last step left the partial sums
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            if (sums_in_input_s) {
                other_s[t] = input_s[t] + input_s[t + stride];
            } else {
                input_s[t] = other_s[t] + other_s[t + stride];
            }
        }
        sums_in_input_s = !sums_in_input_s;
    }
    if (t == 0 && !sums_in_input_s) {
        input_s[0] = other_s[0];
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
