// Warp divergence: what a branch costs when the 32 threads of a warp do not agree on it.
//
// A warp issues one instruction for all its threads. When a branch splits the warp, the hardware
// runs one side with the other side's threads masked off, then the other side: the warp pays for
// both bodies. When all 32 threads agree, it pays for one. This file measures that with the same
// arithmetic per element in every kernel: ITERS dependent FMAs, y <- y * m + c, where (m, c) is
// (A_MUL, A_ADD) on one side of the branch and (B_MUL, B_ADD) on the other. Only the rule that
// picks the side changes:
//   branch_by_warp  - warp-uniform: element i takes side A when (i / 32) is even (whole warps agree);
//   branch_by_lane  - alternating lanes: side A for even i (every warp splits 16/16);
//   branch_by_sign  - by the data: side A when src[i] < 0 (random inputs: almost every warp splits);
//   select_by_sign  - the same rule as branch_by_sign without a branch: the side only picks the two
//                     constants, and one loop runs for every thread.
// Each body is ITERS = 256 FMAs, fully unrolled, against 8 bytes of memory traffic per element, so
// the time is set by issuing FMAs: a split warp should take twice as long as a uniform one.

#define ITERS 256
#define THREADS 256

// The two sides' constants (the same values as the immediates in STEP_A and STEP_B below; the
// select kernel uses these). Side A moves y towards 0.5, side B towards -1, so values stay in
// [-1, 1] and the float32 rounding stays small. After 256 steps side A gives about 0.368 x + 0.316
// and side B 0.606 x - 0.394: for x in [-1, 1) they differ by at least 0.47, so an element that
// took the wrong side fails the check.
#define A_MUL 0.99609375f   // 1 - 2^-8
#define A_ADD 0.001953125f  // 2^-9
#define B_MUL 0.998046875f  // 1 - 2^-9
#define B_ADD -0.001953125f // -2^-9

// --8<-- [start:bodies]
// Each step is one PTX fma.rn.f32 with its constants written into the instruction. Written in plain
// C (fmaf with two different constant pairs), the compiler notices that both sides run the same
// operations and turns the branch into two selects of the constants, i.e. select_by_sign below, for
// every rule: there would be nothing left to diverge. Inline PTX with different immediates keeps the
// two bodies apart (checked in the SASS: each branch kernel has two blocks of 256 FFMA).
#define STEP_A "fma.rn.f32 %0, %0, 0f3F7F0000, 0f3B000000;"  // y * (1 - 2^-8) + 2^-9
#define STEP_B "fma.rn.f32 %0, %0, 0f3F7F8000, 0fBB000000;"  // y * (1 - 2^-9) - 2^-9

__device__ __forceinline__ float side_a(float y)
{
    #pragma unroll
    for (int k = 0; k < ITERS; ++k)
        asm(STEP_A : "+f"(y));
    return y;
}

__device__ __forceinline__ float side_b(float y)
{
    #pragma unroll
    for (int k = 0; k < ITERS; ++k)
        asm(STEP_B : "+f"(y));
    return y;
}
// --8<-- [end:bodies]

extern "C" {

// --8<-- [start:branches]
// One element per thread. The rule differs only in the condition; each kernel writes every
// element of dst below n.
__global__ void __launch_bounds__(THREADS) branch_by_warp(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n)
        return;
    float x = src[i];
    dst[i] = ((i >> 5) & 1) == 0 ? side_a(x) : side_b(x);  // whole warps agree
}

__global__ void __launch_bounds__(THREADS) branch_by_lane(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n)
        return;
    float x = src[i];
    dst[i] = (i & 1) == 0 ? side_a(x) : side_b(x);  // neighbouring lanes disagree
}

__global__ void __launch_bounds__(THREADS) branch_by_sign(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n)
        return;
    float x = src[i];
    dst[i] = x < 0.0f ? side_a(x) : side_b(x);  // the data decide, lane by lane
}
// --8<-- [end:branches]

// --8<-- [start:select]
// The same rule as branch_by_sign, but the condition only chooses the constants (two selects), and
// every thread runs the one loop: no branch, nothing to split.
__global__ void __launch_bounds__(THREADS) select_by_sign(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (i >= n)
        return;
    float y = src[i];
    bool a = y < 0.0f;
    float m = a ? A_MUL : B_MUL;
    float c = a ? A_ADD : B_ADD;
    #pragma unroll
    for (int k = 0; k < ITERS; ++k)
        y = fmaf(y, m, c);
    dst[i] = y;
}
// --8<-- [end:select]

}  // extern "C"
