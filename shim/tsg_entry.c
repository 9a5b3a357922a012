/*
 * tsg_entry.c — the exported BLAS names. The complete list (docs/DESIGN.md): cblas_sgemm, sgemm_,
 * cblas_sgemm64_, sgemm_64_, scipy_cblas_sgemm64_, scipy_sgemm_64_ (ILP64), scipy_cblas_sgemm,
 * scipy_sgemm_ (LP64, scipy/scikit-learn wheels). tsgemm.map exports these and tsgemm_*;
 * everything else is hidden.
 *
 * Each entry point only reads its arguments into a tsg_call (src/) and hands it to the runtime.
 * A call arriving while this thread is already inside the CPU BLAS (netlib's cblas_sgemm calls
 * sgemm_ through the PLT, which resolves to us when preloaded) goes straight to that library.
 *
 * Tiny calls (cblas_sgemm, sgemm_, and cblas_sgemm64_, scipy_cblas_sgemm64_, scipy_cblas_sgemm,
 * scipy_sgemm_ on the caller's own library of the same name: tsg_runtime.h): a legal call on
 * host memory with m*n*k below the GPU floor can only end on the CPU BLAS, so it goes there
 * first, with as little as possible in front of it (docs/NOTES.md "Small calls": the cost it
 * replaced): one thread-local access, the gate (tsg_rt_fast: the entry point, set once an
 * earlier call through the same name read the knobs and loaded or looked up the library),
 * the residency gate (two loads while no libcuda is in the process; with tsgemm's own GPU started,
 * a question to the driver for the thread's context), src/'s own mapping and
 * reference checks (inline, src/tsg_problem.h) accepting only a plainly legal call, then the
 * library's own entry point with the caller's very arguments, and two counters in this thread's
 * block. Anything else — an illegal argument, a quick return, alpha = 0 (OpenBLAS would read A
 * and B), a thread that may pass CUDA memory (tsg_cuda_may_pass_operands: the program uses CUDA
 * itself, or the thread has a current context), TSGEMM_LOG >= 2, the first call — takes the full
 * path, which reports, decides and counts.
 */
#define _GNU_SOURCE
#include <cblas-netlib.h> /* the reference prototype: our cblas_sgemm must match it exactly */
#include <stddef.h>
#include <stdint.h>

#include "../src/tsg_dispatch.h"
#include "../src/tsg_problem.h"
#include "tsg_cpublas.h"
#include "tsg_residency.h"
#include "tsg_runtime.h"
#include "tsg_thread.h"

#define TSG_EXPORT __attribute__((visibility("default")))

/* m*n*k below this is a tiny call: 2*m*n*k < TSG_GPU_FLOOR_FLOPS, the dispatcher's own rule */
#define TSG_TINY_MNK ((uint64_t)(TSG_GPU_FLOOR_FLOPS / 2))
_Static_assert(TSG_TINY_MNK * 2 == (uint64_t)TSG_GPU_FLOOR_FLOPS, "the floor is an even integer");

/*
 * 1 when the column-major problem *p (src/'s mapping made it: swap done, transposes decoded) is
 * legal by the reference checks, needs a real product (m, n, k >= 1 and alpha != 0: no scalar
 * rule applies) and is tiny. m*n < 2^21 keeps m*n*k < 2^52: no overflow.
 */
static inline int tiny_problem(const tsg_problem *p)
{
    if (p->m <= 0 || p->n <= 0 || p->k <= 0 || p->alpha == 0.0f) return 0;
    if (tsg_check_problem(p) != 0) return 0;
    uint64_t mn = (uint64_t)p->m * (uint64_t)p->n;
    return mn < TSG_TINY_MNK && mn * (uint64_t)p->k < TSG_TINY_MNK;
}

/* The gate of the tiny path: the CPU BLAS entry point when the knobs allow the path (else NULL)
 * and this thread cannot pass CUDA memory: no libcuda in the process (two loads), or only
 * tsgemm's own GPU start brought it in and the thread has no current CUDA context (the full
 * path's own rule, tsg_cuda_may_pass_operands: a numpy program whose GPU tsgemm started keeps
 * its tiny calls off the full path, which costs about 1.5 us a call there, docs/NOTES.md
 * "2026-12-06 the first GPU call"). */
static inline int tiny_host_only(void) { return tsg_cuda_surely_absent() || !tsg_cuda_may_pass_operands(); }

static inline tsg_cblas_sgemm_fn tiny_cblas_fn(void)
{
    tsg_cblas_sgemm_fn fn = atomic_load_explicit(&tsg_rt_fast.cblas, memory_order_acquire);
    return fn && tiny_host_only() ? fn : NULL;
}

static inline tsg_f77_sgemm_fn tiny_f77_fn(void)
{
    tsg_f77_sgemm_fn fn = atomic_load_explicit(&tsg_rt_fast.f77, memory_order_acquire);
    return fn && tiny_host_only() ? fn : NULL;
}

/* This thread's words: one __tls_get_addr call. The empty asm hides where the pointer came from,
 * so the compiler keeps it in a register across the BLAS call instead of asking for it again
 * (GCC treats a TLS address as a constant it may recompute). */
static inline tsg_tls *tiny_tls(void)
{
    tsg_tls *tl = &tsg_tl;
    __asm__("" : "+r"(tl));
    return tl;
}

/* After the CPU BLAS ran a tiny call for this thread: the counters the full path would add. */
static inline void tiny_done(tsg_tls *tl, uint64_t flops)
{
    tsg_thread *self = tl->self; /* reloaded: one register less to keep across the BLAS call */
    tsg_thread_count_own(self, TSG_COUNT_CPU, 1);
    tsg_thread_count_own(self, TSG_COUNT_TINY_FLOPS, flops);
    tl->last_path = "cpu";
}

/* The gate of an entry point other than cblas_sgemm and sgemm_ (tsg_rt_fast.own: the caller's own
 * library's function of the same name, or tsgemm's own CPU BLAS's for the LP64 scipy_ names),
 * with the same residency gate. */
static inline void *tiny_own_fn(tsg_api api)
{
    void *fn = atomic_load_explicit(&tsg_rt_fast.own[api], memory_order_acquire);
    return fn && tiny_host_only() ? fn : NULL;
}

/* The tiny path's mark around one call: tiny_enter returns this thread's words when it has a
 * block (the exit drain sees it through it), is not inside the CPU BLAS already and the process is
 * not exiting, marked inside; else NULL (nothing done: the full path takes the call). tiny_leave
 * ends the mark and adds the counters. */
static inline tsg_tls *tiny_enter(void)
{
    tsg_tls *tl = tiny_tls();
    return __builtin_expect(tl->self != NULL, 1) && tsg_thread_enter_blas_outer(tl) ? tl : NULL;
}

static inline void tiny_leave(tsg_tls *tl, uint64_t flops)
{
    tsg_thread_leave_blas(tl);
    tiny_done(tl, flops);
}

/* One tiny call on fn, one helper per prototype (inlined: each entry point keeps a single frame):
 * 1 when it ran, 0 when the full path must take it. */

static inline int tiny_run_cblas64(tsg_cblas64_sgemm_fn fn, int layout, int transa, int transb,
                                   int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                                   int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                                   int64_t ldc)
{
    const uint64_t flops = 2 * (uint64_t)m * (uint64_t)n * (uint64_t)k;
    tsg_tls *tl = tiny_enter();
    if (tl) {
        fn(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        tiny_leave(tl, flops);
        return 1;
    }
    return 0;
}


/* A cblas_sgemm call that the tiny path can take, by src/'s own mapping (tsg_cblas_problem: the
 * layout decides which operand is which); 0 for anything else, illegal arguments included: the
 * full path reports those. The pointers play no part in the decision. The mapping is inlined
 * once per layout, so that each copy sees its layout as a constant: the row-major swap then
 * costs nothing at run time (as when the two cases were written out by hand). */
static inline int tiny_cblas(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
                             float alpha, int64_t lda, int64_t ldb, int64_t ldc)
{
    tsg_problem p;
    if (layout == CblasColMajor)
        return tsg_cblas_problem(CblasColMajor, transa, transb, m, n, k, alpha, NULL, lda, NULL,
                                 ldb, 0.0f, NULL, ldc, &p) == 0 &&
               tiny_problem(&p);
    return tsg_cblas_problem(layout, transa, transb, m, n, k, alpha, NULL, lda, NULL, ldb, 0.0f,
                             NULL, ldc, &p) == 0 &&
           tiny_problem(&p);
}

/* A cblas_sgemm-style call (32-bit sizes) through `api` on the tiny path: 1 when it ran there, 0
 * when the full path must take it. The gate is cblas_sgemm's own (tsg_rt_fast.cblas) or, for
 * scipy_cblas_sgemm, tsg_rt_fast.own[api]; `api` is a constant at every (inlined) use. */
static inline int tiny_cblas32(tsg_api api, int layout, int transa, int transb, int m, int n, int k,
                               float alpha, const float *a, int lda, const float *b, int ldb,
                               float beta, float *c, int ldc)
{
    tsg_cblas_sgemm_fn fn;
    if (tiny_cblas(layout, transa, transb, m, n, k, alpha, lda, ldb, ldc) &&
        (fn = api == TSG_API_CBLAS ? tiny_cblas_fn() : (tsg_cblas_sgemm_fn)tiny_own_fn(api)) != NULL) {
        const uint64_t flops = 2 * (uint64_t)m * (uint64_t)n * (uint64_t)k;
        tsg_tls *tl = tiny_enter();
        if (tl) {
            fn(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
            tiny_leave(tl, flops);
            return 1;
        }
    }
    return 0;
}

/* A Fortran-style call (32-bit sizes) through `api` on the tiny path: 1 when it ran there, 0 when
 * the full path must take it. src/'s reading of the call (decoded transposes; no swap in Fortran;
 * no pointers: it only decides); a bad transpose turns the call away before the rest is read.
 * The gate is sgemm_'s own (tsg_rt_fast.f77) or, for the other names, tsg_rt_fast.own[api];
 * `api` is a constant at every (inlined) use. */
static inline int tiny_f77(tsg_api api, const char *transa, const char *transb, const int *m,
                           const int *n, const int *k, const float *alpha, const float *a,
                           const int *lda, const float *b, const int *ldb, const float *beta,
                           float *c, const int *ldc)
{
    const char ta = tsg_decode_trans(*transa), tb = tsg_decode_trans(*transb);
    tsg_problem p;
    if (ta && tb)
        tsg_problem_set(&p, ta, tb, *m, *n, *k, *alpha, NULL, *lda, NULL, *ldb, 0.0f, NULL, *ldc);
    tsg_f77_sgemm_fn fn;
    if (ta && tb && tiny_problem(&p) &&
        (fn = api == TSG_API_F77 ? tiny_f77_fn() : (tsg_f77_sgemm_fn)tiny_own_fn(api)) != NULL) {
        const uint64_t flops = 2 * (uint64_t)p.m * (uint64_t)p.n * (uint64_t)p.k;
        tsg_tls *tl = tiny_enter();
        if (tl) {
            fn(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
            tiny_leave(tl, flops);
            return 1;
        }
    }
    return 0;
}

/* Everything but the tiny path: re-entry from the CPU BLAS, or read the call and run it through
 * the runtime. Out of line, so that the tiny path's frame holds nothing of it. */
__attribute__((noinline)) static void cblas_full(int layout, int transa, int transb, int m, int n,
                                                 int k, float alpha, const float *a, int lda,
                                                 const float *b, int ldb, float beta, float *c,
                                                 int ldc)
{
    if (tsg_thread_in_blas(&tsg_tl)) {
        tsg_cpu_forward_cblas(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    tsg_call call;
    tsg_map_cblas(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &call);
    tsg_rt_sgemm(TSG_API_CBLAS, &call);
}

TSG_EXPORT void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB,
                            const CBLAS_INT M, const CBLAS_INT N, const CBLAS_INT K,
                            const float alpha, const float *A, const CBLAS_INT lda,
                            const float *B, const CBLAS_INT ldb, const float beta, float *C,
                            const CBLAS_INT ldc)
{
    if (tiny_cblas32(TSG_API_CBLAS, layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc))
        return;
    cblas_full(layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* A Fortran-style call with 32-bit integers through `api`. */
__attribute__((noinline)) static void f77_32(tsg_api api, const char *transa, const char *transb,
                                             const int *m, const int *n, const int *k,
                                             const float *alpha, const float *a, const int *lda,
                                             const float *b, const int *ldb, const float *beta,
                                             float *c, const int *ldc)
{
    tsg_call call;
    tsg_map_fortran(*transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc, &call);
    tsg_rt_sgemm(api, &call);
}

/* sgemm_ apart from the tiny path (out of line, as cblas_full). */
__attribute__((noinline)) static void f77_full(const char *transa, const char *transb,
                                               const int *m, const int *n, const int *k,
                                               const float *alpha, const float *a, const int *lda,
                                               const float *b, const int *ldb, const float *beta,
                                               float *c, const int *ldc)
{
    if (tsg_thread_in_blas(&tsg_tl)) {
        tsg_cpu_forward_f77(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    f77_32(TSG_API_F77, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/*
 * Fortran SGEMM. The hidden string lengths that gfortran appends are deliberately not declared:
 * C callers do not pass them and only the first character of TRANSA/TRANSB counts.
 */
TSG_EXPORT void sgemm_(const char *transa, const char *transb, const int *m, const int *n,
                       const int *k, const float *alpha, const float *a, const int *lda,
                       const float *b, const int *ldb, const float *beta, float *c,
                       const int *ldc)
{
    if (tiny_f77(TSG_API_F77, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return;
    f77_full(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* ---- ILP64: 64-bit integers everywhere (OpenBLAS INTERFACE64 names; numpy/scipy wheels add the
 * scipy_ prefix). The enums stay C ints, as in OpenBLAS's cblas.h for INTERFACE64 builds. */

/* A CBLAS-style call through `api`; 32-bit sizes arrive widened (the enums stay C ints). */
static void cblas_any(tsg_api api, int layout, int transa, int transb, int64_t m, int64_t n,
                      int64_t k, float alpha, const float *a, int64_t lda, const float *b,
                      int64_t ldb, float beta, float *c, int64_t ldc)
{
    tsg_call call;
    tsg_map_cblas(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &call);
    tsg_rt_sgemm(api, &call);
}

static void f77_64(tsg_api api, const char *transa, const char *transb, const int64_t *m,
                   const int64_t *n, const int64_t *k, const float *alpha, const float *a,
                   const int64_t *lda, const float *b, const int64_t *ldb, const float *beta,
                   float *c, const int64_t *ldc)
{
    tsg_call call;
    tsg_map_fortran(*transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc, &call);
    tsg_rt_sgemm(api, &call);
}

#define TSG_CBLAS64_PARAMS                                                                      \
    int layout, int transa, int transb, int64_t m, int64_t n, int64_t k, float alpha,           \
        const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,         \
        int64_t ldc
#define TSG_CBLAS64_ARGS layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc
#define TSG_F77_64_PARAMS                                                                       \
    const char *transa, const char *transb, const int64_t *m, const int64_t *n,                 \
        const int64_t *k, const float *alpha, const float *a, const int64_t *lda,               \
        const float *b, const int64_t *ldb, const float *beta, float *c, const int64_t *ldc
#define TSG_F77_64_ARGS transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc

TSG_EXPORT void cblas_sgemm64_(TSG_CBLAS64_PARAMS);
TSG_EXPORT void scipy_cblas_sgemm64_(TSG_CBLAS64_PARAMS);
TSG_EXPORT void sgemm_64_(TSG_F77_64_PARAMS);
TSG_EXPORT void scipy_sgemm_64_(TSG_F77_64_PARAMS);

/* The ILP64 CBLAS names: the tiny path on the caller's own library of the same name, when it has
 * one (tsg_rt_fast.own), else the full path. */
static inline int tiny_cblas64(tsg_api api, TSG_CBLAS64_PARAMS)
{
    tsg_cblas64_sgemm_fn fn;
    return tiny_cblas(layout, transa, transb, m, n, k, alpha, lda, ldb, ldc) &&
           (fn = (tsg_cblas64_sgemm_fn)tiny_own_fn(api)) != NULL &&
           tiny_run_cblas64(fn, TSG_CBLAS64_ARGS);
}

void cblas_sgemm64_(TSG_CBLAS64_PARAMS)
{
    if (tiny_cblas64(TSG_API_CBLAS64, TSG_CBLAS64_ARGS)) return;
    cblas_any(TSG_API_CBLAS64, TSG_CBLAS64_ARGS);
}
void scipy_cblas_sgemm64_(TSG_CBLAS64_PARAMS)
{
    if (tiny_cblas64(TSG_API_SCIPY_CBLAS64, TSG_CBLAS64_ARGS)) return;
    cblas_any(TSG_API_SCIPY_CBLAS64, TSG_CBLAS64_ARGS);
}
void sgemm_64_(TSG_F77_64_PARAMS) { f77_64(TSG_API_F77_64, TSG_F77_64_ARGS); }
void scipy_sgemm_64_(TSG_F77_64_PARAMS) { f77_64(TSG_API_SCIPY_F77_64, TSG_F77_64_ARGS); }

/* ---- LP64 scipy_ names: scipy and scikit-learn wheels bundle an OpenBLAS built with 32-bit
 * integers and the scipy_ symbol prefix (scipy-openblas32). scipy.linalg.blas.sgemm (f2py) and
 * scipy.linalg.cython_blas.sgemm — which scikit-learn's Cython code calls, e.g. KMeans on float32
 * data — call scipy_sgemm_; scipy_cblas_sgemm is the CBLAS name of the same library. Both are
 * declared with the very types of cblas-netlib.h's cblas_sgemm and of sgemm_ above, so their
 * definitions cannot drift from those prototypes (the compiler rejects a mismatch). Their CPU side
 * is the wheel's own OpenBLAS (tsg_cpu_sgemm_api); a call that re-enters while this thread is
 * inside a CPU BLAS is finished by tsg_rt_sgemm without recursion. Bad arguments are reported
 * with the reference positions, in one printed line (the wheel's handlers are not the
 * program's). */

TSG_EXPORT __typeof__(cblas_sgemm) scipy_cblas_sgemm;
TSG_EXPORT __typeof__(sgemm_) scipy_sgemm_;
_Static_assert(__builtin_types_compatible_p(__typeof__(scipy_cblas_sgemm), __typeof__(cblas_sgemm)),
               "scipy_cblas_sgemm must have the reference cblas_sgemm prototype");
_Static_assert(__builtin_types_compatible_p(__typeof__(scipy_sgemm_), __typeof__(sgemm_)),
               "scipy_sgemm_ must have the sgemm_ prototype");

void scipy_cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB,
                       const CBLAS_INT M, const CBLAS_INT N, const CBLAS_INT K, const float alpha,
                       const float *A, const CBLAS_INT lda, const float *B, const CBLAS_INT ldb,
                       const float beta, float *C, const CBLAS_INT ldc)
{
    if (tiny_cblas32(TSG_API_SCIPY_CBLAS, layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta,
                     C, ldc))
        return;
    cblas_any(TSG_API_SCIPY_CBLAS, layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C,
              ldc);
}

void scipy_sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                  const float *alpha, const float *a, const int *lda, const float *b,
                  const int *ldb, const float *beta, float *c, const int *ldc)
{
    if (tiny_f77(TSG_API_SCIPY_F77, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
        return;
    f77_32(TSG_API_SCIPY_F77, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
