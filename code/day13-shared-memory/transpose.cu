// Day 13: the matrix-transpose ladder. Every kernel here moves the same bytes as a copy, so any time
// one takes beyond the copy is lost to the order of its memory accesses, not to arithmetic.
//
// Layout: src is rows x cols, row-major; dst is cols x rows, row-major. Every kernel runs on a grid
// of 32 x 32 tiles with 32 x 8 threads per block, so each thread handles four elements of its tile:
// four independent loads per thread, all issued before the first of them is stored.
// Sizes need not be multiples of 32: edge tiles are partial, and every global access is guarded.
//
// Every pointer is __restrict__: it promises the compiler that dst and src never overlap, so it
// reads src through the non-coherent path (ld.global.nc in the PTX). It does not change the order:
// every kernel here already loads all four elements before its first store, and with or without
// __restrict__ the machine code issues the four loads first; only the .nc goes.
// Register arrays such as v[] below are indexed only by unrolled loop counters, so they stay in
// registers (ptxas reports no stack frame and no spills).

#define TILE 32
#define ROWS_PER_PASS 8  // blockDim.y: the tile is covered in TILE / ROWS_PER_PASS passes

extern "C" {

// --8<-- [start:copy]
// The ceiling for the ladder: same tiles, same threads, same guards, but rows in and rows out, so
// both the loads and the stores of a warp touch 32 consecutive floats: 128 bytes, which are one
// 128-byte line when cols % 32 == 0 (otherwise most rows start off a 128-byte boundary and a
// warp's access straddles two lines). All four loads are issued before the first store, as the tiled kernels do
// through shared memory.
__global__ void copy_tiles(float* __restrict__ dst, const float* __restrict__ src,
                           int rows, int cols)
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

// --8<-- [start:naive]
// Naive transpose: the reads walk along a row (coalesced), but the writes walk down a column of dst,
// so the 32 stores of a warp land 'rows' floats apart: 32 different 32-byte sectors, 4 bytes written
// in each, where a warp's row-wise store covers four (five when unaligned).
// Everything else, including the four loads issued before the first store, is the copy above.
__global__ void transpose_naive(float* __restrict__ dst, const float* __restrict__ src,
                                int rows, int cols)
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
            dst[(size_t)col * rows + row] = v[p];
    }
}
// --8<-- [end:naive]

// --8<-- [start:tiled]
// Tiled transpose: stage a 32 x 32 tile in shared memory so that BOTH global sides are row-wise.
// The transposition happens inside the tile, where a column read is cheap... almost: with 32 floats
// per row, every element of a tile column sits in the same one of the 32 banks (see tile[32][33]).
__global__ void transpose_tiled(float* __restrict__ dst, const float* __restrict__ src,
                                int rows, int cols)
{
    __shared__ float tile[TILE][TILE];

    int col = blockIdx.x * TILE + threadIdx.x;
    int row0 = blockIdx.y * TILE + threadIdx.y;
    #pragma unroll
    for (int pass = 0; pass < TILE; pass += ROWS_PER_PASS) {
        int row = row0 + pass;
        if (row < rows && col < cols)  // guard the global load only
            tile[threadIdx.y + pass][threadIdx.x] = src[(size_t)row * cols + col];
    }

    // Every thread of the block must arrive here, including those whose elements fell outside the
    // matrix. No guard may enclose the barrier and no thread may return before it: in an edge tile
    // the load guard and the store guard select different threads, so a thread with nothing to load
    // may still have elements to store.
    __syncthreads();

    // Swap the block's roles: this block now writes the tile at (blockIdx.x, blockIdx.y) of dst,
    // with threadIdx.x running along a row of dst, so the stores coalesce.
    int out_col = blockIdx.y * TILE + threadIdx.x;  // a row index of src
    int out_row0 = blockIdx.x * TILE + threadIdx.y;  // a column index of src
    #pragma unroll
    for (int pass = 0; pass < TILE; pass += ROWS_PER_PASS) {
        int out_row = out_row0 + pass;
        if (out_row < cols && out_col < rows)
            dst[(size_t)out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y + pass];
    }
}
// --8<-- [end:tiled]

// --8<-- [start:padded]
// The same kernel with one float of padding per tile row. Element [r][c] now sits at word
// r * 33 + c, so walking down a column moves one bank per step and a warp's 32 reads of
// tile[tx][k] hit 32 different banks: one pass through the banks instead of 32.
// The two loops are written compactly so that the accesses around the barrier read as one piece.
__global__ void transpose_padded(float* __restrict__ dst, const float* __restrict__ src,
                                 int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];

    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TILE + tx;       // this thread's column and first row in src
    int row0 = blockIdx.y * TILE + ty;
    int out_col = blockIdx.y * TILE + tx;   // and in dst: the block indices swap roles
    int out_row0 = blockIdx.x * TILE + ty;
    // --8<-- [start:barrier]
    for (int p = 0; p < TILE; p += ROWS_PER_PASS)  // src rows -> tile rows (guard: inside src)
        if (row0 + p < rows && col < cols) tile[ty + p][tx] = src[(size_t)(row0 + p) * cols + col];
    __syncthreads();  // reached by every thread: the guards choose elements, they never enclose it
    for (int p = 0; p < TILE; p += ROWS_PER_PASS)  // tile columns -> dst rows (guard: inside dst)
        if (out_row0 + p < cols && out_col < rows) dst[(size_t)(out_row0 + p) * rows + out_col] = tile[tx][ty + p];
    // --8<-- [end:barrier]
}
// --8<-- [end:padded]

// --8<-- [start:panels]
// tile[32][33] again, with one change: the ORDER in which tiles are handed to blocks. Blocks start
// roughly in blockIdx order, and about a thousand of them are resident at once on an H200 (8 per
// SM). In row-major order those blocks read one contiguous band of src but write short pieces
// (512 bytes at 8192 x 8192) spread over all of dst; walking the tiles in panels 32 tiles wide
// makes the resident blocks a roughly square patch, so that reads and writes both come in runs of
// about 4 KiB. The idea is that DRAM rewards longer runs. Whether it pays on the H200 is what day 13's
// table shows, size by size, against plain tile[32][33]: a plausible optimisation, kept to be
// measured rather than assumed.
#define PANEL 32

__global__ void transpose_padded_panels(float* __restrict__ dst, const float* __restrict__ src,
                                        int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];

    // Renumber the blocks: consecutive ids fill a panel of up to PANEL tile columns, top to bottom.
    int id = blockIdx.y * gridDim.x + blockIdx.x;
    int panel_tiles = PANEL * gridDim.y;
    int first_x = id / panel_tiles * PANEL;
    int width = min((int)gridDim.x - first_x, PANEL);  // the last panel may be narrower
    int local = id % panel_tiles;
    int bx = first_x + local % width;
    int by = local / width;

    int col = bx * TILE + threadIdx.x;
    int row0 = by * TILE + threadIdx.y;
    #pragma unroll
    for (int pass = 0; pass < TILE; pass += ROWS_PER_PASS) {
        int row = row0 + pass;
        if (row < rows && col < cols)
            tile[threadIdx.y + pass][threadIdx.x] = src[(size_t)row * cols + col];
    }

    __syncthreads();

    int out_col = by * TILE + threadIdx.x;
    int out_row0 = bx * TILE + threadIdx.y;
    #pragma unroll
    for (int pass = 0; pass < TILE; pass += ROWS_PER_PASS) {
        int out_row = out_row0 + pass;
        if (out_row < cols && out_col < rows)
            dst[(size_t)out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y + pass];
    }
}
// --8<-- [end:panels]

}  // extern "C"
