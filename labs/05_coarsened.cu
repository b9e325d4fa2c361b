// Lab 5 - coarsened sum reduction (PMPP Fig. 10.15).
//
// Lab 4 runs a whole tree, with its barriers and idle threads, for every 2*BLOCK_DIM
// elements. Here each thread first adds COARSE_FACTOR*2 elements on its own, serially and
// without any barrier, and only then joins the tree: the grid shrinks by COARSE_FACTOR, and
// so do the tree steps, barriers and atomics per element. This version results in
// ceil(n / (2*COARSE_FACTOR*BLOCK_DIM)) atomics and each input byte still loaded once.
//
// Read docs/05-coarsened.md, then grade with: ./lab grade 5

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;    // threads per block
constexpr unsigned COARSE_FACTOR = 2;   // as in the book

__global__ void CoarsenedSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = COARSE_FACTOR * 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    // Write Fig. 10.15: each thread first adds COARSE_FACTOR*2 elements, BLOCK_DIM apart,
    // on its own (bounds-checked, as in lab 4), then the tree and the atomic as in lab 4.
    // Remove the REDUCE_LAB_TODO() line when you start (docs/05-coarsened.md).
    REDUCE_LAB_TODO();
    // END EXERCISE
}

// Host code: one launch for any n >= 1.
void coarsened_sum(Global<const float> input, Global<float> output, unsigned n) {
    reduce_lab::fill(output, 0.0f);  // the identity of the sum
    // BEGIN EXERCISE
    // How many elements does one block cover now? Launch just enough blocks for n.
    const unsigned blocks = (n + 2 * BLOCK_DIM - 1) / (2 * BLOCK_DIM);
    // END EXERCISE
    launch(CoarsenedSumReductionKernel, blocks, BLOCK_DIM, input, output, n);
}

REDUCE_LAB_SINGLE(5, "coarsened", coarsened_sum)
