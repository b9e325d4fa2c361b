// Lab 12 - the order of operations: the trees of labs 1, 2, 4 and 7 with any operator.
//
// A reduction needs an associative operator; whether it may also reorder the operands depends on
// the tree. Here each tree is written once more with a template operator Op, as lab 7 writes its
// kernel: op(a, b) where the earlier labs wrote a + b. The grader runs every tree with Sum (the
// sums must be exact) and with reduce_lab::Order, an operator that is associative but not
// commutative: Order's result says whether a tree combined the elements left to right (it keeps
// order), right to left in every pair (its operands are swapped), or neither. Which of your four
// trees keeps order? Guess before you grade.
//
// Read docs/12-order.md, then grade with: ./lab grade 12

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in labs 1, 2 and 4
constexpr unsigned WARP = 32;

// Tree 1: lab 1's (Fig. 10.6). Each block reduces its segment of 2 * blockDim elements in place.
template <typename T, typename Op>
__global__ void Lab1Tree(Global<T> input, Global<T> output) {
    const Op op;
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    // BEGIN EXERCISE
    // Write your lab 1 tree here, with op(a, b) where lab 1 wrote a + b: input[i] = op(input[i],
    // input[i + stride]). Keep the left operand on the left (docs/12-order.md).
    // Remove the REDUCE_LAB_TODO() line when you start.
    REDUCE_LAB_TODO();
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
    // Write your lab 2 tree here, with op(a, b) where lab 2 wrote a + b.
    // Remove the REDUCE_LAB_TODO() line when you start.
    REDUCE_LAB_TODO();
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
    // Write your lab 4 kernel here, with op(a, b) where lab 4 wrote a + b, Op::identity() where it
    // wrote 0, and reduce_lab::atomic_combine<Op>(output, value) where it wrote atomicAdd.
    // Remove the REDUCE_LAB_TODO() line when you start.
    REDUCE_LAB_TODO();
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
    // Write your lab 7 kernel here, one element a load: a grid-stride loop, the shuffle tree of
    // each warp, the warps' results in warp_results_s, and one atomic_combine<Op> per block.
    // Remove the REDUCE_LAB_TODO() line when you start.
    REDUCE_LAB_TODO();
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
