// Day 20: 2-D convolution of a float image with a (2R+1) x (2R+1) filter, "same" output size, zero
// padding outside the image:
//
//     dst[y][x] = sum over dy, dx in [-R, R] of src[y+dy][x+dx] * w[(dy+R) * (2R+1) + (dx+R)]
//
// with src[..] = 0 outside the image. src and dst are rows x cols, row-major. Every kernel here runs
// on the same grid: blocks of 32 x 16 threads, one output pixel per thread, so a block owns a 32-wide,
// 16-tall tile of the output. The radius is a template parameter, so every filter loop is unrolled
// and every weight index is a constant; C linkage needs one named kernel per radius.

#define BW 32  // tile width  = blockDim.x
#define BH 16  // tile height = blockDim.y
#define RMAX 2
#define WMAX ((2 * RMAX + 1) * (2 * RMAX + 1))

// --8<-- [start:copy]
// The same-size copy: same grid, same guard, one load and one store per thread. It moves exactly
// the bytes every convolution below must move, so it is the denominator of their "% of copy": what
// a convolution costs over a copy written the same way. It is not the GPU's copy ceiling.
extern "C" __global__ void conv_copy(float* __restrict__ dst, const float* __restrict__ src, int rows, int cols)
{
    int x = blockIdx.x * BW + threadIdx.x;
    int y = blockIdx.y * BH + threadIdx.y;
    if (y < rows && x < cols)
        dst[(size_t)y * cols + x] = src[(size_t)y * cols + x];
}
// --8<-- [end:copy]

// --8<-- [start:naive]
// Naive: every thread reads its whole (2R+1)^2 neighbourhood from global memory. Neighbouring
// threads read mostly the same pixels, so most of these requests are served by the L1 and L2 rather
// than DRAM, but each one is still a load instruction and a trip through the cache.
template <int R>
__device__ void conv_naive(float* __restrict__ dst, const float* __restrict__ src,
                           const float* __restrict__ w, int rows, int cols)
{
    int x = blockIdx.x * BW + threadIdx.x;
    int y = blockIdx.y * BH + threadIdx.y;
    if (y >= rows || x >= cols)
        return;  // no barrier in this kernel, so an early return is safe
    float acc = 0.0f;
    #pragma unroll
    for (int dy = -R; dy <= R; ++dy) {
        #pragma unroll
        for (int dx = -R; dx <= R; ++dx) {
            int yy = y + dy, xx = x + dx;
            if (yy >= 0 && yy < rows && xx >= 0 && xx < cols)  // zero padding: skip, add nothing
                acc += src[(size_t)yy * cols + xx] * w[(dy + R) * (2 * R + 1) + (dx + R)];
        }
    }
    dst[(size_t)y * cols + x] = acc;
}
// --8<-- [end:naive]

// --8<-- [start:halo]
// Tiled with a halo: the block stages the input its tile needs, the 32 x 16 output tile plus R
// pixels on every side, in shared memory. There are more input pixels ((BH+2R) x (BW+2R)) than
// threads (BH x BW), so the block walks the patch in strides of its thread count (two passes for
// these radii); pixels outside the image are stored as 0 (the padding), so the compute loop below
// needs no bounds checks. A thread issues both of its loads before its first store into the patch,
// as day 13's kernels do: written as one load-then-store loop, the SASS stored the first pixel
// before it loaded the second, so the second load waited for the first.
// Every thread takes part in the load and reaches the barrier, including threads whose own output
// pixel lies outside the image: the guards (on the patch's last pass and on the final store) each
// enclose a store, never the barrier.
template <int R, bool CONST_W>
__device__ void conv_tiled(float* __restrict__ dst, const float* __restrict__ src,
                           const float* __restrict__ w, const float* cw, int rows, int cols)
{
    constexpr int PW = BW + 2 * R;  // patch width
    constexpr int PH = BH + 2 * R;  // patch height
    constexpr int PASSES = (PH * PW + BW * BH - 1) / (BW * BH);
    __shared__ float patch[PH][PW];

    const int tid = threadIdx.y * BW + threadIdx.x;
    const int x0 = blockIdx.x * BW - R;  // image coordinates of patch[0][0]
    const int y0 = blockIdx.y * BH - R;
    float v[PASSES];
    #pragma unroll
    for (int p = 0; p < PASSES; ++p) {  // loads: consecutive threads, consecutive pixels of a row
        int i = tid + p * BW * BH;
        int yy = y0 + i / PW, xx = x0 + i % PW;
        bool inside = i < PH * PW && yy >= 0 && yy < rows && xx >= 0 && xx < cols;
        v[p] = inside ? src[(size_t)yy * cols + xx] : 0.0f;
    }
    #pragma unroll
    for (int p = 0; p < PASSES; ++p) {  // stores: only the last pass can run past the patch
        int i = tid + p * BW * BH;
        if (i < PH * PW)
            patch[i / PW][i % PW] = v[p];
    }
    __syncthreads();  // the patch is complete, halo included

    float acc = 0.0f;
    #pragma unroll
    for (int dy = 0; dy <= 2 * R; ++dy) {
        #pragma unroll
        for (int dx = 0; dx <= 2 * R; ++dx) {
            // A warp's 32 threads read 32 consecutive words of one patch row: 32 different banks.
            float wv = CONST_W ? cw[dy * (2 * R + 1) + dx] : w[dy * (2 * R + 1) + dx];
            acc += patch[threadIdx.y + dy][threadIdx.x + dx] * wv;
        }
    }
    int x = blockIdx.x * BW + threadIdx.x;
    int y = blockIdx.y * BH + threadIdx.y;
    if (y < rows && x < cols)
        dst[(size_t)y * cols + x] = acc;
}
// --8<-- [end:halo]

// --8<-- [start:constant]
// The filter in constant memory: every thread of a warp reads the same weight at the same time, which
// is the access constant memory's cache serves in one go (a broadcast). The host copies the weights in
// before the launch (the runner does it from the spec's `constants:`).
__constant__ float c_weights[WMAX];
// --8<-- [end:constant]

extern "C" {
__global__ void conv_naive_r1(float* __restrict__ dst, const float* __restrict__ src,
                              const float* __restrict__ w, int rows, int cols)
{ conv_naive<1>(dst, src, w, rows, cols); }
__global__ void conv_naive_r2(float* __restrict__ dst, const float* __restrict__ src,
                              const float* __restrict__ w, int rows, int cols)
{ conv_naive<2>(dst, src, w, rows, cols); }
__global__ void conv_tiled_r1(float* __restrict__ dst, const float* __restrict__ src,
                              const float* __restrict__ w, int rows, int cols)
{ conv_tiled<1, false>(dst, src, w, c_weights, rows, cols); }
__global__ void conv_tiled_r2(float* __restrict__ dst, const float* __restrict__ src,
                              const float* __restrict__ w, int rows, int cols)
{ conv_tiled<2, false>(dst, src, w, c_weights, rows, cols); }
__global__ void conv_const_r1(float* __restrict__ dst, const float* __restrict__ src,
                              const float* __restrict__ w, int rows, int cols)
{ conv_tiled<1, true>(dst, src, w, c_weights, rows, cols); }
__global__ void conv_const_r2(float* __restrict__ dst, const float* __restrict__ src,
                              const float* __restrict__ w, int rows, int cols)
{ conv_tiled<2, true>(dst, src, w, c_weights, rows, cols); }
}  // extern "C"
