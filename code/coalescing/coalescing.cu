// Coalescing: one float per thread, read at a stride and written back contiguously.
//
// Thread i reads src[i * stride + offset] and writes dst[i]. A warp's 32 loads then span
// 32 x stride x 4 bytes: one 128-byte run (4 sectors of 32 bytes) at stride 1, 8 sectors at stride 2,
// 16 at stride 4, and from stride 8 on every lane has a sector of its own (32 sectors, 4 bytes used
// in each). An offset moves the run: 1 float (4 bytes) makes every warp's 128 bytes straddle 5
// sectors; 8 floats (32 bytes) keeps it on sector boundaries though off the 128-byte line. The
// stores are the same in every row (4 sectors per warp), so the rows differ only in the loads.
//
// SASS (sm_90, nvcc -O3, cuobjdump -sass): one LDG.E.CONSTANT and one STG.E per thread; the index
// is computed in 64 bits (IMAD.WIDE), so the 512 MiB source is addressed without overflow.

extern "C" {

// --8<-- [start:gather]
__global__ void __launch_bounds__(256) gather_strided(float* __restrict__ dst, const float* __restrict__ src, int n, int stride, int offset)
{
    int i = blockIdx.x * 256 + threadIdx.x;
    if (i < n)
        dst[i] = src[(long long)i * stride + offset];
}
// --8<-- [end:gather]

}  // extern "C"
