/*
 * nop_sgemm.c — a stand-in "libtsgemm" whose cblas_sgemm and sgemm_ do nothing at all.
 *
 * Only for the checker's self-test: run_testers.sh run with this library preloaded must report
 * failures (missing PASSED lines, NOT DETECTED error exits, no tsgemm summary). A checker that
 * passed this library would pass anything, so the conformance results would mean nothing.
 */
#include <cblas-netlib.h>

void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb,
                 const CBLAS_INT m, const CBLAS_INT n, const CBLAS_INT k, const float alpha,
                 const float *a, const CBLAS_INT lda, const float *b, const CBLAS_INT ldb,
                 const float beta, float *c, const CBLAS_INT ldc)
{
    (void)layout, (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha, (void)a;
    (void)lda, (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
}

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc)
{
    (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda;
    (void)b, (void)ldb, (void)beta, (void)c, (void)ldc;
}
