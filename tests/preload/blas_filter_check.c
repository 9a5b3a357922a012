/*
 * blas_filter_check.c — a program linked with -lblas (netlib's libblas.so.3, by path) run against
 * tsgemm's libblas.so.3 filter instead, found through LD_LIBRARY_PATH: no preload (preload tier).
 *
 * Calls sgemm_, cblas_sgemm (both layouts), dgemm_ and cblas_dgemm on small-integer operands
 * (every product and sum exact: results compared bitwise with a double loop) and checks where
 * each name resolved (dladdr of the global definition) and tsgemm's counters:
 *   --expect filter    the single-precision calls reach libtsgemm (one counted call each, on the
 *                      CPU or GPU path), the double-precision ones reach OpenBLAS and leave the
 *                      counters alone, and tsgemm's CPU BLAS is that same OpenBLAS
 *   --expect fallback  the filter without libtsgemm.so next to it: tsgemm is not in the process
 *                      and all four names are OpenBLAS's (the auxiliary filtee is optional)
 *   --filter PATH      PATH (the filter) must be what was loaded as libblas.so.3
 * Exit status 0 when every check passed, 1 otherwise, 2 usage.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas-netlib.h>

#include "pl_stats.h"

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc);

enum { M = 7, N = 5, K = 9 };
static int failures;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        ++failures;                                                                                \
        fprintf(stderr, "FAIL: " __VA_ARGS__);                                                     \
        fputc('\n', stderr);                                                                       \
    } while (0)

/* Column-major M x K A, K x N B, M x N C in [-4, 4]; R = 2 A B - C (alpha 2, beta -1). */
static void operands(double *a, double *b, double *c, double *r)
{
    for (int i = 0; i < M * K; ++i) a[i] = (double)((i * 7) % 9 - 4);
    for (int i = 0; i < K * N; ++i) b[i] = (double)((i * 5) % 9 - 4);
    for (int i = 0; i < M * N; ++i) c[i] = (double)((i * 3) % 9 - 4);
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < M; ++i) {
            double s = 0;
            for (int l = 0; l < K; ++l) s += a[i + l * M] * b[l + j * K];
            r[i + j * M] = 2 * s - c[i + j * M];
        }
}

/* Where `name` resolves in the global scope, as a PLT call from this program would. */
static const char *provider(const char *name) { return pl_provider(dlsym(RTLD_DEFAULT, name)); }

int main(int argc, char **argv)
{
    const char *expect = NULL, *filter = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--expect")) expect = argv[i + 1];
        else if (!strcmp(argv[i], "--filter")) filter = argv[i + 1];
    }
    if (!expect || (strcmp(expect, "filter") && strcmp(expect, "fallback"))) {
        fprintf(stderr, "usage: %s --expect filter|fallback [--filter PATH]\n", argv[0]);
        return 2;
    }
    int want_tsgemm = !strcmp(expect, "filter");
    if (filter && !pl_mapped(filter)) FAIL("%s is not mapped: which libblas.so.3 was loaded?", filter);
    if ((pl_get_stats() != NULL) != want_tsgemm)
        FAIL("tsgemm is %sin the process", want_tsgemm ? "not " : "");

    static const char *const s_names[] = {"sgemm_", "cblas_sgemm"};
    static const char *const d_names[] = {"dgemm_", "cblas_dgemm"};
    for (int i = 0; i < 2; ++i) {
        const char *sp = provider(s_names[i]), *dp = provider(d_names[i]);
        printf("%s from %s\n%s from %s\n", s_names[i], sp, d_names[i], dp);
        if (!strstr(sp, want_tsgemm ? "libtsgemm" : "libopenblas"))
            FAIL("%s resolved to %s", s_names[i], sp);
        if (!strstr(dp, "libopenblas")) FAIL("%s resolved to %s, not OpenBLAS", d_names[i], dp);
    }

    double a[M * K], b[K * N], c0[M * N], r[M * N];
    operands(a, b, c0, r);
    float sa[M * K], sb[K * N], sc[M * N];
    for (int i = 0; i < M * K; ++i) sa[i] = (float)a[i];
    for (int i = 0; i < K * N; ++i) sb[i] = (float)b[i];
    const int m = M, n = N, k = K;
    const float alpha = 2, beta = -1;
    const double dalpha = 2, dbeta = -1;
    for (int call = 0; call < 5; ++call) {
        struct tsgemm_stats s0 = pl_stats_now();
        double dc[M * N], got[M * N];
        for (int i = 0; i < M * N; ++i) sc[i] = (float)(dc[i] = c0[i]);
        const char *what = "";
        switch (call) {
        case 0:
            what = "sgemm_";
            sgemm_("N", "N", &m, &n, &k, &alpha, sa, &m, sb, &k, &beta, sc, &m);
            break;
        case 1:
            what = "cblas_sgemm col-major";
            cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, sa, M, sb, K,
                        beta, sc, M);
            break;
        case 2: /* the same memory read row-major: C^T (N x M) = B^T (N x K) A^T (K x M) */
            what = "cblas_sgemm row-major";
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, M, K, alpha, sb, K, sa, M,
                        beta, sc, M);
            break;
        case 3:
            what = "dgemm_";
            dgemm_("N", "N", &m, &n, &k, &dalpha, a, &m, b, &k, &dbeta, dc, &m);
            break;
        default:
            what = "cblas_dgemm";
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, dalpha, a, M, b, K,
                        dbeta, dc, M);
            break;
        }
        struct tsgemm_stats s1 = pl_stats_now();
        int single = call < 3;
        for (int i = 0; i < M * N; ++i) got[i] = single ? (double)sc[i] : dc[i];
        if (memcmp(got, r, sizeof r)) FAIL("%s: result differs from the exact reference", what);
        uint64_t calls = s1.calls - s0.calls, ran = (s1.cpu - s0.cpu) + (s1.gpu - s0.gpu);
        uint64_t want = want_tsgemm && single;
        if (calls != want || ran != want)
            FAIL("%s: tsgemm counted %llu calls (%llu ran), expected %llu", what,
                 (unsigned long long)calls, (unsigned long long)ran, (unsigned long long)want);
        printf("ok   %s (tsgemm calls +%llu)\n", what, (unsigned long long)calls);
    }
    if (want_tsgemm) {
        const char *(*cpu_blas)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "tsgemm_cpu_blas");
        const char *cb = cpu_blas ? cpu_blas() : "?";
        printf("tsgemm's CPU BLAS: %s\n", cb);
        if (!strstr(cb, "libopenblas")) FAIL("tsgemm's CPU BLAS is %s, not the filter's OpenBLAS", cb);
    }
    printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
