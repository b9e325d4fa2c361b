// Broken lab 10 (chosen-factor): the largest factor, whatever n is. At 2^26 floats it is the
// fastest, but at 2^14 it makes one block of 1024 threads for the whole input, and at 2^18 two:
// one or two of the device's multiprocessors work, the others idle.
//
// expect all correctness PASS
// expect all requests PASS
// expect gpu speedup FAIL "chose 64 64 64 64"

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;    // threads per block

__global__ void CoarsenedSumReductionKernel(Global<const float> input, Global<float> output, unsigned n,
                                            unsigned coarse_factor) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = coarse_factor * 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    float sum = 0.0f;
    for (unsigned int tile = 0; tile < coarse_factor * 2; ++tile) {
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

// The factor for n elements on this device: each thread adds 2 x factor of them.
unsigned choose_coarse_factor(unsigned long long n, const cudaDeviceProp& device) {
    // BEGIN EXERCISE
    // The largest factor there is: the fewest blocks, the fewest trees and atomics.
    (void)n;
    (void)device;
    return 64;
    // END EXERCISE
}

// Host code: lab 5's, with the factor as a parameter.
void chosen_factor_sum(Global<const float> input, Global<float> output, unsigned n, unsigned coarse_factor) {
    reduce_lab::fill(output, 0.0f);
    const unsigned per_block = coarse_factor * 2 * BLOCK_DIM;
    const unsigned blocks = (n + per_block - 1) / per_block;
    launch(CoarsenedSumReductionKernel, blocks, BLOCK_DIM, input, output, n, coarse_factor);
}

REDUCE_LAB_CHOSEN_FACTOR(10, "chosen-factor", chosen_factor_sum, choose_coarse_factor)
