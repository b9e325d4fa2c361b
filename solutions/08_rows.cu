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
    constexpr unsigned VECTOR = 16 / sizeof(T);
    constexpr unsigned GROUPS_PER_WARP = WARP / LANES;
    const unsigned vectors = static_cast<unsigned>(GROUP * n / VECTOR);
    const unsigned long long groups = (m + GROUP - 1) / GROUP;
    // Every load before any add. A lane skips only the last loads (its group past the matrix's
    // end), so the k-th load of every lane is one warp instruction, also where the emulator's
    // compiler keeps the loop.
    reduce_lab::Vector<T, VECTOR> x[BATCHES];
#pragma unroll
    for (unsigned u = 0; u < BATCHES; ++u) {
        const unsigned long long v = (first + u * GROUPS_PER_WARP + me.lane / LANES) * vectors + me.vector;
#pragma unroll
        for (unsigned j = 0; j < VECTOR; ++j) x[u].element[j] = Op::identity();
        if (me.vector < vectors && (!GUARDED || (v + 1) * VECTOR <= m * n))
            x[u] = reduce_lab::load_vector<VECTOR>(matrix, v);
    }
    if constexpr (GUARDED) {
        // A guarded pass is one group a lane (BATCHES is 1); the one that holds the matrix's last
        // vector, if m x n elements end partway through it, gathers its elements.
        static_assert(BATCHES == 1, "a guarded pass loads one group a lane");
        const unsigned long long last = m * n / VECTOR, last_group = last / vectors;
        const unsigned long long mine = (first + me.lane / LANES) * vectors + me.vector;
        if (m * n % VECTOR != 0 && last_group >= first && last_group < first + GROUPS_PER_WARP)
            gather_last_vector<T, Op>(matrix, last, m * n, me.lane, me.vector < vectors && mine == last, x[0]);
    }
#pragma unroll
    for (unsigned u = 0; u < BATCHES; ++u) {
        const unsigned long long group = first + u * GROUPS_PER_WARP + me.lane / LANES;
        T a[GROUP];  // the lane's part of each row of its group
        if constexpr (GROUP == VECTOR && LANES == 1) {  // n = 1: one row an element
#pragma unroll
            for (unsigned r = 0; r < GROUP; ++r) a[r] = x[u].element[r];
        } else {
            // Rows of two elements or more: a vector's elements lie in two rows at most. Selects,
            // not a[me.row] = ..., which would index a register array with a lane's value.
            T low, high;
            split_vector<T, Op>(x[u], me.in_row, low, high);
#pragma unroll
            for (unsigned r = 0; r < GROUP; ++r) a[r] = r == me.row ? low : r == me.row + 1 ? high : Op::identity();
        }
        const unsigned row_in_group = scatter_lanes<T, Op, GROUP, LANES>(a, me.lane);
        if constexpr (LANES >= GROUP) {
            // Each row is whole in LANES / GROUP neighbouring lanes; the first of them stores it.
            const unsigned long long row = group * GROUP + row_in_group;
            if (me.lane % (LANES / GROUP) == 0 && group < groups && row < m) out[row] = a[0];
        } else {
            // One lane a group (n = 1, and n = 2 floats): lane i holds the warp's rows GROUP * i
            // on. Store k writes row WARP * k + lane, fetched from its lane, so that consecutive
            // lanes store consecutive rows, one value each. (Not unrolled: unrolled, the GROUP
            // stores' shuffles take more than the 64 registers a thread SHORT_ROW_BLOCKS leave.)
            const unsigned long long warp_rows = first * GROUP + u * GROUPS_PER_WARP * GROUP;
#pragma unroll 1
            for (unsigned k = 0; k < GROUP; ++k) {
                const unsigned row = WARP * k + me.lane;
                T value = Op::identity();
#pragma unroll
                for (unsigned r = 0; r < GROUP; ++r) {
                    const T y = __shfl_sync(0xffffffffu, a[r], row / GROUP);
                    if (row % GROUP == r) value = y;
                }
                if (warp_rows + row < m) out[warp_rows + row] = value;
            }
        }
    }
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
    constexpr unsigned VECTOR = 16 / sizeof(T);
    constexpr unsigned GROUPS_PER_BATCH = GROUP_BATCHES * (WARP / LANES);
    LaneInGroup me;
    me.lane = t % WARP;
    me.vector = me.lane % LANES;
    me.row = static_cast<unsigned>(me.vector * VECTOR / n);
    me.in_row = static_cast<unsigned>((me.row + 1) * n - me.vector * VECTOR);
    const unsigned long long warp = (1ull * blockIdx.x * BLOCK_SIZE + t) / WARP;
    const unsigned long long warps = 1ull * gridDim.x * BLOCK_SIZE / WARP;
    // Whole batches of whole groups need no bounds checks; the rest, fewer than a batch and the
    // last group, which may lack rows, go a warp's worth of groups at a time, checked.
    const unsigned long long batches = m / GROUP / GROUPS_PER_BATCH;
    for (unsigned long long batch = warp; batch < batches; batch += warps)
        reduce_groups<T, Op, GROUP, LANES, GROUP_BATCHES, false>(matrix, out, m, n, batch * GROUPS_PER_BATCH, me);
    const unsigned long long groups = (m + GROUP - 1) / GROUP;
    for (unsigned long long slot = batches * GROUP_BATCHES + warp; slot * (WARP / LANES) < groups; slot += warps)
        reduce_groups<T, Op, GROUP, LANES, 1, true>(matrix, out, m, n, slot * (WARP / LANES), me);
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
    constexpr unsigned VECTOR = 16 / sizeof(T);
    constexpr unsigned WINDOW = WARP * VECTOR;  // elements a window holds
    const Op op;
    const unsigned lane = t % WARP;
    const unsigned long long warp = (1ull * blockIdx.x * BLOCK_SIZE + t) / WARP;
    const unsigned long long warps = 1ull * gridDim.x * BLOCK_SIZE / WARP;
    const unsigned long long units = (m + 7) / 8;
    const unsigned long long row_begin = units * warp / warps * 8;
    const unsigned long long row_last = units * (warp + 1) / warps * 8;
    const unsigned long long row_end = row_last < m ? row_last : m;
    if (row_begin >= row_end) return;  // the whole warp: no rows of its own
    const unsigned width = static_cast<unsigned>(n);
    // p / width as (p * magic) >> 32, a multiply where a divide takes dozens of instructions:
    // exact for p and width below 2^16 (here p < SHORT_ROW + WINDOW).
    const unsigned magic = 0xffffffffu / width + 1;
    const unsigned long long end = row_end * n;
    unsigned column = 0;              // the window's first element is this column of row `row`
    unsigned long long row = row_begin;
    T carry = Op::identity();         // the part of the row open at the last window's end
    for (unsigned long long base = row_begin * n; base < end; base += WINDOWS * WINDOW) {
        reduce_lab::Vector<T, VECTOR> x[WINDOWS];
#pragma unroll
        for (unsigned w = 0; w < WINDOWS; ++w) {
            const unsigned long long v = (base + w * WINDOW) / VECTOR + lane;
#pragma unroll
            for (unsigned j = 0; j < VECTOR; ++j) x[w].element[j] = Op::identity();
            if ((v + 1) * VECTOR <= end) x[w] = reduce_lab::load_vector<VECTOR>(matrix, v);
        }
        if (end % VECTOR != 0 && end - base <= WINDOWS * WINDOW) {
            // The matrix's last vector, which its end cuts short, is in these windows: in which
            // one is the same for the whole warp, so each lane's x[w] stays in registers.
            const unsigned long long last = end / VECTOR, from_base = last - base / VECTOR;
#pragma unroll
            for (unsigned w = 0; w < WINDOWS; ++w)
                if (from_base / WARP == w)
                    gather_last_vector<T, Op>(matrix, last, end, lane, from_base % WARP == lane, x[w]);
        }
#pragma unroll
        for (unsigned w = 0; w < WINDOWS; ++w) {
            const unsigned p = column + VECTOR * lane;  // the lane's first element, from row `row`'s start
            const unsigned rows_on = static_cast<unsigned>((static_cast<unsigned long long>(p) * magic) >> 32);
            const unsigned start = p - rows_on * width;  // its column
            const unsigned in_row = width - start;       // the lane's elements in that row (at least one)
            T low, high;
            split_vector<T, Op>(x[w], in_row, low, high);
            // The row open at the lane's end: the lane's part of it, and how many lanes back it
            // began (its parts lie in those lanes), or that it began before this window.
            T open = high;
            unsigned back = 0;
            bool from_before = false;
            if (in_row == VECTOR) {
                open = Op::identity();  // the lane's row ends with its vector: the next begins after it
            } else if (in_row > VECTOR) {
                open = low;
                from_before = start > VECTOR * lane;
                back = from_before ? lane + 1 : (start + VECTOR - 1) / VECTOR;
            }
            // A scan over the lanes that stops, for each lane, where its open row began.
#pragma unroll
            for (unsigned offset = 1; offset < WARP; offset *= 2) {
                const T y = __shfl_up_sync(0xffffffffu, open, offset);
                if (lane >= offset && offset <= back) open = op(open, y);
            }
            if (from_before) open = op(open, carry);
            // The row the lane's first element lies in began in the lanes before it (or earlier).
            T before = __shfl_up_sync(0xffffffffu, open, 1);
            if (lane == 0) before = carry;
            if (start == 0) before = Op::identity();
            if (in_row <= VECTOR && row + rows_on < row_end) out[row + rows_on] = op(before, low);
            carry = __shfl_sync(0xffffffffu, open, WARP - 1);
            column += WINDOW % width;
            row += WINDOW / width;
            if (column >= width) {
                column -= width;
                ++row;
            }
        }
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
    // The shape picks the mapping (docs/08-rows.md): whatever it is, about one wave of warps
    // must have work, each with enough bytes in flight.
    const Wave wave = one_wave();
    constexpr unsigned long long LONG_ROW = 4096;  // elements a warp still reads quickly alone
    constexpr unsigned long long MIN_PART = 4096;  // elements worth a block of their own
    // Rows of up to a warp: lanes per group of rows with 16-byte loads. Past a warp, where a warp
    // per row leaves most lanes idle in its last pass, flat windows. A benchmark of these mappings
    // on an H200 (float sums, share of the copy bandwidth counting the output): groups 91%, 95% and
    // 93% at n = 1, 7 and 32, where 4-byte loads of a lane per element gave 92%, 77% and 68%;
    // windows 81% at n = 33, where tiles of rows in shared memory gave 52% and a warp per row 10%.
    if (n <= WARP) {
        const unsigned group = group_rows<T>(n);
        if (group == 1) {
            launch_groups<T, Op, 1>(matrix, out, m, n);
        } else if (group == 2) {
            launch_groups<T, Op, 2>(matrix, out, m, n);
        } else {
            launch_groups<T, Op, 16 / sizeof(T)>(matrix, out, m, n);
        }
    } else if (n <= SHORT_ROW) {
        // A warp per unit of 8 rows, up to one wave of short-row blocks.
        launch(WindowsKernel<T, Op>, blocks_for((m + 63) / 64, wave.short_row_blocks), BLOCK_SIZE, matrix, out, m, n);
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
