// Broken lab 4 (segmented): the classic forgotten qualifier. The student moves the bounds
// check into a helper, load_or_zero, without __device__, so the kernel calls a host function:
// the emulator's host compiler would run it, nvcc stops ("calling a __host__ function from a
// __global__ function is not allowed"). Every test must say that the lab does not compile, at
// line 28, in nvcc's words where nvcc is installed, else in the kit's checker's
// ("SegmentedSumReductionKernel calls load_or_zero, a host function: ...", docs/emulator.md).
// The GPU's counting build stops inside the helper, where Global<T>'s reads are device code.
//
// expect emu correctness FAIL "does not compile" "lab4_helper_without_device.cu(28): error"
// expect emu requests FAIL "does not compile" "lab4_helper_without_device.cu(28): error"
// expect gpu correctness FAIL "does not compile" "__host__ function(\"load_or_zero"
// expect gpu requests FAIL "does not compile" "__host__ function(\"load_or_zero"

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;  // threads per block

float load_or_zero(Global<const float> input, unsigned i, unsigned n) {  // __device__ forgotten
    return i < n ? input[i] : 0.0f;
}

__global__ void SegmentedSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    // BEGIN EXERCISE
    float first = load_or_zero(input, i, n);
    float second = load_or_zero(input, i + BLOCK_DIM, n);
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
    reduce_lab::fill(output, 0.0f);  // the blocks add to it, so it must start at the identity
    // END EXERCISE
    launch(SegmentedSumReductionKernel, blocks, BLOCK_DIM, input, output, n);
}

REDUCE_LAB_SINGLE(4, "segmented", segmented_sum)
