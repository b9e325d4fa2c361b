// Legal lab 9 (fan-in): each step loads its K terms into a register array, then adds them as
// a tree of pairs in registers: the same reads of input_s as the reference, another order of
// the additions.
//
// expect all correctness PASS
// expect all requests PASS
// expect gpu speedup PASS

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // the most threads a block has
constexpr unsigned COARSE_FACTOR = 2;      // as in lab 5

template <unsigned K>
__global__ void FanInSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float input_s[MAX_BLOCK_DIM];
    unsigned int segment = COARSE_FACTOR * 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    float sum = 0.0f;
    for (unsigned int tile = 0; tile < COARSE_FACTOR * 2; ++tile) {
        if (i + tile * blockDim.x < n) {
            sum += input[i + tile * blockDim.x];
        }
    }
    input_s[t] = sum;
    // `count` partial sums are left in input_s[0, count); a step leaves ceil(count / K) of them.
    for (unsigned int count = blockDim.x; count > 1;) {
        const unsigned int stride = (count + K - 1) / K;
        __syncthreads();
        if (t < stride) {
            // The K terms first, then their sum as a tree of pairs in registers.
            float terms[K];
            for (unsigned int k = 0; k < K; ++k) {
                terms[k] = t + k * stride < count ? input_s[t + k * stride] : 0.0f;
            }
            for (unsigned int width = K / 2; width >= 1; width /= 2) {
                for (unsigned int k = 0; k < width; ++k) {
                    terms[k] += terms[k + width];
                }
            }
            input_s[t] = terms[0];
        }
        count = stride;
    }
    // Thread 0 wrote input_s[0] itself in the last step: no barrier before it reads it.
    if (t == 0) {
        atomicAdd(output, input_s[0]);
    }
    // END EXERCISE
}

// Host code: as lab 5, once for each K, in blocks of block_dim threads.
template <unsigned K>
void fan_in_sum(Global<const float> input, Global<float> output, unsigned n, unsigned block_dim) {
    reduce_lab::fill(output, 0.0f);
    const unsigned blocks = (n + COARSE_FACTOR * 2 * block_dim - 1) / (COARSE_FACTOR * 2 * block_dim);
    launch(FanInSumReductionKernel<K>, blocks, block_dim, input, output, n);
}

REDUCE_LAB_FAN_IN(9, "fan-in", fan_in_sum)
