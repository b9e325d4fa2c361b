// Broken lab 4 (segmented): the identity set inside the kernel. Block 0's first thread stores
// 0 to the output, instead of the host setting it with reduce_lab::fill before the launch.
// Nothing orders that store before the other blocks' atomicAdds, and the lab must not store
// to global memory at all. The emulator names the store and an atomic of another block on the
// same word at the first case with two blocks, whichever runs first; a GPU usually runs block 0
// first, so its result is often right.
//
// expect emu correctness FAIL "race between blocks: n = 4096" "element 0 of an allocation of 1"
// expect all requests FAIL "stores"

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;  // threads per block

__global__ void SegmentedSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    if (blockIdx.x == 0 && t == 0) {
        output[0] = 0.0f;
    }
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
        atomicAdd(output, input_s[0]);
    }
    // END EXERCISE
}

// Host code: one launch for any n >= 1.
void segmented_sum(Global<const float> input, Global<float> output, unsigned n) {
    const unsigned blocks = (n + 2 * BLOCK_DIM - 1) / (2 * BLOCK_DIM);
    // BEGIN EXERCISE
    // END EXERCISE
    launch(SegmentedSumReductionKernel, blocks, BLOCK_DIM, input, output, n);
}

REDUCE_LAB_SINGLE(4, "segmented", segmented_sum)
