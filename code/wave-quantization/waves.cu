// Wave quantization: every block does the same fixed work, and the spec lets only one block of
// 1024 threads live on an SM at a time (it asks for dynamic shared memory the kernel never touches),
// so a grid of g blocks on a 132-SM GPU runs in ceil(g / 132) rounds ("waves") of equal length.
//
// The work: each thread steps 8 independent chains x = fma(x, a, b) `iters` times (32 warps per SM,
// 8 per scheduler, each warp with 8 FFMAs that do not wait for each other) and stores their sum. a and b arrive as bit
// patterns (the runner passes integers), so the compiler cannot fold the chains; with a = 1 - 2^-12
// and b = 2^-13 a chain ends at a^K x0 + 0.5 (1 - a^K), which numpy computes in float64.

#define CHAINS 8

extern "C" {

// --8<-- [start:block]
__global__ void __launch_bounds__(1024) fixed_work(float* __restrict__ dst, const float* __restrict__ src,
                                                   int n, int iters, int a_bits, int b_bits)
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
            x[c] = fmaf(x[c], a, b);
    }
    float sum = 0.0f;
    #pragma unroll
    for (int c = 0; c < CHAINS; ++c)
        sum += x[c];
    dst[i] = sum;
}
// --8<-- [end:block]

}  // extern "C"
