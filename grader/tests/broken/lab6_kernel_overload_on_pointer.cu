// Cheating lab 6 (warp-unrolled): a kernel whose loads depend on what Global<T> is, with no
// macro and the same kernel name and grid in every build. An overload of the helper that
// loads a thread's elements takes `const float*`, which Global<const float> is only in the
// timed build: there it loads one 16-byte vector per thread, elsewhere the lesson's four
// coalesced loads. Only the GPU's own counters on the timed build can see it (Nsight
// Compute: a quarter of the load instructions); where they cannot be read, it is not caught.
//
// expect all correctness PASS
// expect all requests PASS
// expect gpu speedup FAIL "timed code differs from counted" "load instructions"
// expect emu speedup SKIP "skipped"

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;    // threads per block
constexpr unsigned COARSE_FACTOR = 2;   // as in lab 5
constexpr unsigned WARP = 32;

struct alignas(16) Four {
    float x, y, z, w;
};

// Where Global<const float> is a plain pointer (the timed build only), this overload wins:
// the thread's four elements as one 16-byte vector, four consecutive elements per thread.
__device__ float segment_sum(const float* input, unsigned segment, unsigned t, unsigned n) {
    const unsigned first = segment + 4 * t;
    if (first + 3 < n) {
        const Four v = reinterpret_cast<const Four*>(input)[first / 4];
        return (v.x + v.y) + (v.z + v.w);
    }
    float sum = 0.0f;
    for (unsigned k = first; k < n && k < first + 4; ++k) sum += input[k];
    return sum;
}

// Everywhere else (counted, emulated): the lesson's coalesced loop.
template <class G>
__device__ float segment_sum(G input, unsigned segment, unsigned t, unsigned n) {
    float sum = 0.0f;
    for (unsigned tile = 0; tile < COARSE_FACTOR * 2; ++tile) {
        if (segment + t + tile * BLOCK_DIM < n) {
            sum += input[segment + t + tile * BLOCK_DIM];
        }
    }
    return sum;
}

__global__ void WarpUnrolledSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = COARSE_FACTOR * 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    float sum = segment_sum(input, segment, t, n);
    (void)i;
    input_s[t] = sum;
    for (unsigned int stride = blockDim.x / 2; stride >= WARP; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] += input_s[t + stride];
        }
    }
    __syncthreads();
    if (t < WARP) {
        sum = input_s[t];
        for (unsigned int offset = WARP / 2; offset >= 1; offset /= 2) {
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        }
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
