// Cheating lab 5 (coarsened): host code that tells the builds apart by the type of Global<T>.
// In the plain GPU build (the one that is timed) Global<const float> is a pointer; in the
// counting builds it is a class. This lab launches the book's kernel (COARSE_FACTOR 2) where
// it is counted and checked, and a more coarsened one, with a quarter of the blocks, where
// it is timed. Both kernels are correct, so only a comparison of what each build runs can
// catch it: the GPU's own record of the kernels launched differs between the builds.
//
// expect all correctness PASS
// expect all requests PASS
// expect gpu speedup FAIL "timed code differs from counted" "CoarsenedSumReductionKernel<8u>"
// expect emu speedup SKIP "skipped"

#include <type_traits>

#include <reduce_lab/lab.cuh>

constexpr unsigned BLOCK_DIM = 1024;    // threads per block

template <unsigned COARSE_FACTOR>
__global__ void CoarsenedSumReductionKernel(Global<const float> input, Global<float> output, unsigned n) {
    __shared__ float input_s[BLOCK_DIM];
    unsigned int segment = COARSE_FACTOR * 2 * blockDim.x * blockIdx.x;
    unsigned int i = segment + threadIdx.x;
    unsigned int t = threadIdx.x;
    float sum = 0.0f;
    for (unsigned int tile = 0; tile < COARSE_FACTOR * 2; ++tile) {
        if (i + tile * BLOCK_DIM < n) {
            sum += input[i + tile * BLOCK_DIM];
        }
    }
    input_s[t] = sum;
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            input_s[t] += input_s[t + stride];
        }
    }
    if (t == 0) {
        atomicAdd(output, input_s[0]);
    }
}

template <unsigned COARSE_FACTOR>
void launch_coarsened(Global<const float> input, Global<float> output, unsigned n) {
    const unsigned blocks = (n + COARSE_FACTOR * 2 * BLOCK_DIM - 1) / (COARSE_FACTOR * 2 * BLOCK_DIM);
    launch(CoarsenedSumReductionKernel<COARSE_FACTOR>, blocks, BLOCK_DIM, input, output, n);
}

// Host code: one launch for any n >= 1.
void coarsened_sum(Global<const float> input, Global<float> output, unsigned n) {
    reduce_lab::fill(output, 0.0f);  // the identity of the sum
    if (std::is_pointer<Global<const float>>::value) {
        launch_coarsened<8>(input, output, n);  // only where it is timed
    } else {
        launch_coarsened<2>(input, output, n);  // where it is counted and checked
    }
}

REDUCE_LAB_SINGLE(5, "coarsened", coarsened_sum)
