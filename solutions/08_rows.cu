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
    constexpr unsigned VECTOR = 16 / sizeof(T);
    const Body body = sector_body<T>(begin, end);
    T partial[UNROLL];
#pragma unroll
    for (unsigned k = 0; k < UNROLL; ++k) partial[k] = Op::identity();
    if (begin + t < body.begin) partial[0] = op(partial[0], matrix[begin + t]);
    unsigned long long v = body.begin / VECTOR + t;
    const unsigned long long vectors_end = body.end / VECTOR;
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
    if (body.end + t < end) partial[UNROLL - 1] = op(partial[UNROLL - 1], matrix[body.end + t]);
    T value = partial[0];
#pragma unroll
    for (unsigned k = 1; k < UNROLL; ++k) value = op(value, partial[k]);
    return value;
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
    constexpr unsigned VECTOR = 16 / sizeof(T);
    const Op op;
    const unsigned stride = n | 1;
    const unsigned tile_rows = static_cast<unsigned>(rows_per_tile<T>(n));
    const unsigned long long tiles = (m + tile_rows - 1) / tile_rows;
    // 8 lanes' 16-byte vectors cover the 32 banks, so lanes 8 apart storing the same element of
    // their vectors would hit the same bank: each group of 8 lanes starts at another element.
    const unsigned rotation = t / 8 % VECTOR;
    T head = Op::identity(), tail = Op::identity();
    reduce_lab::Vector<T, VECTOR> x[TILE_VECTORS];
    unsigned long long shared_first_row = 0;  // the rows tile_s holds (none yet)
    unsigned shared_rows = 0;
    for (unsigned long long tile = blockIdx.x;; tile += gridDim.x) {
        const unsigned long long first_row = tile * tile_rows;
        unsigned rows = 0;  // none past the last tile: the loop's last pass only reduces
        if (tile < tiles) rows = first_row + tile_rows < m ? tile_rows : static_cast<unsigned>(m - first_row);
        const unsigned long long begin = first_row * n, end = begin + rows * n;
        const Body body = sector_body<T>(begin, end);
        // This tile's loads go out before the last tile is reduced: they are in flight meanwhile.
        if (begin + t < body.begin) head = matrix[begin + t];
#pragma unroll
        for (unsigned k = 0; k < TILE_VECTORS; ++k) {
            const unsigned long long v = body.begin / VECTOR + t + k * BLOCK_SIZE;
            if (v < body.end / VECTOR) x[k] = reduce_lab::load_vector<VECTOR>(matrix, v);
        }
        if (body.end + t < end) tail = matrix[body.end + t];
        for (unsigned r = t; r < shared_rows; r += BLOCK_SIZE) {
            T value = tile_s[r * stride];
            for (unsigned c = 1; c < n; ++c) value = op(value, tile_s[r * stride + c]);
            out[shared_first_row + r] = value;
        }
        __syncthreads();  // the last tile's rows are reduced: tile_s is free
        if (tile >= tiles) break;
        // Element e of the tile (e past its first row's start) goes to row e / n, column e % n.
        if (begin + t < body.begin) tile_s[t / n * stride + t % n] = head;
#pragma unroll
        for (unsigned k = 0; k < TILE_VECTORS; ++k) {
            const unsigned long long v = body.begin / VECTOR + t + k * BLOCK_SIZE;
            if (v < body.end / VECTOR) {
                const unsigned e = static_cast<unsigned>(v * VECTOR - begin);
                unsigned position[VECTOR];
                unsigned column = e % n, p = e / n * stride + column;
#pragma unroll
                for (unsigned j = 0; j < VECTOR; ++j) {
                    position[j] = p++;
                    if (++column == n) {  // the next row starts, past its padding
                        column = 0;
                        p += stride - n;
                    }
                }
#pragma unroll
                for (unsigned j = 0; j < VECTOR; ++j) {
                    const unsigned i = (j + rotation) % VECTOR;
                    tile_s[pick(position, i)] = pick(x[k].element, i);
                }
            }
        }
        if (body.end + t < end) {
            const unsigned e = static_cast<unsigned>(body.end + t - begin);
            tile_s[e / n * stride + e % n] = tail;
        }
        __syncthreads();  // the tile is in tile_s
        shared_first_row = first_row;
        shared_rows = rows;
    }
    // END EXERCISE
}

// Rows of a few hundred to a few thousand elements, or many rows: a warp per row, no barrier.
template <typename T, typename Op>
__global__ void __launch_bounds__(BLOCK_SIZE)
WarpPerRowKernel(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    const unsigned t = threadIdx.x;
    // BEGIN EXERCISE
    const unsigned lane = t % WARP;
    const unsigned long long warps = 1ull * gridDim.x * BLOCK_SIZE / WARP;
    for (unsigned long long row = (1ull * blockIdx.x * BLOCK_SIZE + t) / WARP; row < m; row += warps) {
        T value = fold_range<T, Op, WARP>(matrix, row * n, row * n + n, lane);
        value = reduce_warp<T, Op>(value);
        if (lane == 0) out[row] = value;
    }
    // END EXERCISE
}

// Long rows, and enough of them to fill the device: a block per row.
template <typename T, typename Op>
__global__ void __launch_bounds__(BLOCK_SIZE)
BlockPerRowKernel(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    __shared__ T warp_results_s[BLOCK_SIZE / WARP];
    const unsigned t = threadIdx.x;
    // BEGIN EXERCISE
    for (unsigned long long row = blockIdx.x; row < m; row += gridDim.x) {
        T value = fold_range<T, Op, BLOCK_SIZE>(matrix, row * n, row * n + n, t);
        value = reduce_block<T, Op>(value, warp_results_s, t);
        if (t == 0) out[row] = value;
        __syncthreads();  // the next row rewrites warp_results_s
    }
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
    const unsigned long long row = blockIdx.x / blocks_per_row;
    const unsigned long long part = blockIdx.x % blocks_per_row;
    const unsigned long long chunk = (n + blocks_per_row - 1) / blocks_per_row;
    const unsigned long long begin = part * chunk < n ? part * chunk : n;
    const unsigned long long end = begin + chunk < n ? begin + chunk : n;
    T value = fold_range<T, Op, BLOCK_SIZE>(matrix, row * n + begin, row * n + end, t);
    value = reduce_block<T, Op>(value, warp_results_s, t);
    if (t == 0) reduce_lab::atomic_combine<Op>(out + row, value);
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
    // The shape picks the mapping (docs/08-rows.md): whatever it is, about one wave of warps
    // must have work, each with enough bytes in flight.
    const Wave wave = one_wave();
    constexpr unsigned long long LONG_ROW = 4096;  // elements a warp still reads quickly alone
    constexpr unsigned long long MIN_PART = 4096;  // elements worth a block of their own
    // Rows of up to a warp: lanes per row, measured faster there than tiles (H200: 1922, 2791 and
    // 2762 GB/s at n = 1, 7 and 32 against 1747, 1943 and 2118). Past a warp, where a warp per row
    // leaves most lanes idle in its last pass (424 GB/s at n = 33), tiles of whole rows (2145).
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
    } else if (n <= SHORT_ROW) {
        const unsigned long long tiles = (m + rows_per_tile<T>(n) - 1) / rows_per_tile<T>(n);
        launch(ShortRowsKernel<T, Op>, blocks_for(tiles, wave.blocks), BLOCK_SIZE, matrix, out, m,
               static_cast<unsigned>(n));
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
    // END EXERCISE
}

REDUCE_LAB_ROWS(8, "rows", row_reduce)
