/*
 * tsg_kernel_tf32_none.cu — the tensor-core family's entry points where the family is not built
 * (CUDA builds whose nvcc cannot make sm_90a code): tf32_available() is false, tf32_takes()
 * refuses every call, so the executor runs the FP32 family.
 */
#include <stdio.h>

#include "tsg_kernel_tf32.h"

namespace tsg {

bool tf32_available() { return false; }
int tf32_init() { return 0; }
bool tf32_takes(int, char, char, int64_t, int64_t, int64_t, const float *, int64_t, const float *, int64_t,
                const float *, int64_t)
{
    return false;
}
int tf32_sgemm(int, char, char, int64_t, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t,
               float, float *, int64_t, void *)
{
    return 98; /* cudaErrorInvalidDeviceFunction: never called (tf32_takes refuses) */
}
int tf32_describe(int, char *buf, size_t len) { return snprintf(buf, len, "tf32: not built"); }

} /* namespace tsg */
