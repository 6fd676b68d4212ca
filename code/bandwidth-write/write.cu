// Global-memory bandwidth, write only: every thread stores float4s (grid-stride, four 16-byte stores
// per iteration) and reads nothing. Each float4 holds its own index modulo 1024 in all four lanes, so
// the check sees every element written with the right value. n is a multiple of 4 at every size.

#define THREADS 256

extern "C" {

// --8<-- [start:write]
__global__ void __launch_bounds__(THREADS) write_index(float* __restrict__ dst, int n, int passes)
{
    float4* d = reinterpret_cast<float4*>(dst);
    long long n4 = n / 4;
    long long stride = (long long)gridDim.x * THREADS;
    for (int p = 0; p < passes; ++p) {
        long long i = (long long)blockIdx.x * THREADS + threadIdx.x;
        for (; i + 3 * stride < n4; i += 4 * stride) {
            #pragma unroll
            for (int u = 0; u < 4; ++u) {
                float v = (float)((i + u * stride) & 1023);
                d[i + u * stride] = make_float4(v, v, v, v);
            }
        }
        for (; i < n4; i += stride) {
            float v = (float)(i & 1023);
            d[i] = make_float4(v, v, v, v);
        }
    }
}
// --8<-- [end:write]

}  // extern "C"
