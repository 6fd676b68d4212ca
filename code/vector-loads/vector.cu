// Vector loads: dst = 2 x src over 256 MiB, with 4-, 8- and 16-byte accesses.
//
// A float4 load moves 16 bytes with one instruction where four float loads need four. The three
// grid-stride kernels keep everything else equal: the same grid (8 blocks of 256 threads per SM),
// and one load in flight per thread (`#pragma unroll 1`: each iteration loads, scales, stores, and
// the next iteration's load issues only after this one's data arrived). So the bytes a thread has
// in flight are 4, 8 or 16, and the instructions per byte fall by 2 and 4. Two more kernels keep
// the float4 access and change how much work a thread gets: exactly one float4 (a grid sized to the
// data, no loop), or four independent float4 loads issued before the first store.
//
// Multiplying by 2 is exact in float32, so the check compares bit for bit. cuMemAlloc returns
// 256-byte aligned buffers, so the float2/float4 views are aligned; a tail of n that is not a whole
// vector (the ragged size) is handled one float at a time by the grid's first threads.

#define THREADS 256

extern "C" {

// --8<-- [start:scalar]
__global__ void __launch_bounds__(THREADS) scale_float(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    long long stride = (long long)gridDim.x * THREADS;
    #pragma unroll 1
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        dst[i] = 2.0f * src[i];
}
// --8<-- [end:scalar]

__global__ void __launch_bounds__(THREADS) scale_float2(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    const float2* s = reinterpret_cast<const float2*>(src);
    float2* d = reinterpret_cast<float2*>(dst);
    long long n2 = n / 2;
    long long stride = (long long)gridDim.x * THREADS;
    long long g = (long long)blockIdx.x * THREADS + threadIdx.x;
    #pragma unroll 1
    for (long long i = g; i < n2; i += stride) {
        float2 v = s[i];
        d[i] = make_float2(2.0f * v.x, 2.0f * v.y);
    }
    long long t = 2 * n2 + g;  // the tail: at most one float
    if (t < n)
        dst[t] = 2.0f * src[t];
}

// --8<-- [start:vector4]
__global__ void __launch_bounds__(THREADS) scale_float4(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    const float4* s = reinterpret_cast<const float4*>(src);
    float4* d = reinterpret_cast<float4*>(dst);
    long long n4 = n / 4;
    long long stride = (long long)gridDim.x * THREADS;
    long long g = (long long)blockIdx.x * THREADS + threadIdx.x;
    #pragma unroll 1
    for (long long i = g; i < n4; i += stride) {
        float4 v = s[i];
        d[i] = make_float4(2.0f * v.x, 2.0f * v.y, 2.0f * v.z, 2.0f * v.w);
    }
    long long t = 4 * n4 + g;  // the tail: at most three floats
    if (t < n)
        dst[t] = 2.0f * src[t];
}
// --8<-- [end:vector4]

// --8<-- [start:once]
// One float4 per thread and no loop: the grid is sized from n (cdiv(n, 4 x 256) blocks), so there
// are at least n / 4 + 1 threads and the tail's threads (global index below n % 4) exist.
__global__ void __launch_bounds__(THREADS) scale_float4_once(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    const float4* s = reinterpret_cast<const float4*>(src);
    float4* d = reinterpret_cast<float4*>(dst);
    long long n4 = n / 4;
    long long g = (long long)blockIdx.x * THREADS + threadIdx.x;
    if (g < n4) {
        float4 v = s[g];
        d[g] = make_float4(2.0f * v.x, 2.0f * v.y, 2.0f * v.z, 2.0f * v.w);
    }
    long long t = 4 * n4 + g;
    if (t < n)
        dst[t] = 2.0f * src[t];
}
// --8<-- [end:once]

// --8<-- [start:x4]
// Four float4 per thread, all four loads issued before the first store: 64 bytes in flight per
// thread. Block b covers float4s [b x 1024, (b + 1) x 1024), thread t those at t, t + 256, t + 512
// and t + 768 in it, so each of a warp's loads is 512 contiguous bytes.
__global__ void __launch_bounds__(THREADS) scale_float4_x4(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    const float4* s = reinterpret_cast<const float4*>(src);
    float4* d = reinterpret_cast<float4*>(dst);
    long long n4 = n / 4;
    long long base = (long long)blockIdx.x * (4 * THREADS) + threadIdx.x;
    float4 v[4];
    #pragma unroll
    for (int k = 0; k < 4; ++k) {
        long long i = base + k * THREADS;
        if (i < n4)
            v[k] = s[i];
    }
    #pragma unroll
    for (int k = 0; k < 4; ++k) {
        long long i = base + k * THREADS;
        if (i < n4)
            d[i] = make_float4(2.0f * v[k].x, 2.0f * v[k].y, 2.0f * v[k].z, 2.0f * v[k].w);
    }
    long long t = 4 * n4 + (long long)blockIdx.x * THREADS + threadIdx.x;
    if (t < n)
        dst[t] = 2.0f * src[t];
}
// --8<-- [end:x4]

}  // extern "C"
