// Constant memory against global memory for the same reads: a 16 KiB table read `iters` times per
// thread, with `spread` distinct addresses among the 32 lanes of a warp at every read (1: all lanes
// read the same word; 32: every lane its own).
//
// Lane l reads word (base + t * 33) mod 4096 at step t, with base = (l mod spread) x 128: lanes with the
// same l mod spread share every address, and the `spread` groups are 512 bytes apart (different cache
// lines). The step of 33 words keeps the compiler from merging consecutive reads into one wider load.
// Each thread adds the magnitudes of what it reads (|x| costs nothing: an operand modifier of the add)
// and writes its sum, which the check compares with numpy's.
//
// const_reads reads the table from __constant__ memory (the runner copies the input buffer `table`
// into c_table before each launch); global_reads reads the same words of the same data from a
// global buffer (through the non-coherent path: `const __restrict__` makes the loads LDG.E.CONSTANT
// in the SASS). Everything else is the same code, both loops unrolled four times.

#define TABLE 4096
#define THREADS 256

__constant__ float c_table[TABLE];

extern "C" {

// --8<-- [start:reads]
__global__ void __launch_bounds__(THREADS) const_reads(float* __restrict__ dst, int spread, int iters)
{
    unsigned base = (threadIdx.x % 32u) % (unsigned)spread * 128u;
    float acc = 0.0f;
    #pragma unroll 4
    for (int t = 0; t < iters; ++t)
        acc += fabsf(c_table[(base + (unsigned)t * 33u) % TABLE]);
    dst[blockIdx.x * THREADS + threadIdx.x] = acc;
}

__global__ void __launch_bounds__(THREADS) global_reads(float* __restrict__ dst, const float* __restrict__ table,
                                                       int spread, int iters)
{
    unsigned base = (threadIdx.x % 32u) % (unsigned)spread * 128u;
    float acc = 0.0f;
    #pragma unroll 4
    for (int t = 0; t < iters; ++t)
        acc += fabsf(table[(base + (unsigned)t * 33u) % TABLE]);
    dst[blockIdx.x * THREADS + threadIdx.x] = acc;
}
// --8<-- [end:reads]

}  // extern "C"
