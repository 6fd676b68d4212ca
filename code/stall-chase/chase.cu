// Warp stall reasons: a copy of code/latency-hiding/latency.cu's pointer chase (the kernel text
// unchanged), launched here so that the counter pass can add Nsight Compute's warp-state counters to
// its row without touching that experiment. Each chasing warp has one load in flight and nothing else
// to do, so the counters should charge its cycles to waiting on that load.

#define THREADS 64  // two warps per block, as in code/latency-hiding

// The chase's LCG: idx <- idx x A + C (mod 2^32, then masked to the buffer's power-of-two size).
// C odd and A = 1 (mod 4) give a full period modulo any power of two, so no chain gets stuck in a
// short cycle; the masked low bits of the 32-bit product are the product modulo that power of two.
#define LCG_A 1664525u
#define LCG_C 1013904223u
#define START_MUL 2654435761u  // spreads the chasers' starting points over the buffer

extern "C" {

// --8<-- [start:chase]
// Thread 0 of each of the first `chasers` blocks walks `steps` dependent loads; every thread of the
// grid writes its dst element (0 for the threads that do not chase). A chaser adds |v| of the values
// it visits, so the check sees whether it visited the right ones. The next index adds
// (v > 2.0f), which is always 0 for inputs in [-1, 1) but which the compiler and the hardware cannot
// know: the next address waits for this load's data, so the loads cannot overlap.
__global__ void __launch_bounds__(THREADS) chase(float* __restrict__ dst, const float* __restrict__ src, int mask, int steps,
                                                 int chasers)
{
    float s = 0.0f;
    if (threadIdx.x == 0 && blockIdx.x < chasers) {
        unsigned idx = (blockIdx.x * START_MUL) & (unsigned)mask;
        for (int k = 0; k < steps; ++k) {
            float v = src[idx];
            s += fabsf(v);  // |v|: every chaser's sum is near steps / 2, far from 0, so the check is relative to it
            idx = (idx * LCG_A + LCG_C + (unsigned)(v > 2.0f)) & (unsigned)mask;
        }
    }
    dst[(long long)blockIdx.x * THREADS + threadIdx.x] = s;
}
// --8<-- [end:chase]

}  // extern "C"
