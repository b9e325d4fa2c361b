// Legal lab 7 (templated): the block combines its values with a tree in shared memory, for
// every T, instead of shuffles. For double the shared accesses are 8 bytes: the hardware
// serves them a half-warp at a time, so a full warp's access takes 2 wavefronts and no bank
// conflicts with sequential addressing. Lab 7 reports its shared-memory figures without a
// bound; the barriers of its tree stay within lab 6's.
//
// expect all correctness PASS
// expect all requests PASS

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
    __shared__ T partial_s[BLOCK_SIZE];
    const Op op;
    const unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    const unsigned long long stride = 1ull * gridDim.x * BLOCK_SIZE;

    // Serial part: UNROLL accumulators, so UNROLL 16-byte loads are in flight before the
    // first add. The vectors cover whole 32-byte sectors; the last few elements, less
    // than a sector, are read one by one, so no sector is read twice.
    constexpr unsigned VECTOR = 16 / sizeof(T);
    constexpr unsigned SECTOR = 32 / sizeof(T);
    const unsigned long long vectors = n / SECTOR * SECTOR / VECTOR;
    T partial[UNROLL];
#pragma unroll
    for (unsigned k = 0; k < UNROLL; ++k) partial[k] = Op::identity();
    unsigned long long v = 1ull * blockIdx.x * BLOCK_SIZE + t;
    for (; v + (UNROLL - 1) * stride < vectors; v += UNROLL * stride) {
#pragma unroll
        for (unsigned k = 0; k < UNROLL; ++k) {
            const auto x = reduce_lab::load_vector<VECTOR>(input, v + k * stride);
#pragma unroll
            for (unsigned j = 0; j < VECTOR; ++j) partial[k] = op(partial[k], x.element[j]);
        }
    }
    for (; v < vectors; v += stride) {
        const auto x = reduce_lab::load_vector<VECTOR>(input, v);
#pragma unroll
        for (unsigned j = 0; j < VECTOR; ++j) partial[0] = op(partial[0], x.element[j]);
    }
    for (unsigned long long i = vectors * VECTOR + 1ull * blockIdx.x * BLOCK_SIZE + t; i < n; i += stride)
        partial[0] = op(partial[0], input[i]);
    T value = partial[0];
#pragma unroll
    for (unsigned k = 1; k < UNROLL; ++k) value = op(value, partial[k]);

    // The block's tree in shared memory, sequential addressing: for a double each step's
    // 8-byte accesses are served a half-warp at a time, 2 wavefronts per full warp.
    partial_s[t] = value;
    for (unsigned stride = BLOCK_SIZE / 2; stride >= WARP; stride /= 2) {
        __syncthreads();
        if (t < stride) partial_s[t] = op(partial_s[t], partial_s[t + stride]);
    }
    __syncthreads();
    if (t < WARP) {
        value = partial_s[t];
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
    // Small inputs get small blocks, so that more than a handful of multiprocessors work.
    if (n <= 1ull << 14) {
        launch_block_size<T, Op, 128>(input, output, n);
    } else if (n <= 1ull << 18) {
        launch_block_size<T, Op, 256>(input, output, n);
    } else {
        launch_block_size<T, Op, 512>(input, output, n);
    }
    // END EXERCISE
}

REDUCE_LAB_GENERIC(7, "templated", templated_reduce)
