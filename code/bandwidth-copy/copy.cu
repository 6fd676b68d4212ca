// Global-memory bandwidth, copy: dst = src in float4s, grid-stride, four 16-byte loads issued before
// the first of their four stores (the same loop as the copy ceilings' copy_vector4, without its tail:
// n is a multiple of 4 at every size). Each byte is read once and written once.

#define THREADS 256

extern "C" {

// --8<-- [start:copy]
__global__ void __launch_bounds__(THREADS) copy4(float* __restrict__ dst, const float* __restrict__ src, int n, int passes)
{
    const float4* s = reinterpret_cast<const float4*>(src);
    float4* d = reinterpret_cast<float4*>(dst);
    long long n4 = n / 4;
    long long stride = (long long)gridDim.x * THREADS;
    for (int p = 0; p < passes; ++p) {
        long long i = (long long)blockIdx.x * THREADS + threadIdx.x;
        for (; i + 3 * stride < n4; i += 4 * stride) {
            float4 a = s[i], b = s[i + stride], c = s[i + 2 * stride], e = s[i + 3 * stride];
            d[i] = a;
            d[i + stride] = b;
            d[i + 2 * stride] = c;
            d[i + 3 * stride] = e;
        }
        for (; i < n4; i += stride)
            d[i] = s[i];
    }
}
// --8<-- [end:copy]

}  // extern "C"
