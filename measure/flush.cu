// The runner's L2 flush, launched outside the timed region before every sample.
//
// It READS a buffer several times the size of the L2, so that afterwards the cache holds only clean
// lines of that buffer: none of the measured kernel's data, and nothing dirty. (Flushing by writing,
// e.g. a memset, leaves the L2 full of dirty lines whose write-back would then be charged to the
// measured kernel when its own accesses evict them.)

extern "C" __global__ void l2_flush_read(const float4* buf, long long n4, float* sink)
{
    float acc = 0.0f;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = buf[i];
        acc += v.x + v.y + v.z + v.w;
    }
    // A store the compiler cannot prove dead keeps every load; the buffer holds zeros, so it never
    // actually happens.
    if (acc != 0.0f)
        *sink = acc;
}
