// Broken lab 12 (order): lab 1's tree with its operands swapped, op(input[i + stride], input[i]).
// With + that is the same sum, so every sum is right; with Order each pair puts its right-hand
// range first, and the result runs right to left. The check names it.
//
// expect all correctness FAIL "swaps operands: tree = 1"

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in labs 1, 2 and 4
constexpr unsigned WARP = 32;

// Tree 1: lab 1's (Fig. 10.6). Each block reduces its segment of 2 * blockDim elements in place.
template <typename T, typename Op>
__global__ void Lab1Tree(Global<T> input, Global<T> output) {
    const Op op;
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    // BEGIN EXERCISE
    unsigned int i = 2 * threadIdx.x;
    for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {
        if (threadIdx.x % stride == 0) {
            input[i] = op(input[i + stride], input[i]);  // the operands swapped
        }
        __syncthreads();
    }
    // END EXERCISE
    if (threadIdx.x == 0) {  // provided: the segment's result is now in its first element
        output[blockIdx.x] = input[0];
    }
}

// Tree 2: lab 2's (Fig. 10.9), on the same segments.
template <typename T, typename Op>
__global__ void Lab2Tree(Global<T> input, Global<T> output) {
    const Op op;
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    // BEGIN EXERCISE
    unsigned int i = threadIdx.x;
    for (unsigned int stride = blockDim.x; stride >= 1; stride /= 2) {
        if (threadIdx.x < stride) {
            input[i] = op(input[i], input[i + stride]);
        }
        __syncthreads();
    }
    // END EXERCISE
    if (threadIdx.x == 0) {  // provided: the segment's result is now in its first element
        output[blockIdx.x] = input[0];
    }
}

// Tree 4: lab 4's (Fig. 10.13), for any n: a shared-memory tree per segment, an atomic per block.
template <typename T, typename Op>
__global__ void Lab4Tree(Global<const T> input, Global<T> output, unsigned n) {
    __shared__ T input_s[MAX_BLOCK_DIM];
    const Op op;
    unsigned int segment = 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    T first = i < n ? input[i] : Op::identity();
    T second = i + blockDim.x < n ? input[i + blockDim.x] : Op::identity();
    input_s[t] = op(first, second);
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] = op(input_s[t], input_s[t + stride]);
        }
    }
    if (t == 0) {
        reduce_lab::atomic_combine<Op>(output, input_s[0]);
    }
    // END EXERCISE
}

// Tree 7: lab 7's, one element a load: a grid-stride loop, a shuffle tree in each warp, the warps'
// results combined by the first warp, and an atomic per block.
template <typename T, typename Op, unsigned BLOCK_SIZE>
__global__ void Lab7Tree(Global<const T> input, Global<T> output, unsigned n) {
    __shared__ T warp_results_s[BLOCK_SIZE / WARP];
    const Op op;
    const unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    T value = Op::identity();
    for (unsigned int i = blockIdx.x * BLOCK_SIZE + t; i < n; i += gridDim.x * BLOCK_SIZE) {
        value = op(value, input[i]);
    }
    for (unsigned offset = WARP / 2; offset >= 1; offset /= 2) {
        value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
    }
    if (t % WARP == 0) {
        warp_results_s[t / WARP] = value;
    }
    __syncthreads();
    if (t < WARP) {
        value = t < BLOCK_SIZE / WARP ? warp_results_s[t] : Op::identity();
        for (unsigned offset = WARP / 2; offset >= 1; offset /= 2) {
            value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
        }
        if (t == 0) {
            reduce_lab::atomic_combine<Op>(output, value);
        }
    }
    // END EXERCISE
}

// Provided host code: one pass of tree 1, 2, 4 or 7 over n elements (a power of two); returns how
// many values it wrote to output. Trees 1 and 2 write one a block, as labs 1 and 2 do, and the
// grader repeats passes; trees 4 and 7 leave the whole reduction in output[0].
template <typename T, typename Op>
unsigned order_pass(Global<T> input, Global<T> output, unsigned n, unsigned tree) {
    const unsigned block = n / 2 < MAX_BLOCK_DIM ? n / 2 : MAX_BLOCK_DIM;
    const unsigned segments = n / (2 * block);
    constexpr unsigned LAB7_BLOCK = 128;
    const unsigned lab7_blocks = (n + 4 * LAB7_BLOCK - 1) / (4 * LAB7_BLOCK);  // four elements a thread
    switch (tree) {
        case 1:
            launch(Lab1Tree<T, Op>, segments, block, input, output);
            return segments;
        case 2:
            launch(Lab2Tree<T, Op>, segments, block, input, output);
            return segments;
        case 4:
            reduce_lab::fill(output, Op::identity());
            launch(Lab4Tree<T, Op>, segments, block, Global<const T>(input), output, n);
            return 1;
        case 7:
            reduce_lab::fill(output, Op::identity());
            launch(Lab7Tree<T, Op, LAB7_BLOCK>, lab7_blocks, LAB7_BLOCK, Global<const T>(input), output, n);
            return 1;
    }
    throw std::runtime_error("lab 12 has trees 1, 2, 4 and 7, not " + std::to_string(tree));
}

REDUCE_LAB_ORDER(12, "order", order_pass)
