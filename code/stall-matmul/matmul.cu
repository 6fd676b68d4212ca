// Warp stall reasons: copies of code/day16-matmul/matmul.cu's naive and WMMA TF32 kernels (the
// kernel text unchanged), launched here so that the counter pass can add Nsight Compute's warp-state
// counters to their rows without touching that experiment.

extern "C" {

// --8<-- [start:naive]
// One thread per element of C. Each thread reads a whole row of A and a whole column of B from
// global memory: every element of A is requested n times and every element of B m times (the L1
// and L2 caches serve most of those repeats), one fused multiply-add per 8 bytes requested.
__global__ void matmul_naive(float* __restrict__ c, const float* __restrict__ a,
                             const float* __restrict__ b, int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;  // consecutive threads: consecutive columns,
    int row = blockIdx.y * blockDim.y + threadIdx.y;  // so the warp's loads of B coalesce
    if (row >= m || col >= n)
        return;  // no barrier in this kernel, so an early return is safe
    float acc = 0.0f;
    for (int i = 0; i < k; ++i)
        acc += a[(size_t)row * k + i] * b[(size_t)i * n + col];
    c[(size_t)row * n + col] = acc;
}
// --8<-- [end:naive]

}  // extern "C"

// --8<-- [start:tensor]
// Tensor cores, through the WMMA API: each warp issues matrix multiply-accumulates on 16 x 16 x 8
// fragments instead of scalar FMAs. The inputs are rounded to TF32 (float32's 8-bit exponent, 10
// of its 23 mantissa bits), the products are summed in float32. So this rung does NOT compute the
// same result as the FP32 rungs: each input carries a relative rounding error up to 2^-11, and the
// row's tolerance says how much that may move an element of C (see experiment.yaml).
//
// 256 threads (8 warps) compute a 128 x 128 tile of C; warp w owns the 32 x 64 piece at rows
// (w / 2) * 32, columns (w % 2) * 64: 2 x 4 accumulator fragments. Per step along k the block stages
// a 128 x 16 tile of A and a 16 x 128 tile of B in shared memory, through registers, with zeros
// past the matrix edges, as matmul_register does; each warp then loads its fragments from there.
#include <mma.h>

#define TC_BM 128
#define TC_BN 128
#define TC_BK 16
// Padding per row, in floats (ldm must stay a multiple of 4 floats). WMMA's fragment layout is not
// documented; the SASS runs HMMA.1684.F32.TF32 instructions (m16n8k4 each: two A registers and one
// B register per lane), four per mma_sync. In PTX's mma.m16n8k8 TF32 layout each lane holds row
// lane / 4, column lane % 4 of an 8 x 4 block of A, and row lane % 4, column lane / 4 of a 4 x 8
// block of B. If the fragment loads follow that layout, rows of 20
// floats (A) and 136 floats (B) put a load's 32 words in 32 different banks (A: 20 r + c, B: 8 r + c,
// mod 32), where unpadded rows (16, 128) would be 4-way conflicts. The counter pass's shared load
// wavefronts per instruction for this row say whether they do.
#define TC_PAD_A 4
#define TC_PAD_B 8

extern "C" __global__ void __launch_bounds__(256)
matmul_wmma_tf32(float* __restrict__ c, const float* __restrict__ a, const float* __restrict__ b,
                 int m, int n, int k)
{
    using namespace nvcuda;
    // load_matrix_sync needs 32-byte aligned fragment pointers: the rows below are 80 and 544
    // bytes; A fragments start on rows that are multiples of 16 (1280 bytes) at column 0 or 8
    // (32 bytes), B fragments on row 0 or 8 (4352 bytes) at columns that are multiples of 16
    // (64 bytes): every fragment pointer is a multiple of 32 bytes from a 128-byte aligned base.
    __shared__ __align__(128) float as[TC_BM][TC_BK + TC_PAD_A];
    __shared__ __align__(128) float bs[TC_BK][TC_BN + TC_PAD_B];
    __shared__ __align__(128) float out[8][16 * 16];  // one 16 x 16 staging area per warp

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wm = warp / 2, wn = warp % 2;
    const int block_row = blockIdx.y * TC_BM;
    const int block_col = blockIdx.x * TC_BN;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[2][4];
    #pragma unroll
    for (int i = 0; i < 2; ++i)
        #pragma unroll
        for (int j = 0; j < 4; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < k; k0 += TC_BK) {
        // 2048 floats of each tile, 8 per thread; guards choose the value, never the barrier.
        #pragma unroll
        for (int e = tid; e < TC_BM * TC_BK; e += 256) {
            int r = e / TC_BK, kk = e % TC_BK;
            int gr = block_row + r, gk = k0 + kk;
            as[r][kk] = (gr < m && gk < k) ? a[(size_t)gr * k + gk] : 0.0f;
        }
        #pragma unroll
        for (int e = tid; e < TC_BK * TC_BN; e += 256) {
            int kk = e / TC_BN, col = e % TC_BN;
            int gk = k0 + kk, gc = block_col + col;
            bs[kk][col] = (gk < k && gc < n) ? b[(size_t)gk * n + gc] : 0.0f;
        }
        __syncthreads();  // the tiles are complete

        #pragma unroll
        for (int kk = 0; kk < TC_BK; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> af[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> bf[4];
            #pragma unroll
            for (int i = 0; i < 2; ++i) {
                wmma::load_matrix_sync(af[i], &as[wm * 32 + i * 16][kk], TC_BK + TC_PAD_A);
                #pragma unroll
                for (int t = 0; t < af[i].num_elements; ++t)  // float32 -> TF32, round to nearest
                    af[i].x[t] = wmma::__float_to_tf32(af[i].x[t]);
            }
            #pragma unroll
            for (int j = 0; j < 4; ++j) {
                wmma::load_matrix_sync(bf[j], &bs[kk][wn * 64 + j * 16], TC_BN + TC_PAD_B);
                #pragma unroll
                for (int t = 0; t < bf[j].num_elements; ++t)
                    bf[j].x[t] = wmma::__float_to_tf32(bf[j].x[t]);
            }
            #pragma unroll
            for (int i = 0; i < 2; ++i)
                #pragma unroll
                for (int j = 0; j < 4; ++j)
                    wmma::mma_sync(acc[i][j], af[i], bf[j], acc[i][j]);
        }
        __syncthreads();  // everyone is done with the tiles before the next step overwrites them
    }

    // store_matrix_sync writes a whole 16 x 16 fragment, which at the matrix edge would land
    // outside C; so each fragment goes to the warp's own staging area first, and from there every
    // lane stores 8 of its elements, each guarded.
    #pragma unroll
    for (int i = 0; i < 2; ++i)
        #pragma unroll
        for (int j = 0; j < 4; ++j) {
            wmma::store_matrix_sync(out[warp], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();  // the fragment is in the staging area
            #pragma unroll
            for (int e = lane; e < 256; e += 32) {
                int row = block_row + wm * 32 + i * 16 + e / 16;
                int col = block_col + wn * 64 + j * 16 + e % 16;
                if (row < m && col < n)
                    c[(size_t)row * n + col] = out[warp][e];
            }
            __syncwarp();  // every lane has read it before the next fragment overwrites it
        }
}
// --8<-- [end:tensor]
