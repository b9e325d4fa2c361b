// Legal lab 6 (warp-unrolled): helpers that take plain `float*` / `const float*` pointers,
// called with shared memory at an offset (input_s + stride) and with a local array (a
// prototype with a default argument, a parameter list over two lines). A __device__ function's pointer parameter means what the argument is: the counting
// builds count the shared accesses made through it as if written in the kernel, and leave the
// local array's as the plain pointer it is (docs/grading.md, "Shared memory"). Its tree and
// last warp make the same accesses as ok_lab6_syncwarp_shared, so the same figures.
//
// expect all correctness PASS
// expect all requests PASS
// expect gpu speedup PASS
// expect gpu races PASS

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;    // threads per block
constexpr unsigned COARSE_FACTOR = 2;   // as in lab 5
constexpr unsigned WARP = 32;

// The sum of a thread's loaded values (a local array: a plain pointer in every build).
__device__ float sum_of(const float* values,
                        unsigned count = COARSE_FACTOR * 2);

// One step of the tree: lower[t] += upper[t], upper being the half above the stride.
static __device__ __forceinline__ void add_upper(float* lower, const float* upper, unsigned t) {
    lower[t] += upper[t];
}

__global__ void WarpUnrolledSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = COARSE_FACTOR * 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    float loaded[COARSE_FACTOR * 2];
    for (unsigned int tile = 0; tile < COARSE_FACTOR * 2; ++tile) {
        loaded[tile] = i + tile * BLOCK_DIM < n ? static_cast<float>(input[i + tile * BLOCK_DIM]) : 0.0f;
    }
    input_s[t] = sum_of(loaded);
    for (unsigned int stride = blockDim.x / 2; stride > WARP; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            add_upper(input_s, input_s + stride, t);
        }
    }
    __syncthreads();
    if (t < WARP) {
        float* warp_s = &input_s[0];
        float sum = warp_s[t];
        for (unsigned int offset = WARP; offset >= 1; offset /= 2) {
            sum += warp_s[t + offset];
            __syncwarp();
            warp_s[t] = sum;
            __syncwarp();
        }
        if (t == 0) {
            atomicAdd(output, sum);
        }
    }
    // END EXERCISE
}

__device__ float sum_of(const float* values, unsigned count) {
    float sum = 0.0f;
    for (unsigned k = 0; k < count; ++k) sum += values[k];
    return sum;
}

// Host code: as lab 5.
void warp_unrolled_sum(Global<const float> input, Global<float> output, unsigned n) {
    reduce_lab::fill(output, 0.0f);
    const unsigned blocks = (n + COARSE_FACTOR * 2 * BLOCK_DIM - 1) / (COARSE_FACTOR * 2 * BLOCK_DIM);
    launch(WarpUnrolledSumReductionKernel, blocks, BLOCK_DIM, input, output, n);
}

REDUCE_LAB_SINGLE(6, "warp-unrolled", warp_unrolled_sum)
