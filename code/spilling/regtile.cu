// Register pressure and spilling: day 16's register-tiled matrix multiply (code/day16-matmul, copied
// here unchanged as register_tile_body) compiled four times, once as the compiler likes and three times
// with the registers per thread capped by __maxnreg__ (96, 80, 64). Left alone it takes 127 registers
// with nvcc 13.0 (so a cap of 128 would change nothing; its 8 x 8 accumulator patch alone is 64
// floats); under a lower cap ptxas keeps what does not fit in local memory: per-thread memory in device DRAM, cached in the L1 and L2 ("spilling"). The
// runner records each build's registers and local memory per thread; the counter pass counts the
// local loads and stores and the sectors they touched.

// Register tiling: 256 threads compute a 128 x 128 tile of C, each thread an 8 x 8 patch held in
// 64 registers. Per step along k a thread loads 8 values of A and 8 of B from shared memory (four
// 16-byte loads) and does 64 multiply-adds with them: each value loaded from shared memory feeds 8
// FMAs, where in day 16's shared tile each feeds one (two values per FMA there, a quarter here).
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

// --8<-- [start:body]
static __device__ __forceinline__ void register_tile_body(float* __restrict__ c, const float* __restrict__ a,
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
// --8<-- [end:body]

extern "C" {

// --8<-- [start:variants]
#define MATMUL_ARGS float *__restrict__ c, const float *__restrict__ a, const float *__restrict__ b, int m, int n, int k
__global__ void __launch_bounds__(256) regtile_free(MATMUL_ARGS) { register_tile_body(c, a, b, m, n, k); }
__global__ void __maxnreg__(96) regtile_max96(MATMUL_ARGS) { register_tile_body(c, a, b, m, n, k); }
__global__ void __maxnreg__(80) regtile_max80(MATMUL_ARGS) { register_tile_body(c, a, b, m, n, k); }
__global__ void __maxnreg__(64) regtile_max64(MATMUL_ARGS) { register_tile_body(c, a, b, m, n, k); }
// --8<-- [end:variants]

}  // extern "C"
