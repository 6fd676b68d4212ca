// Day 15: shared-memory bank conflicts, measured rather than asserted.
//
// Shared memory is split into 32 banks, each 4 bytes wide; word w lives in bank w % 32. A warp's
// load is served in one pass when its 32 threads touch 32 different banks (or the same word), and
// in k passes when k of them need different words of one bank: a "k-way conflict".
//
// One kernel, one knob: every thread reads words that are `stride` apart from its neighbour's, so
// lane l reads word (l * stride + ...) and lands in bank (l * stride + ...) % 32. The number of
// lanes sharing a bank is gcd(stride, 32): stride 1 and 33 are conflict-free, stride 2 is 2-way,
// stride 32 puts the whole warp in one bank. Everything else (global traffic, arithmetic, the
// number of shared loads) is identical across strides, so the times differ only by the conflicts.

#define WORDS 1024     // floats staged per block (4 KiB)
#define THREADS 256    // threads per block: 8 warps

extern "C" {

// --8<-- [start:strided]
__global__ void __launch_bounds__(THREADS) strided_reads(float* __restrict__ dst, const float* __restrict__ src, int stride,
                                                          int reps)
{
    __shared__ float words[WORDS];

    // Stage this block's 1024 floats: four coalesced loads per thread. The spec sizes src as a whole
    // number of blocks (blocks x 1024 floats), so no guard is needed here.
    const float* block_src = src + (size_t)blockIdx.x * WORDS;
    #pragma unroll
    for (int k = 0; k < WORDS / THREADS; ++k)
        words[k * THREADS + threadIdx.x] = block_src[k * THREADS + threadIdx.x];
    __syncthreads();

    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    // The walk starts at word lane * stride (+ warp, so that warps do not all read the same words)
    // and steps by one word, wrapping at WORDS. A step of one moves every lane to the next bank
    // together, so the conflict degree set by `stride` holds for every one of the `reps` loads.
    // WORDS is a multiple of 32, so the wrap-around does not change which bank a word is in.
    unsigned start = (unsigned)(lane * stride + warp);
    float sum = 0.0f;
    for (int r = 0; r < reps; ++r)
        sum += words[(start + (unsigned)r) % WORDS];  // unsigned: % by a power of two is a mask

    // One store per thread keeps the compiler from dropping the loads, and gives the check
    // something to compare with the numpy reference.
    dst[(size_t)blockIdx.x * THREADS + threadIdx.x] = sum;
}
// --8<-- [end:strided]

}  // extern "C"
