// The node's copy ceilings: how fast this GPU can move bytes when nothing else gets in the way.
// Every bandwidth on the site is also shown as a percentage of the best copy measured in the same
// run (these kernels or the driver's device-to-device memcpy, whichever is faster).

extern "C" {

// --8<-- [start:scalar]
// One float per thread per step. Correct and coalesced, yet each thread has only 4 bytes in flight
// at a time, too little to cover the DRAM latency with the threads a GPU can keep resident.
__global__ void copy_scalar(float* dst, const float* src, int n)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dst[i] = src[i];
}
// --8<-- [end:scalar]

// --8<-- [start:vector]
// 16-byte accesses (float4) and four of them issued before the first store: 64 bytes in flight per
// thread. A warp's four loads are each 512 contiguous bytes, so every access is fully coalesced.
// Buffers from cuMemAlloc are 256-byte aligned, so the float4 view is legal; a tail that is not a
// whole float4 is copied one float at a time.
__global__ void copy_vector4(float* dst, const float* src, int n)
{
    const float4* s = reinterpret_cast<const float4*>(src);
    float4* d = reinterpret_cast<float4*>(dst);
    long long n4 = n / 4;
    long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 a = s[i], b = s[i + stride], c = s[i + 2 * stride], e = s[i + 3 * stride];
        d[i] = a;
        d[i + stride] = b;
        d[i + 2 * stride] = c;
        d[i + 3 * stride] = e;
    }
    for (; i < n4; i += stride)
        d[i] = s[i];
    // The tail: at most three floats, handled by the first threads of the grid.
    long long t = n4 * 4 + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n)
        dst[t] = src[t];
}
// --8<-- [end:vector]

}  // extern "C"
