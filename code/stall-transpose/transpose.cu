// Warp stall reasons: copies of code/day13-shared-memory/transpose.cu's tile[32][32] and
// tile[32][33] transposes (the kernel text unchanged), launched here so that the counter pass can add
// Nsight Compute's warp-state counters to their rows without touching that experiment. The first
// reads a tile column from one bank 32 times over; the second from 32 banks.

#define TILE 32
#define ROWS_PER_PASS 8  // blockDim.y: the tile is covered in TILE / ROWS_PER_PASS passes

extern "C" {

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

}  // extern "C"
