// Broken lab 4 (segmented): output[0] += sum instead of atomicAdd. Each block's thread 0
// loads output[0], adds its sum and stores it back: a load, an add and a store, between which
// another block's load and store can fall, so sums are lost. One block alone is right. On a
// GPU that shows at large n, where many blocks finish together; on the emulator the blocks'
// accesses to output[0] are found whatever order they run in, at the first case with two
// blocks. The counters see a load and a store per block and no atomic: the headline names the
// missing atomics, and the hint the one atomicAdd per block, not the stores or the extra loads
// that follow from it.
//
// expect all requests FAIL "atomic requests 0, expected 1: n = 1" "one atomicAdd per block"
// expect gpu correctness FAIL "wrong: n = " "one atomicAdd per block"
// expect emu correctness FAIL "race between blocks: n = 4096" "element 0 of an allocation of 1"

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
        output[0] += input_s[0];
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
