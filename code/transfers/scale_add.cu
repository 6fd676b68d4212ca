// Host <-> device copies and their overlap with a kernel (see experiment.yaml). The only kernel is
// scale_add: dst[i] = 2 * src[i] + 1, one element per thread. It reads and writes each element once,
// so it is bandwidth-bound on the device and its time is small next to the copies that feed it:
// what the pipeline rows show is how much of the copying streams can hide, not the kernel.
// 2 * src is exact in float32 and the fused add rounds once, so numpy's float32 2 * src + 1 gives
// the same bits and the check is exact.

extern "C" {

__global__ void scale_add(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = fmaf(src[i], 2.0f, 1.0f);
}

}
