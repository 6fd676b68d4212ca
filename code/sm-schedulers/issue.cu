// The four warp schedulers of a streaming multiprocessor, seen through dependent FMA chains.
//
// Every element of dst is one chain x = fma(x, a, b) of `iters` steps from src[i]: each FFMA needs the
// previous one's result, so a warp can issue its next FFMA only once the last has come out of the
// pipeline. A scheduler that holds one such warp therefore sits idle for most cycles; with more warps
// it can issue another warp's FFMA in those cycles, until it issues one warp-instruction every clock,
// its ceiling. The total work is fixed (n chains); the spec launches blocks of 128 threads (4 warps)
// and 132 x w of them, so that every SM of a 132-SM GPU can hold w blocks, all resident at once
// (w <= 16: 2048 threads and 16 blocks per SM, within the limits at this kernel's register count):
// w warps per scheduler if the warps spread evenly, which the counters' minimum and maximum
// instructions per scheduler show. Each thread runs its 16 / w chains one after the other
// (`#pragma unroll 1`), so a thread never has more than one FFMA in flight.
// a and b arrive as the bit patterns of floats (the runner passes integers), so the compiler cannot
// fold the chain. The spec passes a = 1 - 2^-16 and b = 2^-17, both exact in float32: after K steps
// x = a^K x0 + 0.5 (1 - a^K), a^K about 0.78 at K = 16384, so the output depends on both the input
// and the number of steps, and numpy computes it in float64.

extern "C" {

// --8<-- [start:chain]
__global__ void __launch_bounds__(128) fma_chains_seq(float* __restrict__ dst, const float* __restrict__ src,
                                                      int n, int iters, int a_bits, int b_bits)
{
    const float a = __int_as_float(a_bits), b = __int_as_float(b_bits);
    #pragma unroll 1
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float x = src[i];
        #pragma unroll 16
        for (int t = 0; t < iters; ++t)
            x = fmaf(x, a, b);  // each step waits for the one before
        dst[i] = x;
    }
}
// --8<-- [end:chain]

}  // extern "C"
