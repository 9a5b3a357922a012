/*
 * tsg_kernel_tf32_stub.cu — kernels/tf32/tsg_kernel_tf32.h for CUDA builds without the
 * tensor-core family (TSGEMM_TF32=OFF, or no family sources in kernels/tf32/; CMakeLists.txt
 * picks this file exactly then). The family is simply absent: tf32_available() is false, so
 * the executor (tsg_exec.cu) runs every call of every math on the FP32 kernels. Builds without
 * CUDA use kernels/tsg_gpu_stub.c instead and never see this interface.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include "tsg_kernel_tf32.h"

namespace tsg {

bool tf32_available() { return false; }

int tf32_init() { return 0; } /* "not present for this device" is not a failure */

bool tf32_takes(int, char, char, int64_t, int64_t, int64_t, const float *, int64_t, const float *,
                int64_t, const float *, int64_t)
{
    return false;
}

void tf32_call_tile(int, char, char, int64_t *rows, int64_t *cols) { *rows = *cols = 0; }

int64_t tf32_call_kslice(int, char, char, int64_t, int64_t, int64_t k, int64_t, int64_t) { return k; }

/* Never reached (tf32_takes is false); an error, so a caller that skipped tf32_takes gets the
 * executor's CPU fallback rather than an unwritten C. */
int tf32_sgemm(int, char, char, int64_t, int64_t, int64_t, float, const float *, int64_t,
               const float *, int64_t, float, float *, int64_t, int64_t, float *, void *)
{
    return (int)cudaErrorNotSupported;
}

int64_t tf32_kslice(int64_t, int64_t, int64_t k, int64_t, int64_t, int64_t, int64_t) { return k; }

int tf32_describe(int, char *buf, size_t len)
{
    if (buf && len) snprintf(buf, len, "not built (kernels/tf32/tsg_kernel_tf32_stub.cu)");
    return 0;
}

} /* namespace tsg */
