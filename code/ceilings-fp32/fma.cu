// The node's FP32 arithmetic ceiling: a kernel that does nothing but fused multiply-adds.
//
// Each thread runs CHAINS independent chains x = fma(x, a, b) for `iters` steps. Independent chains
// let one warp issue a new FMA every cycle while earlier ones are still in the pipeline, so the FMA
// units, not latency, set the rate. The step loop is unrolled 16 times: each SM quarter issues one
// warp instruction per clock, so the loop's counter, test and branch take issue slots from the FMAs
// (with the compiler's default unrolling by 4 they were 3 instructions in every 35).
// a and b arrive as the bit patterns of floats (the runner passes integers), so the compiler cannot
// fold or shorten the chains. The spec passes a = 1 - 2^-12 and b = 2^-13, both exact in float32:
// after K steps a chain holds a^K x0 + b (1 - a^K) / (1 - a), a weighted average of its start value
// and 0.5 with a^K about 0.37 at K = 4096. So the output (the sum of the chains) depends on both the
// input element and the number of steps, and numpy computes it in float64: a kernel that read the
// wrong element or ran a different number of steps (by more than about one per cent) fails the check.

#define CHAINS 8

extern "C" {

// --8<-- [start:fma]
__global__ void __launch_bounds__(256) fma_chains(float* __restrict__ dst, const float* __restrict__ src,
                                                  int n, int iters, int a_bits, int b_bits)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;  // no barrier in this kernel
    const float a = __int_as_float(a_bits), b = __int_as_float(b_bits);
    float x[CHAINS];
    #pragma unroll
    for (int c = 0; c < CHAINS; ++c)
        x[c] = src[i] * (float)(c + 1);  // distinct start values, all derived from this thread's input
    #pragma unroll 16
    for (int t = 0; t < iters; ++t) {
        #pragma unroll
        for (int c = 0; c < CHAINS; ++c)
            x[c] = fmaf(x[c], a, b);
    }
    float sum = 0.0f;
    #pragma unroll
    for (int c = 0; c < CHAINS; ++c)
        sum += x[c];
    dst[i] = sum;
}
// --8<-- [end:fma]

}  // extern "C"
