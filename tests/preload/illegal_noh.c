/*
 * illegal_noh.c — fault class 9 in a program with NO error handler of its own (preload tier).
 *
 * Linked to OpenBLAS only and run with libtsgemm.so preloaded. OpenBLAS (and netlib) define
 * cblas_xerbla/xerbla_ that call exit(); tsgemm must not call those: it prints exactly one line
 *   tsgemm: parameter P (NAME) to cblas_sgemm had an illegal value; the call did nothing
 * with the caller's own position P (row-major two-bad-argument calls report the swapped order's
 * first), leaves A, B and C bitwise untouched, counts one illegal call, and returns: the program
 * goes on and exits 0. Checked per call by capturing fd 2 around it, for cblas_sgemm in both
 * layouts, sgemm_, the LP64 scipy_cblas_sgemm / scipy_sgemm_ of scipy wheels (every case of the
 * tables, same positions) and the ILP64 names (which always print: their handlers are not
 * called).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "pl_illegal_cases.h"
#include "pl_stats.h"

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);

/* the 32-bit entry points: cblas_sgemm / sgemm_ and the scipy_ LP64 names (same prototypes) */
typedef __typeof__(cblas_sgemm) *cblas32_fn;

typedef void (*cblas64_fn)(int, int, int, int64_t, int64_t, int64_t, float, const float *,
                           int64_t, const float *, int64_t, float, float *, int64_t);
typedef void (*f77_64_fn)(const char *, const char *, const int64_t *, const int64_t *,
                          const int64_t *, const float *, const float *, const int64_t *,
                          const float *, const int64_t *, const float *, float *,
                          const int64_t *);

enum { BUF = 256 };
static float a[BUF], b[BUF], c[BUF], a0[BUF], b0[BUF], c0[BUF];
static int failures;

static void reset(void)
{
    for (int i = 0; i < BUF; ++i) {
        a[i] = a0[i] = (float)(i % 7) - 3.0f;
        b[i] = b0[i] = (float)(i % 5) - 2.0f;
        c[i] = c0[i] = (i % 3) ? (float)i : __builtin_nanf("0x1234"); /* a NaN payload too */
    }
}

/* After one illegal call: exactly `want` on stderr, nothing touched, one illegal call counted. */
static void check(const char *what, const char *got, const char *want, struct tsgemm_stats s0)
{
    struct tsgemm_stats s1 = pl_stats_now();
    if (strcmp(got, want)) {
        ++failures;
        fprintf(stderr, "FAIL: %s: stderr was\n  [%s]\nexpected\n  [%s]\n", what, got, want);
    }
    if (memcmp(a, a0, sizeof a) || memcmp(b, b0, sizeof b) || memcmp(c, c0, sizeof c)) {
        ++failures;
        fprintf(stderr, "FAIL: %s: A, B or C changed (must be bitwise untouched)\n", what);
    }
    if (s1.calls - s0.calls != 1 || s1.illegal - s0.illegal != 1 || s1.cpu != s0.cpu ||
        s1.gpu != s0.gpu || s1.quick != s0.quick) {
        ++failures;
        fprintf(stderr, "FAIL: %s: counters moved by calls %llu illegal %llu cpu %llu gpu %llu "
                        "quick %llu; expected one illegal call and nothing else\n",
                what, (unsigned long long)(s1.calls - s0.calls),
                (unsigned long long)(s1.illegal - s0.illegal),
                (unsigned long long)(s1.cpu - s0.cpu), (unsigned long long)(s1.gpu - s0.gpu),
                (unsigned long long)(s1.quick - s0.quick));
    }
    const char *path = pl_last_path()();
    if (strcmp(path, "illegal")) {
        ++failures;
        fprintf(stderr, "FAIL: %s: tsgemm_last_path() = \"%s\", expected \"illegal\"\n", what,
                path);
    }
}

static void expected_line(char *buf, size_t len, int pos, const char *name, const char *routine)
{
    snprintf(buf, len, "tsgemm: parameter %d (%s) to %s had an illegal value; the call did nothing\n",
             pos, name, routine);
}

int main(void)
{
    if (!pl_get_stats() || !pl_last_path()) {
        fprintf(stderr, "FAIL: tsgemm is not in the process (run with LD_PRELOAD=libtsgemm.so); "
                        "without it OpenBLAS's xerbla would exit() at the first bad call\n");
        return 1;
    }
    char want[256];
    pl_capture cap;
    int ncalls = 0;

    const char *const cblas32_names[2] = {"cblas_sgemm", "scipy_cblas_sgemm"};
    const char *const f77_32_names[2] = {"sgemm_", "scipy_sgemm_"};
    for (int name = 0; name < 2; ++name) {
        cblas32_fn cb = name ? (cblas32_fn)dlsym(RTLD_DEFAULT, cblas32_names[name]) : cblas_sgemm;
        pl_f77_fn f = name ? (pl_f77_fn)dlsym(RTLD_DEFAULT, f77_32_names[name]) : sgemm_;
        if (!cb || !f) {
            ++failures;
            fprintf(stderr, "FAIL: %s or %s not found\n", cblas32_names[name], f77_32_names[name]);
            continue;
        }
        for (int i = 0; i < PL_COUNT(pl_cblas_cases); ++i) {
            const struct pl_cblas_illegal *t = &pl_cblas_cases[i];
            reset();
            struct tsgemm_stats s0 = pl_stats_now();
            if (pl_capture_begin(&cap)) return 1;
            cb((CBLAS_LAYOUT)t->layout, (CBLAS_TRANSPOSE)t->transa, (CBLAS_TRANSPOSE)t->transb,
               t->m, t->n, t->k, 1.0f, a, t->lda, b, t->ldb, 0.0f, c, t->ldc);
            char *got = pl_capture_end(&cap);
            char what[128];
            snprintf(what, sizeof what, "%s: %s", cblas32_names[name], t->what);
            expected_line(want, sizeof want, t->user_pos, pl_cblas_arg_name[t->user_pos],
                          cblas32_names[name]);
            check(what, got, want, s0);
            free(got);
            ++ncalls;
        }

        for (int i = 0; i < PL_COUNT(pl_f77_cases); ++i) {
            const struct pl_f77_illegal *t = &pl_f77_cases[i];
            reset();
            struct tsgemm_stats s0 = pl_stats_now();
            if (pl_capture_begin(&cap)) return 1;
            pl_f77_call(f, t, a, b, c);
            char *got = pl_capture_end(&cap);
            char what[128];
            snprintf(what, sizeof what, "%s: %s", f77_32_names[name], t->what);
            expected_line(want, sizeof want, t->pos, pl_f77_arg_name[t->pos], f77_32_names[name]);
            check(what, got, want, s0);
            free(got);
            ++ncalls;
        }
    }

    /* The ILP64 names: a report line naming the entry point, the same positions. */
    static const char *const names64[] = {"cblas_sgemm64_", "scipy_cblas_sgemm64_", "sgemm_64_",
                                          "scipy_sgemm_64_"};
    for (int i = 0; i < 4; ++i) {
        void *fn = dlsym(RTLD_DEFAULT, names64[i]);
        if (!fn) {
            ++failures;
            fprintf(stderr, "FAIL: %s not found\n", names64[i]);
            continue;
        }
        for (int row = 0; row < (i < 2 ? 2 : 1); ++row) {
            reset();
            struct tsgemm_stats s0 = pl_stats_now();
            if (pl_capture_begin(&cap)) return 1;
            if (i < 2) /* M < 0 and N < 0: row-major reports N */
                ((cblas64_fn)fn)(row ? PL_ROW : PL_COL, PL_N, PL_N, -1, -1, 5, 1.0f, a, 5, b, 5,
                                 0.0f, c, 5);
            else {
                const int64_t m = 3, n = 4, k = 5, lda = 3, ldb = 5, ldc = 2;
                const float alpha = 1.0f, beta = 0.0f;
                ((f77_64_fn)fn)("N", "N", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
            }
            char *got = pl_capture_end(&cap);
            char what[128];
            snprintf(what, sizeof what, "%s %s", names64[i], i < 2 ? (row ? "row" : "col") : "f77");
            if (i < 2)
                expected_line(want, sizeof want, row ? 5 : 4, row ? "N" : "M", names64[i]);
            else
                expected_line(want, sizeof want, 13, "LDC", names64[i]);
            check(what, got, want, s0);
            free(got);
            ++ncalls;
        }
    }

    printf("%d illegal calls checked, %d failures; the program is still running\n", ncalls,
           failures);
    return failures ? 1 : 0;
}
