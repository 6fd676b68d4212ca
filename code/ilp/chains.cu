// Instruction-level parallelism: C independent FMA chains per thread, C = 1, 2, 4, 8, at a fixed
// number of warps per SM.
//
// Chain c of thread i starts at src[i] * (c + 1) and steps x = fma(x, a, b) `iters` times; the thread
// stores the sum of its chains. Within one chain each FFMA waits for the previous one; the C chains do
// not depend on each other, so one warp can have C FFMAs in the pipeline at once, and a scheduler
// needs fewer warps to issue every clock. The spec gives every row the same FMAs per thread
// (C x iters = 32768) and the same launch (blocks of 128 threads, one warp per scheduler), so only the
// independence differs.
// a and b arrive as the bit patterns of floats (the runner passes integers), so the compiler cannot
// fold the chains. With a = 1 - 2^-16 and b = 2^-17 a chain ends at a^K x0 + 0.5 (1 - a^K): the
// output depends on the input and on the number of steps, and numpy computes it in float64.

// --8<-- [start:chains]
template <int CHAINS>
__device__ __forceinline__ void chains(float* __restrict__ dst, const float* __restrict__ src, int n,
                                       int iters, int a_bits, int b_bits)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;  // no barrier in this kernel
    const float a = __int_as_float(a_bits), b = __int_as_float(b_bits);
    float x[CHAINS];
    #pragma unroll
    for (int c = 0; c < CHAINS; ++c)
        x[c] = src[i] * (float)(c + 1);
    #pragma unroll 16
    for (int t = 0; t < iters; ++t) {
        #pragma unroll
        for (int c = 0; c < CHAINS; ++c)
            x[c] = fmaf(x[c], a, b);  // CHAINS FFMAs that do not wait for each other
    }
    float sum = 0.0f;
    #pragma unroll
    for (int c = 0; c < CHAINS; ++c)
        sum += x[c];
    dst[i] = sum;
}
// --8<-- [end:chains]

extern "C" {

#define ARGS float *__restrict__ dst, const float *__restrict__ src, int n, int iters, int a_bits, int b_bits
__global__ void __launch_bounds__(128) fma_ilp1(ARGS) { chains<1>(dst, src, n, iters, a_bits, b_bits); }
__global__ void __launch_bounds__(128) fma_ilp2(ARGS) { chains<2>(dst, src, n, iters, a_bits, b_bits); }
__global__ void __launch_bounds__(128) fma_ilp4(ARGS) { chains<4>(dst, src, n, iters, a_bits, b_bits); }
__global__ void __launch_bounds__(128) fma_ilp8(ARGS) { chains<8>(dst, src, n, iters, a_bits, b_bits); }

}  // extern "C"
