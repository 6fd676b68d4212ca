// Reduction controls: code/reduction's atomic rows differ in two steps at once. reduce_atomic_each
// does one global atomicAdd per element; reduce_atomic_warp first sums about 248 elements per thread
// in a register, then sums the warp's 32 register sums with shuffles, then does one atomicAdd per
// warp. The two kernels here take one step each, so the rows separate the steps:
//
//   atomic_each      - code/reduction's reduce_atomic_each again (no register sum, no warp step);
//   atomic_warp_each - no register sum; each warp sums its 32 elements of one grid-stride step with
//                      shuffles and lane 0 adds that to out[block]: the warp step alone
//                      (1/32 of the atomics of atomic_each);
//   atomic_thread    - the register sum alone: each thread sums its elements in a register, then
//                      each of the 256 threads adds its sum (one atomic per thread, no warp step);
//   atomic_warp      - code/reduction's reduce_atomic_warp again: both steps (8 atomics per block).
//
// Every kernel walks the same grid-stride loop and groups elements as code/reduction does, zeroes its
// block's word before a barrier, then adds; the output is one partial sum per block (see reduce.cu).
// In SASS (sm_90, nvcc -O3, read with cuobjdump -sass) every atomicAdd here is one
// REDG.E.ADD.F32.FTZ.RN.STRONG.GPU (the result is unused; the same-address float adds of a warp are
// not merged), and each shuffle step is a SHFL.DOWN. The two kernels with a register sum load four
// elements per unrolled loop trip (four LDG.E.CONSTANT); atomic_each and atomic_warp_each issue one
// LDG per trip, since each trip ends in an atomic (and, in atomic_warp_each, a shuffle chain).

#define THREADS 256

__device__ __forceinline__ float warp_sum(float v)
{
    #pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

extern "C" {

// --8<-- [start:atomic-each]
__global__ void __launch_bounds__(THREADS) ctl_atomic_each(float* __restrict__ out, const float* __restrict__ src, int n)
{
    if (threadIdx.x == 0)
        out[blockIdx.x] = 0.0f;
    __syncthreads();
    long long stride = (long long)gridDim.x * THREADS;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        atomicAdd(&out[blockIdx.x], src[i]);
}
// --8<-- [end:atomic-each]

// --8<-- [start:atomic-warp-each]
// The loop walks warp by warp (`first` is the same for all 32 lanes), so every lane takes part in
// every shuffle even where the warp runs past n; a lane past n contributes 0.
__global__ void __launch_bounds__(THREADS) ctl_atomic_warp_each(float* __restrict__ out, const float* __restrict__ src, int n)
{
    if (threadIdx.x == 0)
        out[blockIdx.x] = 0.0f;
    __syncthreads();
    int lane = threadIdx.x % 32;
    long long stride = (long long)gridDim.x * THREADS;
    for (long long first = (long long)blockIdx.x * THREADS + (threadIdx.x - lane); first < n; first += stride) {
        long long i = first + lane;
        float v = warp_sum(i < n ? src[i] : 0.0f);
        if (lane == 0)
            atomicAdd(&out[blockIdx.x], v);
    }
}
// --8<-- [end:atomic-warp-each]

// --8<-- [start:atomic-thread]
__global__ void __launch_bounds__(THREADS) ctl_atomic_thread(float* __restrict__ out, const float* __restrict__ src, int n)
{
    if (threadIdx.x == 0)
        out[blockIdx.x] = 0.0f;
    __syncthreads();
    long long stride = (long long)gridDim.x * THREADS;
    float s = 0.0f;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        s += src[i];
    atomicAdd(&out[blockIdx.x], s);
}
// --8<-- [end:atomic-thread]

// --8<-- [start:atomic-warp]
__global__ void __launch_bounds__(THREADS) ctl_atomic_warp(float* __restrict__ out, const float* __restrict__ src, int n)
{
    if (threadIdx.x == 0)
        out[blockIdx.x] = 0.0f;
    __syncthreads();
    long long stride = (long long)gridDim.x * THREADS;
    float s = 0.0f;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        s += src[i];
    float v = warp_sum(s);
    if (threadIdx.x % 32 == 0)
        atomicAdd(&out[blockIdx.x], v);
}
// --8<-- [end:atomic-warp]

}  // extern "C"
