// Lab 10 - the coarsening factor, chosen (lab 5 with COARSE_FACTOR picked for n and the device).
//
// Lab 5 fixes COARSE_FACTOR at 2. Brent's theorem says why coarsening pays: with p threads a
// reduction of n elements takes about n/p + log2(p) steps, so a thread should add about log2(n)
// elements on its own before the tree. But a factor too large for a small n leaves most of the
// device's multiprocessors without a block, and one too small queues wave after wave of blocks,
// each paying for its tree. Here the host code chooses the factor for each n and device. The
// grader times your choice against a sweep of factors (1 to 64, and the one that makes a single
// wave of blocks fill the device) at n = 2^14, 2^18, 2^22 and 2^26: it must reach 90% of the
// fastest one's speed at each.
//
// Read docs/10-chosen-factor.md, then grade with: ./lab grade 10

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
    // The blocks the device runs at once: a grid of more waits for a second wave.
    const unsigned long long resident = static_cast<unsigned long long>(device.multiProcessorCount) *
                                        (device.maxThreadsPerMultiProcessor / BLOCK_DIM);
    // The factor that makes one wave of blocks cover n: no block waits for a second wave, and
    // each block's tree is paid for by as many elements as it can be given. At least lab 5's 2
    // (below it a block's tree costs as much as its loads), at most 64 (past it the H200 measured
    // no gain: docs/10-chosen-factor.md).
    const unsigned long long per_factor = 2ull * BLOCK_DIM * resident;
    const unsigned long long factor = (n + per_factor - 1) / per_factor;
    return static_cast<unsigned>(factor < 2 ? 2 : factor > 64 ? 64 : factor);
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
