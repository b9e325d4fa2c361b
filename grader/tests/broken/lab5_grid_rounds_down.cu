// Broken lab 5 (coarsened): too few blocks. The student divides n by the elements a block
// covers, rounding down, with at least one block: every input up to 4096 elements still
// works, but a ragged large input loses its last partial segment.
//
// expect all correctness FAIL "wrong: n = 1000007"
// expect all requests FAIL "loads missing" "never loaded"

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
    reduce_lab::fill(output, 0.0f);  // the identity of the sum
    // BEGIN EXERCISE
    const unsigned whole = n / (COARSE_FACTOR * 2 * BLOCK_DIM);
    const unsigned blocks = whole > 0 ? whole : 1;
    // END EXERCISE
    launch(CoarsenedSumReductionKernel, blocks, BLOCK_DIM, input, output, n);
}

REDUCE_LAB_SINGLE(5, "coarsened", coarsened_sum)
