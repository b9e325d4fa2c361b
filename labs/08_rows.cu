// Lab 8 - a reduction per row: out[r] = Op over row r of a row-major m x n matrix.
//
// The batched template tutorials end with gives each row one block. That wastes the device at
// both ends of the shapes: 2^20 rows of 7 elements give every 256-thread block 7 elements to
// read, and 3 rows of 10^7 elements give 3 blocks to a device that holds two thousand. Here the
// host picks the mapping from the shape, as lab 7 picks a block size from n: for short rows a
// block reads a tile of whole rows into shared memory and a thread per row reduces them there;
// then a warp per row, a block per row, and for a few long rows several blocks per row, each
// adding its part with one atomic. Rows start anywhere (n is any number), so each range is read
// as a scalar head, 16-byte vectors over whole 32-byte sectors, and a scalar tail.
//
// Read docs/08-rows.md, then grade with: ./lab grade 8

#include <reduce_lab/lab.cuh>

using reduce_lab::Max;
using reduce_lab::Min;
using reduce_lab::Sum;

constexpr unsigned WARP = 32;
constexpr unsigned BLOCK_SIZE = 256;
constexpr unsigned UNROLL = 2;        // independent 16-byte loads each thread keeps in flight in a long range
constexpr unsigned ROWS_UNROLL = 4;   // independent rows each lane of a short-row warp loads at once
// 16-byte loads each thread keeps in flight for a tile of short rows: two keep the kernel at 32
// registers a thread for floats, so a whole wave (one_wave(), 8 blocks a multiprocessor) fits.
constexpr unsigned TILE_VECTORS = 2;
constexpr unsigned TILE_BYTES = BLOCK_SIZE * TILE_VECTORS * 16;  // 8 KiB of shared memory a block
constexpr unsigned long long SHORT_ROW = 256;  // rows of 33 to this many elements are reduced a tile at a time
static_assert((SHORT_ROW | 1) <= TILE_BYTES / sizeof(double), "a tile holds at least one short row");

// The elements of [begin, end) inside whole 32-byte sectors, [body.begin, body.end): they are
// read as 16-byte vectors, and the head before them and the tail after them (rows start
// anywhere), fewer than a sector each, one element per lane.
struct Body {
    unsigned long long begin, end;
};

template <typename T>
__device__ Body sector_body(unsigned long long begin, unsigned long long end) {
    constexpr unsigned SECTOR = 32 / sizeof(T);
    const unsigned long long first_sector = (begin + SECTOR - 1) / SECTOR * SECTOR;
    const unsigned long long body_begin = first_sector < end ? first_sector : end;
    const unsigned long long last_sector = end / SECTOR * SECTOR;
    return Body{body_begin, last_sector > body_begin ? last_sector : body_begin};
}

// Thread t of THREADS (a warp's lanes, or a block's threads) folds its share of the matrix's
// elements [begin, end) into one value; together the THREADS values reduce to the range's.
template <typename T, typename Op, unsigned THREADS>
__device__ T fold_range(Global<const T> matrix, unsigned long long begin, unsigned long long end, unsigned t) {
    static_assert(THREADS >= WARP, "the head and the tail are read by the first warp's lanes");
    const Op op;
    // BEGIN EXERCISE
    // Read [begin, end) once, coalesced: thread t takes elements begin + t, begin + t + THREADS, ...
    // Faster: 16-byte vectors (reduce_lab::load_vector) over sector_body's elements, and the
    // few elements before and after them one per lane (rows start anywhere).
    // Remove the REDUCE_LAB_TODO() line when you start (docs/08-rows.md).
    REDUCE_LAB_TODO();
    return Op::identity();
    // END EXERCISE
}

// Combines the values of each group of LANES neighbouring lanes (LANES a power of two up to
// 32); every lane of a group gets the group's result. The whole warp must call it.
template <typename T, typename Op, unsigned LANES = WARP>
__device__ T reduce_lanes(T value) {
    const Op op;
#pragma unroll
    for (unsigned offset = LANES / 2; offset >= 1; offset /= 2)
        value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
    return value;
}

// Combines the values of a warp's lanes; every lane gets the result. The whole warp must call it.
template <typename T, typename Op>
__device__ T reduce_warp(T value) {
    return reduce_lanes<T, Op, WARP>(value);
}

// Combines one value of every thread of the block; thread 0 gets the block's result. Every
// thread must call it; warp_results_s is free again after the caller's next barrier.
template <typename T, typename Op>
__device__ T reduce_block(T value, T* warp_results_s, unsigned t) {
    value = reduce_warp<T, Op>(value);
    if (t % WARP == 0) warp_results_s[t / WARP] = value;
    __syncthreads();
    if (t < WARP) {
        value = Op::identity();
        if (t < BLOCK_SIZE / WARP) value = warp_results_s[t];
        value = reduce_warp<T, Op>(value);
    }
    return value;
}

// Short rows (n <= LANES <= 32): LANES lanes per row and WARP / LANES rows side by side in a
// warp, so one warp's loads cover a contiguous run of whole rows.
template <typename T, typename Op, unsigned LANES>
__global__ void __launch_bounds__(BLOCK_SIZE)
LanesPerRowKernel(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    const unsigned t = threadIdx.x;
    // BEGIN EXERCISE
    // Lanes t % LANES of each group of LANES lanes own one row: warp w takes rows
    // w * WARP / LANES ... on, then every warps-th group after. Load, reduce_lanes, and the
    // group's first lane stores out[row]. Keep every lane in the loop (shuffles need them all).
    REDUCE_LAB_TODO();
    // END EXERCISE
}

// Whole rows of n elements a tile holds. In shared memory a row takes n | 1 elements, an odd
// stride, so the 32 threads of a warp, each reading the same column of its own row, hit 32
// different banks (n + 1 for even n: one unused element of padding).
template <typename T>
__host__ __device__ unsigned long long rows_per_tile(unsigned long long n) {
    return TILE_BYTES / sizeof(T) / (n | 1);
}

// values[i] for an i that differs between lanes: indexing a register array with it would put
// the array in local memory, selects keep it in registers.
template <typename V, unsigned N>
__device__ V pick(const V (&values)[N], unsigned i) {
    V value = values[0];
#pragma unroll
    for (unsigned k = 1; k < N; ++k)
        if (i == k) value = values[k];
    return value;
}

// Short rows (n <= SHORT_ROW): a block reads a tile of whole rows, a contiguous span of the
// matrix, with 16-byte loads into shared memory, then a thread per row reduces it there and
// stores the row's value. Every lane loads whole vectors whatever n is, where lanes per row
// would idle (n = 7: 1 lane of 8) and read 4 bytes each. n = 1 is a copy through shared
// memory: 16-byte loads in, one coalesced store per row out.
template <typename T, typename Op>
__global__ void __launch_bounds__(BLOCK_SIZE)
ShortRowsKernel(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned n) {
    __shared__ T tile_s[TILE_BYTES / sizeof(T)];
    const unsigned t = threadIdx.x;
    // BEGIN EXERCISE
    // Block b takes tiles b, b + gridDim.x, ... of rows_per_tile<T>(n) rows each. Per tile: load
    // its span into registers (sector_body, load_vector; up to TILE_VECTORS vectors a thread),
    // barrier, store them to tile_s (row e / n, column e % n at stride n | 1), barrier, then
    // thread r reduces row r of the tile and stores out[row]. Faster: issue the next tile's
    // loads before reducing this one. Every thread must reach every barrier.
    REDUCE_LAB_TODO();
    // END EXERCISE
}

// Rows of a few hundred to a few thousand elements, or many rows: a warp per row, no barrier.
template <typename T, typename Op>
__global__ void __launch_bounds__(BLOCK_SIZE)
WarpPerRowKernel(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    const unsigned t = threadIdx.x;
    // BEGIN EXERCISE
    // Warp w reduces rows w, w + warps, ...: fold_range over the row, reduce_warp, lane 0 stores.
    REDUCE_LAB_TODO();
    // END EXERCISE
}

// Long rows, and enough of them to fill the device: a block per row.
template <typename T, typename Op>
__global__ void __launch_bounds__(BLOCK_SIZE)
BlockPerRowKernel(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    __shared__ T warp_results_s[BLOCK_SIZE / WARP];
    const unsigned t = threadIdx.x;
    // BEGIN EXERCISE
    // Block b reduces rows b, b + gridDim.x, ...: fold_range, reduce_block, thread 0 stores.
    REDUCE_LAB_TODO();
    // END EXERCISE
}

// A few long rows: blocks_per_row blocks share each row, and each adds its part to out[row]
// with one atomic (out holds the identity first).
template <typename T, typename Op>
__global__ void __launch_bounds__(BLOCK_SIZE)
SplitRowKernel(Global<const T> matrix, Global<T> out, unsigned long long n, unsigned long long blocks_per_row) {
    __shared__ T warp_results_s[BLOCK_SIZE / WARP];
    const unsigned t = threadIdx.x;
    // BEGIN EXERCISE
    // Block b reduces part b % blocks_per_row of row b / blocks_per_row, and thread 0 combines
    // it into out[row] with reduce_lab::atomic_combine<Op>(out + row, value).
    REDUCE_LAB_TODO();
    // END EXERCISE
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
    // BEGIN EXERCISE
    // One block per row, as the tutorials' template: right once the kernels are, but slow at
    // both ends of the shapes. Pick the mapping from m and n instead (docs/08-rows.md).
    launch(BlockPerRowKernel<T, Op>, blocks_for(m, one_wave().blocks), BLOCK_SIZE, matrix, out, m, n);
    // END EXERCISE
}

REDUCE_LAB_ROWS(8, "rows", row_reduce)
