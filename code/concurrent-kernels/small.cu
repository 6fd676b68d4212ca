// Streams and concurrent kernels: a kernel far too small to fill the GPU (4 blocks of 128 threads, so
// 4 of the 132 SMs at most), launched N times per sample either on one stream, where each launch
// waits for the one before, or spread over N streams, where the GPU may run them side by side.
//
// Each thread steps one dependent chain x = fma(x, a, b) `iters` times, so a launch lasts about
// iters x the FFMA latency whatever else runs on the other SMs. a and b arrive as the bit patterns of
// floats (the runner passes integers), so the compiler cannot fold the chain; with a = 1 - 2^-16 and
// b = 2^-17 the chain ends at a^K x0 + 0.5 (1 - a^K), which numpy computes in float64. Every launch
// writes the same values to the same output, so the check holds whichever launch writes last.

extern "C" {

// --8<-- [start:small]
__global__ void __launch_bounds__(128) small_chain(float* __restrict__ dst, const float* __restrict__ src,
                                                   int n, int iters, int a_bits, int b_bits)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;  // no barrier in this kernel
    const float a = __int_as_float(a_bits), b = __int_as_float(b_bits);
    float x = src[i];
    #pragma unroll 16
    for (int t = 0; t < iters; ++t)
        x = fmaf(x, a, b);
    dst[i] = x;
}
// --8<-- [end:small]

}  // extern "C"
