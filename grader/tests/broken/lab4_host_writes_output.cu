// Broken lab 4 (segmented): host code writes device memory. The student sets the output to
// 0 with *output = 0.0f in the host function instead of reduce_lab::fill. The output is
// device memory, so on a GPU the host process crashes; the counting build refuses to
// compile the device-only access from host code. The emulator stops the host access and
// names it as the crash it would be.
//
// expect gpu correctness FAIL "crash"
// expect gpu requests FAIL "does not compile"
// expect emu correctness FAIL "crash"
// expect emu requests FAIL "crash"

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;  // threads per block

__global__ void SegmentedSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    float first = i < n ? input[i] : 0.0f;
    float second = i + BLOCK_DIM < n ? input[i + BLOCK_DIM] : 0.0f;
    input_s[t] = first + second;
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] += input_s[t + stride];
        }
    }
    if (t == 0) {
        atomicAdd(output, input_s[0]);
    }
    // END EXERCISE
}

// Host code: one launch for any n >= 1.
void segmented_sum(Global<const float> input, Global<float> output, unsigned n) {
    const unsigned blocks = (n + 2 * BLOCK_DIM - 1) / (2 * BLOCK_DIM);
    // BEGIN EXERCISE
    *output = 0.0f;  // the blocks add to it, so it must start at the identity
    // END EXERCISE
    launch(SegmentedSumReductionKernel, blocks, BLOCK_DIM, input, output, n);
}

REDUCE_LAB_SINGLE(4, "segmented", segmented_sum)
