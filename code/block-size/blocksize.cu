// Thread-block size: the same two kernels launched with 32 to 1024 threads per block.
//
// copy_1: one float per thread, dst[i] = src[i]; the grid covers n with blocks of any size.
// center_64: each of `threads` threads reads 16 float4 (64 floats) at src4[i], src4[i + threads], ...
// (each of the 16 loads coalesced across the warp) and writes them back to the same places less their
// mean. The second pass needs every value again, so a thread holds all 64 in
// registers: the register count per thread then decides how many warps fit on an SM, and blocks fit
// only whole, so some block sizes leave part of the register file unused.
// Every row of one kernel does the same work; only the launch's block (and so its grid) changes.

extern "C" {

// --8<-- [start:copy]
__global__ void copy_1(float* __restrict__ dst, const float* __restrict__ src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[i];
}
// --8<-- [end:copy]

// --8<-- [start:center]
__global__ void center_64(float* __restrict__ dst, const float* __restrict__ src, int threads)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= threads)
        return;
    const float4* src4 = reinterpret_cast<const float4*>(src);
    float4* dst4 = reinterpret_cast<float4*>(dst);
    float4 v[16];
    float sum = 0.0f;
    #pragma unroll
    for (int k = 0; k < 16; ++k) {
        v[k] = src4[i + (size_t)k * threads];  // coalesced across the warp for each k
        sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    const float mean = sum * (1.0f / 64.0f);
    #pragma unroll
    for (int k = 0; k < 16; ++k)  // the second pass needs all 64 values again: they stay in registers
        dst4[i + (size_t)k * threads] = make_float4(v[k].x - mean, v[k].y - mean, v[k].z - mean, v[k].w - mean);
}
// --8<-- [end:center]

}  // extern "C"
