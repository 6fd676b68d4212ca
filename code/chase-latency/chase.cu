// The working sets that fit in the caches; the experiment times it with a warm L2. The chase itself
// is in chase.cuh, shared with ../chase-latency-dram.
#include "chase.cuh"

extern "C" __global__ void __launch_bounds__(32) chase_sectors(float* dst, const float* src, unsigned mask, int steps)
{
    chase_body(dst, src, mask, steps);
}
