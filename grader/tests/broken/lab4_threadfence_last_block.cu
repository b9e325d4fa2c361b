// Lab 4 (segmented) after threadFenceReduction of NVIDIA's CUDA samples: legal CUDA, but not
// the lesson's traffic. Each block stores its sum as a partial, __threadfence() makes it
// visible to every block, and the block takes a ticket with atomicInc; the block that draws
// the last ticket adds up all partials and stores the result. The fence and the atomics order
// every partial before the last block reads it, so this is no race between blocks on either
// backend, and the result is right; but the partials are stored and loaded again, where lab 4
// asks for one atomicAdd per block and no stores (the counted builds see the same accesses on
// both backends: at n = 1, 8 bytes loaded and 3 stores).
//
// expect all correctness PASS
// expect all requests FAIL "loads repeated: n = 1" "store requests 3, expected 0"

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;  // threads per block

__global__ void SegmentedSumReductionKernel(Global<const float> input, Global<float> output, Global<float> partials,
                                            Global<unsigned> retired, unsigned n) {
    __shared__ float input_s[BLOCK_DIM];
    __shared__ bool am_last;
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
        partials[blockIdx.x] = input_s[0];
    }
    // The partial is visible to every block before this block's ticket is.
    __threadfence();
    if (t == 0) {
        unsigned int ticket = atomicInc(retired, gridDim.x);
        am_last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (am_last) {
        float sum = 0.0f;
        for (unsigned int b = t; b < gridDim.x; b += blockDim.x) {
            sum += partials[b];
        }
        input_s[t] = sum;
        for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
            __syncthreads();
            if (t < stride) {
                input_s[t] += input_s[t + stride];
            }
        }
        if (t == 0) {
            output[0] = input_s[0];
            retired[0] = 0;  // ready for the next launch, as the sample does
        }
    }
    // END EXERCISE
}

// Host code: one launch for any n >= 1.
void segmented_sum(Global<const float> input, Global<float> output, unsigned n) {
    const unsigned blocks = (n + 2 * BLOCK_DIM - 1) / (2 * BLOCK_DIM);
    // BEGIN EXERCISE
    float* partials = nullptr;
    unsigned* retired = nullptr;
    reduce_lab::check(cudaMalloc(&partials, blocks * sizeof(float)), "allocating the partial sums");
    reduce_lab::check(cudaMalloc(&retired, sizeof(unsigned)), "allocating the ticket counter");
    reduce_lab::check(cudaMemset(retired, 0, sizeof(unsigned)), "zeroing the ticket counter");
    launch(SegmentedSumReductionKernel, blocks, BLOCK_DIM, input, output, Global<float>(partials),
           Global<unsigned>(retired), n);
    reduce_lab::check(cudaFree(partials), "freeing the partial sums");
    reduce_lab::check(cudaFree(retired), "freeing the ticket counter");
    // END EXERCISE
}

REDUCE_LAB_SINGLE(4, "segmented", segmented_sum)
