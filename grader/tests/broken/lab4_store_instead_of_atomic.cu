// Broken lab 4 (segmented): a plain store instead of atomicAdd. Each block writes its sum to
// output[0], so with two blocks or more the last one to finish wins and the others' sums are
// lost; the traffic check sees stores and no atomics. Every case of one block is right, so
// both checks point at the one atomicAdd per block (not at a missing __syncthreads), and the
// requests' headline says what the counters show: no atomic where one was expected.
//
// The emulator finds the two blocks' stores to one word at the first case with two blocks
// (n = 4096), whatever order the blocks run in, and names the race and both accesses.
//
// expect gpu correctness FAIL "wrong: n = 4096" "one atomicAdd per block"
// expect emu correctness FAIL "race between blocks: n = 4096" "stores to element 0 of an allocation of 1"
// expect all requests FAIL "atomic requests 0, expected 1: n = 1" "one atomicAdd per block"

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
        output[0] = input_s[0];
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
