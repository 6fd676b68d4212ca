// The L1 data cache and the read-only path: how often a block finds its data in the SM's L1 as the
// distance between two reads of the same bytes (the reuse distance) grows past the L1's capacity.
//
// 132 blocks of 1024 threads, one per SM on the nodes' 132 SMs (the counters sm__ctas_launched.max
// and .min say whether each SM got exactly one). Block b reads its own window of `window` floats,
// src[b * window ...], from start to end, `passes` times: a warp's load covers 128 contiguous bytes,
// and a byte is read again only after the whole window has been read, so the reuse distance is the
// window. While the window fits in the L1 with room to spare, every pass after the first hits; once
// it does not, a pass that reads in order evicts the lines the next pass needs first.
//
// Three loads, the same loop otherwise (the SASS of each checked with cuobjdump):
//   reuse_plain - a plain load through pointers without __restrict__: ld.global, LDG.E in the SASS;
//   reuse_nc    - __ldg: ld.global.nc, the non-coherent (read-only) path, LDG.E.CONSTANT;
//   reuse_cg    - __ldcg: ld.global.cg, cached in the L2 only, not in the L1: LDG.E.STRONG.GPU.
// (A `const float* __restrict__` source would turn the plain load into LDG.E.CONSTANT too, and
// __ldca, ld.global.ca, compiles to LDG.E.STRONG.SM on sm_90, so neither is the plain path.)
// Each thread keeps four independent sums of |x| (four loads in flight) and writes their total.

#define THREADS 1024

template <int MODE>
__device__ __forceinline__ float load(const float* p)
{
    if (MODE == 0)
        return *p;
    if (MODE == 1)
        return __ldg(p);
    return __ldcg(p);
}

// --8<-- [start:reuse]
template <int MODE>
__device__ __forceinline__ void reuse(float* dst, const float* src, int window, int passes)
{
    const float* w = src + (size_t)blockIdx.x * window;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int p = 0; p < passes; ++p) {
        for (int i = threadIdx.x; i < window; i += 4 * THREADS) {  // window is a multiple of 4096
            #pragma unroll
            for (int u = 0; u < 4; ++u)
                acc[u] += fabsf(load<MODE>(w + i + u * THREADS));
        }
    }
    dst[blockIdx.x * THREADS + threadIdx.x] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
}
// --8<-- [end:reuse]

extern "C" {
__global__ void __launch_bounds__(THREADS) reuse_plain(float* dst, const float* src, int window, int passes)
{
    reuse<0>(dst, src, window, passes);
}
__global__ void __launch_bounds__(THREADS) reuse_nc(float* __restrict__ dst, const float* __restrict__ src, int window, int passes)
{
    reuse<1>(dst, src, window, passes);
}
__global__ void __launch_bounds__(THREADS) reuse_cg(float* __restrict__ dst, const float* __restrict__ src, int window, int passes)
{
    reuse<2>(dst, src, window, passes);
}
}  // extern "C"
