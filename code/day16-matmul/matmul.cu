// Day 16: single-precision matrix multiply, C = A x B: a ladder of rungs (naive, shared-memory
// tile, register tile, register tile double-buffered with 16-byte cp.async, tensor cores in TF32)
// and variants beside them (a 16 x 16 shared tile, the shared tile double-buffered, the
// double-buffered register tile with 4-byte copies).
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

}  // extern "C" (the rungs below use templates, which cannot have C linkage)

// --8<-- [start:register-double]
// The register tile, double-buffered: two A tiles and two B tiles in shared memory (16 KiB per
// block instead of 8), the next pair copied in with cp.async while the 64 multiply-adds per step run
// on the current pair. The register kernel above keeps only two blocks (16 warps) per SM, so a warp
// waiting for its tile has few others to hide behind: the case double buffering is for.
//
// The copies are 16 bytes wide (cp.async.cg ... 16): one instruction moves 4 floats, a quarter of
// the copy instructions of 4-byte copies. A 16-byte copy writes 4 consecutive words of shared
// memory from 4 consecutive words of global memory, so the A tile is kept as A is stored, row by
// row (as[row][k], 8 floats = two 16-byte chunks per row), not transposed as in matmul_register.
// The same kernel with 4-byte copies (matmul_register_db4, the same layout and chunk per thread)
// isolates the effect of the copy width.
//
// A 16-byte copy needs a 16-byte aligned source: a row of A starts on one only when k % 4 == 0
// (a row of B when n % 4 == 0). Where that fails (the ragged size) the chunk falls back to four
// 4-byte copies, so the ragged size measures the 4-byte path in both kernels.

// Shared-memory addresses for the PTX below are 32-bit offsets in the shared window.
static __device__ __forceinline__ unsigned smem_addr(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One 16-byte copy of which only the first src_bytes (0..16) are read; the rest of the 16 bytes in
// shared memory is filled with zeros. Both addresses must be 16-byte aligned, also when src_bytes
// is 0 (the caller then passes the matrix's base pointer, which is).
static __device__ __forceinline__ void cp_async_16(void* dst, const float* src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(src_bytes)
                 : "memory");
}

// One 4-byte copy, src_bytes 0 (zero fill, nothing read) or 4. (.cg takes only 16-byte copies.)
static __device__ __forceinline__ void cp_async_4(void* dst, const float* src, int src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(src_bytes)
                 : "memory");
}

// A chunk of 4 consecutive floats of one matrix row: `valid` of them (0..4) lie inside the matrix,
// starting at src. 16 bytes at once when allowed (wide and src 16-byte aligned); otherwise one
// 4-byte copy per float, those past the edge zero-filled without reading.
template <bool WIDE>
static __device__ __forceinline__ void copy_chunk(float* dst, const float* src, const float* base,
                                                  int valid, bool aligned)
{
    if (WIDE && aligned) {
        cp_async_16(dst, valid > 0 ? src : base, 4 * valid);
    } else {
        #pragma unroll
        for (int i = 0; i < 4; ++i)
            cp_async_4(dst + i, i < valid ? src + i : base, i < valid ? 4 : 0);
    }
}

// Thread t copies one chunk of A (row t / 2, floats (t % 2) * 4 .. + 3 of the tile's 8 along k) and
// one chunk of B (row t / 32, floats (t % 32) * 4 .. + 3 of the tile's 128): 256 chunks each, so
// every element of both tiles is written, zeros outside the matrices. k0 and block_col are
// multiples of 4, so with k % 4 == 0 (n % 4 == 0 for B) every chunk starts 16-byte aligned.
template <bool WIDE>
static __device__ __forceinline__ void stage_register_tiles(float (*as)[BK], float (*bs)[BN],
                                                            const float* __restrict__ a,
                                                            const float* __restrict__ b, int m, int n, int k,
                                                            int block_row, int block_col, int k0)
{
    const int t = threadIdx.x;
    {
        int r = t / 2, kk = (t % 2) * 4;
        int gr = block_row + r, gk = k0 + kk;
        int valid = gr < m ? max(0, min(4, k - gk)) : 0;
        bool aligned = (k % 4 == 0) && (reinterpret_cast<size_t>(a) % 16 == 0);
        copy_chunk<WIDE>(&as[r][kk], a + (size_t)gr * k + gk, a, valid, aligned);
    }
    {
        int kk = t / 32, col = (t % 32) * 4;
        int gk = k0 + kk, gc = block_col + col;
        int valid = gk < k ? max(0, min(4, n - gc)) : 0;
        bool aligned = (n % 4 == 0) && (reinterpret_cast<size_t>(b) % 16 == 0);
        copy_chunk<WIDE>(&bs[kk][col], b + (size_t)gk * n + gc, b, valid, aligned);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");  // one group per tile pair
}

// The 8 x 8 step of register_tile_steps with A kept row by row: per half of BK the thread reads
// 4 consecutive k of each of its 8 rows with one 16-byte load (8 loads), then per k its 8 B values
// (2 loads) as before: 16 + 16 = 32 16-byte loads per tile, as many as the transposed layout.
// The 16 threads of a row group read the same A address (a broadcast).
static __device__ __forceinline__ float lane_of(const float4& v, int i)
{
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;  // i is an unrolled constant
}

static __device__ __forceinline__ void register_tile_steps_rows(float (&acc)[TM][TN], const float (*as)[BK],
                                                                const float (*bs)[BN], int tr, int tc)
{
    #pragma unroll
    for (int k4 = 0; k4 < BK; k4 += 4) {
        float4 a4[TM];
        #pragma unroll
        for (int i = 0; i < 4; ++i) {
            a4[i] = *reinterpret_cast<const float4*>(&as[tr * 4 + i][k4]);
            a4[4 + i] = *reinterpret_cast<const float4*>(&as[64 + tr * 4 + i][k4]);
        }
        #pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
            float4 b0 = *reinterpret_cast<const float4*>(&bs[k4 + kk][tc * 4]);
            float4 b1 = *reinterpret_cast<const float4*>(&bs[k4 + kk][64 + tc * 4]);
            float bv[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
            #pragma unroll
            for (int i = 0; i < TM; ++i)
                #pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += lane_of(a4[i], kk) * bv[j];
        }
    }
}

// One body, two copy widths. The bound keeps the register count at or under 128, so two blocks
// still fit on an SM, as for matmul_register.
template <bool WIDE>
static __device__ __forceinline__ void register_db(float* __restrict__ c, const float* __restrict__ a,
                                                   const float* __restrict__ b, int m, int n, int k)
{
    __shared__ __align__(16) float as[2][BM][BK];
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
        stage_register_tiles<WIDE>(as[0], bs[0], a, b, m, n, k, block_row, block_col, 0);
    for (int t = 0; t < tiles; ++t) {
        const int cur = t & 1;
        asm volatile("cp.async.wait_group 0;\n" ::: "memory");  // this thread's copies of tile t...
        __syncthreads();  // ...and everyone's have landed; and nobody still reads buffer cur ^ 1
        if (t + 1 < tiles)  // the same for every thread of the block: no divergent barrier
            stage_register_tiles<WIDE>(as[cur ^ 1], bs[cur ^ 1], a, b, m, n, k, block_row, block_col,
                                       (t + 1) * BK);
        register_tile_steps_rows(acc, as[cur], bs[cur], tr, tc);
    }
    store_register_tile(c, acc, m, n, block_row, block_col, tr, tc);
}

extern "C" __global__ void __launch_bounds__(256, 2) matmul_register_db(float* __restrict__ c, const float* __restrict__ a,
                                                             const float* __restrict__ b, int m, int n, int k)
{
    register_db<true>(c, a, b, m, n, k);  // 16-byte copies where aligned
}

extern "C" __global__ void __launch_bounds__(256, 2) matmul_register_db4(float* __restrict__ c, const float* __restrict__ a,
                                                              const float* __restrict__ b, int m, int n, int k)
{
    register_db<false>(c, a, b, m, n, k);  // always 4-byte copies
}
// --8<-- [end:register-double]

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
