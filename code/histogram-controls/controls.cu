// Histogram controls: which part of the shared-memory histogram's speed is privatisation (counters
// on the SM) and which is the hardware merging a warp's same-bin lanes into one update.
//
// code/histogram's hist_shared adds 1u to an unsigned shared counter, and nvcc turns that unsigned +1
// into ATOMS.POPC.INC.32 (a +3u gives ATOMS.ADD instead). By its name it increments each addressed
// counter by the population count of the lanes naming it, i.e. a warp's same-bin lanes are merged
// into one update (NVIDIA does not document SASS semantics; the shared_add3 row measures the effect).
// Its global kernels add 1.0f to float counters, which compiles to REDG.E.ADD.F32.FTZ.RN.STRONG.GPU,
// one unmerged reduction per lane. The rows here change one thing at a time (sm_90, nvcc -O3, read
// with cuobjdump -sass; the instruction each update compiles to is named on each kernel):
//
//   global_float  - code/histogram's hist_global again, so every row is from one run:
//                   REDG.E.ADD.F32.FTZ.RN.STRONG.GPU, float counters in global memory;
//   global_uint   - the same with unsigned counters and +1u: REDG.E.ADD.STRONG.GPU, integer
//                   counters in global memory (float against integer, both unmerged);
//   shared_inc    - code/histogram's hist_shared again: ATOMS.POPC.INC.32, merged in hardware;
//   shared_add3   - unsigned shared counters, +3u, divided by 3 when written out: ATOMS.ADD, one
//                   shared atomic per lane with nothing merged (privatisation without aggregation);
//   shared_float  - float shared counters, +1.0f: there is no shared float add instruction on
//                   sm_90, so it is a compare-and-swap loop (ATOMS.CAST.SPIN), retried while other
//                   lanes change the word.
//
// Layout, zeroing and counting are code/histogram's: each block counts into its own row of the
// output (hist[blockIdx.x][0..bins)), zeroes it first, and visits the same grid-stride elements.
// Counts stay below 2^24 (at most 63744 per block at 1056 blocks), so float counters are exact and
// 3 x count fits an unsigned int.

#define THREADS 256

// The bin of x, exactly as code/histogram computes it (never fused into an FMA).
__device__ __forceinline__ int bin_of(float x, int bins)
{
    int b = (int)__fmul_rn(__fadd_rn(x, 1.0f), 0.5f * (float)bins);
    return min(max(b, 0), bins - 1);
}

extern "C" {

// --8<-- [start:global-float]
__global__ void __launch_bounds__(THREADS) ctl_global_float(float* __restrict__ hist, const float* __restrict__ src, int n, int bins)
{
    float* row = hist + (size_t)blockIdx.x * bins;
    for (int k = threadIdx.x; k < bins; k += THREADS)
        row[k] = 0.0f;
    __syncthreads();
    long long stride = (long long)gridDim.x * THREADS;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        atomicAdd(&row[bin_of(src[i], bins)], 1.0f);  // REDG.E.ADD.F32.FTZ.RN.STRONG.GPU
}
// --8<-- [end:global-float]

// --8<-- [start:global-uint]
// The block's row holds unsigned counts while it counts, then the block converts its own row to
// float in place. The counts are read back with __ldcg (from the L2, where the atomics were done):
// the barrier orders the block's atomics before the reads.
__global__ void __launch_bounds__(THREADS) ctl_global_uint(float* __restrict__ hist, const float* __restrict__ src, int n, int bins)
{
    unsigned int* row = reinterpret_cast<unsigned int*>(hist + (size_t)blockIdx.x * bins);
    for (int k = threadIdx.x; k < bins; k += THREADS)
        row[k] = 0u;
    __syncthreads();
    long long stride = (long long)gridDim.x * THREADS;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        atomicAdd(&row[bin_of(src[i], bins)], 1u);  // REDG.E.ADD.STRONG.GPU
    __syncthreads();  // every count of the block is final before it is converted
    for (int k = threadIdx.x; k < bins; k += THREADS)
        hist[(size_t)blockIdx.x * bins + k] = (float)__ldcg(&row[k]);
}
// --8<-- [end:global-uint]

// --8<-- [start:shared-inc]
__global__ void __launch_bounds__(THREADS) ctl_shared_inc(float* __restrict__ hist, const float* __restrict__ src, int n, int bins)
{
    extern __shared__ unsigned int counts[];
    for (int k = threadIdx.x; k < bins; k += THREADS)
        counts[k] = 0u;
    __syncthreads();
    long long stride = (long long)gridDim.x * THREADS;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        atomicAdd(&counts[bin_of(src[i], bins)], 1u);  // ATOMS.POPC.INC.32: same-bin lanes merged
    __syncthreads();
    float* row = hist + (size_t)blockIdx.x * bins;
    for (int k = threadIdx.x; k < bins; k += THREADS)
        row[k] = (float)counts[k];
}
// --8<-- [end:shared-inc]

// --8<-- [start:shared-add3]
__global__ void __launch_bounds__(THREADS) ctl_shared_add3(float* __restrict__ hist, const float* __restrict__ src, int n, int bins)
{
    extern __shared__ unsigned int counts[];
    for (int k = threadIdx.x; k < bins; k += THREADS)
        counts[k] = 0u;
    __syncthreads();
    long long stride = (long long)gridDim.x * THREADS;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        atomicAdd(&counts[bin_of(src[i], bins)], 3u);  // ATOMS.ADD: one update per lane, none merged
    __syncthreads();
    float* row = hist + (size_t)blockIdx.x * bins;
    for (int k = threadIdx.x; k < bins; k += THREADS)
        row[k] = (float)(counts[k] / 3u);
}
// --8<-- [end:shared-add3]

// --8<-- [start:shared-float]
__global__ void __launch_bounds__(THREADS) ctl_shared_float(float* __restrict__ hist, const float* __restrict__ src, int n, int bins)
{
    extern __shared__ float fcounts[];
    for (int k = threadIdx.x; k < bins; k += THREADS)
        fcounts[k] = 0.0f;
    __syncthreads();
    long long stride = (long long)gridDim.x * THREADS;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        atomicAdd(&fcounts[bin_of(src[i], bins)], 1.0f);  // ATOMS.CAST.SPIN loop: compare-and-swap
    __syncthreads();
    float* row = hist + (size_t)blockIdx.x * bins;
    for (int k = threadIdx.x; k < bins; k += THREADS)
        row[k] = fcounts[k];
}
// --8<-- [end:shared-float]

}  // extern "C"
