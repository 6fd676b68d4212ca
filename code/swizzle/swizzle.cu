// Swizzling: a third way out of the bank conflicts of a shared-memory transpose. The padded tile
// (tile[32][33]) spends a word per row to shift each row by one bank; a swizzle keeps tile[32][32]
// and instead permutes where each row stores its elements: element [r][c] goes to column c ^ r.
//
// Layout as in day 13: src is rows x cols, row-major; dst is cols x rows, row-major. 32 x 32 tiles,
// 32 x 8 threads per block, four elements per thread, so these rows compare with day 13's.
// Sizes need not be multiples of 32: edge tiles are partial, every global access is guarded, and
// the guards never enclose the barrier.

#define TILE 32
#define ROWS_PER_PASS 8

extern "C" {

// --8<-- [start:copy]
// The ceiling: the same tiles, threads and guards, rows in and rows out, no shared memory.
__global__ void copy_tiles(float* __restrict__ dst, const float* __restrict__ src, int rows, int cols)
{
    int col = blockIdx.x * TILE + threadIdx.x;
    int row0 = blockIdx.y * TILE + threadIdx.y;
    float v[TILE / ROWS_PER_PASS] = {};
    #pragma unroll
    for (int p = 0; p < TILE / ROWS_PER_PASS; ++p) {
        int row = row0 + p * ROWS_PER_PASS;
        if (row < rows && col < cols)
            v[p] = src[(size_t)row * cols + col];
    }
    #pragma unroll
    for (int p = 0; p < TILE / ROWS_PER_PASS; ++p) {
        int row = row0 + p * ROWS_PER_PASS;
        if (row < rows && col < cols)
            dst[(size_t)row * cols + col] = v[p];
    }
}
// --8<-- [end:copy]

// --8<-- [start:conflicted]
// tile[32][32]: the stores into the tile walk along a row (32 banks), but the reads walk down a
// column, and all 32 words of a column sit in one bank: 32 wavefronts per read instruction.
__global__ void transpose_conflicted(float* __restrict__ dst, const float* __restrict__ src, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TILE + tx, row0 = blockIdx.y * TILE + ty;          // in src
    int out_col = blockIdx.y * TILE + tx, out_row0 = blockIdx.x * TILE + ty;  // in dst
    #pragma unroll
    for (int p = 0; p < TILE; p += ROWS_PER_PASS)
        if (row0 + p < rows && col < cols)
            tile[ty + p][tx] = src[(size_t)(row0 + p) * cols + col];
    __syncthreads();  // reached by every thread
    #pragma unroll
    for (int p = 0; p < TILE; p += ROWS_PER_PASS)
        if (out_row0 + p < cols && out_col < rows)
            dst[(size_t)(out_row0 + p) * rows + out_col] = tile[tx][ty + p];
}
// --8<-- [end:conflicted]

// --8<-- [start:padded]
// tile[32][33]: one word of padding per row puts [r][c] at word r * 33 + c, bank (r + c) % 32, so a
// column's 32 words fall in 32 different banks. Costs 32 words of shared memory per tile.
__global__ void transpose_padded(float* __restrict__ dst, const float* __restrict__ src, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];

    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TILE + tx, row0 = blockIdx.y * TILE + ty;
    int out_col = blockIdx.y * TILE + tx, out_row0 = blockIdx.x * TILE + ty;
    #pragma unroll
    for (int p = 0; p < TILE; p += ROWS_PER_PASS)
        if (row0 + p < rows && col < cols)
            tile[ty + p][tx] = src[(size_t)(row0 + p) * cols + col];
    __syncthreads();
    #pragma unroll
    for (int p = 0; p < TILE; p += ROWS_PER_PASS)
        if (out_row0 + p < cols && out_col < rows)
            dst[(size_t)(out_row0 + p) * rows + out_col] = tile[tx][ty + p];
}
// --8<-- [end:padded]

// --8<-- [start:swizzled]
// tile[32][32] with an XOR swizzle: logical element [r][c] is stored at tile[r][c ^ r]. For r and c
// in 0..31, c ^ r is again in 0..31, and for a fixed r it is a permutation of the columns, so
// nothing collides and no padding is needed.
// - Store (a warp writes one row r, lanes c = 0..31): columns c ^ r, a permutation of the 32 banks.
// - Load (a warp reads one logical column c, lanes r = 0..31): word r * 32 + (c ^ r), bank c ^ r,
//   again 32 different banks. Both sides are conflict-free, as with the padded tile.
// The price is an XOR per index instead of a word per row.
__global__ void transpose_swizzled(float* __restrict__ dst, const float* __restrict__ src, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TILE + tx, row0 = blockIdx.y * TILE + ty;
    int out_col = blockIdx.y * TILE + tx, out_row0 = blockIdx.x * TILE + ty;
    #pragma unroll
    for (int p = 0; p < TILE; p += ROWS_PER_PASS) {
        int r = ty + p;  // logical [r][tx]
        if (row0 + p < rows && col < cols)
            tile[r][tx ^ r] = src[(size_t)(row0 + p) * cols + col];
    }
    __syncthreads();
    #pragma unroll
    for (int p = 0; p < TILE; p += ROWS_PER_PASS) {
        int c = ty + p;  // logical [tx][c]
        if (out_row0 + p < cols && out_col < rows)
            dst[(size_t)(out_row0 + p) * rows + out_col] = tile[tx][c ^ tx];
    }
}
// --8<-- [end:swizzled]

}  // extern "C"
