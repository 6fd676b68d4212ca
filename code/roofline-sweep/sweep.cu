// The roofline sweep: one kernel shape, its arithmetic intensity set by a compile-time constant.
//
// Each thread loads one float4 (16 bytes), runs K fused multiply-adds on each of its four floats
// (four independent chains, so a warp can issue a new FMA while the previous ones are in flight),
// and stores the float4 back to a second buffer (16 bytes). So every thread moves 32 bytes and does
// 4 x K FMAs = 8 x K floating-point operations: K / 4 FLOP per byte of DRAM traffic (every byte is
// touched once: the buffers are far larger than the L2 and the runner flushes it before each sample).
// Small K: the loads and stores dominate and the time follows the memory's bandwidth. Large K: the
// FMA units dominate and the time follows K. The ridge between them is where the two take equally long.
//
// a and b arrive as the bit patterns of floats (the runner passes integers), so the compiler can
// neither fold the chains nor shorten them. With a = 1 - 2^-8 and b = 2^-9 (the spec), K steps of
// x <- x a + b give a^K x0 + b (1 - a^K) / (1 - a): the output depends on the input and on K, which
// the numpy reference computes in float64.

template <int K>
__device__ __forceinline__ void fma_per_float4(float* __restrict__ dst, const float* __restrict__ src, int n4,
                                               int a_bits, int b_bits)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4)
        return;  // no barrier in this kernel
    const float a = __int_as_float(a_bits), b = __int_as_float(b_bits);
    float4 v = reinterpret_cast<const float4*>(src)[i];
    #pragma unroll 32
    for (int t = 0; t < K; ++t) {
        v.x = fmaf(v.x, a, b);
        v.y = fmaf(v.y, a, b);
        v.z = fmaf(v.z, a, b);
        v.w = fmaf(v.w, a, b);
    }
    reinterpret_cast<float4*>(dst)[i] = v;
}

// --8<-- [start:sweep]
// One kernel per K: the trip count is a constant, so the loop is unrolled (fully up to K = 32, by
// 32 beyond: in the SASS, 128 FFMAs, then an add, a compare and a branch per trip).
extern "C" {
__global__ void __launch_bounds__(256) fma_k1(float* __restrict__ dst, const float* __restrict__ src, int n4, int a_bits, int b_bits)
{
    fma_per_float4<1>(dst, src, n4, a_bits, b_bits);
}
__global__ void __launch_bounds__(256) fma_k2(float* __restrict__ dst, const float* __restrict__ src, int n4, int a_bits, int b_bits)
{
    fma_per_float4<2>(dst, src, n4, a_bits, b_bits);
}
__global__ void __launch_bounds__(256) fma_k4(float* __restrict__ dst, const float* __restrict__ src, int n4, int a_bits, int b_bits)
{
    fma_per_float4<4>(dst, src, n4, a_bits, b_bits);
}
__global__ void __launch_bounds__(256) fma_k8(float* __restrict__ dst, const float* __restrict__ src, int n4, int a_bits, int b_bits)
{
    fma_per_float4<8>(dst, src, n4, a_bits, b_bits);
}
__global__ void __launch_bounds__(256) fma_k16(float* __restrict__ dst, const float* __restrict__ src, int n4, int a_bits, int b_bits)
{
    fma_per_float4<16>(dst, src, n4, a_bits, b_bits);
}
__global__ void __launch_bounds__(256) fma_k32(float* __restrict__ dst, const float* __restrict__ src, int n4, int a_bits, int b_bits)
{
    fma_per_float4<32>(dst, src, n4, a_bits, b_bits);
}
__global__ void __launch_bounds__(256) fma_k64(float* __restrict__ dst, const float* __restrict__ src, int n4, int a_bits, int b_bits)
{
    fma_per_float4<64>(dst, src, n4, a_bits, b_bits);
}
__global__ void __launch_bounds__(256) fma_k128(float* __restrict__ dst, const float* __restrict__ src, int n4, int a_bits, int b_bits)
{
    fma_per_float4<128>(dst, src, n4, a_bits, b_bits);
}
__global__ void __launch_bounds__(256) fma_k256(float* __restrict__ dst, const float* __restrict__ src, int n4, int a_bits, int b_bits)
{
    fma_per_float4<256>(dst, src, n4, a_bits, b_bits);
}
__global__ void __launch_bounds__(256) fma_k512(float* __restrict__ dst, const float* __restrict__ src, int n4, int a_bits, int b_bits)
{
    fma_per_float4<512>(dst, src, n4, a_bits, b_bits);
}
}  // extern "C"
// --8<-- [end:sweep]
