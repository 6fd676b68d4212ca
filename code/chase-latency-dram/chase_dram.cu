// The working sets far larger than the L2, timed with the L2 flushed. The chase itself is in
// ../chase-latency/chase.cuh, shared with the cached working sets.
#include "../chase-latency/chase.cuh"

extern "C" __global__ void __launch_bounds__(32) chase_sectors(float* dst, const float* src, unsigned mask, int steps)
{
    chase_body(dst, src, mask, steps);
}
