/* A stand-in for libcuda.so.1 in tests of measure/gpu/cudadrv.py: each entry point is defined against the
 * real prototype in cuda.h (so the compiler checks that the ctypes calls use the driver's ABI), and
 * records what it was given. Built by tests/measure/test_cudadrv.py; never shipped. */
#include <cuda.h>
#include <string.h>

#define FAKE_MODULE ((CUmodule)0x1234)
#define FAKE_FUNCTION ((CUfunction)0x5678)

static int max_dynamic = 48 * 1024;
static CUresult sync_result = CUDA_SUCCESS;
static unsigned launch_dims[8];
static unsigned long long launch_stream, launch_ptr;
static int launch_int;

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr) {
    switch (error) {
    case CUDA_ERROR_INVALID_VALUE: *pStr = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_FOUND: *pStr = "CUDA_ERROR_NOT_FOUND"; return CUDA_SUCCESS;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *pStr = "CUDA_ERROR_ILLEGAL_ADDRESS"; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr) {
    switch (error) {
    case CUDA_ERROR_INVALID_VALUE: *pStr = "invalid argument"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_FOUND: *pStr = "named symbol not found"; return CUDA_SUCCESS;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *pStr = "an illegal memory access was encountered"; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image) {
    if (memcmp(image, "CUBIN", 5) != 0) return CUDA_ERROR_INVALID_VALUE;
    *module = FAKE_MODULE;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod) { return hmod == FAKE_MODULE ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
    if (hmod != FAKE_MODULE || strcmp(name, "stage") != 0) return CUDA_ERROR_NOT_FOUND;
    *hfunc = FAKE_FUNCTION;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
    if (hfunc != FAKE_FUNCTION || attrib != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) return CUDA_ERROR_INVALID_VALUE;
    *pi = max_dynamic;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
    if (hfunc != FAKE_FUNCTION || attrib != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value > 232448)
        return CUDA_ERROR_INVALID_VALUE;
    max_dynamic = value;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name) {
    if (hmod != FAKE_MODULE || strcmp(name, "weights") != 0) return CUDA_ERROR_NOT_FOUND;
    *dptr = 0xC0FFEE00ull;
    *bytes = 196;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                             size_t dynamicSMemSize) {
    if (func != FAKE_FUNCTION || blockSize <= 0) return CUDA_ERROR_INVALID_VALUE;
    *numBlocks = dynamicSMemSize > (size_t)max_dynamic ? 0 : (int)(233472 / (dynamicSMemSize + 1024));
    if (*numBlocks > 2048 / blockSize) *numBlocks = 2048 / blockSize;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra) {
    if (f != FAKE_FUNCTION || extra != NULL) return CUDA_ERROR_INVALID_HANDLE;
    if (sharedMemBytes > (unsigned)max_dynamic || blockDimX * blockDimY * blockDimZ > 1024)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned dims[8] = {gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, 1};
    memcpy(launch_dims, dims, sizeof dims);
    launch_stream = (unsigned long long)hStream;
    launch_ptr = *(unsigned long long *)kernelParams[0];
    launch_int = *(int *)kernelParams[1];
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSynchronize(void) { return sync_result; }

/* Test hooks. */
void fake_set_sync_result(int result) { sync_result = (CUresult)result; }
void fake_last_launch(unsigned *dims, unsigned long long *stream, unsigned long long *ptr, int *value) {
    memcpy(dims, launch_dims, sizeof launch_dims);
    *stream = launch_stream;
    *ptr = launch_ptr;
    *value = launch_int;
}
