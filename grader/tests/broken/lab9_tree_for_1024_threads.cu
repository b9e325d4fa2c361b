// Broken lab 9 (fan-in): the tree starts from MAX_BLOCK_DIM partial sums instead of blockDim.x.
// In 1024 threads it is the reference; in 512, 256 or 128 its first step adds words of input_s
// that no thread of the block wrote. The emulator fills shared memory with NaN before a block
// runs, so every smaller block is wrong there; a GPU leaves whatever the last block wrote, a
// sum that may be right by luck, so only the emulator's verdict is fixed.
//
// expect all requests PASS
// expect emu correctness FAIL "threads a block, n = "

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
    // The tree starts from MAX_BLOCK_DIM partial sums, as if every block had 1024 threads.
    for (unsigned int count = MAX_BLOCK_DIM; count > 1;) {
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

// Host code: as lab 5, once for each K, in blocks of block_dim threads.
template <unsigned K>
void fan_in_sum(Global<const float> input, Global<float> output, unsigned n, unsigned block_dim) {
    reduce_lab::fill(output, 0.0f);
    const unsigned blocks = (n + COARSE_FACTOR * 2 * block_dim - 1) / (COARSE_FACTOR * 2 * block_dim);
    launch(FanInSumReductionKernel<K>, blocks, block_dim, input, output, n);
}

REDUCE_LAB_FAN_IN(9, "fan-in", fan_in_sum)
