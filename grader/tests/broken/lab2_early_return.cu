// Broken lab 2 (convergent): threads leave the loop with return once they have no more work,
// so the threads still adding wait at a __syncthreads() that the others never reach. The
// emulator reports the deadlock and who waits where; on recent GPUs it often goes unnoticed.
//
// expect emu correctness FAIL "deadlock at" "lab2_early_return.cu:20"

#include <reduce_lab/lab.cuh>

constexpr unsigned MAX_BLOCK_DIM = 1024;  // threads per block, as in the book

__global__ void ConvergentSumReductionKernel(Global<float> input, Global<float> output) {
    input += 2 * blockDim.x * blockIdx.x;  // provided: move to this block's segment
    // BEGIN EXERCISE
    unsigned int i = threadIdx.x;
    for (unsigned int stride = blockDim.x; stride >= 1; stride /= 2) {
        if (threadIdx.x >= stride) {
            return;  // nothing left for this thread to add
        }
        input[i] += input[i + stride];
        __syncthreads();
    }
    // END EXERCISE
    if (threadIdx.x == 0) {  // provided: the segment's sum is now in its first element
        output[blockIdx.x] = input[0];
    }
}

// Provided host code: one pass turns every 2*blockDim elements (n a power of two) into one
// value of output; the grader repeats passes until one value is left.
unsigned convergent_sum_pass(Global<float> input, Global<float> output, unsigned n) {
    const unsigned block = n / 2 < MAX_BLOCK_DIM ? n / 2 : MAX_BLOCK_DIM;
    const unsigned grid = n / (2 * block);
    launch(ConvergentSumReductionKernel, grid, block, input, output);
    return grid;
}

REDUCE_LAB_MULTIPASS(2, "convergent", convergent_sum_pass)
