// The shared-memory limits of a launch, observed rather than assumed. One kernel that needs 64 KiB
// of dynamic shared memory per block, launched twice by the runner: once as it is, and once after
// the host raised the kernel's MaxDynamicSharedMemorySize attribute (the opt-in). The runner records
// what the driver returned for each launch, and checks the output of any launch that ran.

#define STAGE 16384  // floats staged per block: 64 KiB

extern "C" {

// --8<-- [start:reverse]
// Each block stages its own STAGE floats of src in dynamic shared memory, waits until all of them
// are there, then writes them back in reverse order. The reversed read is why the whole chunk must
// be staged: thread t's output comes from a word another thread loaded.
__global__ void __launch_bounds__(1024) stage_reverse(float* __restrict__ dst, const float* __restrict__ src)
{
    extern __shared__ float stage[];  // sized at launch: STAGE * 4 bytes
    const float* in = src + (size_t)blockIdx.x * STAGE;
    float* out = dst + (size_t)blockIdx.x * STAGE;
    for (int i = threadIdx.x; i < STAGE; i += blockDim.x)
        stage[i] = in[i];
    __syncthreads();
    for (int i = threadIdx.x; i < STAGE; i += blockDim.x)
        out[i] = stage[STAGE - 1 - i];
}
// --8<-- [end:reverse]

}  // extern "C"
