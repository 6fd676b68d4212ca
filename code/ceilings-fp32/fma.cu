// The node's FP32 arithmetic ceiling: a kernel that does nothing but fused multiply-adds.
//
// Each thread runs CHAINS independent chains x = fma(x, a, b) for `iters` steps. Independent chains
// let one warp issue a new FMA every cycle while earlier ones are still in the pipeline, so the FMA
// units, not latency, set the rate. a and b arrive as the bit patterns of floats (the runner passes
// integers), so the compiler cannot fold or shorten the chains. The runner passes a = -1 and b = 0:
// every step negates x exactly, so after an even number of steps each chain holds its start value
// again, and the output (the sum of the chains' final values) can be checked against numpy to within
// float32 rounding: a kernel that ran an odd number of steps or read the wrong element would not match.

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
