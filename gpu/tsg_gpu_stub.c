/*
 * tsg_gpu_stub.c — tsg_gpu.h for builds without CUDA (-DTSGEMM_CUDA=OFF): no GPU, every call
 * answers TSG_GPU_ENODEV, so the library is OpenBLAS with tsgemm's checks and rules.
 */
#include <stdio.h>
#include <string.h>

#include "tsg_gpu.h"

static int nodev(char *msg, size_t len)
{
    if (msg && len) snprintf(msg, len, "tsgemm was built without CUDA");
    return TSG_GPU_ENODEV;
}

int tsg_gpu_init(int device, const tsg_gpu_config *cfg, int *used, char *info, size_t len)
{
    (void)device, (void)cfg;
    if (used) *used = 0;
    return nodev(info, len);
}

int tsg_gpu_set_devices(const int *ordinals, int n, int *slots, char *info, size_t len)
{
    (void)ordinals, (void)n;
    *slots = 1;
    return nodev(info, len);
}

int tsg_gpu_device_count(int *count)
{
    *count = 0;
    return TSG_GPU_ENODEV;
}

int tsg_gpu_uuid(char *buf, size_t len) { return nodev(buf, len); }

int tsg_gpu_measure(int math, tsg_gpu_rates *out, char *msg, size_t len)
{
    (void)math, (void)out;
    return nodev(msg, len);
}

int tsg_gpu_spot_kernel(int math, double *gpu_flops, char *msg, size_t len)
{
    (void)math, (void)gpu_flops;
    return nodev(msg, len);
}

void tsg_gpu_get_limits(tsg_gpu_limits *out)
{
    memset(out, 0, sizeof *out);
    out->devices = 1;
}

int tsg_gpu_sgemm(const tsg_problem *p, const tsg_gpu_work *work, tsg_done *done, char *msg, size_t len)
{
    (void)p, (void)work;
    done->bm = done->bn = 1;
    done->blocks = done->cols = 0;
    done->nparts = 0;
    done->families = 0;
    return nodev(msg, len);
}

int tsg_gpu_sgemm_device(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                         const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                         float *c, int64_t ldc, void *stream, int math, char *msg, size_t len)
{
    (void)math;
    (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda;
    (void)b, (void)ldb, (void)beta, (void)c, (void)ldc, (void)stream;
    return nodev(msg, len);
}

int tsg_gpu_tf32_available(void) { return 0; }

void tsg_gpu_release(void) {}

void tsg_gpu_pool_sizes(tsg_gpu_pools *out) { memset(out, 0, sizeof *out); }

void tsg_gpu_exiting(double wait_s) { (void)wait_s; }

void tsg_gpu_spot_cancel(void) {}

int tsg_gpu_warm(int spot_math)
{
    (void)spot_math;
    return -1;
}

void tsg_gpu_warm_wait(double max_s) { (void)max_s; }

int tsg_gpu_kernel_info(char *buf, size_t len) { return nodev(buf, len); }

int tsg_gpu_set_kernel_config(int config, int64_t splits)
{
    (void)config, (void)splits;
    return TSG_GPU_ENODEV;
}

int tsg_gpu_kernel_plan(char transa, char transb, int64_t m, int64_t n, int64_t k, int *config,
                        int64_t *splits)
{
    (void)transa, (void)transb, (void)m, (void)n, (void)k;
    *config = 0;
    *splits = 1;
    return TSG_GPU_ENODEV;
}

int tsg_gpu_set_kernel_tail(int64_t blocks)
{
    (void)blocks;
    return TSG_GPU_ENODEV;
}

int tsg_gpu_kernel_tail(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t *tiles,
                        int64_t *blocks)
{
    (void)transa, (void)transb, (void)m, (void)n, (void)k;
    *tiles = *blocks = 0;
    return TSG_GPU_ENODEV;
}

int tsg_gpu_kernel_config_info(int config, char *buf, size_t len)
{
    (void)config;
    return nodev(buf, len);
}

#ifdef TSG_FAULT_INJECTION
void tsg_gpu_set_fault(const char *spec) { (void)spec; }
#endif
