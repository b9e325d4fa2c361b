// Lab 8 - a reduction per row: out[r] = Op over row r of a row-major m x n matrix.
//
// The batched template tutorials end with gives each row one block. That wastes the device at
// both ends of the shapes: 2^20 rows of 7 elements give every 256-thread block 7 elements to
// read, and 3 rows of 10^7 elements give 3 blocks to a device that holds two thousand. Here the
// host picks the mapping from the shape, as lab 7 picks a block size from n: rows of up to a
// warp go a few lanes to a group of whole rows, longer short rows through each warp's flat
// 512-byte windows with a scan over its lanes; then a warp per row, a block per row, and for a
// few long rows several blocks per row, each adding its part with one atomic. Rows start
// anywhere (n is any number), so each range is read as a scalar head, 16-byte vectors over whole
// 32-byte sectors, and a scalar tail.
//
// Read docs/08-rows.md, then grade with: ./lab grade 8

#include <reduce_lab/lab.cuh>

using reduce_lab::Max;
using reduce_lab::Min;
using reduce_lab::Sum;

constexpr unsigned WARP = 32;
constexpr unsigned BLOCK_SIZE = 256;
constexpr unsigned UNROLL = 2;        // independent 16-byte loads each thread keeps in flight in a long range
constexpr unsigned GROUP_BATCHES = 4; // groups of short rows each lane loads at once (16 bytes each)
constexpr unsigned WINDOWS = 4;       // 512-byte windows of short rows each warp loads at once
// Blocks of the short-row kernels a multiprocessor holds: four 16-byte loads a thread in flight
// need more registers than the 32 a thread that 8 blocks leave, up to 64. The host launches
// exactly this many a multiprocessor (one wave), since each warp gets an even share of the rows.
constexpr unsigned SHORT_ROW_BLOCKS = 4;
constexpr unsigned long long SHORT_ROW = 256;  // rows of 33 to this many elements are read in flat windows
static_assert(SHORT_ROW + WARP * 4 < (1u << 16), "the windows' multiply-high division is exact below 2^16");

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

// The matrix's last vector v where m x n elements end partway through it (before `end`): its
// elements before `end` read one a lane (lane j reads element j) in one instruction, as
// consecutive lanes read a tail, and gathered with shuffles into `x` of the lane for which `mine`
// holds; x keeps its elements from `end` on. The whole warp calls it.
template <typename T, typename Op>
__device__ void gather_last_vector(Global<const T> matrix, unsigned long long v, unsigned long long end,
                                   unsigned lane, bool mine, reduce_lab::Vector<T, 16 / sizeof(T)>& x) {
    constexpr unsigned VECTOR = 16 / sizeof(T);
    T element = Op::identity();
    if (lane < VECTOR && v * VECTOR + lane < end) element = matrix[v * VECTOR + lane];
#pragma unroll
    for (unsigned j = 0; j < VECTOR; ++j) {
        const T y = __shfl_sync(0xffffffffu, element, j);
        if (mine && v * VECTOR + j < end) x.element[j] = y;
    }
}

// Splits a vector where a row ends: its elements before `at` combined (the end of one row) into
// `low`, those from `at` on (the start of the next row) into `high`. Selects, since `at` differs
// between lanes and a loop that stopped at it would diverge.
template <typename T, typename Op>
__device__ void split_vector(const reduce_lab::Vector<T, 16 / sizeof(T)>& x, unsigned at, T& low, T& high) {
    const Op op;
    low = x.element[0];
    high = Op::identity();
#pragma unroll
    for (unsigned j = 1; j < 16 / sizeof(T); ++j) {
        low = op(low, j < at ? x.element[j] : Op::identity());
        high = op(high, j < at ? Op::identity() : x.element[j]);
    }
}

// Rows a group holds: the fewest consecutive rows whose elements fill whole 16-byte vectors
// (VECTOR / gcd(n, VECTOR): n = 7 floats, 4 rows in 7 vectors; n = 32, 1 row in 8). A group
// whose first row is a multiple of that starts on a 16-byte boundary.
template <typename T>
__host__ __device__ unsigned group_rows(unsigned long long n) {
    constexpr unsigned VECTOR = 16 / sizeof(T);
    return n % VECTOR == 0 ? 1 : n % (VECTOR / 2) == 0 ? 2 : VECTOR;
}

// A reduce-scatter of a[r], a lane's part of row r of its group, over each group of LANES
// neighbouring lanes: while rows are left to split, the lanes whose bit `offset` is set keep the
// upper half of the rows and their partners the lower half, each adding in the partner's part of
// the half it keeps (one shuffle a row kept); past that, xor shuffles as in reduce_lanes. ROWS - 1
// + log2(LANES / ROWS) shuffles where a reduce_lanes per row takes ROWS * log2(LANES). A lane ends
// with the whole rows a[0 ..], ROWS / LANES of them (at least one), from the row it returns.
template <typename T, typename Op, unsigned ROWS, unsigned LANES>
__device__ unsigned scatter_lanes(T (&a)[ROWS], unsigned lane) {
    const Op op;
    unsigned first = 0, rows = ROWS;
#pragma unroll
    for (unsigned offset = LANES / 2; offset >= 1; offset /= 2) {
        if (rows > 1) {
            rows /= 2;
            const bool upper = (lane & offset) != 0;
#pragma unroll
            for (unsigned r = 0; r < rows; ++r) {
                const T give = upper ? a[r] : a[r + rows];
                const T keep = upper ? a[r + rows] : a[r];
                a[r] = op(keep, __shfl_xor_sync(0xffffffffu, give, offset));
            }
            if (upper) first += rows;
        } else {
            a[0] = op(a[0], __shfl_xor_sync(0xffffffffu, a[0], offset));
        }
    }
    return first;
}

// Where a lane's vector lies in its group: the same place in every group, so it is worked out once.
struct LaneInGroup {
    unsigned lane;      // lane of the warp
    unsigned vector;    // the lane's vector of its group (lanes at or past the group's vectors idle)
    unsigned row;       // the group's row that holds the vector's first element
    unsigned in_row;    // how many of its elements lie in that row; the rest are the next row's
};

// One pass of a warp over BATCHES x WARP / LANES consecutive groups from group `first`: each
// lane loads its vector of every group first (BATCHES loads in flight), then per group splits it
// into its two rows' parts, scatters them over the group's lanes, and one lane a row stores it.
// GUARDED: the groups may run past the matrix's last row; without, they are whole.
template <typename T, typename Op, unsigned GROUP, unsigned LANES, unsigned BATCHES, bool GUARDED>
__device__ void reduce_groups(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n,
                              unsigned long long first, LaneInGroup me) {
    // BEGIN EXERCISE
    // Load each lane's vector (me.vector < vectors) of its group in every batch first: vector
    // group * vectors + me.vector with reduce_lab::load_vector, checked against m * n when
    // GUARDED (gather_last_vector brings the matrix's last, partial vector). Then per group split
    // it at me.in_row into row me.row's part and the next row's, put them in a[GROUP] (the
    // identity elsewhere), scatter_lanes, and let one lane a row store it (docs/08-rows.md).
    REDUCE_LAB_TODO();
    // END EXERCISE
}

// Rows of up to a warp (n <= 32): lanes per group of rows, with 16-byte loads. A group (GROUP
// rows, group_rows) is `vectors` whole vectors; LANES lanes (the power of two at or above
// `vectors`) share it, and WARP / LANES groups lie side by side in a warp, so one warp
// instruction reads a contiguous run of whole groups. Each lane has GROUP_BATCHES groups' loads
// in flight, 16 bytes each, where a lane per element of a row would read 4 bytes.
template <typename T, typename Op, unsigned GROUP, unsigned LANES>
__global__ void __launch_bounds__(BLOCK_SIZE, SHORT_ROW_BLOCKS)
GroupsKernel(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    const unsigned t = threadIdx.x;
    // BEGIN EXERCISE
    // Work out where the lane's vector lies in its group (LaneInGroup), then hand out batches of
    // GROUP_BATCHES x WARP / LANES groups to the warps, grid-stride: reduce_groups unguarded over
    // the whole batches, guarded over the rest. Keep every lane in the loops (shuffles need all).
    REDUCE_LAB_TODO();
    // END EXERCISE
}

// Short rows past a warp (33 to SHORT_ROW elements): flat 512-byte windows. A warp reads a
// contiguous range of whole rows, an even share of the matrix in units of 8 rows (so it starts
// on a 32-byte sector), as windows of WARP x 16 bytes: every lane busy whatever n is. A lane
// splits its vector where a row ends (its elements hold one row end at most, n >= VECTOR); a
// segmented scan over the lanes adds each row's parts, the lane holding a row's last element
// stores it, and the row still open at a window's end carries into the next window.
template <typename T, typename Op>
__global__ void __launch_bounds__(BLOCK_SIZE, SHORT_ROW_BLOCKS)
WindowsKernel(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    const unsigned t = threadIdx.x;
    // BEGIN EXERCISE
    // Warp w takes an even share of the matrix's units of 8 rows and reads it as windows of
    // WARP vectors, WINDOWS at once. Per window: each lane splits its vector where its row ends,
    // a scan with __shfl_up_sync adds each row's parts over the lanes it spans, the lane holding
    // a row's last element stores it, and the row open at the window's end carries on.
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

// What one wave of the device holds: the warps and the BLOCK_SIZE blocks resident at once, and
// the blocks of a short-row kernel (SHORT_ROW_BLOCKS a multiprocessor).
struct Wave {
    unsigned long long warps;
    unsigned long long blocks;
    unsigned long long short_row_blocks;
};

inline Wave one_wave() {
    static const Wave wave = [] {
        cudaDeviceProp p{};
        int device = 0;
        reduce_lab::check(cudaGetDevice(&device), "asking for the device");
        reduce_lab::check(cudaGetDeviceProperties(&p, device), "reading the device properties");
        const unsigned long long threads = 1ull * p.multiProcessorCount * p.maxThreadsPerMultiProcessor;
        return Wave{threads / WARP, threads / BLOCK_SIZE, 1ull * p.multiProcessorCount * SHORT_ROW_BLOCKS};
    }();
    return wave;
}

inline unsigned blocks_for(unsigned long long needed, unsigned long long at_most) {
    return static_cast<unsigned>(needed < at_most ? needed : at_most);
}

template <typename T, typename Op, unsigned GROUP, unsigned LANES>
void launch_groups_of(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    constexpr unsigned long long GROUPS_PER_BLOCK = BLOCK_SIZE / LANES * GROUP_BATCHES;
    const unsigned long long groups = (m + GROUP - 1) / GROUP;
    launch(GroupsKernel<T, Op, GROUP, LANES>,
           blocks_for((groups + GROUPS_PER_BLOCK - 1) / GROUPS_PER_BLOCK, one_wave().short_row_blocks), BLOCK_SIZE,
           matrix, out, m, n);
}

// Groups of GROUP rows: as many lanes a group as it has vectors, rounded up to a power of two.
template <typename T, typename Op, unsigned GROUP>
void launch_groups(Global<const T> matrix, Global<T> out, unsigned long long m, unsigned long long n) {
    const unsigned long long vectors = GROUP * n / (16 / sizeof(T));
    if (vectors <= 1) {
        launch_groups_of<T, Op, GROUP, 1>(matrix, out, m, n);
    } else if (vectors <= 2) {
        launch_groups_of<T, Op, GROUP, 2>(matrix, out, m, n);
    } else if (vectors <= 4) {
        launch_groups_of<T, Op, GROUP, 4>(matrix, out, m, n);
    } else if (vectors <= 8) {
        launch_groups_of<T, Op, GROUP, 8>(matrix, out, m, n);
    } else if (vectors <= 16) {
        launch_groups_of<T, Op, GROUP, 16>(matrix, out, m, n);
    } else {
        launch_groups_of<T, Op, GROUP, 32>(matrix, out, m, n);
    }
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
