// Day 16: single-precision matrix multiply, C = A x B: a ladder of three rungs (naive, shared-memory
// tile, register tile) and two variants of the shared-memory rung (a 16 x 16 tile, and the 32 x 32
// tile double-buffered with asynchronous copies).
//
// A is m x k, B is k x n, C is m x n, all row-major float32. A multiply does 2*m*n*k floating-point
// operations on only 4*(m*k + k*n + m*n) bytes of unique data, so unlike a transpose it can be
// limited by arithmetic, if each byte fetched from memory is reused often enough. Each rung raises
// that reuse. Sizes need not be multiples of any tile: edge tiles load zeros past the matrix edge
// (zeros add nothing to a dot product) and store only the elements inside it.

#include <cuda_pipeline.h>  // __pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior

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

// --8<-- [start:shared]
// Shared-memory tiling: a TS x TS block stages a TS x TS tile of A and one of B, then every thread
// uses TS values from each tile. Each element of A is now requested from global memory n/TS times
// instead of n (B: m/TS instead of m): TS times fewer global requests, paid for with two barriers
// per step along k. The measured gain over the naive kernel is far smaller than that factor,
// because the caches already served most of the naive kernel's repeated requests.
// One template, two block sizes (a template cannot have C linkage, so only the kernels are
// extern "C"): 32 x 32 = 1024 threads and 16 x 16 = 256 threads per block, to time occupancy.
template <int TS>
__device__ __forceinline__ void matmul_tile(float* __restrict__ c, const float* __restrict__ a,
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
            acc += as[ty][i] * bs[i][tx];  // as[ty][i]: one address per row of threads (a broadcast)
        // One barrier per step is not enough with one buffer: without this second one, a fast warp
        // would go round the loop and store the next tile over values a slower warp is still
        // reading. (matmul_shared_db below needs only one: the next tile goes to the other buffer.)
        __syncthreads();
    }
    if (row < m && col < n)
        c[(size_t)row * n + col] = acc;
}

extern "C" __global__ void matmul_shared(float* __restrict__ c, const float* __restrict__ a,
                                         const float* __restrict__ b, int m, int n, int k)
{
    matmul_tile<32>(c, a, b, m, n, k);
}

extern "C" __global__ void matmul_shared16(float* __restrict__ c, const float* __restrict__ a,
                                           const float* __restrict__ b, int m, int n, int k)
{
    matmul_tile<16>(c, a, b, m, n, k);
}
// --8<-- [end:shared]

// --8<-- [start:double]
// Double buffering: the 32 x 32 shared tile with two buffers per matrix. While the block multiplies
// tile t out of one buffer, the copies of tile t + 1 into the other are already on their way.
// cp.async (through __pipeline_memcpy_async) copies global memory straight into shared memory
// without passing through registers, and the thread that issued it does not wait for it: it waits
// only at __pipeline_wait_prior. One barrier per step is now enough, because it sits where both
// hazards meet: after it, tile t is complete in its buffer, and every warp has finished reading the
// other buffer (tile t - 1), which the copies issued just after the barrier overwrite.
#define DB 32

// One element of each tile per thread, as matmul_shared loads them. An element outside the matrix
// is not read: the copy reads 0 bytes and fills the 4 bytes in shared memory with zeros (the
// zfill argument). Its source pointer is still a valid address (the matrix's first element).
__device__ __forceinline__ void stage_tiles_async(float (*as)[DB], float (*bs)[DB],
                                                  const float* __restrict__ a, const float* __restrict__ b,
                                                  int m, int n, int k, int row, int col, int k0)
{
    int tx = threadIdx.x, ty = threadIdx.y;
    bool a_in = row < m && k0 + tx < k;
    bool b_in = k0 + ty < k && col < n;
    __pipeline_memcpy_async(&as[ty][tx], a_in ? a + (size_t)row * k + k0 + tx : a, sizeof(float),
                            a_in ? 0 : sizeof(float));
    __pipeline_memcpy_async(&bs[ty][tx], b_in ? b + (size_t)(k0 + ty) * n + col : b, sizeof(float),
                            b_in ? 0 : sizeof(float));
    __pipeline_commit();  // one group per tile: the unit __pipeline_wait_prior waits for
}

// The bound asks ptxas for a register count at which two blocks of 1024 threads fit on one SM
// (65536 registers / 2048 threads = 32), the same occupancy as matmul_shared.
extern "C" __global__ void __launch_bounds__(DB * DB, 2)
matmul_shared_db(float* __restrict__ c, const float* __restrict__ a, const float* __restrict__ b,
                 int m, int n, int k)
{
    __shared__ __align__(16) float as[2][DB][DB];
    __shared__ __align__(16) float bs[2][DB][DB];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * DB + ty;
    int col = blockIdx.x * DB + tx;
    int tiles = (k + DB - 1) / DB;
    float acc = 0.0f;

    if (tiles > 0)  // never leave a copy in flight at exit (k == 0 has no tile)
        stage_tiles_async(as[0], bs[0], a, b, m, n, k, row, col, 0);
    for (int t = 0; t < tiles; ++t) {
        int cur = t & 1;
        __pipeline_wait_prior(0);  // this thread's copies of tile t have landed...
        __syncthreads();           // ...and everyone's; and nobody still reads buffer cur ^ 1
        if (t + 1 < tiles)         // the same for every thread of the block: no divergent barrier
            stage_tiles_async(as[cur ^ 1], bs[cur ^ 1], a, b, m, n, k, row, col, (t + 1) * DB);

        #pragma unroll
        for (int i = 0; i < DB; ++i)
            acc += as[cur][ty][i] * bs[cur][i][tx];
    }
    if (row < m && col < n)
        c[(size_t)row * n + col] = acc;
}
// --8<-- [end:double]

extern "C" {

// --8<-- [start:register]
// Register tiling: 256 threads compute a 128 x 128 tile of C, each thread an 8 x 8 patch held in
// 64 registers. Per step along k a thread loads 8 values of A and 8 of B from shared memory (four
// 16-byte loads) and does 64 multiply-adds with them: each value loaded from shared memory feeds 8
// FMAs, where in the shared tile above each feeds one (two values per FMA there, a quarter here).
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

// One step of BK along k for one thread: 8 values of A and 8 of B from shared memory into registers,
// then 64 multiply-adds into the thread's 8 x 8 patch. Each thread owns rows {tr*4 .. tr*4+3} and
// {64 + tr*4 .. 64 + tr*4+3} of the tile (same for columns): splitting the patch in two halves keeps
// the 16 threads of a row group reading 16 consecutive float4 of shared memory, which is
// conflict-free, instead of 32 bytes apart. Register arrays indexed only by unrolled constants stay
// in registers.
static __device__ __forceinline__ void register_tile_steps(float (&acc)[TM][TN], const float (*as)[BM],
                                                           const float (*bs)[BN], int tr, int tc)
{
    #pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
        float av[TM], bv[TN];
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
}

// The thread's 8 x 8 patch of C, with the same row and column split, each element guarded.
static __device__ __forceinline__ void store_register_tile(float* __restrict__ c, const float (&acc)[TM][TN],
                                                           int m, int n, int block_row, int block_col,
                                                           int tr, int tc)
{
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

    float acc[TM][TN];  // the thread's 8 x 8 patch (which rows and columns: register_tile_steps)
    #pragma unroll
    for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < k; k0 += BK) {
        // Load the A tile (BM x BK = 1024 floats, 4 per thread); neighbouring threads read
        // neighbouring k, 8 floats (32 bytes) per row: one sector when k % 8 == 0; otherwise most
        // rows start off a 32-byte boundary and straddle two.
        // The store into as[kk][r] is an 8-way bank conflict: in a warp kk = lane % 8 and
        // r = lane / 8 + a constant, so the 32 lanes hit 4 banks (r % 32), 8 lanes each, at 8
        // different words (kk * BM + r). It costs 4 such stores per thread per tile, against the
        // 32 16-byte shared loads per thread per tile in register_tile_steps.
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
        register_tile_steps(acc, as, bs, tr, tc);
        __syncthreads();
    }
    store_register_tile(c, acc, m, n, block_row, block_col, tr, tc);
}
// --8<-- [end:register]

// --8<-- [start:register-double]
// The register tile, double-buffered: two A tiles and two B tiles in shared memory (16 KiB per
// block instead of 8), the next pair copied in with cp.async while the 64 multiply-adds per step run
// on the current pair. The register kernel above keeps only two blocks (16 warps) per SM, so a warp
// waiting for its tile has few others to hide behind: the case double buffering is for. The copies
// are 4 bytes each, element for element as the single-buffered kernel loads them (out-of-range
// elements zero-filled), so the two kernels differ only in when the loads happen.
static __device__ __forceinline__ void stage_register_tiles(float (*as)[BM], float (*bs)[BN],
                                                            const float* __restrict__ a,
                                                            const float* __restrict__ b, int m, int n, int k,
                                                            int block_row, int block_col, int k0)
{
    #pragma unroll
    for (int e = threadIdx.x; e < BM * BK; e += 256) {
        int r = e / BK, kk = e % BK;
        int gr = block_row + r, gk = k0 + kk;
        bool in = gr < m && gk < k;
        __pipeline_memcpy_async(&as[kk][r], in ? a + (size_t)gr * k + gk : a, sizeof(float), in ? 0 : sizeof(float));
    }
    #pragma unroll
    for (int e = threadIdx.x; e < BK * BN; e += 256) {
        int kk = e / BN, col = e % BN;
        int gk = k0 + kk, gc = block_col + col;
        bool in = gk < k && gc < n;
        __pipeline_memcpy_async(&bs[kk][col], in ? b + (size_t)gk * n + gc : b, sizeof(float), in ? 0 : sizeof(float));
    }
    __pipeline_commit();
}

// The bound keeps the register count at or under 128, so two blocks still fit on an SM, as for
// matmul_register.
__global__ void __launch_bounds__(256, 2) matmul_register_db(float* __restrict__ c, const float* __restrict__ a,
                                                             const float* __restrict__ b, int m, int n, int k)
{
    __shared__ __align__(16) float as[2][BK][BM];
    __shared__ __align__(16) float bs[2][BK][BN];

    const int tid = threadIdx.x;
    const int tr = tid / 16;
    const int tc = tid % 16;
    const int block_row = blockIdx.y * BM;
    const int block_col = blockIdx.x * BN;
    const int tiles = (k + BK - 1) / BK;

    float acc[TM][TN];
    #pragma unroll
    for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.0f;

    if (tiles > 0)  // never leave a copy in flight at exit (k == 0 has no tile)
        stage_register_tiles(as[0], bs[0], a, b, m, n, k, block_row, block_col, 0);
    for (int t = 0; t < tiles; ++t) {
        const int cur = t & 1;
        __pipeline_wait_prior(0);  // this thread's copies of tile t have landed...
        __syncthreads();           // ...and everyone's; and nobody still reads buffer cur ^ 1
        if (t + 1 < tiles)         // the same for every thread of the block: no divergent barrier
            stage_register_tiles(as[cur ^ 1], bs[cur ^ 1], a, b, m, n, k, block_row, block_col, (t + 1) * BK);
        register_tile_steps(acc, as[cur], bs[cur], tr, tc);
    }
    store_register_tile(c, acc, m, n, block_row, block_col, tr, tc);
}
// --8<-- [end:register-double]

}  // extern "C"
