// Day 16: single-precision matrix multiply, C = A x B, three rungs of a ladder.
//
// A is m x k, B is k x n, C is m x n, all row-major float32. A multiply does 2*m*n*k floating-point
// operations on only 4*(m*k + k*n + m*n) bytes of unique data, so unlike a transpose it can be
// limited by arithmetic, if each byte fetched from memory is reused often enough. Each rung raises
// that reuse. Sizes need not be multiples of any tile: edge tiles load zeros past the matrix edge
// (zeros add nothing to a dot product) and store only the elements inside it.

extern "C" {

// --8<-- [start:naive]
// One thread per element of C. Each thread reads a whole row of A and a whole column of B from
// global memory: every A and B element is fetched m or n times (the caches catch some of it), so
// the kernel does about one fused multiply-add per 8 bytes it asks for.
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

// --8<-- [start:shared]
// Shared-memory tiling: a 32 x 32 block stages a 32 x 32 tile of A and one of B, then every thread
// uses 32 values from each tile. Each global element is now fetched m/32 or n/32 times instead of
// m or n times: 32x the reuse, paid for with two barriers per step along k.
#define TS 32

__global__ void matmul_shared(float* __restrict__ c, const float* __restrict__ a,
                              const float* __restrict__ b, int m, int n, int k)
{
    __shared__ float as[TS][TS];
    __shared__ float bs[TS][TS];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TS + ty;
    int col = blockIdx.x * TS + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < k; k0 += TS) {
        // Guards choose the value, never whether a thread reaches the barrier below.
        as[ty][tx] = (row < m && k0 + tx < k) ? a[(size_t)row * k + k0 + tx] : 0.0f;
        bs[ty][tx] = (k0 + ty < k && col < n) ? b[(size_t)(k0 + ty) * n + col] : 0.0f;
        __syncthreads();  // the tiles are complete

        #pragma unroll
        for (int i = 0; i < TS; ++i)
            acc += as[ty][i] * bs[i][tx];  // as[ty][i]: one word for the whole warp (a broadcast)
        __syncthreads();  // nobody overwrites a tile that a slower warp is still reading
    }
    if (row < m && col < n)
        c[(size_t)row * n + col] = acc;
}
// --8<-- [end:shared]

// --8<-- [start:register]
// Register tiling: 256 threads compute a 128 x 128 tile of C, each thread an 8 x 8 patch held in
// 64 registers. Per step along k a thread loads 8 values of A and 8 of B from shared memory and does
// 64 multiply-adds with them: four times the reuse of the shared tile above, so the kernel spends
// its time on arithmetic rather than on shared-memory loads.
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

__global__ void __launch_bounds__(256) matmul_register(float* __restrict__ c, const float* __restrict__ a,
                                                       const float* __restrict__ b, int m, int n, int k)
{
    // A is stored transposed (as[kk][row]) so that a thread's 8 values along m are contiguous:
    // the inner loop then reads them with wide 16-byte shared loads.
    __shared__ __align__(16) float as[BK][BM];
    __shared__ __align__(16) float bs[BK][BN];

    const int tid = threadIdx.x;
    const int tr = tid / 16;  // this thread's row group, 0..15
    const int tc = tid % 16;  // this thread's column group, 0..15
    const int block_row = blockIdx.y * BM;
    const int block_col = blockIdx.x * BN;

    // Each thread owns rows {tr*4 .. tr*4+3} and {64 + tr*4 .. 64 + tr*4+3} of the tile (same for
    // columns). Splitting the patch in two halves keeps the 16 threads of a row group reading 16
    // consecutive float4 of shared memory, which is conflict-free, instead of 32 bytes apart.
    float acc[TM][TN];
    #pragma unroll
    for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < k; k0 += BK) {
        // Load the A tile (BM x BK = 1024 floats, 4 per thread); neighbouring threads read
        // neighbouring k, 8 floats (32 bytes, one sector) per row.
        #pragma unroll
        for (int e = tid; e < BM * BK; e += 256) {
            int r = e / BK, kk = e % BK;
            int gr = block_row + r, gk = k0 + kk;
            as[kk][r] = (gr < m && gk < k) ? a[(size_t)gr * k + gk] : 0.0f;
        }
        // Load the B tile (BK x BN), each warp reading 32 consecutive floats of a row of B.
        #pragma unroll
        for (int e = tid; e < BK * BN; e += 256) {
            int kk = e / BN, col = e % BN;
            int gk = k0 + kk, gc = block_col + col;
            bs[kk][col] = (gk < k && gc < n) ? b[(size_t)gk * n + gc] : 0.0f;
        }
        __syncthreads();

        #pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float av[TM], bv[TN];
            // Register arrays indexed only by unrolled constants stay in registers.
            #pragma unroll
            for (int i = 0; i < 4; ++i) {
                av[i] = as[kk][tr * 4 + i];
                av[4 + i] = as[kk][64 + tr * 4 + i];
                bv[i] = bs[kk][tc * 4 + i];
                bv[4 + i] = bs[kk][64 + tc * 4 + i];
            }
            #pragma unroll
            for (int i = 0; i < TM; ++i)
                #pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }

    #pragma unroll
    for (int i = 0; i < TM; ++i) {
        int row = block_row + (i < 4 ? tr * 4 + i : 64 + tr * 4 + (i - 4));
        #pragma unroll
        for (int j = 0; j < TN; ++j) {
            int col = block_col + (j < 4 ? tc * 4 + j : 64 + tc * 4 + (j - 4));
            if (row < m && col < n)
                c[(size_t)row * n + col] = acc[i][j];
        }
    }
}
// --8<-- [end:register]

}  // extern "C"
