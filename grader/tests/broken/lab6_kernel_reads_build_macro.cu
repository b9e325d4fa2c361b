// Cheating lab 6 (warp-unrolled): a kernel that tests the kit's build macro. Where the lab is
// counted (REDUCE_LAB_IS_COUNTING is 1) it runs the lesson's tree; in the timed build it
// would run another loop. The file itself says it can tell the builds apart, so its speed is
// not graded, on any GPU, whatever the other loop does.
//
// expect all correctness PASS
// expect all requests PASS
// expect gpu speedup FAIL "build-dependent code: REDUCE_LAB_IS_COUNTING" "lab6_kernel_reads_build_macro.cu:24"
// expect emu speedup SKIP "skipped"

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
    float sum = 0.0f;
#if REDUCE_LAB_IS_COUNTING
    for (unsigned int tile = 0; tile < COARSE_FACTOR * 2; ++tile) {
        if (i + tile * BLOCK_DIM < n) {
            sum += input[i + tile * BLOCK_DIM];
        }
    }
#else
#pragma unroll
    for (unsigned int tile = 0; tile < COARSE_FACTOR * 2; ++tile) {
        sum += i + tile * BLOCK_DIM < n ? input[i + tile * BLOCK_DIM] : 0.0f;
    }
#endif
    input_s[t] = sum;
    for (unsigned int stride = blockDim.x / 2; stride >= WARP; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] += input_s[t + stride];
        }
    }
    __syncthreads();
    if (t < WARP) {
        sum = input_s[t];
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
