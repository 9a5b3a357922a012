/*
 * own_blas.c — libtsg_own_blas: a stand-in for the BLAS a wheel brings (numpy's, scipy's), for
 * preload.tiny_own and unit.replay_own_blas. It defines four of the names tsgemm exports and then finds in the caller's
 * own library (shim/tsg_cpublas.c): scipy_cblas_sgemm64_ and cblas_sgemm64_ (ILP64),
 * scipy_cblas_sgemm and scipy_sgemm_ (LP64), each a plain column-major loop (row-major by
 * swapping, as the reference CBLAS does) — and records, per name, how many calls arrived
 * straight from tsgemm's exported function of the same name (tsgemm's tiny path) and how many
 * from anywhere else (tsgemm's full path): the return address's symbol, by dladdr. Not a BLAS
 * for anything but this test: no argument checks.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

enum { OWN_SCIPY_CBLAS64, OWN_CBLAS64, OWN_SCIPY_CBLAS, OWN_SCIPY_F77, OWN_NAMES };
static const char *const own_names[OWN_NAMES] = {"scipy_cblas_sgemm64_", "cblas_sgemm64_",
                                                 "scipy_cblas_sgemm", "scipy_sgemm_"};
static long direct[OWN_NAMES], other[OWN_NAMES];

/* C = alpha op(A) op(B) + beta C, column-major, 'N' / 'T' */
static void gemm(char ta, char tb, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                 int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc)
{
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            double s = 0;
            for (int64_t p = 0; p < k; ++p)
                s += (double)(ta == 'N' ? a[i + p * lda] : a[p + i * lda]) *
                     (tb == 'N' ? b[p + j * ldb] : b[j + p * ldb]);
            c[i + j * ldc] = (float)(alpha * s + (beta == 0.0f ? 0.0 : (double)beta * c[i + j * ldc]));
        }
}

/* The caller of a call to `name` (its return address ret) is another library's function of the
 * very same name: tsgemm's exported entry point, calling straight through (its tiny path). */
static void note(int name, void *ret)
{
    Dl_info caller, self;
    const int same = dladdr(ret, &caller) && caller.dli_sname &&
                     strcmp(caller.dli_sname, own_names[name]) == 0 &&
                     dladdr((void *)&note, &self) && caller.dli_fbase != self.dli_fbase;
    if (same) ++direct[name];
    else ++other[name];
}

static void cblas_any(int layout, int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha,
                      const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                      int64_t ldc)
{
    const char cta = ta == 111 ? 'N' : 'T', ctb = tb == 111 ? 'N' : 'T';
    if (layout == 101) /* row-major: C^T = op(B)^T op(A)^T */
        gemm(ctb, cta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
    else
        gemm(cta, ctb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void scipy_cblas_sgemm64_(int layout, int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha,
                          const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                          float *c, int64_t ldc)
{
    note(OWN_SCIPY_CBLAS64, __builtin_return_address(0));
    cblas_any(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_sgemm64_(int layout, int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha,
                    const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                    int64_t ldc)
{
    note(OWN_CBLAS64, __builtin_return_address(0));
    cblas_any(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void scipy_cblas_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                       int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
    note(OWN_SCIPY_CBLAS, __builtin_return_address(0));
    cblas_any(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void scipy_sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                  const float *alpha, const float *a, const int *lda, const float *b,
                  const int *ldb, const float *beta, float *c, const int *ldc)
{
    note(OWN_SCIPY_F77, __builtin_return_address(0));
    gemm(*ta == 'n' || *ta == 'N' ? 'N' : 'T', *tb == 'n' || *tb == 'N' ? 'N' : 'T', *m, *n, *k,
         *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
}

/* For the test program: calls of `name` that came straight from tsgemm's function of the same
 * name (*direct) and from elsewhere (*other); -1 for a name not defined here. */
int own_blas_calls(const char *name, long *direct_calls, long *other_calls)
{
    for (int i = 0; i < OWN_NAMES; ++i)
        if (strcmp(name, own_names[i]) == 0) {
            *direct_calls = direct[i];
            *other_calls = other[i];
            return 0;
        }
    return -1;
}
