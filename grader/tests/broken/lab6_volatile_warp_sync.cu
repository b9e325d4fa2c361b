// Broken lab 6 (warp-unrolled): the volatile warp-synchronous tail, as old reduction codes
// wrote it. The tree stops at 64 and the last warp adds through a volatile pointer with no
// __syncwarp(), trusting the warp's lanes to run in lockstep. Since Volta they need not, so
// a lane may read a partial sum before another lane has updated it: a race, which the
// emulator's shuffled lane order exposes.
//
// expect emu correctness FAIL "race"
// expect all requests PASS
// expect gpu speedup FAIL "not correct yet" "correctness test on the CPU emulator failed: race"

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
        volatile float* last_warp = input_s;  // "a warp runs in lockstep"
        last_warp[t] += last_warp[t + 32];
        last_warp[t] += last_warp[t + 16];
        last_warp[t] += last_warp[t + 8];
        last_warp[t] += last_warp[t + 4];
        last_warp[t] += last_warp[t + 2];
        last_warp[t] += last_warp[t + 1];
        if (t == 0) {
            atomicAdd(output, last_warp[0]);
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
