// Legal lab 4 (segmented), after the "reduce4" kernel of NVIDIA's CUDA samples (reduction):
// the first add happens while loading, the running sum stays in a register through the
// shared-memory steps, and the last 32 threads finish with warp shuffles instead of more
// barriers. With lab 4's bounds checks and one atomicAdd per block it is a legal lab 4, and
// faster than the reference.
//
// expect all correctness PASS
// expect all requests PASS
// expect gpu speedup PASS
// expect gpu races PASS

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;  // threads per block

__global__ void SegmentedSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    float running = i < n ? input[i] : 0.0f;
    if (i + BLOCK_DIM < n) {
        running += input[i + BLOCK_DIM];
    }
    input_s[t] = running;
    __syncthreads();
    // Shared-memory steps while more than one warp takes part; each owner keeps its
    // running sum in a register and only publishes it.
    for (unsigned int stride = blockDim.x / 2; stride > 32; stride /= 2) {
        if (t < stride) {
            running += input_s[t + stride];
            input_s[t] = running;
        }
        __syncthreads();
    }
    // One warp left: fold in the last 32 partial sums, then shuffle down.
    if (t < 32) {
        running += input_s[t + 32];
        for (unsigned int offset = 16; offset >= 1; offset /= 2) {
            running += __shfl_down_sync(0xffffffffu, running, offset);
        }
        if (t == 0) {
            atomicAdd(output, running);
        }
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
