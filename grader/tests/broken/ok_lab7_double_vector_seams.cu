// Legal lab 7 (templated): NVIDIA's vectorized-access pattern ("CUDA Pro Tip: Increase
// Performance with Vectorized Memory Access") in per-block tiles. Each block owns a contiguous
// tile of 16-byte vectors (two doubles each), rounded up to an odd count so that every block
// boundary falls halfway through a 32-byte sector, whatever the grid; its threads read the tile
// with consecutive lanes on consecutive vectors, and the elements after the last whole vector
// are read one per lane. Every byte is read once, in contiguous warp-wide runs, but each run
// of a block with an odd start, each tile's end and the tail share a sector with the run
// beside them: the seams multiply with the grid (one wave of blocks on the device), and the
// traffic bound must allow each of them on every device. The environment gives the emulator
// an H100's grid (132 multiprocessors of 2048 threads); ok_lab7_vector_seam runs a small one.
//
// env REDUCE_LAB_EMU_MULTIPROCESSORS=132
// env REDUCE_LAB_EMU_THREADS_PER_MULTIPROCESSOR=2048
// expect all correctness PASS
// expect all requests PASS
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
    constexpr unsigned VECTOR = 16 / sizeof(T);
    const unsigned long long vectors = n / VECTOR;  // whole vectors; the tail follows them
    const unsigned long long tile = (vectors + gridDim.x - 1) / gridDim.x | 1;  // odd
    const unsigned long long first = blockIdx.x * tile;
    const unsigned long long end = first + tile < vectors ? first + tile : vectors;

    T even = Op::identity();
    T odd = Op::identity();
    unsigned long long v = first + t;
    for (; v + BLOCK_SIZE < end; v += UNROLL * BLOCK_SIZE) {
        const auto a = reduce_lab::load_vector<VECTOR>(input, v);
        const auto b = reduce_lab::load_vector<VECTOR>(input, v + BLOCK_SIZE);
#pragma unroll
        for (unsigned j = 0; j < VECTOR; ++j) {
            even = op(even, a.element[j]);
            odd = op(odd, b.element[j]);
        }
    }
    if (v < end) {
        const auto a = reduce_lab::load_vector<VECTOR>(input, v);
#pragma unroll
        for (unsigned j = 0; j < VECTOR; ++j) even = op(even, a.element[j]);
    }
    // Fewer than VECTOR elements follow the last whole vector: one each for the first lanes.
    const unsigned long long me = 1ull * blockIdx.x * BLOCK_SIZE + t;
    if (vectors * VECTOR + me < n) odd = op(odd, input[vectors * VECTOR + me]);
    T value = op(even, odd);

#pragma unroll
    for (unsigned offset = WARP / 2; offset >= 1; offset /= 2)
        value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
    if (t % WARP == 0) warp_results_s[t / WARP] = value;
    __syncthreads();
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
    const unsigned long long needed = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    const unsigned blocks = static_cast<unsigned>(needed < one_wave_of_blocks(BLOCK_SIZE) ? needed : one_wave_of_blocks(BLOCK_SIZE));
    launch(TemplatedReductionKernel<T, Op, BLOCK_SIZE>, blocks, BLOCK_SIZE, input, output, n);
}

// Host code: Op's reduction of any n >= 1 elements into output[0].
template <typename T, typename Op>
void templated_reduce(Global<const T> input, Global<T> output, unsigned long long n) {
    reduce_lab::fill(output, Op::identity());
    // BEGIN EXERCISE
    launch_block_size<T, Op, 256>(input, output, n);
    // END EXERCISE
}

REDUCE_LAB_GENERIC(7, "templated", templated_reduce)
