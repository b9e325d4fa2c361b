// Lab 7 - templated reduction, tuned for bandwidth.
//
// One kernel template serves every element type and operator: TemplatedReductionKernel<T,
// Op, BLOCK_SIZE>. With the block size a compile-time constant every loop over it unrolls
// fully, and a runtime switch picks the instantiation. Each thread streams through the
// input with UNROLL independent 16-byte loads in flight (a grid-stride loop over one wave
// of blocks), so the kernel is limited by memory bandwidth rather than by the tree: warps
// combine with shuffles, the block with one barrier, the grid with one atomic per block.
//
// Read docs/07-templated.md, then grade with: ./lab grade 7

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

    // Each warp combines its 32 values with shuffles, no barrier.
#pragma unroll
    for (unsigned offset = WARP / 2; offset >= 1; offset /= 2)
        value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
    if (t % WARP == 0) warp_results_s[t / WARP] = value;
    __syncthreads();  // the block's only barrier

    // The first warp combines the warp results, and one thread adds the block's to output.
    if (t < WARP) {
        value = t < BLOCK_SIZE / WARP ? warp_results_s[t] : Op::identity();
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
    // One 16-byte vector per thread is enough to start with: a small input then takes few
    // blocks, and few atomics, instead of a block per BLOCK_SIZE elements.
    constexpr unsigned long long PER_THREAD = 16 / sizeof(T);
    const unsigned long long needed = (n + BLOCK_SIZE * PER_THREAD - 1) / (BLOCK_SIZE * PER_THREAD);
    const unsigned blocks = static_cast<unsigned>(needed < one_wave_of_blocks(BLOCK_SIZE) ? needed : one_wave_of_blocks(BLOCK_SIZE));
    launch(TemplatedReductionKernel<T, Op, BLOCK_SIZE>, blocks, BLOCK_SIZE, input, output, n);
}

// Host code: Op's reduction of any n >= 1 elements into output[0].
template <typename T, typename Op>
void templated_reduce(Global<const T> input, Global<T> output, unsigned long long n) {
    reduce_lab::fill(output, Op::identity());
    // BEGIN EXERCISE
    // Small inputs get small blocks, so that more than a handful of multiprocessors work;
    // large ones the largest, whose one wave keeps the most loads in flight per block
    // (measured against CUB on an H100 and an H200: docs/07-templated.md).
    if (n <= 1ull << 14) {
        launch_block_size<T, Op, 128>(input, output, n);
    } else if (n <= 1ull << 18) {
        launch_block_size<T, Op, 256>(input, output, n);
    } else if (n <= 1ull << 22) {
        launch_block_size<T, Op, 512>(input, output, n);
    } else {
        launch_block_size<T, Op, 1024>(input, output, n);
    }
    // END EXERCISE
}

REDUCE_LAB_GENERIC(7, "templated", templated_reduce)
