// Warp-level primitives on a merge-bound reduction: each block of 256 threads adds 256 elements, ONE
// per thread, so the kernel is the merge and little else. Four ways to merge the block's 256 values:
//
//   reduce_shared_tree     a tree in shared memory, __syncthreads() after each of its 8 levels
//   reduce_shared_syncwarp the same tree down to 32 values; warp 0 finishes with __syncwarp()
//   reduce_shuffle         __shfl_down_sync within each warp (5 steps), then warp 0 merges 8 sums
//   reduce_redux           __reduce_add_sync (sm_80 and later, integers only): one instruction per warp
//
// __reduce_add_sync adds integers only, so every kernel adds the same integers: each float x in
// [-1, 1) becomes round(x * 4096), exact in any order. All four produce the same bits, so only the
// merge differs; block b writes its sum / 4096 (under 2^20 in size, exact in float32).

#define BLOCK 256

__device__ __forceinline__ int fixed_point(const float* __restrict__ src, int n, int i)
{
    return i < n ? __float2int_rn(src[i] * 4096.0f) : 0;  // x * 4096 is exact; round half to even
}

extern "C" {

// --8<-- [start:tree]
__global__ void __launch_bounds__(BLOCK) reduce_shared_tree(float* __restrict__ out,
                                                            const float* __restrict__ src, int n)
{
    __shared__ int sh[BLOCK];
    const int t = threadIdx.x;
    sh[t] = fixed_point(src, n, blockIdx.x * BLOCK + t);
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            sh[t] += sh[t + s];
        __syncthreads();  // every level waits for the whole block
    }
    if (t == 0)
        out[blockIdx.x] = (float)sh[0] * (1.0f / 4096.0f);
}
// --8<-- [end:tree]

// --8<-- [start:syncwarp]
__global__ void __launch_bounds__(BLOCK) reduce_shared_syncwarp(float* __restrict__ out,
                                                                const float* __restrict__ src, int n)
{
    __shared__ int sh[BLOCK];
    const int t = threadIdx.x;
    sh[t] = fixed_point(src, n, blockIdx.x * BLOCK + t);
    __syncthreads();
    for (int s = BLOCK / 2; s > 16; s >>= 1) {  // down to 32 partial sums
        if (t < s)
            sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t < 32) {  // one warp: lanes need not wait for other warps, but still for each other.
        // Since Volta a warp's lanes may run apart (independent thread scheduling), so the old
        // "warp-synchronous" code without a barrier is a race: __syncwarp() orders each read
        // before the writes that follow it and each write before the next level's reads.
        int v = sh[t];
        for (int s = 16; s > 0; s >>= 1) {
            v += sh[t + s];
            __syncwarp();
            sh[t] = v;
            __syncwarp();
        }
        if (t == 0)
            out[blockIdx.x] = (float)v * (1.0f / 4096.0f);
    }
}
// --8<-- [end:syncwarp]

// --8<-- [start:shuffle]
__global__ void __launch_bounds__(BLOCK) reduce_shuffle(float* __restrict__ out,
                                                        const float* __restrict__ src, int n)
{
    __shared__ int warp_sums[BLOCK / 32];
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    int v = fixed_point(src, n, blockIdx.x * BLOCK + t);
    for (int s = 16; s > 0; s >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, s);  // lane i adds lane i + s's value, registers only
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();  // the one block-wide barrier
    if (warp == 0) {
        v = lane < BLOCK / 32 ? warp_sums[lane] : 0;
        for (int s = BLOCK / 64; s > 0; s >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, s);
        if (lane == 0)
            out[blockIdx.x] = (float)v * (1.0f / 4096.0f);
    }
}
// --8<-- [end:shuffle]

// --8<-- [start:redux]
__global__ void __launch_bounds__(BLOCK) reduce_redux(float* __restrict__ out,
                                                      const float* __restrict__ src, int n)
{
    __shared__ int warp_sums[BLOCK / 32];
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    int v = __reduce_add_sync(0xffffffffu, fixed_point(src, n, blockIdx.x * BLOCK + t));  // every lane gets the sum
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = __reduce_add_sync(0xffffffffu, lane < BLOCK / 32 ? warp_sums[lane] : 0);
        if (lane == 0)
            out[blockIdx.x] = (float)v * (1.0f / 4096.0f);
    }
}
// --8<-- [end:redux]

}  // extern "C"
