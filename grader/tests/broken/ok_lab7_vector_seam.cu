// Legal lab 7 (templated): vector loads that stop at the last whole vector. The student
// reads 16-byte vectors (two in flight per thread, in a grid-stride loop) up to the last
// whole one and the few elements after it one by one. When the vectors end in the middle of
// a 32-byte sector, that sector is read twice, once by the last vector and once by the
// scalar tail: a seam between two contiguous runs, which the traffic bound allows. The
// environment gives the emulator a small grid (one multiprocessor of 1024 threads);
// ok_lab7_double_vector_seams runs an H100's.
//
// env REDUCE_LAB_EMU_MULTIPROCESSORS=1
// env REDUCE_LAB_EMU_THREADS_PER_MULTIPROCESSOR=1024
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
    constexpr unsigned VECTOR = 16 / sizeof(T);
    const unsigned long long threads = 1ull * gridDim.x * BLOCK_SIZE;
    const unsigned long long me = 1ull * blockIdx.x * BLOCK_SIZE + t;
    const unsigned long long vectors = n / VECTOR;  // whole vectors only

    // Two vectors a round, a grid apart, into two accumulators, so both loads are in
    // flight before the first add. The first of a round is always there; the second only
    // where it exists. (One load site for each keeps every 32-byte sector of the vectors in
    // one warp instruction: a separate loop for the last round would split some.)
    T even = Op::identity();
    T odd = Op::identity();
    for (unsigned long long v = me; v < vectors; v += 2 * threads) {
        const auto a = reduce_lab::load_vector<VECTOR>(input, v);
        const bool second = v + threads < vectors;
        auto b = a;  // replaced by the second vector where there is one
        if (second) b = reduce_lab::load_vector<VECTOR>(input, v + threads);
#pragma unroll
        for (unsigned j = 0; j < VECTOR; ++j) {
            even = op(even, a.element[j]);
            if (second) odd = op(odd, b.element[j]);
        }
    }
    // Fewer than VECTOR elements follow the last whole vector: one each for the first threads.
    if (vectors * VECTOR + me < n) odd = op(odd, input[vectors * VECTOR + me]);
    T value = op(even, odd);

    // Warps combine with shuffles, the block through shared memory, the grid with one atomic.
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
    if (n <= 1ull << 16) {
        launch_block_size<T, Op, 128>(input, output, n);
    } else {
        launch_block_size<T, Op, 256>(input, output, n);
    }
    // END EXERCISE
}

REDUCE_LAB_GENERIC(7, "templated", templated_reduce)
