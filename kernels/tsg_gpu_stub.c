/*
 * tsg_gpu_stub.c — tsg_gpu.h for builds without CUDA (-DTSGEMM_CUDA=OFF): no GPU, every call
 * answers TSG_GPU_ENODEV, so the library is OpenBLAS with tsgemm's checks and rules.
 */
#include <stdio.h>

#include "tsg_gpu.h"

static int nodev(char *msg, size_t len)
{
    if (msg && len) snprintf(msg, len, "tsgemm was built without CUDA");
    return TSG_GPU_ENODEV;
}

int tsg_gpu_init(int device, int *used, char *info, size_t len)
{
    (void)device;
    if (used) *used = 0;
    return nodev(info, len);
}

int tsg_gpu_uuid(char *buf, size_t len) { return nodev(buf, len); }

int tsg_gpu_measure(tsg_gpu_rates *out, char *msg, size_t len)
{
    (void)out;
    return nodev(msg, len);
}

int tsg_gpu_sgemm_host(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                       const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                       float *c, int64_t ldc, int64_t *done_cols, char *msg, size_t len)
{
    (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda;
    (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
    if (done_cols) *done_cols = 0;
    return nodev(msg, len);
}

int tsg_gpu_sgemm_device(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                         const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                         float *c, int64_t ldc, void *stream, char *msg, size_t len)
{
    (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda;
    (void)b, (void)ldb, (void)beta, (void)c, (void)ldc, (void)stream;
    return nodev(msg, len);
}

void tsg_gpu_release(void) {}

int tsg_gpu_kernel_info(char *buf, size_t len) { return nodev(buf, len); }

int tsg_gpu_device_count(int *count)
{
    *count = 0;
    return TSG_GPU_ENODEV;
}
