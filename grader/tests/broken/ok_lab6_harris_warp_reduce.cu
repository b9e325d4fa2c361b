// Legal lab 6 (warp-unrolled), as Mark Harris's "Optimizing Parallel Reduction in CUDA" and
// the tutorials that retell it write the last warp: a `template <unsigned int blockSize>
// __device__ void warpReduce(volatile float* sdata, unsigned int tid)`, unrolled on
// blockSize, declared first and defined after the kernel, called as warpReduce<BLOCK_DIM>(
// input_s, t). Fixed for Volta and later as docs/06-warp-unrolled.md says: each step reads,
// __syncwarp(), writes, __syncwarp(). The counting builds follow the pointer into the
// helper (docs/grading.md, "Shared memory"): ok_lab6_syncwarp_shared's figures, plus the one
// read of input_s[0] per block that its atomicAdd makes.
//
// expect all correctness PASS
// expect all requests PASS
// expect gpu speedup PASS
// expect gpu races PASS

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;    // threads per block
constexpr unsigned COARSE_FACTOR = 2;   // as in lab 5
constexpr unsigned WARP = 32;

template <unsigned int blockSize>
__device__ __forceinline__ void warpReduce(volatile float* sdata, unsigned int tid);

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
        warpReduce<BLOCK_DIM>(input_s, t);
        if (t == 0) {
            atomicAdd(output, input_s[0]);
        }
    }
    // END EXERCISE
}

// One step of the last warp: every lane reads before any lane writes.
#define WARP_STEP(offset)                   \
    if (blockSize >= 2 * (offset)) {        \
        sum += sdata[tid + (offset)];       \
        __syncwarp();                       \
        sdata[tid] = sum;                   \
        __syncwarp();                       \
    }

template <unsigned int blockSize>
__device__ __forceinline__ void warpReduce(volatile float* sdata, unsigned int tid) {
    float sum = sdata[tid];
    WARP_STEP(32)
    WARP_STEP(16)
    WARP_STEP(8)
    WARP_STEP(4)
    WARP_STEP(2)
    WARP_STEP(1)
}

// Host code: as lab 5.
void warp_unrolled_sum(Global<const float> input, Global<float> output, unsigned n) {
    reduce_lab::fill(output, 0.0f);
    const unsigned blocks = (n + COARSE_FACTOR * 2 * BLOCK_DIM - 1) / (COARSE_FACTOR * 2 * BLOCK_DIM);
    launch(WarpUnrolledSumReductionKernel, blocks, BLOCK_DIM, input, output, n);
}

REDUCE_LAB_SINGLE(6, "warp-unrolled", warp_unrolled_sum)
