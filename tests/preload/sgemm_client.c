/*
 * sgemm_client.c — an ordinary, unmodified SGEMM client (preload tier). One source, built three
 * ways:
 *   tsg_client_openblas  OpenBLAS's <cblas.h>, linked with -lopenblas only
 *   tsg_client_netlib    the reference <cblas-netlib.h>, linked to netlib's libblas.so.3 by path
 *                        (its cblas_sgemm calls sgemm_ through the PLT: fault class 10)
 *   tsg_client_linked    the reference header, linked to libtsgemm itself
 * It checks every result against a double-precision reference: both layouts, every transpose
 * pair (ConjTrans too, which is Trans for real data), odd sizes, M/N/K = 1, padded leading
 * dimensions, pointers offset by 1-3 floats, alpha/beta variants incl. beta = 0 on a NaN-poisoned
 * C, the quick returns; A, B and everything outside C's m x n window must stay bitwise
 * unchanged. The Fortran sgemm_ is called from C without hidden lengths, with 'N' 'n' 'T' 't'
 * 'C' 'c'. When tsgemm is in the process, each call must move its counters by exactly one call
 * on the expected path (interposition happened, no double dispatch, no recursion), and the
 * ILP64 and LP64 scipy_ names tsgemm exports are exercised too.
 *
 * Usage: tsg_client_* --expect interposed|plain [--provider S] [--require-mapped S]
 *   --expect interposed  tsgemm_get_stats must be reachable through dlsym(RTLD_DEFAULT) and the
 *                        counters must show every call; --expect plain: it must NOT be reachable
 *                        (no preload: the plain BLAS answers, nothing about counters is required)
 *   --provider S         cblas_sgemm and sgemm_ must be defined by an object whose path has S
 *   --require-mapped S   after the calls, a mapping of this process has S in its path (e.g. the
 *                        CPU BLAS tsgemm loaded as its fallback)
 * Exit status 0 when every check passed, 1 otherwise (the failures are printed), 2 usage.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PL_NETLIB_HEADER
#include <cblas-netlib.h>
#else
#include <cblas.h>
#endif

#include "pl_stats.h"
#include "tsg_testutil.h"

/* The Fortran interface as C programs call it: no hidden string lengths (fault class 18). */
void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);

/* ILP64 names (OpenBLAS INTERFACE64 and the numpy/scipy wheels): reached through dlsym only. */
typedef void (*cblas64_fn)(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
                           float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                           float beta, float *c, int64_t ldc);
typedef void (*f77_64_fn)(const char *transa, const char *transb, const int64_t *m,
                          const int64_t *n, const int64_t *k, const float *alpha, const float *a,
                          const int64_t *lda, const float *b, const int64_t *ldb,
                          const float *beta, float *c, const int64_t *ldc);

/* ... and the LP64 names of scipy/scikit-learn wheels, with the 32-bit prototypes */
enum api {
    API_CBLAS, API_F77, API_CBLAS64, API_F77_64, API_SCIPY_CBLAS64, API_SCIPY_F77_64,
    API_SCIPY_CBLAS, API_SCIPY_F77, API_COUNT
};
static const char *const api_name[API_COUNT] = {"cblas_sgemm",    "sgemm_",
                                                "cblas_sgemm64_", "sgemm_64_",
                                                "scipy_cblas_sgemm64_", "scipy_sgemm_64_",
                                                "scipy_cblas_sgemm", "scipy_sgemm_"};
static void *api_fn[API_COUNT];

static int is_f77(enum api api)
{
    return api == API_F77 || api == API_F77_64 || api == API_SCIPY_F77_64 || api == API_SCIPY_F77;
}

static int interposed; /* --expect interposed */
static int failures, checked;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        if (++failures <= 25) {                                                                    \
            fprintf(stderr, "FAIL: ");                                                             \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* One case: what is called and with what. */
struct gemm_case {
    enum api api;
    int row_major;       /* CBLAS layouts only                                  */
    char transa, transb; /* as passed: N n T t C c (CBLAS: N T C -> the enums)  */
    int m, n, k;
    int pad;             /* each ld = minimum + pad                              */
    int offset;          /* each operand starts offset floats after alignment    */
    float alpha, beta;
    int nan_c;           /* poison C with NaN before the call                    */
    int int_fill;        /* small integers: results exact, compared bitwise      */
};

static int is_trans(char t) { return t != 'N' && t != 'n'; }

static CBLAS_TRANSPOSE cblas_trans(char t)
{
    return t == 'N' ? CblasNoTrans : t == 'T' ? CblasTrans : CblasConjTrans;
}

static int imax(int a, int b) { return a > b ? a : b; }

/*
 * Reference in the caller's own layout, independent of tsgemm's row->column swap: R holds C in
 * storage order (column-major: R[i + j*m]; row-major: R[j + i*n]). BLAS semantics: alpha = 0 or
 * k = 0 never reads A or B; beta = 0 never reads C.
 */
static void ref_gemm(int row_major, char ta, char tb, int m, int n, int k, double alpha,
                     const float *a, int lda, const float *b, int ldb, double beta,
                     const float *c, int ldc, double *r, double *absr)
{
    if (!row_major) {
        tt_ref_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, r, absr);
        return;
    }
    int tra = is_trans(ta), trb = is_trans(tb);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0, sa = 0;
            if (alpha != 0.0)
                for (int l = 0; l < k; ++l) {
                    double x = tra ? a[(size_t)l * lda + i] : a[(size_t)i * lda + l];
                    double y = trb ? b[(size_t)j * ldb + l] : b[(size_t)l * ldb + j];
                    s += x * y;
                    sa += fabs(x * y);
                }
            double v = alpha * s, av = fabs(alpha) * sa;
            if (beta != 0.0) {
                double cij = c[(size_t)i * ldc + j];
                v += beta * cij;
                av += fabs(beta * cij);
            }
            r[j + (size_t)i * n] = v;
            absr[j + (size_t)i * n] = av;
        }
}

/* Stored shape of an operand with `rows` x `cols` of op() in the given layout: contiguous count
 * and count of lines (tt_mat's rows and cols). */
static void stored(int row_major, int trans, int rows, int cols, int *contig, int *lines)
{
    int r = trans ? cols : rows, c = trans ? rows : cols; /* the stored matrix, before op() */
    *contig = row_major ? c : r;
    *lines = row_major ? r : c;
}

static void call_api(const struct gemm_case *t, const float *a, int lda, const float *b, int ldb,
                     float *c, int ldc)
{
    CBLAS_LAYOUT layout = t->row_major ? CblasRowMajor : CblasColMajor;
    switch (t->api) {
    case API_CBLAS:
        cblas_sgemm(layout, cblas_trans(t->transa), cblas_trans(t->transb), t->m, t->n, t->k,
                    t->alpha, a, lda, b, ldb, t->beta, c, ldc);
        break;
    case API_F77:
        sgemm_(&t->transa, &t->transb, &t->m, &t->n, &t->k, &t->alpha, a, &lda, b, &ldb,
               &t->beta, c, &ldc);
        break;
    case API_CBLAS64:
    case API_SCIPY_CBLAS64:
        ((cblas64_fn)api_fn[t->api])(layout, cblas_trans(t->transa), cblas_trans(t->transb), t->m,
                                     t->n, t->k, t->alpha, a, lda, b, ldb, t->beta, c, ldc);
        break;
    case API_SCIPY_CBLAS:
        ((__typeof__(cblas_sgemm) *)api_fn[t->api])(layout, cblas_trans(t->transa),
                                                     cblas_trans(t->transb), t->m, t->n, t->k,
                                                     t->alpha, a, lda, b, ldb, t->beta, c, ldc);
        break;
    case API_SCIPY_F77:
        ((__typeof__(sgemm_) *)api_fn[t->api])(&t->transa, &t->transb, &t->m, &t->n, &t->k,
                                               &t->alpha, a, &lda, b, &ldb, &t->beta, c, &ldc);
        break;
    case API_COUNT:
        break;
    case API_F77_64:
    case API_SCIPY_F77_64: {
        int64_t m = t->m, n = t->n, k = t->k, la = lda, lb = ldb, lc = ldc;
        ((f77_64_fn)api_fn[t->api])(&t->transa, &t->transb, &m, &n, &k, &t->alpha, a, &la, b, &lb,
                                    &t->beta, c, &lc);
        break;
    }
    }
}

static void run_case(const struct gemm_case *t, tt_rng *rng)
{
    int tra = is_trans(t->transa), trb = is_trans(t->transb);
    int ac, al, bc, bl, cc, cl;
    stored(t->row_major, tra, t->m, t->k, &ac, &al);
    stored(t->row_major, trb, t->k, t->n, &bc, &bl);
    stored(t->row_major, 0, t->m, t->n, &cc, &cl);
    int lda = imax(1, ac) + t->pad, ldb = imax(1, bc) + t->pad, ldc = imax(1, cc) + t->pad;
    tt_mat A, B, C;
    if (tt_mat_alloc(&A, ac, al, lda, t->offset) || tt_mat_alloc(&B, bc, bl, ldb, t->offset) ||
        tt_mat_alloc(&C, cc, cl, ldc, t->offset)) {
        FAIL("out of memory");
        exit(1);
    }
    if (t->int_fill) {
        tt_mat_fill_int(&A, rng, -4, 4);
        tt_mat_fill_int(&B, rng, -4, 4);
        tt_mat_fill_int(&C, rng, -4, 4);
    } else {
        tt_mat_fill_uniform(&A, rng);
        tt_mat_fill_uniform(&B, rng);
        tt_mat_fill_uniform(&C, rng);
    }
    if (t->nan_c) tt_mat_fill_value(&C, NAN);
    size_t relems = (size_t)imax(1, t->m * t->n);
    double *r = calloc(relems, sizeof *r), *absr = calloc(relems, sizeof *absr);
    ref_gemm(t->row_major, t->transa, t->transb, t->m, t->n, t->k, t->alpha, A.p, lda, B.p, ldb,
             t->beta, C.p, ldc, r, absr);
    float *sa = tt_mat_snapshot(&A), *sb = tt_mat_snapshot(&B), *sc = tt_mat_snapshot(&C);
    if (!r || !absr || !sa || !sb || !sc) {
        FAIL("out of memory");
        exit(1);
    }

    struct tsgemm_stats s0 = pl_stats_now();
    call_api(t, A.p, lda, B.p, ldb, C.p, ldc);
    struct tsgemm_stats s1 = pl_stats_now();
    ++checked;

    char what[256];
    snprintf(what, sizeof what,
             "%s %s transa=%c transb=%c m=%d n=%d k=%d lda=%d ldb=%d ldc=%d offset=%d alpha=%g "
             "beta=%g%s%s",
             api_name[t->api], is_f77(t->api) ? "f77" : t->row_major ? "row-major" : "col-major",
             t->transa, t->transb, t->m, t->n, t->k, lda, ldb, ldc, t->offset, t->alpha, t->beta,
             t->nan_c ? " C=NaN" : "", t->int_fill ? " ints" : " uniform");

    if (tt_mat_any_changed(&A, sa) || tt_mat_any_changed(&B, sb))
        FAIL("%s: A or B was modified", what);
    size_t outside = tt_mat_outside_changed(&C, sc);
    if (outside) FAIL("%s: %zu floats outside C's window changed", what, outside);
    if (t->m > 0 && t->n > 0) {
        tt_check chk = tt_compare(C.p, ldc, cc, cl, t->k, r, absr, t->int_fill ? 0.0 : TT_GAMMA);
        if (chk.bad)
            FAIL("%s: %zu wrong elements, first (%lld,%lld) in storage order: got %g, want %.9g "
                 "(rel_fro %.3g)",
                 what, chk.bad, (long long)chk.first_i, (long long)chk.first_j,
                 (double)C.p[chk.first_i + chk.first_j * ldc], r[chk.first_i + chk.first_j * cc],
                 chk.rel_fro);
        if (t->alpha != 0 && (long)t->m * t->n * t->k >= 8 && chk.nonzero == 0)
            FAIL("%s: C is all zeros", what);
    } else if (tt_mat_any_changed(&C, sc)) {
        FAIL("%s: C changed although m or n is 0", what);
    }

    if (interposed) {
        int quick = t->m == 0 || t->n == 0 || t->k == 0 || t->alpha == 0;
        uint64_t dcalls = s1.calls - s0.calls, dquick = s1.quick - s0.quick;
        uint64_t dran = (s1.cpu - s0.cpu) + (s1.gpu - s0.gpu);
        if (dcalls != 1 || s1.illegal != s0.illegal || s1.gpu_failed != s0.gpu_failed ||
            dquick != (uint64_t)quick || dran != (uint64_t)!quick)
            FAIL("%s: counters moved by calls %llu, quick %llu, cpu+gpu %llu, illegal %llu, gpu "
                 "failures %llu; expected 1 call, %s",
                 what, (unsigned long long)dcalls, (unsigned long long)dquick,
                 (unsigned long long)dran, (unsigned long long)(s1.illegal - s0.illegal),
                 (unsigned long long)(s1.gpu_failed - s0.gpu_failed),
                 quick ? "quick" : "run on the cpu or gpu");
        const char *path = pl_last_path()();
        int path_ok = quick ? !strcmp(path, "quick") : !strcmp(path, "cpu") || !strcmp(path, "gpu");
        if (!path_ok) FAIL("%s: tsgemm_last_path() = \"%s\"", what, path);
    }
    free(r);
    free(absr);
    free(sa);
    free(sb);
    free(sc);
    tt_mat_free(&A);
    tt_mat_free(&B);
    tt_mat_free(&C);
}

static const struct { int m, n, k; } shapes[] = {
    {1, 1, 1}, {1, 7, 5}, {6, 1, 9}, {13, 11, 1}, {17, 23, 31}, {45, 33, 64},
    {0, 5, 3}, {4, 0, 3}, {5, 6, 0}, /* quick returns: m = 0, n = 0, k = 0 (C = beta*C) */
};
static const struct { float alpha, beta; int nan_c; } scalars[] = {
    {1, 0, 1},      /* beta = 0: C is never read, NaN must not survive */
    {0.5f, -1.5f, 0}, {-2, 1, 0}, {1, 1, 0},
    {0, 0.75f, 0},  /* alpha = 0: C = beta*C, A and B not read          */
    {0, 0, 1},      /* alpha = 0, beta = 0: exact zeros over NaN        */
};
#define COUNT(x) ((int)(sizeof(x) / sizeof((x)[0])))

int main(int argc, char **argv)
{
    const char *expect = NULL, *provider = NULL, *mapped = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--expect") && i + 1 < argc)
            expect = argv[++i];
        else if (!strcmp(argv[i], "--provider") && i + 1 < argc)
            provider = argv[++i];
        else if (!strcmp(argv[i], "--require-mapped") && i + 1 < argc)
            mapped = argv[++i];
        else
            expect = NULL, i = argc;
    }
    if (!expect || (strcmp(expect, "interposed") && strcmp(expect, "plain"))) {
        fprintf(stderr, "usage: %s --expect interposed|plain [--provider S] [--require-mapped S]\n",
                argv[0]);
        return 2;
    }
    interposed = !strcmp(expect, "interposed");
    int have_stats = pl_get_stats() != NULL && pl_last_path() != NULL;
    if (interposed && !have_stats) {
        fprintf(stderr, "FAIL: tsgemm_get_stats is not in the process: tsgemm was not preloaded "
                        "or linked\n");
        return 1;
    }
    if (!interposed && have_stats) {
        fprintf(stderr, "FAIL: --expect plain but tsgemm_get_stats is in the process (%s)\n",
                pl_provider((void *)pl_get_stats()));
        return 1;
    }
    const char *cb_from = pl_provider((void *)cblas_sgemm), *f77_from = pl_provider((void *)sgemm_);
    printf("cblas_sgemm from %s\nsgemm_ from %s\n", cb_from, f77_from);
    if (provider && (!strstr(cb_from, provider) || !strstr(f77_from, provider))) {
        fprintf(stderr, "FAIL: cblas_sgemm/sgemm_ are not provided by \"%s\"\n", provider);
        return 1;
    }

    tt_rng rng;
    const uint64_t seed = 20261129;
    tt_seed(&rng, seed);
    static const char cblas_t[] = {'N', 'T', 'C'};
    static const char f77_t[] = {'N', 'n', 'T', 't', 'C', 'c'};
    int offset = 0;

    /* CBLAS: layouts x transposes x shapes x scalars x padding x fills. */
    for (int row = 0; row < 2; ++row)
        for (int ia = 0; ia < 3; ++ia)
            for (int ib = 0; ib < 3; ++ib)
                for (int s = 0; s < COUNT(shapes); ++s)
                    for (int ab = 0; ab < COUNT(scalars); ++ab)
                        for (int pad = 0; pad <= 3; pad += 3)
                            for (int fill = 0; fill < 2; ++fill) {
                                struct gemm_case t = {API_CBLAS, row, cblas_t[ia], cblas_t[ib],
                                                      shapes[s].m, shapes[s].n, shapes[s].k, pad,
                                                      offset++ % 4, scalars[ab].alpha,
                                                      scalars[ab].beta, scalars[ab].nan_c, fill};
                                run_case(&t, &rng);
                            }

    /* Fortran sgemm_ from C: every first character, no hidden lengths. */
    for (int ia = 0; ia < COUNT(f77_t); ++ia)
        for (int ib = 0; ib < COUNT(f77_t); ++ib)
            for (int s = 0; s < COUNT(shapes); ++s)
                for (int ab = 0; ab < 2; ++ab) {
                    struct gemm_case t = {API_F77, 0, f77_t[ia], f77_t[ib], shapes[s].m,
                                          shapes[s].n, shapes[s].k, 2, offset++ % 4,
                                          scalars[ab].alpha, scalars[ab].beta, scalars[ab].nan_c,
                                          ab};
                    run_case(&t, &rng);
                }

    /* The ILP64 and scipy_ names tsgemm exports (only reachable when it is in the process). */
    if (interposed) {
        for (int api = API_CBLAS64; api < API_COUNT; ++api) {
            api_fn[api] = dlsym(RTLD_DEFAULT, api_name[api]);
            if (!api_fn[api] || !strstr(pl_provider(api_fn[api]), "tsgemm")) {
                FAIL("%s is not tsgemm's (found in %s)", api_name[api],
                     api_fn[api] ? pl_provider(api_fn[api]) : "nothing");
                continue;
            }
            int f77 = is_f77((enum api)api);
            for (int row = 0; row < (f77 ? 1 : 2); ++row)
                for (int ia = 0; ia < 3; ++ia)
                    for (int ib = 0; ib < 3; ++ib)
                        for (int s = 3; s < 6; ++s)
                            for (int ab = 0; ab < 3; ++ab) {
                                struct gemm_case t = {(enum api)api, row, cblas_t[ia],
                                                      cblas_t[ib], shapes[s].m, shapes[s].n,
                                                      shapes[s].k, 1, offset++ % 4,
                                                      scalars[ab].alpha, scalars[ab].beta,
                                                      scalars[ab].nan_c, ab & 1};
                                run_case(&t, &rng);
                            }
        }
    }

    if (mapped && !pl_mapped(mapped))
        FAIL("no mapping of this process has \"%s\" in its path", mapped);

    struct tsgemm_stats s = pl_stats_now();
    printf("%d calls checked (seed %llu), %d failures\n", checked, (unsigned long long)seed,
           failures);
    if (interposed)
        printf("tsgemm counters: %llu calls, %llu gpu, %llu cpu, %llu quick, %llu illegal, %llu "
               "gpu failures\n",
               (unsigned long long)s.calls, (unsigned long long)s.gpu, (unsigned long long)s.cpu,
               (unsigned long long)s.quick, (unsigned long long)s.illegal,
               (unsigned long long)s.gpu_failed);
    if (interposed && s.calls != (uint64_t)checked)
        FAIL("tsgemm counted %llu calls in all, the program made %d", (unsigned long long)s.calls,
             checked);
    return failures ? 1 : 0;
}
