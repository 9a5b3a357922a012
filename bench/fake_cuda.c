/*
 * fake_cuda.c — stand-ins for libcudart.so.13 (-DFAKE_CUDART), libcublas.so.13 (-DFAKE_CUBLAS)
 * and libnvblas.so.13 (-DFAKE_NVBLAS) that run on host memory, for the bench_fake_cuda test only
 * (never installed).
 *
 * It lets a machine without a GPU drive tsgemm-bench's dlopen'd CUDA code end to end: device
 * facts, per-shape buffers, cuBLAS + copies (including the row-major -> column-major swap, which
 * this file's reference SGEMM would expose), kernel-only timing with events, and the NVBLAS
 * worker (config, re-exec, Fortran arguments, results through the pipe).
 * FAKE_CUBLAS_PERTURB=1 makes every SGEMM result wrong, to see the bench report WRONG.
 * (The real NVBLAS is not usable here: without a GPU its start-up reads uninitialised memory
 * and crashes now and then inside cublasXtDeviceSelect.)
 * Only the functions tsgemm-bench calls exist; signatures follow the CUDA 13 headers.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define API __attribute__((visibility("default")))

#ifdef FAKE_CUDART
typedef int cudaError_t;
typedef void *cudaStream_t;
typedef double *cudaEvent_t;

/* a mark in the bench's stderr when its process loads this runtime (bench_fake_cuda checks that
 * the host columns ran before) */
__attribute__((constructor)) static void fake_cudart_loaded(void)
{
    fprintf(stderr, "fake cudart: loaded\n");
}

API cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return 0; }
API cudaError_t cudaSetDevice(int d) { return d == 0 ? 0 : 101; }
API cudaError_t cudaGetDeviceProperties(void *prop, int d)
{
    (void)d;
    strcpy((char *)prop, "Fake GPU (host memory)");
    return 0;
}
API cudaError_t cudaDeviceGetAttribute(int *v, int attr, int d)
{
    (void)d;
    *v = attr == 75 ? 9 : attr == 76 ? 0 : attr == 16 ? 1 : attr == 13 ? 1000000 : 0;
    return 0;
}
API cudaError_t cudaDriverGetVersion(int *v) { *v = 13000; return 0; }
API cudaError_t cudaRuntimeGetVersion(int *v) { *v = 13000; return 0; }
API cudaError_t cudaMemGetInfo(size_t *f, size_t *t) { *f = *t = (size_t)1 << 34; return 0; }
API const char *cudaGetErrorName(cudaError_t e) { return e ? "cudaErrorFake" : "cudaSuccess"; }
API const char *cudaGetErrorString(cudaError_t e) { return e ? "fake error" : "no error"; }
API cudaError_t cudaMalloc(void **p, size_t n) { return (*p = malloc(n)) ? 0 : 2; }
API cudaError_t cudaFree(void *p) { free(p); return 0; }
API cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int kind)
{
    (void)kind;
    memcpy(d, s, n);
    return 0;
}
API cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, int kind, cudaStream_t st)
{
    (void)st;
    return cudaMemcpy(d, s, n, kind);
}
API cudaError_t cudaMemset(void *d, int v, size_t n) { memset(d, v, n); return 0; }
API cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st)
{
    (void)st;
    return cudaMemset(d, v, n);
}
API cudaError_t cudaDeviceSynchronize(void) { return 0; }
API cudaError_t cudaStreamCreate(cudaStream_t *s) { *s = malloc(1); return 0; }
API cudaError_t cudaStreamDestroy(cudaStream_t s) { free(s); return 0; }
API cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = calloc(1, sizeof(double)); return 0; }
API cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return 0; }
API cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    (void)s;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *e = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
    return 0;
}
API cudaError_t cudaEventSynchronize(cudaEvent_t e) { (void)e; return 0; }
API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = (float)(*b - *a);
    return 0;
}
API cudaError_t cudaGetLastError(void) { return 0; }
#endif

#if defined(FAKE_CUBLAS) || defined(FAKE_NVBLAS)
/* Column-major reference SGEMM (ta, tb: 0 = N, 1 = T); beta = 0 never reads C. */
static void ref_sgemm(int ta, int tb, int m, int n, int k, float alpha, const float *A, int lda,
                      const float *B, int ldb, float beta, float *C, int ldc)
{
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double s = 0;
            for (int l = 0; l < k; ++l) {
                double a = ta ? A[l + (size_t)i * lda] : A[i + (size_t)l * lda];
                double b = tb ? B[j + (size_t)l * ldb] : B[l + (size_t)j * ldb];
                s += a * b;
            }
            float *c = &C[i + (size_t)j * ldc];
            *c = (float)(alpha * s + (beta != 0.0f ? beta * *c : 0.0));
        }
    if (getenv("FAKE_CUBLAS_PERTURB")) C[0] += 1.0f;
}
#endif

#ifdef FAKE_NVBLAS
static int is_t(const char *t) { return *t == 'T' || *t == 't' || *t == 'C' || *t == 'c'; }

API void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                const float *alpha, const float *A, const int *lda, const float *B,
                const int *ldb, const float *beta, float *C, const int *ldc)
{
    ref_sgemm(is_t(ta), is_t(tb), *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C, *ldc);
}
#endif

#ifdef FAKE_CUBLAS
typedef int cublasStatus_t;
typedef void *cublasHandle_t;

API cublasStatus_t cublasCreate_v2(cublasHandle_t *h) { *h = malloc(1); return 0; }
API cublasStatus_t cublasDestroy_v2(cublasHandle_t h) { free(h); return 0; }
API cublasStatus_t cublasSetStream_v2(cublasHandle_t h, void *s) { (void)h, (void)s; return 0; }
API cublasStatus_t cublasSetMathMode(cublasHandle_t h, int m) { (void)h, (void)m; return 0; }
API cublasStatus_t cublasGetVersion_v2(cublasHandle_t h, int *v) { (void)h; *v = 990000; return 0; }
API cublasStatus_t cublasGetProperty(int t, int *v) { *v = t == 0 ? 99 : 0; return 0; }
API const char *cublasGetStatusString(cublasStatus_t s) { return s ? "FAKE_ERROR" : "SUCCESS"; }

/* cuBLAS's argument conventions (op: 0 = N, 1 = T; scalars by pointer). */
API cublasStatus_t cublasSgemm_v2(cublasHandle_t h, int ta, int tb, int m, int n, int k,
                                  const float *alpha, const float *A, int lda, const float *B,
                                  int ldb, const float *beta, float *C, int ldc)
{
    (void)h;
    ref_sgemm(ta, tb, m, n, k, *alpha, A, lda, B, ldb, *beta, C, ldc);
    return 0;
}
#endif
