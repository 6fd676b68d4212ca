// Global-memory bandwidth, the STREAM triad: a = b + s c in float4s, grid-stride, four float4s of b
// and four of c per iteration (in the SASS: four 16-byte loads, the first store, the other four
// loads, the other three stores). Two bytes read for every byte written.
// s = 2 (the spec's scale): 2c is exact, so fmaf(s, c, b) rounds once, exactly as numpy's float32
// b + 2c does, and the check is exact. n is a multiple of 4 at every size.

#define THREADS 256

__device__ __forceinline__ float4 triad4(float4 b, float4 c, float s)
{
    return make_float4(fmaf(s, c.x, b.x), fmaf(s, c.y, b.y), fmaf(s, c.z, b.z), fmaf(s, c.w, b.w));
}

extern "C" {

// --8<-- [start:triad]
__global__ void __launch_bounds__(THREADS) triad(float* __restrict__ a, const float* __restrict__ b,
                                                 const float* __restrict__ c, int n, int scale, int passes)
{
    const float4* b4 = reinterpret_cast<const float4*>(b);
    const float4* c4 = reinterpret_cast<const float4*>(c);
    float4* a4 = reinterpret_cast<float4*>(a);
    const float s = (float)scale;
    long long n4 = n / 4;
    long long stride = (long long)gridDim.x * THREADS;
    for (int p = 0; p < passes; ++p) {
        long long i = (long long)blockIdx.x * THREADS + threadIdx.x;
        for (; i + 3 * stride < n4; i += 4 * stride) {
            float4 b0 = b4[i], b1 = b4[i + stride], b2 = b4[i + 2 * stride], b3 = b4[i + 3 * stride];
            float4 c0 = c4[i], c1 = c4[i + stride], c2 = c4[i + 2 * stride], c3 = c4[i + 3 * stride];
            a4[i] = triad4(b0, c0, s);
            a4[i + stride] = triad4(b1, c1, s);
            a4[i + 2 * stride] = triad4(b2, c2, s);
            a4[i + 3 * stride] = triad4(b3, c3, s);
        }
        for (; i < n4; i += stride)
            a4[i] = triad4(b4[i], c4[i], s);
    }
}
// --8<-- [end:triad]

}  // extern "C"
