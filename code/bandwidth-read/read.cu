// Global-memory bandwidth, read only: every thread sums its float4s (grid-stride, four 16-byte loads
// issued before the first add) and each block writes one sum, so the kernel reads n floats and writes
// only `blocks` of them. The spec times it twice at each size: with the L2 flushed before every sample
// (cold: the bytes come from DRAM unless the kernel itself brings them into the L2 first) and without
// the flush (warm: whatever of the buffer the previous launch left in the L2 is read from there).
// n is a multiple of 4 at every size, so there is no tail.

#define THREADS 256

extern "C" {

// --8<-- [start:read]
__global__ void __launch_bounds__(THREADS) read_sum(float* __restrict__ dst, const float* __restrict__ src, int n, int passes)
{
    const float4* s = reinterpret_cast<const float4*>(src);
    long long n4 = n / 4;
    long long stride = (long long)gridDim.x * THREADS;
    float acc = 0.0f;
    for (int p = 0; p < passes; ++p) {
        long long i = (long long)blockIdx.x * THREADS + threadIdx.x;
        for (; i + 3 * stride < n4; i += 4 * stride) {  // four independent loads in flight per thread
            float4 a = s[i], b = s[i + stride], c = s[i + 2 * stride], d = s[i + 3 * stride];
            acc += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w));
            acc += ((c.x + c.y) + (c.z + c.w)) + ((d.x + d.y) + (d.z + d.w));
        }
        for (; i < n4; i += stride) {
            float4 a = s[i];
            acc += (a.x + a.y) + (a.z + a.w);
        }
    }
    // The block's sum: within each warp by shuffles, then the eight warp sums through shared memory.
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, off);
    __shared__ float warp_sums[THREADS / 32];
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        #pragma unroll
        for (int w = 0; w < THREADS / 32; ++w)
            sum += warp_sums[w];
        dst[blockIdx.x] = sum;
    }
}
// --8<-- [end:read]

}  // extern "C"
