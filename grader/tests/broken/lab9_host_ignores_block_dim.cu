// Broken lab 9 (fan-in): the host code launches 1024 threads a block whatever block_dim asks
// for. Every sum is right, but the grader asked for 512, 256 and 128 threads too, and those
// cases ran 1024: the correctness test names the block size it asked for and the one launched.
//
// expect all correctness FAIL "wrong: K = 2, 512 threads a block, n = 1,"
// expect all requests PASS

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
            float partial = input_s[t];
            for (unsigned int k = 1; k < K; ++k) {
                if (t + k * stride < count) {
                    partial += input_s[t + k * stride];
                }
            }
            input_s[t] = partial;
        }
        count = stride;
    }
    // Thread 0 wrote input_s[0] itself in the last step: no barrier before it reads it.
    if (t == 0) {
        atomicAdd(output, input_s[0]);
    }
    // END EXERCISE
}

// Host code: 1024 threads a block, whatever block_dim says.
template <unsigned K>
void fan_in_sum(Global<const float> input, Global<float> output, unsigned n, unsigned block_dim) {
    reduce_lab::fill(output, 0.0f);
    const unsigned blocks = (n + COARSE_FACTOR * 2 * MAX_BLOCK_DIM - 1) / (COARSE_FACTOR * 2 * MAX_BLOCK_DIM);
    launch(FanInSumReductionKernel<K>, blocks, MAX_BLOCK_DIM, input, output, n);
}

REDUCE_LAB_FAN_IN(9, "fan-in", fan_in_sum)
