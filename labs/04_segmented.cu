// Lab 4 - segmented sum reduction (PMPP Fig. 10.13).
//
// Lab 3 reduces one block's segment per launch and needs a pass per level; here every
// block reduces its own 2*BLOCK_DIM segment with lab 3's shared-memory tree, and adds its
// result to the single output with one atomicAdd. One launch reduces any n: elements past
// the end are replaced by the identity (0 for a sum), and the output starts at the identity.
// This version results in one atomic per block and each input byte loaded exactly once.
//
// Read docs/04-segmented.md, then grade with: ./lab grade 4

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;  // threads per block

__global__ void SegmentedSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    // Write Fig. 10.13 for ANY n: each thread loads its two elements (i and i + BLOCK_DIM)
    // with a bounds check, using the identity 0 for one past the end, then lab 3's tree in
    // input_s, then one atomicAdd of the block's sum to output.
    // Remove the REDUCE_LAB_TODO() line when you start (docs/04-segmented.md).
    REDUCE_LAB_TODO();
    // END EXERCISE
}

// Host code: one launch for any n >= 1.
void segmented_sum(Global<const float> input, Global<float> output, unsigned n) {
    const unsigned blocks = (n + 2 * BLOCK_DIM - 1) / (2 * BLOCK_DIM);
    // BEGIN EXERCISE
    // Every block adds to output. What must output hold before the first block adds?
    // END EXERCISE
    launch(SegmentedSumReductionKernel, blocks, BLOCK_DIM, input, output, n);
}

REDUCE_LAB_SINGLE(4, "segmented", segmented_sum)
