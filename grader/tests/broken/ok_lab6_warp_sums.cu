// Legal lab 6 (warp-unrolled): every warp reduces its own 32 values with shuffles first, lane
// 0 stores the warp's sum in a small shared array, and after one barrier the first warp
// reduces those sums (the shape of CUB's BlockReduce and cuda-samples' reduce6). Its shared
// instructions are few and mostly one lane wide (33 per block at 6% SIMD efficiency): the
// lanes they leave idle are far fewer than a tree's, so this is no divergence.
//
// expect all correctness PASS
// expect all requests PASS

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
    __shared__ float warp_sums_s[BLOCK_DIM / WARP];
    float sum = 0.0f;
    for (unsigned int tile = 0; tile < COARSE_FACTOR * 2; ++tile) {
        if (i + tile * BLOCK_DIM < n) {
            sum += input[i + tile * BLOCK_DIM];
        }
    }
    for (unsigned int offset = WARP / 2; offset >= 1; offset /= 2) {
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if (t % WARP == 0) {
        warp_sums_s[t / WARP] = sum;
    }
    __syncthreads();
    if (t < WARP) {
        sum = warp_sums_s[t];  // BLOCK_DIM / WARP = 32 sums, one per lane
        for (unsigned int offset = WARP / 2; offset >= 1; offset /= 2) {
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        }
        if (t == 0) {
            atomicAdd(output, sum);
        }
    }
    // END EXERCISE
}

// Host code: as lab 5.
void warp_unrolled_sum(Global<const float> input, Global<float> output, unsigned n) {
    reduce_lab::fill(output, 0.0f);
    const unsigned blocks = (n + COARSE_FACTOR * 2 * BLOCK_DIM - 1) / (COARSE_FACTOR * 2 * BLOCK_DIM);
    launch(WarpUnrolledSumReductionKernel, blocks, BLOCK_DIM, input, output, n);
}

REDUCE_LAB_SINGLE(6, "warp-unrolled", warp_unrolled_sum)
