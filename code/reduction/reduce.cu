// Reduction: adding up 64M floats, four ways of combining the threads' partial sums.
//
// Every kernel has the same first stage: a fixed grid of `blocks` blocks of 256 threads walks the
// input with a grid-stride loop, each thread adding its elements into one register (element i goes
// to thread i % (blocks x 256), so every kernel groups the elements identically). The kernels differ
// in how a block then combines its 256 register sums into out[blockIdx.x]:
//   reduce_tree         - a shared-memory tree: 8 halving steps, each followed by __syncthreads;
//   reduce_shuffle      - warp shuffles (no shared memory, no barrier inside a warp), then one shared
//                         slot per warp and one barrier, and the first warp adds the 8 slots;
//   reduce_atomic_each  - no register sum at all: every element is an atomicAdd on out[block], so
//                         256 threads contend for one address (64M atomics in all);
//   reduce_atomic_warp  - warp shuffles, then one atomicAdd per warp on out[block] (8 per block).
// The output is one partial sum per block, not one total: the runner poisons outputs before the
// check, and a single total accumulated by atomics from many blocks would need a zeroed word before
// the launch, which one launch cannot arrange (a block can only zero a word that no other block
// touches). Each atomic kernel therefore zeroes its own block's word, then barriers, then adds.

#define THREADS 256
#define WARPS (THREADS / 32)

// Thread (block b, thread t) adds elements b*256 + t, then every blocks*256-th one after it, in
// order, in float32.
__device__ __forceinline__ float thread_sum(const float* __restrict__ src, int n)
{
    long long stride = (long long)gridDim.x * THREADS;
    float s = 0.0f;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        s += src[i];
    return s;
}

// --8<-- [start:warp-sum]
// After the five steps lane 0 holds the sum of the warp's 32 values (the other lanes hold partial
// sums nobody reads). All 32 lanes take part in every step, as the full mask promises.
__device__ __forceinline__ float warp_sum(float v)
{
    #pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}
// --8<-- [end:warp-sum]

extern "C" {

// --8<-- [start:tree]
__global__ void __launch_bounds__(THREADS) reduce_tree(float* __restrict__ out, const float* __restrict__ src, int n)
{
    __shared__ float partial[THREADS];
    int t = threadIdx.x;
    partial[t] = thread_sum(src, n);
    __syncthreads();
    // Each step folds the upper half onto the lower half; the barrier after it makes the new values
    // visible before the next step reads them.
    for (int half = THREADS / 2; half > 0; half >>= 1) {
        if (t < half)
            partial[t] += partial[t + half];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = partial[0];
}
// --8<-- [end:tree]

// --8<-- [start:shuffle]
__global__ void __launch_bounds__(THREADS) reduce_shuffle(float* __restrict__ out, const float* __restrict__ src, int n)
{
    __shared__ float warp_sums[WARPS];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float v = warp_sum(thread_sum(src, n));
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();  // the only barrier: all 8 slots are written before warp 0 reads them
    if (warp == 0) {
        v = warp_sum(lane < WARPS ? warp_sums[lane] : 0.0f);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}
// --8<-- [end:shuffle]

// --8<-- [start:atomic-each]
__global__ void __launch_bounds__(THREADS) reduce_atomic_each(float* __restrict__ out, const float* __restrict__ src, int n)
{
    // The block's word starts at zero; the barrier orders that store before every thread's atomics.
    if (threadIdx.x == 0)
        out[blockIdx.x] = 0.0f;
    __syncthreads();
    long long stride = (long long)gridDim.x * THREADS;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        atomicAdd(&out[blockIdx.x], src[i]);
}
// --8<-- [end:atomic-each]

// --8<-- [start:atomic-warp]
__global__ void __launch_bounds__(THREADS) reduce_atomic_warp(float* __restrict__ out, const float* __restrict__ src, int n)
{
    if (threadIdx.x == 0)
        out[blockIdx.x] = 0.0f;
    __syncthreads();
    float v = warp_sum(thread_sum(src, n));
    if (threadIdx.x % 32 == 0)
        atomicAdd(&out[blockIdx.x], v);
}
// --8<-- [end:atomic-warp]

}  // extern "C"
