// Lab 9 - fan-in: a block's tree that adds K values a step (lab 6's block, the tree's width chosen).
//
// Every tree so far added pairs: each step halved the partial sums, so a block of 1024 threads
// took log2(1024) = 10 steps and 10 barriers. A step may add K values instead: thread t adds
// input_s[t], input_s[t + s], ..., input_s[t + (K-1)s], with s = ceil(count / K), and the count
// falls K times a step: ceil(log_K(1024)) steps (5 for K = 4, 4 for K = 8, 3 for K = 16), each
// ending at one barrier. When the count is not a multiple of K the last of those reads do not
// exist (1024 = 8 x 128, but 128 / 8 = 16, then 2): the step adds only the values that do.
// The grader runs every K in 2, 4, 8 and 16, counts the barriers of each, and times each K
// against your own K = 2. It also runs some cases in blocks of 512, 256 and 128 threads, where
// other steps are partial: write the tree for blockDim.x threads, not for 1024.
//
// Read docs/09-fan-in.md, then grade with: ./lab grade 9

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

// Host code: as lab 5, once for each K, in blocks of the block_dim threads the grader asks for
// (1024, and 512, 256 and 128 in some of the correctness cases and in ./lab bench).
template <unsigned K>
void fan_in_sum(Global<const float> input, Global<float> output, unsigned n, unsigned block_dim) {
    reduce_lab::fill(output, 0.0f);
    const unsigned blocks = (n + COARSE_FACTOR * 2 * block_dim - 1) / (COARSE_FACTOR * 2 * block_dim);
    launch(FanInSumReductionKernel<K>, blocks, block_dim, input, output, n);
}

REDUCE_LAB_FAN_IN(9, "fan-in", fan_in_sum)
