// Barriers: what __syncthreads() prevents, and what it costs.
//
// 1. A block reverses its 1024 floats through shared memory: every thread stores one element, then
//    reads the element another thread stored. reverse_barrier waits at a barrier between the store
//    and the load; reverse_racy does not. Thread t reads slot 1023 - t, which a thread of another
//    warp writes (except in a block of one warp), so without the barrier a warp may read a slot
//    before its writer has stored it, and gets whatever the slot held before (shared memory starts
//    undefined; it is not cleared between blocks). Whether and how often that happens depends on
//    timing, so the racy rows are observed (launched once, their output compared with the reference
//    and the outcome recorded), not checked: a wrong output there is what the row shows, and a right
//    one proves nothing. With one warp per block (32 threads) every slot is read by the warp that
//    stored it, one instruction later; the code is still wrong there, since threads of a warp may be
//    scheduled independently (Volta and later) and only __syncwarp() or a barrier orders them.
//
// 2. The cost of a barrier: the same 4 dependent FMAs per loop trip, with 0, 1 or 4 barriers per
//    trip. Each thread works only on its own register, so the barriers change no result, only how
//    often the 8 warps of a block wait for each other.
//
// SASS (sm_90, nvcc -O3, cuobjdump -sass): reverse_barrier is STS, BAR.SYNC.DEFER_BLOCKING 0x0, LDS;
// reverse_racy the same without the BAR. steps_b0/b1/b4 unroll the loop 4 times (16 dependent FFMA
// per loop body) with 0, 4 and 16 BAR.SYNC.DEFER_BLOCKING in it; the compiler moves FFMAs across the
// BARs (no memory access ties them to a side), which changes nothing: one dependent chain per thread.

#define TILE 1024

// The chain's multiplier and addend: code/warp-divergence's side A (1 - 2^-8 and 2^-9, exact in
// float32), so every trip maps [-1, 1) into itself and the reference has a closed form.
#define M 0.99609375f
#define C 0.001953125f

extern "C" {

// --8<-- [start:reverse-barrier]
__global__ void reverse_barrier(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    __shared__ float tile[TILE];
    int base = blockIdx.x * blockDim.x, t = threadIdx.x;
    tile[t] = src[base + t];
    __syncthreads();  // every slot of the tile is stored before any thread reads one
    dst[base + t] = tile[blockDim.x - 1 - t];
}
// --8<-- [end:reverse-barrier]

// --8<-- [start:reverse-racy]
__global__ void reverse_racy(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    __shared__ float tile[TILE];
    int base = blockIdx.x * blockDim.x, t = threadIdx.x;
    tile[t] = src[base + t];
    // no barrier: slot blockDim.x - 1 - t may not be stored yet
    dst[base + t] = tile[blockDim.x - 1 - t];
}
// --8<-- [end:reverse-racy]

}  // extern "C"

// --8<-- [start:steps]
template <int BARRIERS>
__device__ __forceinline__ void steps(float* __restrict__ dst, const float* __restrict__ src, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = src[i];
    #pragma unroll 4  // the same unrolling with and without barriers: 16 FFMA per loop body
    for (int k = 0; k < iters; ++k) {
        x = fmaf(x, M, C);
        x = fmaf(x, M, C);
        x = fmaf(x, M, C);
        x = fmaf(x, M, C);
        #pragma unroll
        for (int b = 0; b < BARRIERS; ++b)
            __syncthreads();
    }
    dst[i] = x;
}

extern "C" {
__global__ void steps_b0(float* __restrict__ dst, const float* __restrict__ src, int iters) { steps<0>(dst, src, iters); }
__global__ void steps_b1(float* __restrict__ dst, const float* __restrict__ src, int iters) { steps<1>(dst, src, iters); }
__global__ void steps_b4(float* __restrict__ dst, const float* __restrict__ src, int iters) { steps<4>(dst, src, iters); }
}  // extern "C"
// --8<-- [end:steps]
