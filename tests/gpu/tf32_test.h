/*
 * tf32_test.h — what test_tf32_kernel's two files share: the family's test entry points
 * (kernels/tf32/tsg_kernel_tf32.cu), the run's counters and options (defined in
 * test_tf32_kernel.cu), and the figure modes (tf32_figures.cu). Include after cuda_runtime.h,
 * cublas_v2.h and tsg_kernel_tf32.h.
 */
#ifndef TSG_TF32_TEST_H
#define TSG_TF32_TEST_H

#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <vector>

#include "gpu_check.h"

namespace tsg {
/* kernels/tf32/tsg_kernel_tf32.cu: the family's variants (0 the default), for the A/B */
int tf32_variants();
bool tf32_variant_exact(int math, int v, char transa, char transb);
bool tf32_variant_exact_nonfinite(int math, int v, char transa, char transb);
bool tf32_variant_splits(int math, int v);
char tf32_variant_rounding(int math, int v, char transa, char transb, char operand);
int tf32_variant_name(int math, int v, char *buf, size_t len);
int tf32_sgemm_variant(int variant, int math, char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                       const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                       int64_t kslice, float *W, void *stream);
}

extern int g_fail, g_checks;     /* failures (each printed by fail) and checks made */
extern cublasHandle_t g_cublas;  /* created unless --small */
extern int g_sms;                /* the device's multiprocessors: tf32_call_kslice's argument */
extern std::vector<int> g_only;  /* --variants LIST: besides the default (always run); empty: all */

/* prints "FAIL: ..." to stderr and counts it */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline bool wanted(int v)
{
    return v == 0 || g_only.empty() || std::find(g_only.begin(), g_only.end(), v) != g_only.end();
}

static inline const char *math_name(int math) { return math == tsg::MATH_3XTF32 ? "3xtf32" : "tf32"; }

/* a device copy of h (cudaMalloc'd: the caller frees it); exits through CK on a CUDA error */
static inline float *device_copy(const std::vector<float> &h)
{
    float *d;
    CK(cudaMalloc(&d, h.size() * 4));
    CK(cudaMemcpy(d, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    return d;
}

/* tf32_figures.cu */
void bench();                /* timing table (device data, medians of 10) */
void sustain(double seconds); /* each kernel back to back for `seconds` per shape */
void accuracy();             /* --accuracy's CSV */
void rounding(int n);        /* --rounding's table: n x n x n, or 64 and 4096 when n is 0 */

#endif
