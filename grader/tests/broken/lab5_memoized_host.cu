// Broken lab 5 (coarsened): memoizing host code. The host function remembers the size of the
// last input and, called again with the same n, skips the launch, assuming the grader reuses
// its buffers and the answer is still in the output (it keys on n alone: Global gives lab
// code no pointer to compare). The grader poisons the output before
// every checked run, so the skipped launches are caught as a wrong result, and a lab that
// is not correct is not timed (lab5_memoized_large_input remembers only at the timed size).
//
// expect all correctness FAIL "wrong" "NaN"
// expect all requests PASS
// expect gpu speedup FAIL "not correct yet"
// expect emu speedup SKIP "skipped"

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;    // threads per block
constexpr unsigned COARSE_FACTOR = 2;   // as in the book

__global__ void CoarsenedSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
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
void coarsened_sum(Global<const float> input, Global<float> output, unsigned n) {
    static unsigned last_n = 0;  // the size of the input reduced last time
    if (n == last_n) {
        return;  // "same input again: its sum is still in output"
    }
    last_n = n;
    reduce_lab::fill(output, 0.0f);  // the identity of the sum
    // BEGIN EXERCISE
    const unsigned blocks = (n + COARSE_FACTOR * 2 * BLOCK_DIM - 1) / (COARSE_FACTOR * 2 * BLOCK_DIM);
    // END EXERCISE
    launch(CoarsenedSumReductionKernel, blocks, BLOCK_DIM, input, output, n);
}

REDUCE_LAB_SINGLE(5, "coarsened", coarsened_sum)
