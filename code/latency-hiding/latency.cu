// Latency hiding and Little's law: the bytes a GPU must have in flight to reach its bandwidth are
// the bandwidth times the latency of one load. Two ways to put more bytes in flight per SM are
// measured here, and the latency itself:
//
//   stream_ilp1/2/4/8 - a read-only stream: each thread adds its elements (grid-stride) and writes
//                       one sum. With ILP = k, a thread issues k independent loads (k accumulators)
//                       before it adds any of them, so it has k x 4 bytes in flight. The spec varies
//                       the warps resident per SM (by dynamic shared memory per block, which the
//                       kernels do not use: it only limits how many blocks fit) and k.
//   chase             - dependent loads: each load's address depends on the previous load's value,
//                       so exactly one load per chasing thread is in flight, and the time per step
//                       is the latency of a load that misses the caches (random addresses in 512 MiB).

#define THREADS 64  // two warps per block, so 32 resident blocks (the SM's limit) make 64 warps

// --8<-- [start:stream]
// `#pragma unroll 1` keeps one group of K loads per iteration: the adds of this iteration wait for
// its loads, and the next group issues only after them. K = 1 is one load in flight per thread.
template <int K>
__device__ __forceinline__ void stream_sum(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    long long g = (long long)blockIdx.x * THREADS + threadIdx.x;
    long long stride = (long long)gridDim.x * THREADS;
    float acc[K];
    #pragma unroll
    for (int j = 0; j < K; ++j)
        acc[j] = 0.0f;
    #pragma unroll 1
    for (long long i = g; i < n; i += K * stride) {
        float v[K];
        #pragma unroll
        for (int j = 0; j < K; ++j) {  // K independent loads, all issued before the first add
            long long idx = i + j * stride;
            v[j] = idx < n ? src[idx] : 0.0f;
        }
        #pragma unroll
        for (int j = 0; j < K; ++j)
            acc[j] += v[j];
    }
    float s = acc[0];
    #pragma unroll
    for (int j = 1; j < K; ++j)
        s += acc[j];
    dst[g] = s;  // one sum per thread: the loads are not dead, and the check sees every thread
}
// --8<-- [end:stream]

// The chase's LCG: idx <- idx x A + C (mod 2^32, then masked to the buffer's power-of-two size).
// C odd and A = 1 (mod 4) give a full period modulo any power of two, so no chain gets stuck in a
// short cycle; the masked low bits of the 32-bit product are the product modulo that power of two.
#define LCG_A 1664525u
#define LCG_C 1013904223u
#define START_MUL 2654435761u  // spreads the chasers' starting points over the buffer

extern "C" {

__global__ void __launch_bounds__(THREADS) stream_ilp1(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    stream_sum<1>(dst, src, n);
}
__global__ void __launch_bounds__(THREADS) stream_ilp2(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    stream_sum<2>(dst, src, n);
}
__global__ void __launch_bounds__(THREADS) stream_ilp4(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    stream_sum<4>(dst, src, n);
}
__global__ void __launch_bounds__(THREADS) stream_ilp8(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    stream_sum<8>(dst, src, n);
}

// --8<-- [start:chase]
// Thread 0 of each of the first `chasers` blocks walks `steps` dependent loads; every thread of the
// grid writes its dst element (0 for the threads that do not chase). A chaser adds |v| of the values
// it visits, so the check sees whether it visited the right ones. The next index adds
// (v > 2.0f), which is always 0 for inputs in [-1, 1) but which the compiler and the hardware cannot
// know: the next address waits for this load's data, so the loads cannot overlap.
__global__ void __launch_bounds__(THREADS) chase(float* __restrict__ dst, const float* __restrict__ src, int mask, int steps,
                                                 int chasers)
{
    float s = 0.0f;
    if (threadIdx.x == 0 && blockIdx.x < chasers) {
        unsigned idx = (blockIdx.x * START_MUL) & (unsigned)mask;
        for (int k = 0; k < steps; ++k) {
            float v = src[idx];
            s += fabsf(v);  // |v|: every chaser's sum is near steps / 2, far from 0, so the check is relative to it
            idx = (idx * LCG_A + LCG_C + (unsigned)(v > 2.0f)) & (unsigned)mask;
        }
    }
    dst[(long long)blockIdx.x * THREADS + threadIdx.x] = s;
}
// --8<-- [end:chase]

}  // extern "C"
