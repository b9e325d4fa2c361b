// Broken lab 4 (segmented): a write through a wild index. The student parks each block's sum
// at output[1 << 30], meaning to add the partial sums up in a second step, but the output the
// grader hands in holds a single value: the store lands a whole 4 GiB away. On a GPU that is
// an illegal address; the emulator stops it as an out-of-bounds store.
//
// expect emu correctness FAIL "out of bounds" "out-of-bounds global store"
// expect gpu correctness FAIL "illegal address"
// expect gpu races FAIL "out of bounds: n = 1" "memcheck"

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;  // threads per block

__global__ void SegmentedSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    float first = i < n ? input[i] : 0.0f;
    float second = i + BLOCK_DIM < n ? input[i + BLOCK_DIM] : 0.0f;
    input_s[t] = first + second;
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] += input_s[t + stride];
        }
    }
    if (t == 0) {
        output[1u << 30] = input_s[0];
    }
    // END EXERCISE
}

// Host code: one launch for any n >= 1.
void segmented_sum(Global<const float> input, Global<float> output, unsigned n) {
    const unsigned blocks = (n + 2 * BLOCK_DIM - 1) / (2 * BLOCK_DIM);
    // BEGIN EXERCISE
    reduce_lab::fill(output, 0.0f);  // the blocks add to it, so it must start at the identity
    // END EXERCISE
    launch(SegmentedSumReductionKernel, blocks, BLOCK_DIM, input, output, n);
}

REDUCE_LAB_SINGLE(4, "segmented", segmented_sum)
