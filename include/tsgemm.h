/*
 * tsgemm.h — the public tsgemm_* interface of libtsgemm.so.
 *
 * The BLAS entry points themselves (cblas_sgemm, sgemm_ and their ILP64 variants) are declared by
 * the CBLAS/Fortran headers applications already use; this header holds only what tsgemm adds:
 * statistics (to prove a call was intercepted and see where it ran), release of pooled GPU memory,
 * and SGEMM on device-resident data.
 *
 * Thread safety: every function here may be called from any thread at any time.
 */
#ifndef TSGEMM_H
#define TSGEMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TSGEMM_VERSION_MAJOR 0
#define TSGEMM_VERSION_MINOR 5
#define TSGEMM_VERSION_PATCH 0

/* The library's version as "MAJOR.MINOR.PATCH" (static storage; never freed). */
const char *tsgemm_version(void);

/*
 * Counters since the process loaded the library (all calls, all threads, all entry points).
 * Counters only grow; read them before and after a call to learn what that call did.
 */
struct tsgemm_stats {
    uint64_t calls;          /* SGEMM calls received through any exported BLAS name (the sum
                                of illegal, quick, gpu, cpu and refused)                      */
    uint64_t illegal;        /* calls rejected for an illegal argument (xerbla reported)      */
    uint64_t quick;          /* calls finished by the BLAS scalar rules, no backend run:
                                m or n = 0, or (alpha = 0 or k = 0) — then C = beta*C here     */
    uint64_t gpu;            /* calls completed by the GPU kernel                             */
    uint64_t cpu;            /* calls completed by the CPU BLAS (OpenBLAS), retries included  */
    uint64_t gpu_failed;     /* GPU attempts that failed and were redone on the CPU           */
    double gpu_flops;        /* 2*m*n*k summed over GPU calls                                 */
    double cpu_flops;        /* 2*m*n*k summed over CPU calls                                 */
    double gpu_seconds;      /* wall time of GPU calls (host clock, transfers included)       */
    double cpu_seconds;      /* wall time of CPU calls; calls below 2*128^3 flops are timed
                                only at TSGEMM_LOG >= 2 (a clock read would cost them more
                                than tsgemm's whole overhead budget)                          */
    /* Since 0.2: */
    uint64_t refused;        /* calls with an operand in device memory that could not run on
                                the GPU (TSGEMM_MODE=cpu, no GPU, or the GPU failed): nothing
                                computed, one line printed (README "From CUDA programs")       */
    /* What tsgemm's pools hold right now, and their caps (bytes; README "Knobs"): device
     * buffers and pinned staging kept between calls (tsgemm_release frees them), the copy
     * threads, and the workspaces (one per GPU call that may run at once). 0 before the first
     * GPU call. */
    double device_pool_bytes, device_pool_cap;
    double pinned_pool_bytes, pinned_pool_cap;
    uint32_t copy_threads, workspaces;
    /* Since several GPUs (README "Several GPUs"; 0 before the first GPU call): */
    uint32_t gpu_devices;     /* device slots calls may be split over (TSGEMM_DEVICE=0,1 / all /
                                 0,0); 1 for one GPU                                            */
    uint64_t multi_gpu_calls; /* calls whose C was split into panels over several slots      */
    uint64_t gpu_handoffs;    /* panels of such calls whose device failed; their unfinished
                                 part went to the other slots or, failing those, to the CPU   */
};

/*
 * Copies the counters into *out (out must not be NULL). The struct grows between versions: the
 * library fills only the first `size` bytes, so a program built against an older header keeps
 * working. Call it as tsgemm_get_stats(&s), which passes sizeof s.
 * (The exported symbol tsgemm_get_stats itself fills the 0.1 layout — the fields up to
 * cpu_seconds — for programs built against 0.1 and for ctypes callers.)
 */
void tsgemm_get_stats_v(struct tsgemm_stats *out, size_t size);
#ifndef TSGEMM_BUILDING_LIBRARY
static inline void tsgemm_get_stats(struct tsgemm_stats *out)
{
    tsgemm_get_stats_v(out, sizeof *out);
}
#endif

/*
 * Frees the pooled device buffers, pinned host staging buffers and streams kept between calls.
 * Safe to call at any time; calls in flight on other threads keep their buffers until they
 * finish. The next GPU call allocates again. Tests call it before exit so that
 * compute-sanitizer's leak check sees a clean process.
 */
void tsgemm_release(void);

/*
 * Where the last cblas_sgemm / sgemm_ call of the calling thread ran.
 * Returns one of "none" (no call yet), "illegal", "quick", "gpu", "cpu", "cpu-retry"
 * (the GPU failed and the CPU redid the call). Static storage.
 */
const char *tsgemm_last_path(void);

/*
 * SGEMM on device memory: C = alpha * op(A) * op(B) + beta * C, column-major, on tsgemm's own
 * CUDA kernel, enqueued on `stream` (a cudaStream_t; NULL = the legacy default stream).
 *
 *   transa, transb  'N'/'n' (op(X) = X) or 'T'/'t'/'C'/'c' (op(X) = X^T; C means T for real data)
 *   m, n, k         op(A) is m x k, op(B) is k x n, C is m x n; each >= 0
 *   A, B, C         device pointers; A is lda x (k if transa = N, else m), B is ldb x (n if
 *                   transb = N, else k), C is ldc x n, all column-major
 *   lda, ldb, ldc   leading dimensions in elements: lda >= max(1, transa = N ? m : k),
 *                   ldb >= max(1, transb = N ? k : n), ldc >= max(1, m)
 *
 * Reads A and B (not when alpha = 0 or k = 0) and C (not when beta = 0: NaN in C never
 * survives), writes only the m x n window of C. Returns when the work is enqueued, not done.
 *
 * Returns 0 on success; the 1-based position of the first illegal argument in the Fortran
 * SGEMM numbering (1 transa, 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc) — nothing is
 * enqueued then; or -1 when the GPU cannot run it (no device, CUDA error; C is then unchanged
 * unless the error struck after the kernel started). Argument rules: reference BLAS SGEMM.
 */
int tsgemm_sgemm_device(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                        const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
                        float *C, int64_t ldc, void *stream);

/* Where calls may run; the programmatic form of TSGEMM_MODE. */
enum tsgemm_mode { TSGEMM_MODE_AUTO = 0, TSGEMM_MODE_CPU = 1, TSGEMM_MODE_GPU = 2 };

/*
 * Overrides TSGEMM_MODE for the whole process from now on (calls already running are not
 * affected). TSGEMM_MODE_GPU forces the GPU whenever one works, TSGEMM_MODE_CPU never uses it,
 * TSGEMM_MODE_AUTO lets the cost model decide. Returns the previous mode, or -1 (nothing changed)
 * for a value outside the enum.
 */
int tsgemm_set_mode(int mode);

/* The arithmetic of GPU calls; the programmatic form of TSGEMM_MATH (README "Knobs"). */
enum tsgemm_math { TSGEMM_MATH_FP32 = 0, TSGEMM_MATH_3XTF32 = 1, TSGEMM_MATH_TF32 = 2 };

/*
 * Overrides TSGEMM_MATH for the whole process from now on (calls already running keep the math
 * they started with; each call reads it once). Only calls that run on the GPU are affected: the
 * CPU BLAS always computes in FP32.
 *
 *   TSGEMM_MATH_FP32   (0, the default) tsgemm's FP32 FFMA kernels, bit for bit as before.
 *   TSGEMM_MATH_3XTF32 (1) Hopper's TF32 tensor cores, error-compensated: each operand x is
 *                      split into big = TF32(x) and small = TF32(x - big), the product is
 *                      big*big + big*small + small*big with the tensor cores' partial sums
 *                      promoted into FP32 every short k-tile. Expected error: the same class as
 *                      FP32 SGEMM's (relative Frobenius error ||C - C64|| / ||C64|| within a
 *                      small factor of the FP32 kernels', uniform [-1, 1] inputs, K 256-16384;
 *                      the CPU model's prediction is in docs/NOTES.md "2026-12-05 3xTF32:
 *                      prediction"; a device measurement is still to come). Other bits than
 *                      FP32: not bit-identical to TSGEMM_MATH_FP32, still bit-identical from run
 *                      to run.
 *   TSGEMM_MATH_TF32   (2) plain TF32 tensor cores: REDUCED PRECISION. Operands are rounded to
 *                      10 mantissa bits (TF32), products accumulate in FP32: expect a relative
 *                      error of about 1e-3 (the CPU model: 2-3e-4 at uniform [-1, 1] inputs),
 *                      some 100-1000x FP32's. For callers that asked for it (as cuBLAS's
 *                      CUBLAS_COMPUTE_32F_FAST_TF32), never a default.
 *
 * On a GPU without the tensor-core family (not Hopper, or a library built without it), and for
 * calls the family does not take (operand alignment; non-finite inputs as
 * kernels/tf32/tsg_kernel_tf32.h says), the FP32 kernels run instead: the math is a request, not
 * a guarantee; TSGEMM_LOG=3 names the family each GPU call ran on. In auto mode the cost model
 * uses rates measured with the math in force (cached per math).
 * Returns the previous math (TSGEMM_MATH's value, or the last override), or -1 (nothing changed)
 * for a value outside the enum.
 */
int tsgemm_set_math(int math);

/* The math GPU calls get now (enum tsgemm_math): tsgemm_set_math's last value, else
 * TSGEMM_MATH's (TSGEMM_MATH_FP32 when unset, bad, or in a privileged process). */
int tsgemm_get_math(void);

/*
 * Describes tsgemm's GPU and kernel configuration in text (device, tile sizes, threads per block,
 * the CUDA architecture of the binary) into buf (at most len bytes, NUL-terminated). Starts the
 * GPU if this process has not yet. Returns 0, or -1 when no GPU is usable: buf then says why
 * ("no CUDA driver", "built without CUDA", "forked child of a process that used the GPU", ...).
 */
int tsgemm_kernel_info(char *buf, int len);

/*
 * The CPU BLAS tsgemm falls back to, as text: its path, its own configuration string and thread
 * count (OpenBLAS), or that the portable loop is used because none could be loaded. Loads it if
 * not yet loaded. Static storage.
 */
const char *tsgemm_cpu_blas(void);

#ifdef __cplusplus
}
#endif

#endif /* TSGEMM_H */
