// Legal lab 6 (warp-unrolled): the last warp's steps in a __device__ function of their own
// that takes the shared array as a `volatile float*` (legal CUDA, common in public code). The
// counting builds follow the pointer into the helper (docs/grading.md, "Shared memory"), so
// its accesses are counted as ok_lab6_syncwarp_shared's, which writes the same steps inline:
// the same figures, the same verdicts.
//
// expect all correctness PASS
// expect all requests PASS
// expect gpu speedup PASS
// expect gpu races PASS

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;    // threads per block
constexpr unsigned COARSE_FACTOR = 2;   // as in lab 5
constexpr unsigned WARP = 32;

// The last warp's steps, in a function of their own that takes the shared array as a raw
// pointer: each step a read, __syncwarp(), a write and __syncwarp().
__device__ float warp_sum(volatile float* input_s, unsigned int t) {
    float sum = input_s[t];
    for (unsigned int offset = WARP; offset >= 1; offset /= 2) {
        sum += input_s[t + offset];
        __syncwarp();
        input_s[t] = sum;
        __syncwarp();
    }
    return sum;
}

__global__ void WarpUnrolledSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = COARSE_FACTOR * 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    float sum = 0.0f;
    for (unsigned int tile = 0; tile < COARSE_FACTOR * 2; ++tile) {
        if (i + tile * BLOCK_DIM < n) {
            sum += input[i + tile * BLOCK_DIM];
        }
    }
    input_s[t] = sum;
    for (unsigned int stride = blockDim.x / 2; stride > WARP; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] += input_s[t + stride];
        }
    }
    __syncthreads();
    if (t < WARP) {
        sum = warp_sum(input_s, t);
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
