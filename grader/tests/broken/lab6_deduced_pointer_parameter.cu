// Broken for the counting builds (lab 6, warp-unrolled): a __device__ template that deduces
// its pointer's element type, `template <class T> T warp_sum(volatile T* input_s, unsigned t)`,
// called with the shared array as warp_sum(input_s, t). Legal CUDA, and the plain gpu build
// runs it, but in the counting builds the shared array is a counted type, from which no T
// can be deduced: the build stops and names docs/grading.md ("Shared memory"), which says to
// write warp_sum<float>(input_s, t) or `volatile float* input_s`
// (ok_lab6_shared_pointer_parameter).
//
// expect emu correctness FAIL "does not compile" "docs/grading.md"
// expect all requests FAIL "does not compile" "docs/grading.md"
// expect gpu correctness PASS

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;    // threads per block
constexpr unsigned COARSE_FACTOR = 2;   // as in lab 5
constexpr unsigned WARP = 32;

// The last warp's steps, in a function of their own, generic over the element type.
template <class T>
__device__ T warp_sum(volatile T* input_s, unsigned int t) {
    T sum = input_s[t];
    for (unsigned int offset = WARP; offset >= 1; offset /= 2) {
        sum += input_s[t + offset];
        __syncwarp();
        input_s[t] = sum;
        __syncwarp();
    }
    return sum;
}

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
        sum = warp_sum(input_s, t);
        if (t == 0) {
            atomicAdd(output, sum);
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
