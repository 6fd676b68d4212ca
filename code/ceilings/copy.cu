// The node's copy ceilings: how fast this GPU can move bytes when nothing else gets in the way.
// A bandwidth on the site is also shown as a percentage of the fastest copy kernel that moved the
// same number of bytes in the same run; the driver's device-to-device memcpy is shown beside it as
// a separate, labelled ceiling.
//
// Every pointer is __restrict__ and the source is const, so where a kernel reads src with a plain
// load the compiler uses the non-coherent path: ld.global.nc in the PTX, LDG.E.CONSTANT in the
// machine code (SASS). The blocked kernels ask for streaming loads instead (see there).

extern "C" {

// --8<-- [start:scalar]
// One float per thread per step, coalesced: a warp's load covers 128 contiguous bytes. The compiler
// unrolls the loop four times; the PTX still alternates load and store, but its loads are
// non-coherent (ld.global.nc: the data does not change while the kernel runs), so ptxas moves all
// four loads ahead of the four stores in the SASS: four 4-byte loads in flight per thread. The float4 kernels below move 16 bytes per load instruction
// and issue four or eight of them before their first store. (Without __restrict__ the loads are
// plain ld.global and the SASS keeps them in program order: one load, its store, the next load.)
__global__ void copy_scalar(float* __restrict__ dst, const float* __restrict__ src, int n)
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
__global__ void copy_vector4(float* __restrict__ dst, const float* __restrict__ src, int n)
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

// --8<-- [start:blocked]
// No loop: each block copies one contiguous chunk of UNROLL x 256 float4s, each thread UNROLL of
// them, all loads issued before the first store. The grid covers the buffer once (it is sized from
// n in the spec), so the blocks sweep the memory in order as the scheduler hands them out.
// (A template cannot have C linkage, so only the kernels are extern "C".)
// __ldcs/__stcs mark the data as streaming (evict first): it is touched once, so it should not push
// anything else out of the L2.
template <int UNROLL>
__device__ void copy_chunk(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    const float4* s = reinterpret_cast<const float4*>(src);
    float4* d = reinterpret_cast<float4*>(dst);
    long long n4 = n / 4;
    long long base = (long long)blockIdx.x * UNROLL * blockDim.x + threadIdx.x;
    float4 v[UNROLL];
    #pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        long long i = base + (long long)u * blockDim.x;
        if (i < n4)
            v[u] = __ldcs(s + i);
    }
    #pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        long long i = base + (long long)u * blockDim.x;
        if (i < n4)
            __stcs(d + i, v[u]);
    }
    long long t = n4 * 4 + threadIdx.x;  // the tail of at most three floats, done by block 0
    if (blockIdx.x == 0 && t < n)
        dst[t] = src[t];
}

extern "C" __global__ void copy_blocked4(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    copy_chunk<4>(dst, src, n);
}

extern "C" __global__ void copy_blocked8(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    copy_chunk<8>(dst, src, n);
}
// --8<-- [end:blocked]

// --8<-- [start:tiles]
// Day 13's copy, unchanged: the buffer seen as a matrix `cols` floats wide, copied in 32 x 32 tiles by
// 32 x 8 threads, four scalar loads issued before the first store. Each of a warp's four loads reads
// 32 consecutive floats of one matrix row, and the four rows are 8 matrix rows apart (8 x cols
// floats), a pattern quite unlike the 1-D kernels above; it is here so that the ladder's own copy is
// also measured as a ceiling candidate.
extern "C" __global__ void copy_tiles(float* __restrict__ dst, const float* __restrict__ src,
                                      int rows, int cols)
{
    int col = blockIdx.x * 32 + threadIdx.x;
    int row0 = blockIdx.y * 32 + threadIdx.y;
    float v[4] = {};
    #pragma unroll
    for (int p = 0; p < 4; ++p) {
        int row = row0 + p * 8;
        if (row < rows && col < cols)
            v[p] = src[(size_t)row * cols + col];
    }
    #pragma unroll
    for (int p = 0; p < 4; ++p) {
        int row = row0 + p * 8;
        if (row < rows && col < cols)
            dst[(size_t)row * cols + col] = v[p];
    }
}
// --8<-- [end:tiles]
