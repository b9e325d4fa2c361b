// Broken lab 4 (segmented): an endless loop. The student rounds every halving of the stride
// up, "so that odd block sizes work too", but (1 + 1) / 2 is 1: the stride never reaches 0
// and the block loops (with a barrier each time round) until the time limit stops it.
// The limits are lowered so the case does not wait a minute for the default ones.
//
// env REDUCE_LAB_EMU_TIMEOUT=5
// env REDUCE_LAB_RUN_TIMEOUT=15
// expect emu correctness FAIL "time limit" "time limit"
// expect gpu correctness FAIL "time limit" "did not finish"

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
    for (unsigned int stride = (blockDim.x + 1) / 2; stride >= 1; stride = (stride + 1) / 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] += input_s[t + stride];
        }
    }
    if (t == 0) {
        atomicAdd(output, input_s[0]);
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
