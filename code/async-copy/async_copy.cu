// Asynchronous copies: four ways for a block to move tiles from global into shared memory before
// its threads read them. Every kernel does the same work: block b takes `per_block` consecutive
// tiles of TILE floats; for each, it stages the tile in shared memory, then writes it to dst in
// reverse order (dst[base + j] = src[base + v - 1 - j], v the tile's valid length), so every thread
// reads words another thread staged and the barrier between staging and reading is required.
// Only the staging differs:
//   plain:    ld.global into registers, st.shared from them, one tile at a time;
//   async:    cp.async.cg, 16 bytes per copy, global -> shared without registers, in STAGES buffers
//             (1: copy, wait, compute; 2 or 3: the next tiles' copies in flight while computing);
//   bulk:     one thread starts a single bulk copy (the TMA unit) of the whole tile, which signals
//             an mbarrier when its bytes have landed; 3 buffers.
// The last tile may be partial (n need not be a multiple of TILE, nor of 4): no thread reads or
// writes past n.

#define TILE 2048      // floats per tile: 8 KiB, 8 floats (two 16-byte chunks) per thread
#define THREADS 256
#define CHUNKS (TILE / 4)

static __device__ __forceinline__ unsigned smem_addr(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// The read-back, the same in every kernel: the tile's v valid floats reversed into dst.
// Consecutive lanes read consecutive words (descending): no bank conflict.
static __device__ __forceinline__ void write_reversed(float* __restrict__ dst, const float* tile, size_t base, int v)
{
    #pragma unroll
    for (int u = 0; u < TILE / THREADS; ++u) {
        int j = threadIdx.x + u * THREADS;
        if (j < v)
            dst[base + j] = tile[v - 1 - j];
    }
}

static __device__ __forceinline__ int valid_in_tile(int n, long long tile)
{
    long long left = n - tile * TILE;
    return left >= TILE ? TILE : (int)left;  // callers only pass tiles that start below n
}

extern "C" {

// --8<-- [start:plain]
// Staging through registers: each thread loads its two 16-byte chunks (ld.global.v4) and stores
// them into shared memory (st.shared.v4). The thread waits for its loads before it can store, and
// a tile is read only after every thread has stored, so the block's loads are not overlapped with
// its own reading (other resident blocks fill the gap).
__global__ void __launch_bounds__(THREADS) stage_plain(float* __restrict__ dst, const float* __restrict__ src,
                                                       int n, int per_block)
{
    __shared__ __align__(16) float tile[TILE];
    long long ntiles = ((long long)n + TILE - 1) / TILE;
    long long first = (long long)blockIdx.x * per_block;
    for (int i = 0; i < per_block && first + i < ntiles; ++i) {  // the same bound for every thread
        long long t = first + i;
        size_t base = (size_t)t * TILE;
        int v = valid_in_tile(n, t);
        #pragma unroll
        for (int u = 0; u < CHUNKS / THREADS; ++u) {
            int q = threadIdx.x + u * THREADS;  // this thread's chunk: floats 4q .. 4q + 3
            if (4 * q + 4 <= v) {
                *reinterpret_cast<float4*>(&tile[4 * q]) = *reinterpret_cast<const float4*>(&src[base + 4 * q]);
            } else {
                for (int e = 4 * q; e < v; ++e)  // the partial chunk at the end of the last tile
                    tile[e] = src[base + e];
            }
        }
        __syncthreads();  // the tile is complete
        write_reversed(dst, tile, base, v);
        __syncthreads();  // everyone has read it before the next tile overwrites it
    }
}
// --8<-- [end:plain]

}  // extern "C"

// --8<-- [start:async]
// cp.async.cg: 16 bytes from global straight into shared memory; only the first src_bytes are read
// (the rest is zero-filled). Both addresses must be 16-byte aligned: tiles start at multiples of
// 8 KiB and chunks at multiples of 16 bytes from an aligned buffer.
static __device__ __forceinline__ void cp_async_16(void* dst, const float* src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(src_bytes)
                 : "memory");
}

// This thread's two chunks of tile t; a chunk wholly past n is not copied (nothing reads it).
static __device__ __forceinline__ void issue_tile(float* tile, const float* __restrict__ src, int n, long long t)
{
    size_t base = (size_t)t * TILE;
    int v = valid_in_tile(n, t);
    #pragma unroll
    for (int u = 0; u < CHUNKS / THREADS; ++u) {
        int q = threadIdx.x + u * THREADS;
        int floats = min(4, v - 4 * q);
        if (floats > 0)
            cp_async_16(&tile[4 * q], &src[base + 4 * q], 4 * floats);
    }
}

// STAGES buffers. Before tile i is read, the copies of tiles i + 1 .. i + STAGES - 1 are already
// issued, so up to STAGES tiles per block are in flight. Every iteration commits exactly one group
// (empty past the block's last tile), so "all but the newest STAGES - 1 groups done" always means
// "tile i has landed" for this thread; the barrier after the wait extends that to every thread.
template <int STAGES>
static __device__ __forceinline__ void stage_async(float* __restrict__ dst, const float* __restrict__ src,
                                                   int n, int per_block)
{
    __shared__ __align__(16) float tiles[STAGES][TILE];
    long long ntiles = ((long long)n + TILE - 1) / TILE;
    long long first = (long long)blockIdx.x * per_block;
    int count = (int)min((long long)per_block, ntiles - first);  // >= 1: the grid has no empty block

    #pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < count)
            issue_tile(tiles[s], src, n, first + s);
        asm volatile("cp.async.commit_group;\n" ::: "memory");
    }
    for (int i = 0; i < count; ++i) {
        int j = i + STAGES - 1;  // its buffer held tile i - 1, which every thread finished reading
        if (j < count)           // before the barrier that ended the previous iteration
            issue_tile(tiles[j % STAGES], src, n, first + j);
        asm volatile("cp.async.commit_group;\n" ::: "memory");
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 1) : "memory");
        __syncthreads();  // tile i complete in tiles[i % STAGES], from every thread's copies
        write_reversed(dst, tiles[i % STAGES], (size_t)(first + i) * TILE, valid_in_tile(n, first + i));
        __syncthreads();  // read by everyone before a later iteration copies over it
    }
}

extern "C" __global__ void __launch_bounds__(THREADS) stage_async1(float* __restrict__ dst, const float* __restrict__ src,
                                                                  int n, int per_block)
{
    stage_async<1>(dst, src, n, per_block);
}

extern "C" __global__ void __launch_bounds__(THREADS) stage_async2(float* __restrict__ dst, const float* __restrict__ src,
                                                                  int n, int per_block)
{
    stage_async<2>(dst, src, n, per_block);
}

extern "C" __global__ void __launch_bounds__(THREADS) stage_async3(float* __restrict__ dst, const float* __restrict__ src,
                                                                  int n, int per_block)
{
    stage_async<3>(dst, src, n, per_block);
}
// --8<-- [end:async]

// --8<-- [start:bulk]
// The bulk copy (sm_90): cp.async.bulk moves a contiguous run of bytes (a multiple of 16, both
// addresses 16-byte aligned) and, as its bytes land, counts them off an mbarrier in shared memory
// (complete_tx). A 1-D bulk copy needs no tensor map. One thread per tile announces the bytes to
// expect (arrive.expect_tx) and starts the copy; every thread waits on the barrier's phase.
// A barrier's phase flips each time it completes; buffer s serves tiles s, s + 3, ..., so the
// k-th use of buffer s waits for parity k & 1.
// The copy takes whole 16-byte chunks: in a last tile whose length is not a multiple of 4 floats
// the last 1-3 floats are loaded by plain loads after the wait.
#define BULK_STAGES 3

static __device__ __forceinline__ void bulk_issue(float* tile, unsigned long long* bar, const float* __restrict__ src,
                                                  int n, long long t)
{
    unsigned bytes = (unsigned)(valid_in_tile(n, t) / 4 * 16);  // whole chunks only
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
                 : "memory");
    if (bytes > 0)
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                         smem_addr(tile)),
                     "l"(src + (size_t)t * TILE), "r"(bytes), "r"(smem_addr(bar))
                     : "memory");
}

static __device__ __forceinline__ void bulk_wait(unsigned long long* bar, unsigned parity)
{
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT;\n"
        "}\n" ::"r"(smem_addr(bar)),
        "r"(parity)
        : "memory");
}

extern "C" __global__ void __launch_bounds__(THREADS) stage_bulk(float* __restrict__ dst, const float* __restrict__ src,
                                                                int n, int per_block)
{
    __shared__ __align__(128) float tiles[BULK_STAGES][TILE];
    __shared__ __align__(8) unsigned long long bars[BULK_STAGES];
    long long ntiles = ((long long)n + TILE - 1) / TILE;
    long long first = (long long)blockIdx.x * per_block;
    int count = (int)min((long long)per_block, ntiles - first);

    if (threadIdx.x == 0) {
        for (int s = 0; s < BULK_STAGES; ++s)  // one arrival (thread 0's expect_tx) per phase
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_addr(&bars[s])) : "memory");
        // make the initialised barriers visible to the bulk-copy unit before any copy uses them
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        for (int s = 0; s < BULK_STAGES - 1 && s < count; ++s)
            bulk_issue(tiles[s], &bars[s], src, n, first + s);
    }
    __syncthreads();  // no thread waits on a barrier before it is initialised

    for (int i = 0; i < count; ++i) {
        int j = i + BULK_STAGES - 1;  // buffer j % 3 held tile i - 1, read by all before the last barrier
        if (threadIdx.x == 0 && j < count)
            bulk_issue(tiles[j % BULK_STAGES], &bars[j % BULK_STAGES], src, n, first + j);
        int s = i % BULK_STAGES;
        bulk_wait(&bars[s], (unsigned)(i / BULK_STAGES) & 1u);  // tile i's bytes have landed
        size_t base = (size_t)(first + i) * TILE;
        int v = valid_in_tile(n, first + i);
        if (v % 4 != 0) {  // the same for every thread of the block: the barrier below is safe
            int e = v / 4 * 4 + threadIdx.x;
            if (e < v)
                tiles[s][e] = src[base + e];
            __syncthreads();  // the tail floats are in place
        }
        write_reversed(dst, tiles[s], base, v);
        __syncthreads();  // read by everyone before a later iteration copies over it
    }
}
// --8<-- [end:bulk]
