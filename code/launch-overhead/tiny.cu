// Launch overhead: a kernel that does almost nothing, launched 1,000 times per timed sample, so the
// time is what issuing and retiring a launch costs. It is not quite empty: one warp copies 32 floats,
// so the runner's correctness check has an output to compare (an empty kernel leaves nothing to check).

extern "C" {

__global__ void tiny_copy(float* __restrict__ dst, const float* __restrict__ src)
{
    dst[threadIdx.x] = src[threadIdx.x];
}

}
