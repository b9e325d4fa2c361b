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
    // Write a kernel for any T and Op: combine with op(a, b), start from Op::identity().
    // Make it fast: many independent loads in flight per thread (reduce_lab::load_vector
    // reads 16 bytes at once), warps combining with shuffles, few barriers, and one
    // reduce_lab::atomic_combine<Op>(output, value) per block.
    // Loops over BLOCK_SIZE unroll fully when you write #pragma unroll.
    // Remove the REDUCE_LAB_TODO() line when you start (docs/07-templated.md).
    REDUCE_LAB_TODO();
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
    // Pick the block size at run time: a switch over launch_block_size<T, Op, 128/256/512/1024>.
    launch_block_size<T, Op, 256>(input, output, n);
    // END EXERCISE
}

REDUCE_LAB_GENERIC(7, "templated", templated_reduce)
