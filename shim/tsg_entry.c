/*
 * tsg_entry.c — the exported BLAS names. The complete list (DESIGN.md): cblas_sgemm, sgemm_,
 * cblas_sgemm64_, sgemm_64_, scipy_cblas_sgemm64_, scipy_sgemm_64_ (ILP64), scipy_cblas_sgemm,
 * scipy_sgemm_ (LP64, scipy/scikit-learn wheels). tsgemm.map exports these and tsgemm_*;
 * everything else is hidden.
 *
 * Each entry point only reads its arguments into a tsg_call (src/) and hands it to the runtime.
 * A call arriving while this thread is already inside the CPU BLAS (netlib's cblas_sgemm calls
 * sgemm_ through the PLT, which resolves to us when preloaded) goes straight to that library.
 */
#include <cblas-netlib.h> /* the reference prototype: our cblas_sgemm must match it exactly */
#include <stdint.h>

#include "tsg_cpublas.h"
#include "tsg_runtime.h"
#include "tsg_thread.h"

#define TSG_EXPORT __attribute__((visibility("default")))

TSG_EXPORT void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB,
                            const CBLAS_INT M, const CBLAS_INT N, const CBLAS_INT K,
                            const float alpha, const float *A, const CBLAS_INT lda,
                            const float *B, const CBLAS_INT ldb, const float beta, float *C,
                            const CBLAS_INT ldc)
{
    if (tsg_tl.in_fallback) {
        tsg_cpu_forward_cblas(layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    tsg_call call;
    tsg_map_cblas(layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, &call);
    tsg_rt_sgemm(TSG_API_CBLAS, &call);
}

/* A Fortran-style call with 32-bit integers through `api`. */
static void f77_32(tsg_api api, const char *transa, const char *transb, const int *m,
                   const int *n, const int *k, const float *alpha, const float *a, const int *lda,
                   const float *b, const int *ldb, const float *beta, float *c, const int *ldc)
{
    tsg_call call;
    tsg_map_fortran(*transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc, &call);
    tsg_rt_sgemm(api, &call);
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
    if (tsg_tl.in_fallback) {
        tsg_cpu_forward_f77(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    f77_32(TSG_API_F77, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
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

void cblas_sgemm64_(TSG_CBLAS64_PARAMS) { cblas_any(TSG_API_CBLAS64, TSG_CBLAS64_ARGS); }
void scipy_cblas_sgemm64_(TSG_CBLAS64_PARAMS)
{
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
    cblas_any(TSG_API_SCIPY_CBLAS, layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C,
              ldc);
}

void scipy_sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                  const float *alpha, const float *a, const int *lda, const float *b,
                  const int *ldb, const float *beta, float *c, const int *ldc)
{
    f77_32(TSG_API_SCIPY_F77, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
