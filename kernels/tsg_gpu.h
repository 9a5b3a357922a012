/*
 * tsg_gpu.h — the only bridge between host C and the CUDA code.
 *
 * kernels/ receives a canonical column-major problem (transa/transb 'N' or 'T', m n k, alpha,
 * A lda, B ldb, beta, C ldc) and returns a status; it knows nothing of CBLAS, xerbla, the
 * environment or OpenBLAS, and it never prints. Built without CUDA, tsg_gpu_stub.c implements
 * this header and every function answers TSG_GPU_ENODEV.
 *
 * All functions are thread-safe. None of them may be called in a forked child of a process that
 * initialised the GPU (the shim makes sure of that).
 */
#ifndef TSG_GPU_H
#define TSG_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. Negative = the call did not produce a result. */
enum {
    TSG_GPU_OK = 0,
    TSG_GPU_ENODEV = -1, /* no CUDA driver or device, or built without CUDA                   */
    TSG_GPU_ENOMEM = -2, /* device or pinned memory exhausted: this call only                 */
    TSG_GPU_EFAIL = -3,  /* a CUDA error that leaves the context usable                       */
    TSG_GPU_EFATAL = -4  /* a sticky CUDA error (the context is poisoned): stop using the GPU */
};

/*
 * Creates the CUDA context on device `device` (an ordinal). When it does not exist, uses device
 * 0 and sets *used to 0. info receives a one-line description (name, compute capability, SMs,
 * memory, driver and runtime versions) or, on failure, the reason. Call once per process.
 */
int tsg_gpu_init(int device, int *used, char *info, size_t len);

/* The device's UUID as text (for caches keyed per GPU). Requires a successful tsg_gpu_init. */
int tsg_gpu_uuid(char *buf, size_t len);

/* Rates of this executor on this machine (see tsg_rates in src/tsg_dispatch.h). */
typedef struct tsg_gpu_rates {
    double h2d_bps, d2h_bps, gpu_flops, gpu_latency_s;
    double tile_m, tile_n; /* C tile of one thread block                                   */
    double slots;          /* tiles that run at full speed at once (one wave): one per SM  */
    double split_min_k;    /* split-K: C grids of <= slots/2 tiles are split into slices of
                              at least this many k (0 = the executor never splits)         */
} tsg_gpu_rates;

/* Measures the rates in a few tens of milliseconds. Requires a successful tsg_gpu_init. */
int tsg_gpu_measure(tsg_gpu_rates *out, char *msg, size_t len);

/*
 * C = alpha*op(A)*op(B) + beta*C with A, B, C in host memory (column-major, any ld >= rows).
 * Arguments must be legal and 0 < m, n, k with alpha != 0 (the caller applies the BLAS scalar
 * rules). Reads A and B only within their extents (cols-1)*ld + rows, C only when beta != 0 and
 * only its m x n window; writes only the m x n window of C, and only from completed device work:
 * on failure, columns [*done_cols, n) of C are untouched and columns [0, *done_cols) are final.
 * msg receives the reason of a failure.
 */
int tsg_gpu_sgemm_host(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                       const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                       float *c, int64_t ldc, int64_t *done_cols, char *msg, size_t len);

/*
 * The same on device pointers, enqueued on `stream` (cudaStream_t; NULL = legacy default).
 * Any legal sizes (m, n, k >= 0; alpha = 0 or k = 0 scale C by beta, beta = 0 never reads C).
 * Returns when enqueued.
 */
int tsg_gpu_sgemm_device(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                         const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                         float *c, int64_t ldc, void *stream, char *msg, size_t len);

/* Frees pooled device buffers, pinned staging and streams not in use right now. */
void tsg_gpu_release(void);

/* The kernel configuration as text (tile, threads, smem, target architecture). */
int tsg_gpu_kernel_info(char *buf, size_t len);

/*
 * *count = the number of CUDA devices this process can see (CUDA_VISIBLE_DEVICES applied), for
 * choosing a device before tsg_gpu_init (an MPI rank takes local rank % count). Creates no
 * context. TSG_GPU_OK with *count >= 1; TSG_GPU_ENODEV (and *count = 0) without a driver or
 * device, or when built without CUDA; another status for other CUDA errors.
 */
int tsg_gpu_device_count(int *count);

#ifdef __cplusplus
}
#endif

#endif /* TSG_GPU_H */
