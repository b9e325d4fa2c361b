// Legal lab 8 (rows): the tutorials' ReduceFunc<T> style. The lanes combine with a device
// function passed as a template parameter, T (*REDUCE)(T, T), instead of an Op object.
//
// expect all correctness PASS
// expect all requests PASS
// expect gpu speedup PASS

#include <reduce_lab/lab.cuh>

using reduce_lab::Max;
using reduce_lab::Min;
using reduce_lab::Sum;

constexpr unsigned WARP = 32;
constexpr unsigned BLOCK_SIZE = 256;
constexpr unsigned UNROLL = 2;        // independent 16-byte loads each thread keeps in flight in a long range
constexpr unsigned ROWS_UNROLL = 4;   // independent rows each lane of a short-row warp loads at once

// Thread t of THREADS (a warp's lanes, or a block's threads) folds its share of the matrix's
// elements [begin, end) into one value; together the THREADS values reduce to the range's.
template <typename T, typename Op, unsigned THREADS>
__device__ T fold_range(Global<const T> matrix, unsigned long long begin, unsigned long long end, unsigned t) {
    static_assert(THREADS >= WARP, "the head and the tail are read by the first warp's lanes");
    const Op op;
    // Whole 32-byte sectors are read as 16-byte vectors; the head before the first whole
    // sector and the tail after the last, fewer than a sector each, one element per lane.
    constexpr unsigned VECTOR = 16 / sizeof(T);
    constexpr unsigned SECTOR = 32 / sizeof(T);
    const unsigned long long first_sector = (begin + SECTOR - 1) / SECTOR * SECTOR;
    const unsigned long long body_begin = first_sector < end ? first_sector : end;
    const unsigned long long last_sector = end / SECTOR * SECTOR;
    const unsigned long long body_end = last_sector > body_begin ? last_sector : body_begin;
    T partial[UNROLL];
#pragma unroll
    for (unsigned k = 0; k < UNROLL; ++k) partial[k] = Op::identity();
    if (begin + t < body_begin) partial[0] = op(partial[0], matrix[begin + t]);
    unsigned long long v = body_begin / VECTOR + t;
    const unsigned long long vectors_end = body_end / VECTOR;
    for (; v + (UNROLL - 1) * THREADS < vectors_end; v += UNROLL * THREADS) {
#pragma unroll
        for (unsigned k = 0; k < UNROLL; ++k) {
            const auto x = reduce_lab::load_vector<VECTOR>(matrix, v + k * THREADS);
#pragma unroll
            for (unsigned j = 0; j < VECTOR; ++j) partial[k] = op(partial[k], x.element[j]);
        }
    }
    for (; v < vectors_end; v += THREADS) {
        const auto x = reduce_lab::load_vector<VECTOR>(matrix, v);
#pragma unroll
        for (unsigned j = 0; j < VECTOR; ++j) partial[0] = op(partial[0], x.element[j]);
    }
    if (body_end + t < end) partial[UNROLL - 1] = op(partial[UNROLL - 1], matrix[body_end + t]);
    T value = partial[0];
#pragma unroll
    for (unsigned k = 1; k < UNROLL; ++k) value = op(value, partial[k]);
    return value;
}

template <typename T, typename Op>
__device__ T combine(T a, T b) {
    return Op()(a, b);
}

template <typename T, T (*REDUCE)(T, T), unsigned LANES>
__device__ T reduce_lanes_with(T value) {
#pragma unroll
    for (unsigned offset = LANES / 2; offset >= 1; offset /= 2)
        value = REDUCE(value, __shfl_xor_sync(0xffffffffu, value, offset));
    return value;
}

// Combines the values of each group of LANES neighbouring lanes (LANES a power of two up to
// 32); every lane of a group gets the group's result. The whole warp must call it.
template <typename T, typename Op, unsigned LANES>
__device__ T reduce_lanes(T value) {
    return reduce_lanes_with<T, combine<T, Op>, LANES>(value);
}

// Combines one value of every thread of the block; thread 0 gets the block's result. Every
// thread must call it; warp_results_s is free again after the caller's next barrier.
template <typename T, typename Op>
__device__ T reduce_block(T value, T* warp_results_s, unsigned t) {
    value = reduce_lanes<T, Op, WARP>(value);
    if (t % WARP == 0) warp_results_s[t / WARP] = value;
    __syncthreads();
    if (t < WARP) {
        value = Op::identity();
        if (t < BLOCK_SIZE / WARP) value = warp_results_s[t];
        value = reduce_lanes<T, Op, WARP>(value);
    }
    return value;
}

// Short rows (n <= LANES <= 32): LANES lanes per row and WARP / LANES rows side by side in a
// warp, so one warp's loads cover a contiguous run of whole rows.
template <typename T, typename Op, unsigned LANES>
__global__ void __launch_bounds__(BLOCK_SIZE)
LanesPerRowKernel(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    const unsigned t = threadIdx.x;
    constexpr unsigned ROWS_PER_WARP = WARP / LANES;
    const unsigned column = t % LANES;
    const unsigned long long warp = (1ull * blockIdx.x * BLOCK_SIZE + t) / WARP;
    const unsigned long long warps = 1ull * gridDim.x * BLOCK_SIZE / WARP;
    const unsigned long long my_row = t % WARP / LANES;
    // Each pass of a warp covers ROWS_UNROLL groups of ROWS_PER_WARP rows, loaded before any is combined.
    for (unsigned long long first = warp * ROWS_PER_WARP * ROWS_UNROLL; first < m;
         first += warps * ROWS_PER_WARP * ROWS_UNROLL) {
        T value[ROWS_UNROLL];
#pragma unroll
        for (unsigned k = 0; k < ROWS_UNROLL; ++k) {
            const unsigned long long row = first + k * ROWS_PER_WARP + my_row;
            value[k] = Op::identity();
            if (row < m && column < n) value[k] = matrix[row * n + column];
        }
#pragma unroll
        for (unsigned k = 0; k < ROWS_UNROLL; ++k) {
            const unsigned long long row = first + k * ROWS_PER_WARP + my_row;
            value[k] = reduce_lanes<T, Op, LANES>(value[k]);
            if (column == 0 && row < m) out[row] = value[k];
        }
    }
}

// Rows of a few hundred to a few thousand elements, or many rows: a warp per row, no barrier.
template <typename T, typename Op>
__global__ void __launch_bounds__(BLOCK_SIZE)
WarpPerRowKernel(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    const unsigned t = threadIdx.x;
    const unsigned lane = t % WARP;
    const unsigned long long warps = 1ull * gridDim.x * BLOCK_SIZE / WARP;
    for (unsigned long long row = (1ull * blockIdx.x * BLOCK_SIZE + t) / WARP; row < m; row += warps) {
        T value = fold_range<T, Op, WARP>(matrix, row * n, row * n + n, lane);
        value = reduce_lanes<T, Op, WARP>(value);
        if (lane == 0) out[row] = value;
    }
}

// Long rows, and enough of them to fill the device: a block per row.
template <typename T, typename Op>
__global__ void __launch_bounds__(BLOCK_SIZE)
BlockPerRowKernel(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    __shared__ T warp_results_s[BLOCK_SIZE / WARP];
    const unsigned t = threadIdx.x;
    for (unsigned long long row = blockIdx.x; row < m; row += gridDim.x) {
        T value = fold_range<T, Op, BLOCK_SIZE>(matrix, row * n, row * n + n, t);
        value = reduce_block<T, Op>(value, warp_results_s, t);
        if (t == 0) out[row] = value;
        __syncthreads();  // the next row rewrites warp_results_s
    }
}

// A few long rows: blocks_per_row blocks share each row, and each adds its part to out[row]
// with one atomic (out holds the identity first).
template <typename T, typename Op>
__global__ void __launch_bounds__(BLOCK_SIZE)
SplitRowKernel(Global<const T> matrix, Global<T> out, unsigned long long n, unsigned long long blocks_per_row) {
    __shared__ T warp_results_s[BLOCK_SIZE / WARP];
    const unsigned t = threadIdx.x;
    const unsigned long long row = blockIdx.x / blocks_per_row;
    const unsigned long long part = blockIdx.x % blocks_per_row;
    const unsigned long long chunk = (n + blocks_per_row - 1) / blocks_per_row;
    const unsigned long long begin = part * chunk < n ? part * chunk : n;
    const unsigned long long end = begin + chunk < n ? begin + chunk : n;
    T value = fold_range<T, Op, BLOCK_SIZE>(matrix, row * n + begin, row * n + end, t);
    value = reduce_block<T, Op>(value, warp_results_s, t);
    if (t == 0) reduce_lab::atomic_combine<Op>(out + row, value);
}

// What one wave of the device holds: the warps and the BLOCK_SIZE blocks resident at once.
struct Wave {
    unsigned long long warps;
    unsigned long long blocks;
};

inline Wave one_wave() {
    static const Wave wave = [] {
        cudaDeviceProp p{};
        int device = 0;
        reduce_lab::check(cudaGetDevice(&device), "asking for the device");
        reduce_lab::check(cudaGetDeviceProperties(&p, device), "reading the device properties");
        const unsigned long long threads = 1ull * p.multiProcessorCount * p.maxThreadsPerMultiProcessor;
        return Wave{threads / WARP, threads / BLOCK_SIZE};
    }();
    return wave;
}

inline unsigned blocks_for(unsigned long long needed, unsigned long long at_most) {
    return static_cast<unsigned>(needed < at_most ? needed : at_most);
}

template <typename T, typename Op, unsigned LANES>
void launch_lanes_per_row(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    constexpr unsigned long long ROWS_PER_BLOCK = BLOCK_SIZE / LANES * ROWS_UNROLL;
    launch(LanesPerRowKernel<T, Op, LANES>, blocks_for((m + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, one_wave().blocks),
           BLOCK_SIZE, matrix, out, m, n);
}

// Host code: out[r] = Op's reduction of row r of the m x n matrix, for every r < m (m, n >= 1).
template <typename T, typename Op>
void row_reduce(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    // The shape picks the mapping (docs/08-rows.md): whatever it is, about one wave of warps
    // must have work, each with enough bytes in flight.
    const Wave wave = one_wave();
    constexpr unsigned long long LONG_ROW = 4096;  // elements a warp still reads quickly alone
    constexpr unsigned long long MIN_PART = 4096;  // elements worth a block of their own
    if (n <= 1) {
        launch_lanes_per_row<T, Op, 1>(matrix, out, m, n);
    } else if (n <= 2) {
        launch_lanes_per_row<T, Op, 2>(matrix, out, m, n);
    } else if (n <= 4) {
        launch_lanes_per_row<T, Op, 4>(matrix, out, m, n);
    } else if (n <= 8) {
        launch_lanes_per_row<T, Op, 8>(matrix, out, m, n);
    } else if (n <= 16) {
        launch_lanes_per_row<T, Op, 16>(matrix, out, m, n);
    } else if (n <= 32) {
        launch_lanes_per_row<T, Op, 32>(matrix, out, m, n);
    } else if (n <= LONG_ROW || m >= wave.warps) {
        launch(WarpPerRowKernel<T, Op>, blocks_for((m * WARP + BLOCK_SIZE - 1) / BLOCK_SIZE, wave.blocks), BLOCK_SIZE,
               matrix, out, m, n);
    } else if (m >= wave.blocks) {
        launch(BlockPerRowKernel<T, Op>, blocks_for(m, wave.blocks), BLOCK_SIZE, matrix, out, m, n);
    } else {
        // Two waves of blocks shared among the rows, none with less than MIN_PART elements.
        const unsigned long long wanted = (2 * wave.blocks + m - 1) / m;
        const unsigned long long most = (n + MIN_PART - 1) / MIN_PART;
        const unsigned long long blocks_per_row = wanted < most ? wanted : most;
        reduce_lab::fill(out, Op::identity(), m);
        launch(SplitRowKernel<T, Op>, static_cast<unsigned>(m * blocks_per_row), BLOCK_SIZE, matrix, out, n,
               blocks_per_row);
    }
}

REDUCE_LAB_ROWS(8, "rows", row_reduce)
