// Broken lab 7 (templated): one lane reads for its whole warp. The first lane of each warp
// walks the warp's elements one at a time, as a CPU loop would, and the other 31 lanes wait
// for the shuffles. Every byte is read once and the result is right, but each warp
// instruction reads one element: a 32-byte sector is fetched once for every element in it
// (four to eight times the sectors a coalesced kernel needs), and no seam between contiguous
// warp-wide runs explains that.
//
// expect all correctness PASS
// expect all requests FAIL "uncoalesced" "consecutive lanes of a warp should read consecutive elements"

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
    // The first lane of each warp reads the warp's 32 elements of each round one after
    // another, as a CPU loop would; the other lanes only take part in the shuffles.
    const unsigned long long warp = (1ull * blockIdx.x * BLOCK_SIZE + t) / WARP;
    const unsigned long long warps = 1ull * gridDim.x * BLOCK_SIZE / WARP;
    T value = Op::identity();
    if (t % WARP == 0) {
        for (unsigned long long i = warp * WARP; i < n; i += warps * WARP)
            for (unsigned long long j = i; j < i + WARP && j < n; ++j) value = op(value, input[j]);
    }

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
