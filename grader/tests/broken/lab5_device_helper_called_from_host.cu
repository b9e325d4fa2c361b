// Broken lab 5 (coarsened): a __device__ function called from host code. The student writes
// the grid size as a helper and marks it __device__ along with everything else, then calls it
// in the host launcher. The emulator's host compiler would run it; nvcc stops with "calling a
// __device__ function from a __host__ function is not allowed". Every test must say that the
// lab does not compile, in nvcc's words where nvcc is installed and in the kit's checker's
// where it is not (docs/emulator.md).
//
// expect emu correctness FAIL "does not compile" "lab5_device_helper_called_from_host.cu(51): error"
// expect emu requests FAIL "does not compile" "lab5_device_helper_called_from_host.cu(51): error"
// expect gpu correctness FAIL "does not compile" "calling a __device__ function(\"blocks_for"
// expect gpu requests FAIL "does not compile" "calling a __device__ function(\"blocks_for"

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;    // threads per block
constexpr unsigned COARSE_FACTOR = 2;   // as in the book

__device__ unsigned blocks_for(unsigned n) {  // called from host code below
    return (n + COARSE_FACTOR * 2 * BLOCK_DIM - 1) / (COARSE_FACTOR * 2 * BLOCK_DIM);
}

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
    const unsigned blocks = blocks_for(n);
    // END EXERCISE
    launch(CoarsenedSumReductionKernel, blocks, BLOCK_DIM, input, output, n);
}

REDUCE_LAB_SINGLE(5, "coarsened", coarsened_sum)
