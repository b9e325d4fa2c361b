// Lab 6 - warp-unrolled sum reduction (lab 5 with its last warp unrolled).
//
// In lab 5 the last five tree steps (strides 16 down to 1) involve a single warp, yet
// every one of them waits at a __syncthreads for the whole block. Those steps need only the
// warp: here they pass partial sums between lanes with __shfl_down_sync (or run in shared
// memory with __syncwarp between steps). Relying on the warp's lanes running in lockstep
// without either is a race on Volta and later GPUs. This version results in at most
// log2(BLOCK_DIM) - 4 barriers per block instead of log2(BLOCK_DIM).
//
// Read docs/06-warp-unrolled.md, then grade with: ./lab grade 6

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;    // threads per block
constexpr unsigned COARSE_FACTOR = 2;   // as in lab 5
constexpr unsigned WARP = 32;

__global__ void WarpUnrolledSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = COARSE_FACTOR * 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    // Start from your lab 5 kernel. Stop the shared-memory tree while a whole warp still
    // has work, then let one warp finish with __shfl_down_sync (or with __syncwarp between
    // steps in shared memory) and add its result to output.
    // Remove the REDUCE_LAB_TODO() line when you start (docs/06-warp-unrolled.md).
    REDUCE_LAB_TODO();
    // END EXERCISE
}

// Host code: as lab 5.
void warp_unrolled_sum(Global<const float> input, Global<float> output, unsigned n) {
    reduce_lab::fill(output, 0.0f);
    const unsigned blocks = (n + COARSE_FACTOR * 2 * BLOCK_DIM - 1) / (COARSE_FACTOR * 2 * BLOCK_DIM);
    launch(WarpUnrolledSumReductionKernel, blocks, BLOCK_DIM, input, output, n);
}

REDUCE_LAB_SINGLE(6, "warp-unrolled", warp_unrolled_sum)
