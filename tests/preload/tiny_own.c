/*
 * tiny_own.c — preload.tiny_own: the tiny path of the names whose CPU side is the caller's own
 * library (cblas_sgemm64_, scipy_cblas_sgemm64_, scipy_cblas_sgemm, scipy_sgemm_; shim/tsg_entry.c,
 * shim/tsg_runtime.h). Linked to libtsg_own_blas (tests/support/own_blas.c: a stand-in for a wheel's BLAS, which
 * defines those four names and records where each call came from), run with libtsgemm preloaded
 * so that the program's calls reach tsgemm first.
 *
 *   tiny_own --expect tiny   after each name's first call (the full path, which opens that
 *                            name's gate), every tiny call goes from tsgemm's exported function
 *                            straight to the stand-in's function of the same name
 *   tiny_own --expect full   (with TSGEMM_LOG=2, which keeps every gate closed) none does
 *
 * Every result is checked against a double-precision reference, and tsgemm's counters must have
 * seen every call (interposition happened). Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_stats.h"

void scipy_cblas_sgemm64_(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t,
                          const float *, int64_t, float, float *, int64_t);
void cblas_sgemm64_(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t,
                    const float *, int64_t, float, float *, int64_t);
void scipy_cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                       float, float *, int);
void scipy_sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
                  const float *, const int *, const float *, const int *, const float *, float *,
                  const int *);
int own_blas_calls(const char *name, long *direct_calls, long *other_calls);

enum { N = 12, CALLS = 20 };
static float A[N * N], B[N * N], C[N * N];

/* max |C - op(A) op(B)| over the N x N column-major product (alpha 1, beta 0) */
static double err(char ta, char tb)
{
    double worst = 0;
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) {
            double s = 0;
            for (int p = 0; p < N; ++p)
                s += (double)(ta == 'N' ? A[i + p * N] : A[p + i * N]) * (tb == 'N' ? B[p + j * N] : B[j + p * N]);
            worst = fmax(worst, fabs(s - C[i + j * N]));
        }
    return worst;
}

/* one call through entry point `e` (0..3), transposes from the call's index */
static double call(int e, int i)
{
    const char ta = i & 1 ? 'T' : 'N', tb = i & 2 ? 'T' : 'N';
    const int cta = ta == 'N' ? 111 : 112, ctb = tb == 'N' ? 111 : 112;
    const float one = 1.0f, zero = 0.0f;
    const int n = N;
    memset(C, 0xff, sizeof C); /* NaN: a call that wrote nothing fails */
    switch (e) {
    case 0: scipy_cblas_sgemm64_(102, cta, ctb, N, N, N, 1.0f, A, N, B, N, 0.0f, C, N); break;
    case 1: cblas_sgemm64_(102, cta, ctb, N, N, N, 1.0f, A, N, B, N, 0.0f, C, N); break;
    case 2: scipy_cblas_sgemm(102, cta, ctb, N, N, N, 1.0f, A, N, B, N, 0.0f, C, N); break;
    default: scipy_sgemm_(&ta, &tb, &n, &n, &n, &one, A, &n, B, &n, &zero, C, &n); break;
    }
    const double e2 = err(ta, tb);
    return e2 == e2 ? e2 : INFINITY;
}

int main(int argc, char **argv)
{
    const int tiny = argc == 3 && strcmp(argv[1], "--expect") == 0 && strcmp(argv[2], "tiny") == 0;
    if (!tiny && !(argc == 3 && strcmp(argv[1], "--expect") == 0 && strcmp(argv[2], "full") == 0)) {
        fprintf(stderr, "usage: tiny_own --expect tiny|full\n");
        return 2;
    }
    if (!pl_get_stats()) {
        printf("FAIL: tsgemm is not in the process (run it with LD_PRELOAD=libtsgemm.so)\n");
        return 1;
    }
    for (int i = 0; i < N * N; ++i) A[i] = (float)((i * 37) % 19) / 8.0f - 1, B[i] = (float)((i * 11) % 23) / 8.0f - 1;
    static const char *const names[4] = {"scipy_cblas_sgemm64_", "cblas_sgemm64_", "scipy_cblas_sgemm",
                                         "scipy_sgemm_"};
    int fails = 0;
    for (int e = 0; e < 4; ++e) {
        const struct tsgemm_stats s0 = pl_stats_now();
        double worst = 0;
        for (int i = 0; i < 1 + CALLS; ++i) worst = fmax(worst, call(e, i));
        const struct tsgemm_stats s1 = pl_stats_now();
        long direct = -1, other = -1;
        own_blas_calls(names[e], &direct, &other);
        const unsigned long long seen = s1.calls - s0.calls;
        printf("%-22s %d calls: %ld straight from tsgemm's %s, %ld otherwise; tsgemm counted %llu; "
               "worst error %.3g\n", names[e], 1 + CALLS, direct, names[e], other, seen, worst);
        if (worst > 1e-4) printf("FAIL: %s: a wrong result (error %.3g)\n", names[e], worst), ++fails;
        if (seen != 1 + CALLS) printf("FAIL: %s: tsgemm counted %llu calls, want %d\n", names[e], seen, 1 + CALLS), ++fails;
        if (direct + other != 1 + CALLS)
            printf("FAIL: %s: the stand-in BLAS got %ld calls, want %d\n", names[e], direct + other, 1 + CALLS), ++fails;
        if (tiny && direct < CALLS)
            printf("FAIL: %s: only %ld of the %d calls after the first took the tiny path\n", names[e], direct, CALLS), ++fails;
        if (!tiny && direct != 0)
            printf("FAIL: %s: %ld calls took the tiny path with every gate closed\n", names[e], direct), ++fails;
    }
    if (fails) return 1;
    printf("tiny_own: ok (%s)\n", tiny ? "tiny path after the first call" : "full path throughout");
    return 0;
}
