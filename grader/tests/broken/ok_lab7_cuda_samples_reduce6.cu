// Legal lab 7 (templated), after the "reduce6" kernel of NVIDIA's CUDA samples (reduction):
// each thread walks the input in a grid-stride loop, adding elements a block apart in each
// round (four here, where the samples add two); the block then reduces in shared memory with its steps unrolled at compile time
// from the block size, and the last warp finishes with shuffles. Ported to lab 7's types and
// operators with one atomic per block, it is a legal lab 7 and must be as fast as lab 7 asks.
//
// expect all correctness PASS
// expect all requests PASS
// expect gpu speedup PASS
// expect gpu races PASS

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
    __shared__ T partial_s[BLOCK_SIZE];
    // Serial part: each round adds PER_ROUND elements a block apart, the rounds a grid apart.
    // The samples add two a round; a scalar load carries a quarter of a 16-byte vector, so
    // four a round keep enough bytes in flight for the bandwidth lab 7 asks for.
    constexpr unsigned PER_ROUND = 4;
    const unsigned long long round = 1ull * PER_ROUND * BLOCK_SIZE * gridDim.x;
    T value = Op::identity();
    for (unsigned long long i = 1ull * PER_ROUND * BLOCK_SIZE * blockIdx.x + t; i < n; i += round) {
#pragma unroll
        for (unsigned k = 0; k < PER_ROUND; ++k) {
            if (i + k * BLOCK_SIZE < n) {
                value = op(value, input[i + k * BLOCK_SIZE]);
            }
        }
    }
    partial_s[t] = value;
    __syncthreads();

    // Shared-memory steps while more than one warp takes part, chosen at compile time.
    if constexpr (BLOCK_SIZE >= 1024) {
        if (t < 512) partial_s[t] = value = op(value, partial_s[t + 512]);
        __syncthreads();
    }
    if constexpr (BLOCK_SIZE >= 512) {
        if (t < 256) partial_s[t] = value = op(value, partial_s[t + 256]);
        __syncthreads();
    }
    if constexpr (BLOCK_SIZE >= 256) {
        if (t < 128) partial_s[t] = value = op(value, partial_s[t + 128]);
        __syncthreads();
    }
    if constexpr (BLOCK_SIZE >= 128) {
        if (t < 64) partial_s[t] = value = op(value, partial_s[t + 64]);
        __syncthreads();
    }
    // The last warp: fold in the upper 32 values, then shuffle down.
    if (t < WARP) {
        if constexpr (BLOCK_SIZE >= 64) value = op(value, partial_s[t + 32]);
#pragma unroll
        for (unsigned offset = WARP / 2; offset >= 1; offset /= 2)
            value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
        if (t == 0) reduce_lab::atomic_combine<Op>(output, value);
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
    if (n <= 1ull << 16) {
        launch_block_size<T, Op, 128>(input, output, n);
    } else {
        launch_block_size<T, Op, 512>(input, output, n);
    }
    // END EXERCISE
}

REDUCE_LAB_GENERIC(7, "templated", templated_reduce)
