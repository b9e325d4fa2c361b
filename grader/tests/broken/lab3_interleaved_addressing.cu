// Broken lab 3 (shared-memory): interleaved addressing, cuda-samples' reduce1 and the first
// step of most tutorials. Thread t owns element 2 * stride * t, so the result is right and
// global memory sees exactly the book's requests; but the lanes of a warp touch words
// 2 * stride apart, which fall in the same few of shared memory's 32 banks (all 32 lanes
// in one bank at stride 16): at n = 2048 the tree takes 606 wavefronts where sequential
// addressing takes 141 (an H100 measures the same, docs/03-shared-memory.md).
//
// expect all correctness PASS
// expect all requests FAIL "bank conflicts: 465 of 606 wf" "of which 465 are bank conflicts"

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in the book

__global__ void SharedMemorySumReductionKernel(Global<const float> input, Global<float> output) {
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    __shared__ float input_s[MAX_BLOCK_DIM];
    // BEGIN EXERCISE
    unsigned int t = threadIdx.x;
    input_s[t] = input[t] + input[t + blockDim.x];
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        unsigned int index = 2 * stride * t;
        if (index < blockDim.x) {
            input_s[index] += input_s[index + stride];
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
