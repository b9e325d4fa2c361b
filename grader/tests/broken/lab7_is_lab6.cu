// Broken lab 7 (templated): lab 6 handed in as lab 7. The student made their lab 6 kernel
// generic over T and Op and kept its shape: 1024 threads, COARSE_FACTOR 2, a shared-memory
// tree down to one warp, one block per 4096 elements. It is correct, and within lab 7's
// traffic and barrier bounds, but it does not reach the share of copy bandwidth lab 7 asks
// for. (Its correctness is not checked here: a sure PASS that costs the emulator over a
// minute.)
//
// expect all requests PASS
// expect gpu speedup FAIL "bw"

#include <reduce_lab/lab.cuh>

using reduce_lab::Max;
using reduce_lab::Min;
using reduce_lab::Sum;

constexpr unsigned WARP = 32;
constexpr unsigned UNROLL = 2;  // independent 16-byte loads each thread keeps in flight

template <typename T, typename Op, unsigned BLOCK_SIZE>
__global__ void __launch_bounds__(BLOCK_SIZE)
TemplatedReductionKernel(Global<const T> input, Global<T> output, unsigned long long n) {
    static_assert(BLOCK_SIZE % WARP == 0 && BLOCK_SIZE <= 1024, "whole warps, at most 1024 threads");
    __shared__ T warp_results_s[BLOCK_SIZE / WARP];
    const Op op;
    const unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    // Lab 6's kernel, made generic.
    constexpr unsigned COARSE_FACTOR = 2;
    __shared__ T input_s[BLOCK_SIZE];
    const unsigned long long segment = 1ull * COARSE_FACTOR * 2 * BLOCK_SIZE * blockIdx.x;
    T sum = Op::identity();
    for (unsigned tile = 0; tile < COARSE_FACTOR * 2; ++tile) {
        const unsigned long long i = segment + tile * BLOCK_SIZE + t;
        if (i < n) {
            sum = op(sum, input[i]);
        }
    }
    input_s[t] = sum;
    for (unsigned stride = BLOCK_SIZE / 2; stride >= WARP; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] = op(input_s[t], input_s[t + stride]);
        }
    }
    __syncthreads();
    if (t < WARP) {
        sum = input_s[t];
        for (unsigned offset = WARP / 2; offset >= 1; offset /= 2) {
            sum = op(sum, __shfl_down_sync(0xffffffffu, sum, offset));
        }
        if (t == 0) {
            reduce_lab::atomic_combine<Op>(output, sum);
        }
    }
    // END EXERCISE
}

// Blocks that fill the device once: more would only queue behind the first wave.
inline unsigned one_wave_of_blocks(unsigned block_size) {
    static const cudaDeviceProp properties = [] {
        cudaDeviceProp p{};
        int device = 0;
        reduce_lab::check(cudaGetDevice(&device), "asking for the device");
        reduce_lab::check(cudaGetDeviceProperties(&p, device), "reading the device properties");
        return p;
    }();
    return static_cast<unsigned>(properties.multiProcessorCount) *
           static_cast<unsigned>(properties.maxThreadsPerMultiProcessor) / block_size;
}

template <typename T, typename Op, unsigned BLOCK_SIZE>
void launch_block_size(Global<const T> input, Global<T> output, unsigned long long n) {
    const unsigned long long needed = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    const unsigned blocks = static_cast<unsigned>(needed < one_wave_of_blocks(BLOCK_SIZE) ? needed : one_wave_of_blocks(BLOCK_SIZE));
    launch(TemplatedReductionKernel<T, Op, BLOCK_SIZE>, blocks, BLOCK_SIZE, input, output, n);
}

// Host code: Op's reduction of any n >= 1 elements into output[0].
template <typename T, typename Op>
void templated_reduce(Global<const T> input, Global<T> output, unsigned long long n) {
    reduce_lab::fill(output, Op::identity());
    // BEGIN EXERCISE
    const unsigned long long blocks = (n + 4ull * 1024 - 1) / (4ull * 1024);
    launch(TemplatedReductionKernel<T, Op, 1024>, static_cast<unsigned>(blocks), 1024, input, output, n);
    // END EXERCISE
}

REDUCE_LAB_GENERIC(7, "templated", templated_reduce)
