/*
 * illegal_handler.c — fault class 9 in a program that DEFINES its own cblas_xerbla and xerbla_
 * (as the netlib testers do), linked with -rdynamic so both are in its dynamic symbol table.
 *
 * Preloaded with libtsgemm.so, every bad cblas_sgemm must call this cblas_xerbla exactly once
 * with the reference protocol: the raw info of the (for row-major: swapped) problem, routine
 * name "cblas_sgemm", RowMajorStrg set to 1 for row-major calls during the call and 0 after — so
 * that the reference swap-back (4<->5, 9<->11) recovers the caller's position. Every bad sgemm_
 * must call this xerbla_ exactly once with "SGEMM" and the Fortran position. No handler calls the
 * other (no recursion), tsgemm prints nothing itself, C stays bitwise untouched, the program
 * continues. The ILP64 names (their integer width differs) and the LP64 scipy_ names of scipy
 * wheels do not call these handlers: they print one line instead, which is checked too.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas-netlib.h> /* declares cblas_xerbla with the reference prototype we define */

#include "pl_illegal_cases.h"
#include "pl_stats.h"

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
void xerbla_(const char *srname, const int *info, size_t srname_len);

/* The reference CBLAS flag: set by cblas_sgemm for row-major calls; the handler swaps back. */
int RowMajorStrg;

static struct {
    int cblas_calls, f77_calls;
    int info, row_major_strg;
    char rout[64];
    size_t srname_len;
} seen;

void cblas_xerbla(CBLAS_INT p, const char *rout, const char *form, ...)
{
    (void)form;
    ++seen.cblas_calls;
    seen.info = p;
    seen.row_major_strg = RowMajorStrg;
    snprintf(seen.rout, sizeof seen.rout, "%s", rout ? rout : "(null)");
}

void xerbla_(const char *srname, const int *info, size_t srname_len)
{
    ++seen.f77_calls;
    seen.info = *info;
    seen.srname_len = srname_len;
    size_t n = srname_len < sizeof seen.rout - 1 ? srname_len : sizeof seen.rout - 1;
    memcpy(seen.rout, srname, n);
    seen.rout[n] = '\0';
}

/* The reference cblas_xerbla's swap-back for gemm (CBLAS/src/cblas_xerbla.c). */
static int swap_back(int info)
{
    switch (info) {
    case 4: return 5;
    case 5: return 4;
    case 9: return 11;
    case 11: return 9;
    default: return info;
    }
}

enum { BUF = 256 };
static float a[BUF], b[BUF], c[BUF], c0[BUF];
static int failures;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        ++failures;                                                                                \
        fprintf(stderr, "FAIL: ");                                                                 \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
    } while (0)

static void reset(void)
{
    memset(&seen, 0, sizeof seen);
    RowMajorStrg = 0;
    for (int i = 0; i < BUF; ++i) {
        a[i] = (float)(i % 7);
        b[i] = (float)(i % 5);
        c[i] = c0[i] = (i % 2) ? (float)i : __builtin_nanf("");
    }
}

static void common_checks(const char *what, const char *out, struct tsgemm_stats s0)
{
    struct tsgemm_stats s1 = pl_stats_now();
    if (out[0]) FAIL("%s: tsgemm printed although the program has a handler: [%s]", what, out);
    if (memcmp(c, c0, sizeof c)) FAIL("%s: C changed", what);
    if (s1.calls - s0.calls != 1 || s1.illegal - s0.illegal != 1 || s1.cpu != s0.cpu ||
        s1.gpu != s0.gpu || s1.quick != s0.quick)
        FAIL("%s: counters: expected exactly one illegal call", what);
}

int main(void)
{
    if (!pl_get_stats()) {
        FAIL("tsgemm is not in the process (run with LD_PRELOAD=libtsgemm.so)");
        return 1;
    }
    pl_capture cap;
    int ncalls = 0;

    for (int i = 0; i < PL_COUNT(pl_cblas_cases); ++i) {
        const struct pl_cblas_illegal *t = &pl_cblas_cases[i];
        reset();
        struct tsgemm_stats s0 = pl_stats_now();
        if (pl_capture_begin(&cap)) return 1;
        cblas_sgemm((CBLAS_LAYOUT)t->layout, (CBLAS_TRANSPOSE)t->transa,
                    (CBLAS_TRANSPOSE)t->transb, t->m, t->n, t->k, 1.0f, a, t->lda, b, t->ldb,
                    0.0f, c, t->ldc);
        char *out = pl_capture_end(&cap);
        ++ncalls;
        int row = t->layout == PL_ROW;
        if (seen.cblas_calls != 1 || seen.f77_calls != 0) {
            FAIL("%s: cblas_xerbla called %d times, xerbla_ %d times; expected 1 and 0", t->what,
                 seen.cblas_calls, seen.f77_calls);
        } else {
            if (seen.info != t->raw_info)
                FAIL("%s: cblas_xerbla received info %d, the reference passes %d", t->what,
                     seen.info, t->raw_info);
            if (seen.row_major_strg != row)
                FAIL("%s: RowMajorStrg was %d inside the handler, expected %d", t->what,
                     seen.row_major_strg, row);
            int back = seen.row_major_strg ? swap_back(seen.info) : seen.info;
            if (back != t->user_pos)
                FAIL("%s: after the reference swap-back the handler reports %d, the caller's "
                     "position is %d", t->what, back, t->user_pos);
            if (strcmp(seen.rout, "cblas_sgemm"))
                FAIL("%s: routine name \"%s\", expected \"cblas_sgemm\"", t->what, seen.rout);
        }
        if (RowMajorStrg != 0) FAIL("%s: RowMajorStrg left at %d after the call", t->what, RowMajorStrg);
        common_checks(t->what, out, s0);
        free(out);
    }

    for (int i = 0; i < PL_COUNT(pl_f77_cases); ++i) {
        const struct pl_f77_illegal *t = &pl_f77_cases[i];
        reset();
        struct tsgemm_stats s0 = pl_stats_now();
        if (pl_capture_begin(&cap)) return 1;
        pl_f77_call(sgemm_, t, a, b, c);
        char *out = pl_capture_end(&cap);
        ++ncalls;
        char what[128];
        snprintf(what, sizeof what, "sgemm_: %s", t->what);
        if (seen.f77_calls != 1 || seen.cblas_calls != 0) {
            FAIL("%s: xerbla_ called %d times, cblas_xerbla %d times; expected 1 and 0", what,
                 seen.f77_calls, seen.cblas_calls);
        } else {
            if (seen.info != t->pos)
                FAIL("%s: xerbla_ received info %d, expected %d", what, seen.info, t->pos);
            /* SRNAME is CHARACTER*(*): the name, blank-padded to its hidden length */
            if (seen.srname_len < 5 || strncmp(seen.rout, "SGEMM", 5) ||
                strspn(seen.rout + 5, " ") != strlen(seen.rout + 5))
                FAIL("%s: xerbla_ received SRNAME \"%s\" (length %zu), expected \"SGEMM\"", what,
                     seen.rout, seen.srname_len);
        }
        common_checks(what, out, s0);
        free(out);
    }

    /* ILP64 and the scipy_ LP64 names: the program's handlers are not called (the ILP64 ones
     * take other integer widths; the scipy_ names belong to a wheel's own OpenBLAS, whose errors
     * never reached this program's handlers either): one printed line instead
     * (shim/tsg_xerbla.c), C untouched. */
    typedef void (*cblas64_fn)(int, int, int, int64_t, int64_t, int64_t, float, const float *,
                               int64_t, const float *, int64_t, float, float *, int64_t);
    static const struct {
        const char *name, *want;
    } printed[] = {
        {"cblas_sgemm64_", "tsgemm: parameter 9 (lda) to cblas_sgemm64_ had an illegal value; "
                           "the call did nothing\n"},
        {"scipy_cblas_sgemm", "tsgemm: parameter 9 (lda) to scipy_cblas_sgemm had an illegal "
                              "value; the call did nothing\n"},
        {"scipy_sgemm_", "tsgemm: parameter 13 (LDC) to scipy_sgemm_ had an illegal value; the "
                         "call did nothing\n"},
    };
    for (int i = 0; i < PL_COUNT(printed); ++i) {
        const char *name = printed[i].name;
        void *fn = dlsym(RTLD_DEFAULT, name);
        if (!fn) {
            FAIL("%s not found", name);
            continue;
        }
        reset();
        struct tsgemm_stats s0 = pl_stats_now();
        if (pl_capture_begin(&cap)) return 1;
        if (i == 0) {
            ((cblas64_fn)fn)(PL_ROW, PL_N, PL_N, 3, 4, 5, 1.0f, a, 4, b, 4, 0.0f, c, 4); /* lda < K */
        } else if (i == 1) {
            ((__typeof__(cblas_sgemm) *)fn)(CblasRowMajor, CblasNoTrans, CblasNoTrans, 3, 4, 5, 1.0f,
                                            a, 4, b, 4, 0.0f, c, 4); /* lda < K */
        } else {
            const int m = 3, n = 4, k = 5, lda = 3, ldb = 5, ldc = 2; /* LDC < M */
            const float alpha = 1.0f, beta = 0.0f;
            ((__typeof__(sgemm_) *)fn)("N", "N", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c,
                                       &ldc);
        }
        char *out = pl_capture_end(&cap);
        ++ncalls;
        if (seen.cblas_calls || seen.f77_calls)
            FAIL("%s: the program's handler was called (cblas_xerbla %d, xerbla_ %d times)", name,
                 seen.cblas_calls, seen.f77_calls);
        if (strcmp(out, printed[i].want))
            FAIL("%s: stderr was [%s], expected [%s]", name, out, printed[i].want);
        if (memcmp(c, c0, sizeof c)) FAIL("%s: C changed", name);
        struct tsgemm_stats s1 = pl_stats_now();
        if (s1.illegal - s0.illegal != 1 || s1.calls - s0.calls != 1)
            FAIL("%s: not counted as exactly one illegal call", name);
        free(out);
    }

    printf("%d illegal calls checked against the program's own handlers, %d failures\n", ncalls,
           failures);
    return failures ? 1 : 0;
}
