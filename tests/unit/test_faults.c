/*
 * test_faults.c — the fault classes of docs/TESTING.md that concern one library call, through the
 * exported cblas_sgemm / sgemm_ / cblas_sgemm64_ of libtsgemm.so (this program links it directly):
 *   1 scalar rules, 2 sizes off the tile and degenerate shapes, 3 every layout x transpose,
 *   4 padded leading dimensions (huge ones with one column too), 5 operands at their exact extent before an unmapped page,
 *   6 nothing outside C's window touched, 7 offset pointers and lds not divisible by 4,
 *   8 no state leaking between calls, 12 many threads, 13 fork, 16 repeatability, 17 C aliasing A.
 *
 * The same program runs in several tiers (ctest passes the environment):
 *   TSGEMM_MODE=cpu                         unit tier: the CPU path
 *   TSGEMM_MODE=gpu TSGEMM_TEST_EXPECT=gpu  gpu tier: every computing call must run on the GPU
 *                                           (exit 77 = skipped when no GPU is usable)
 *   TSGEMM_MODE=auto TSGEMM_TEST_EXPECT=auto
 *                                           gpu tier: both sides of the threshold, mixed; at
 *                                           least one call of this process must have completed
 *                                           on the GPU (stats.gpu > 0), else exit 1
 * Results: integer inputs are compared bit for bit, uniform inputs within the element bound of
 * docs/TESTING.md (tt_compare, gamma = TT_GAMMA). Every output starts NaN-poisoned or random, padding
 * and guard bands hold sentinels and are checked bitwise afterwards.
 */
#define _GNU_SOURCE
#include <cblas-netlib.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tsg_testutil.h"
#include "tsgemm.h"

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *);
void cblas_sgemm64_(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t,
                    const float *, int64_t, float, float *, int64_t);

static int g_expect_gpu; /* TSGEMM_TEST_EXPECT=gpu: computing calls must report "gpu" */

/* ------------------------------------------------------------------ one user-level call */

typedef struct ucall {
    CBLAS_LAYOUT layout;
    char ta, tb;            /* 'N' or 'T' */
    int64_t m, n, k;
    float alpha, beta;
    int64_t pad_a, pad_b, pad_c; /* ld = rows + pad */
    int off_a, off_b, off_c; /* pointer offsets in floats */
    int ints;                /* integer inputs (bitwise check) or uniform (bound check) */
    int c_nan;               /* C poisoned with NaN before the call (only meaningful for beta 0) */
} ucall;

/* 1: do_call goes through cblas_sgemm64_ instead of cblas_sgemm (64-bit sizes and lds) */
static int g_ilp64;

/* Storage of an operand as column-major rows x cols (row-major data is its transpose). */
static void storage(const ucall *u, char which, int64_t *rows, int64_t *cols)
{
    tt_stored_shape(u->layout == CblasRowMajor, which, which == 'A' ? u->ta : u->tb, u->m, u->n,
                    u->k, rows, cols);
}

static CBLAS_TRANSPOSE cbt(char t) { return t == 'N' ? CblasNoTrans : CblasTrans; }

typedef struct operands {
    tt_mat A, B, C;
    float *snapA, *snapB, *snapC;
    double *R, *S; /* reference and error-bound scale, m x n column-major (user layout mapped) */
} operands;

static void make_operands(const ucall *u, operands *o, tt_rng *rng)
{
    int64_t r, c;
    storage(u, 'A', &r, &c);
    assert_int_equal(tt_mat_alloc(&o->A, r, c, (r > 0 ? r : 1) + u->pad_a, u->off_a), 0);
    storage(u, 'B', &r, &c);
    assert_int_equal(tt_mat_alloc(&o->B, r, c, (r > 0 ? r : 1) + u->pad_b, u->off_b), 0);
    storage(u, 'C', &r, &c);
    assert_int_equal(tt_mat_alloc(&o->C, r, c, (r > 0 ? r : 1) + u->pad_c, u->off_c), 0);
    if (u->ints) {
        tt_mat_fill_int(&o->A, rng, -8, 8);
        tt_mat_fill_int(&o->B, rng, -8, 8);
        tt_mat_fill_int(&o->C, rng, -8, 8);
    } else {
        tt_mat_fill_uniform(&o->A, rng);
        tt_mat_fill_uniform(&o->B, rng);
        tt_mat_fill_uniform(&o->C, rng);
    }
    if (u->c_nan) tt_mat_fill_value(&o->C, NAN);
    o->snapA = tt_mat_snapshot(&o->A);
    o->snapB = tt_mat_snapshot(&o->B);
    o->snapC = tt_mat_snapshot(&o->C);
    size_t mn = (size_t)(u->m > 0 ? u->m : 1) * (size_t)(u->n > 0 ? u->n : 1);
    o->R = malloc(sizeof(double) * mn);
    o->S = malloc(sizeof(double) * mn);
    assert_non_null(o->R);
    assert_non_null(o->S);
    /* Reference on the column-major view: row-major C = op(A)op(B) is C^T = op(B)^T op(A)^T. */
    if (u->layout == CblasColMajor)
        tt_ref_gemm(u->ta, u->tb, u->m, u->n, u->k, u->alpha, o->A.p, o->A.ld, o->B.p, o->B.ld,
                    u->beta, o->C.p, o->C.ld, o->R, o->S);
    else
        tt_ref_gemm(u->tb, u->ta, u->n, u->m, u->k, u->alpha, o->B.p, o->B.ld, o->A.p, o->A.ld,
                    u->beta, o->C.p, o->C.ld, o->R, o->S);
}

static void free_operands(operands *o)
{
    tt_mat_free(&o->A);
    tt_mat_free(&o->B);
    tt_mat_free(&o->C);
    free(o->snapA);
    free(o->snapB);
    free(o->snapC);
    free(o->R);
    free(o->S);
}

static void do_call(const ucall *u, const float *a, int64_t lda, const float *b, int64_t ldb,
                    float *c, int64_t ldc)
{
    if (g_ilp64)
        cblas_sgemm64_(u->layout, cbt(u->ta), cbt(u->tb), u->m, u->n, u->k, u->alpha, a, lda, b,
                       ldb, u->beta, c, ldc);
    else
        cblas_sgemm(u->layout, cbt(u->ta), cbt(u->tb), (int)u->m, (int)u->n, (int)u->k, u->alpha,
                    a, (int)lda, b, (int)ldb, u->beta, c, (int)ldc);
}

static int computes(const ucall *u) { return u->m > 0 && u->n > 0 && u->k > 0 && u->alpha != 0; }

static void describe(const ucall *u, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s %c%c m=%lld n=%lld k=%lld alpha=%g beta=%g pads=%lld,%lld,%lld offs=%d,%d,%d %s",
             g_ilp64 ? "ilp64 " : "", u->layout == CblasRowMajor ? "row" : "col", u->ta, u->tb, (long long)u->m,
             (long long)u->n, (long long)u->k, u->alpha, u->beta, (long long)u->pad_a, (long long)u->pad_b, (long long)u->pad_c,
             u->off_a, u->off_b, u->off_c, u->ints ? "ints" : "uniform");
}

/* Runs one call and checks everything docs/TESTING.md asks of it. */
static void check_call(const ucall *u, uint64_t seed)
{
    tt_rng rng;
    tt_seed(&rng, seed);
    operands o;
    make_operands(u, &o, &rng);
    do_call(u, o.A.p, o.A.ld, o.B.p, o.B.ld, o.C.p, o.C.ld);
    char what[256];
    describe(u, what, sizeof what);
    const char *path = tsgemm_last_path();
    if (g_expect_gpu && computes(u) && strcmp(path, "gpu")) {
        print_error("%s: ran on %s, expected gpu\n", what, path);
        fail();
    }
    /* the result, in the column-major view of C */
    int64_t cr = u->layout == CblasColMajor ? u->m : u->n, cc = u->layout == CblasColMajor ? u->n : u->m;
    tt_check ck = tt_compare(o.C.p, o.C.ld, cr, cc, u->k, o.R, o.S, u->ints ? 0.0 : TT_GAMMA);
    if (ck.bad) {
        print_error("%s (seed %llu): %zu bad elements, first (%lld,%lld) got %g want %g\n", what,
                    (unsigned long long)seed, ck.bad, (long long)ck.first_i, (long long)ck.first_j,
                    o.C.p[ck.first_i + ck.first_j * o.C.ld], o.R[ck.first_i + ck.first_j * cr]);
        fail();
    }
    size_t ref_nonzero = 0;
    for (int64_t i = 0; i < cr * cc; ++i) ref_nonzero += o.R[i] != 0.0;
    if (ref_nonzero > 0 && ck.nonzero == 0) {
        print_error("%s: result is all zeros\n", what);
        fail();
    }
    size_t ca = tt_mat_any_changed(&o.A, o.snapA), cb = tt_mat_any_changed(&o.B, o.snapB);
    size_t cout = tt_mat_outside_changed(&o.C, o.snapC);
    if (ca || cb || cout) {
        print_error("%s: A changed %zu, B changed %zu, outside C's window changed %zu\n", what,
                    ca, cb, cout);
        fail();
    }
    free_operands(&o);
}

/* ------------------------------------------------------------------ class 1: scalar rules */

static const CBLAS_LAYOUT layouts[2] = {CblasRowMajor, CblasColMajor};
static const char transes[2] = {'N', 'T'};

static void test_k_zero_scales_c(void **state)
{
    (void)state;
    for (int l = 0; l < 2; ++l)
        for (int s = 0; s < 2; ++s) {
            ucall u = {layouts[l], 'N', 'T', s ? 130 : 5, s ? 67 : 7, 0, 1.0f, 0.0f,
                       1, 2, 3, 0, 0, 0, 1, 1};
            check_call(&u, 1); /* beta = 0 over NaN: exact zeros */
            assert_string_equal(tsgemm_last_path(), "quick");
            u.beta = 2.0f, u.c_nan = 0;
            check_call(&u, 2);
            u.beta = 1.0f; /* nothing at all */
            check_call(&u, 3);
        }
}

/* alpha = 0 must not read A or B: NaN/Inf there does not show, NULL does not crash. */
static void test_alpha_zero_never_reads_ab(void **state)
{
    (void)state;
    for (int l = 0; l < 2; ++l) {
        ucall u = {layouts[l], 'T', 'N', 129, 65, 33, 0.0f, 0.5f, 0, 0, 0, 0, 0, 0, 1, 0};
        tt_rng rng;
        tt_seed(&rng, 5);
        operands o;
        make_operands(&u, &o, &rng);
        tt_mat_fill_value(&o.A, NAN);
        tt_mat_fill_value(&o.B, INFINITY);
        do_call(&u, o.A.p, o.A.ld, o.B.p, o.B.ld, o.C.p, o.C.ld);
        int64_t cr = l ? u.m : u.n, cc = l ? u.n : u.m;
        tt_check ck = tt_compare(o.C.p, o.C.ld, cr, cc, 0, o.R, o.S, 0.0);
        assert_int_equal(ck.bad, 0);
        /* NULL A and B */
        do_call(&u, NULL, o.A.ld, NULL, o.B.ld, o.C.p, o.C.ld);
        for (int64_t j = 0; j < cc; ++j)
            for (int64_t i = 0; i < cr; ++i)
                assert_true(o.C.p[i + j * o.C.ld] == (float)(0.25 * o.snapC[o.C.first + i + j * o.C.ld]));
        free_operands(&o);
    }
}

/* beta = 0 never reads C, including partial edge tiles; alpha != 0 propagates NaN in A. */
static void test_beta_zero_and_nan_propagation(void **state)
{
    (void)state;
    for (int l = 0; l < 2; ++l)
        for (int x = 0; x < 2; ++x) {
            ucall u = {layouts[l], transes[x], transes[1 - x], 130, 67, 200, -1.5f, 0.0f,
                       0, 0, 0, 0, 0, 0, 1, 1};
            check_call(&u, 10 + l * 2 + x);
            /* one NaN in op(A)(i0, l0) must reach row i0 of C, and only it */
            u.c_nan = 0;
            u.beta = 1.0f;
            tt_rng rng;
            tt_seed(&rng, 77);
            operands o;
            make_operands(&u, &o, &rng);
            const int64_t i0 = 77, l0 = 150;
            /* op(A)(i0,l0): col-major A[i0 + l0*lda] (N) or A[l0 + i0*lda] (T); row-major swaps */
            int64_t idx = (u.ta == 'N') == (u.layout == CblasColMajor) ? i0 + l0 * o.A.ld : l0 + i0 * o.A.ld;
            o.A.p[idx] = NAN;
            do_call(&u, o.A.p, o.A.ld, o.B.p, o.B.ld, o.C.p, o.C.ld);
            for (int64_t i = 0; i < u.m; ++i)
                for (int64_t j = 0; j < u.n; ++j) {
                    float v = u.layout == CblasColMajor ? o.C.p[i + j * o.C.ld] : o.C.p[j + i * o.C.ld];
                    assert_true(i == i0 ? isnan(v) : isfinite(v));
                }
            free_operands(&o);
        }
}

/* ------------------------------------------------------------------ classes 2, 3, 4, 6, 7 */

static void test_edge_sizes_and_degenerate_shapes(void **state)
{
    (void)state;
    const int64_t shapes[][3] = {{129, 1, 1}, {1, 129, 7}, {1, 1, 1000}, {127, 129, 9},
                                 {3, 200, 1}, {257, 2, 129}, {2, 257, 3}, {128, 128, 128},
                                 {129, 127, 255}, {1, 1, 1}, {17, 33, 8}, {16, 16, 17}};
    int seed = 100;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int l = 0; l < 2; ++l)
            for (int x = 0; x < 2; ++x)
                for (int y = 0; y < 2; ++y) {
                    ucall u = {layouts[l], transes[x], transes[y], shapes[s][0], shapes[s][1],
                               shapes[s][2], 1.0f, 0.0f, 0, 0, 0, 0, 0, 0, 1, 1};
                    check_call(&u, (uint64_t)seed++);
                }
    /* row-major with every ld = 1: M x 1 times 1 x 1 */
    ucall u = {CblasRowMajor, 'N', 'N', 50, 1, 1, 2.0f, 0.5f, 0, 0, 0, 0, 0, 0, 1, 0};
    check_call(&u, 999);
    u.ta = 'T'; /* A stored 1 x M row-major: lda = M */
    check_call(&u, 998);
}

static void test_layouts_transposes_padding_offsets(void **state)
{
    (void)state;
    const float alphas[3] = {1.0f, -1.5f, 0.0f}, betas[3] = {0.0f, 1.0f, 0.5f};
    int seed = 2000;
    for (int l = 0; l < 2; ++l)
        for (int x = 0; x < 2; ++x)
            for (int y = 0; y < 2; ++y)
                for (int ab = 0; ab < 9; ++ab) {
                    /* odd N with one operand transposed, lds padded (not multiples of 4), pointers
                     * offset 1..3 floats (no 16-byte alignment) */
                    ucall u = {layouts[l], transes[x], transes[y], 45, 17, 33, alphas[ab / 3],
                               betas[ab % 3], 3, 1, 5, 1 + ab % 3, 2, 3 - ab % 3, 1, betas[ab % 3] == 0};
                    check_call(&u, (uint64_t)seed++);
                    u.ints = 0; /* the same on uniform data, within the bound */
                    u.m = 200, u.n = 131, u.k = 150;
                    u.pad_a = u.pad_b = u.pad_c = 0, u.off_a = u.off_b = u.off_c = 0;
                    check_call(&u, (uint64_t)seed++);
                }
}

/* An operand with one stored column may have any ld >= its rows: legal, and it costs no memory.
 * An ld*cols copy, a 32-bit product of ld, or a pitched copy whose pitch (ld*4 bytes) passes the
 * device's limit (cudaMemcpy2D refuses pitches above cudaDevAttrMaxPitch, 2^31-1 bytes) breaks
 * it. 32-bit calls with ld near INT32_MAX, ILP64 calls with ld = 2^40; beta 0 and not. */
static void test_huge_ld_with_one_column(void **state)
{
    (void)state;
    /* {layout, ta, tb, m, n, k}: each shape leaves two operands with one stored column */
    const struct { CBLAS_LAYOUT layout; char ta, tb; int64_t m, n, k; } shapes[] = {
        {CblasColMajor, 'N', 'N', 300, 1, 150}, /* C and B */
        {CblasColMajor, 'N', 'T', 300, 200, 1}, /* A and B */
        {CblasRowMajor, 'N', 'N', 1, 300, 150}, /* C and A */
        {CblasRowMajor, 'T', 'N', 200, 300, 1}, /* A and B */
    };
    int seed = 1500;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int ilp64 = 0; ilp64 < 2; ++ilp64)
            for (int beta1 = 0; beta1 < 2; ++beta1) {
                ucall u = {shapes[s].layout, shapes[s].ta, shapes[s].tb, shapes[s].m, shapes[s].n,
                           shapes[s].k, 1.5f, beta1 ? 0.5f : 0.0f, 0, 0, 0, 1, 2, 3, 1, !beta1};
                const int64_t huge = ilp64 ? (int64_t)1 << 40 : INT32_MAX - 1000;
                int64_t *pads[3] = {&u.pad_a, &u.pad_b, &u.pad_c};
                int one_column = 0;
                for (int w = 0; w < 3; ++w) {
                    int64_t r, c;
                    storage(&u, "ABC"[w], &r, &c);
                    if (c == 1) *pads[w] = huge, ++one_column;
                }
                assert_int_equal(one_column, 2);
                g_ilp64 = ilp64;
                check_call(&u, (uint64_t)seed++);
                g_ilp64 = 0;
            }
}

/* ------------------------------------------------------------------ class 5: exact extents */

static void test_exact_extent_before_unmapped_page(void **state)
{
    (void)state;
    for (int l = 0; l < 2; ++l)
        for (int x = 0; x < 2; ++x)
            for (int y = 0; y < 2; ++y)
                for (int beta1 = 0; beta1 < 2; ++beta1) {
                    ucall u = {layouts[l], transes[x], transes[y], 131, 77, 140, 1.0f,
                               beta1 ? 1.0f : 0.0f, 3, 2, 5, 0, 0, 0, 1, 0};
                    int64_t ar, ac, br, bc, cr, cc;
                    storage(&u, 'A', &ar, &ac);
                    storage(&u, 'B', &br, &bc);
                    storage(&u, 'C', &cr, &cc);
                    int64_t lda = ar + 3, ldb = br + 2, ldc = cr + 5;
                    size_t ea = (size_t)((ac - 1) * lda + ar), eb = (size_t)((bc - 1) * ldb + br);
                    size_t ec = (size_t)((cc - 1) * ldc + cr);
                    float *a = tt_guarded_alloc(ea), *b = tt_guarded_alloc(eb), *c = tt_guarded_alloc(ec);
                    assert_non_null(a);
                    assert_non_null(b);
                    assert_non_null(c);
                    tt_rng rng;
                    tt_seed(&rng, 31 + l);
                    for (size_t i = 0; i < ea; ++i) a[i] = tt_small_int(&rng, -4, 4);
                    for (size_t i = 0; i < eb; ++i) b[i] = tt_small_int(&rng, -4, 4);
                    for (size_t i = 0; i < ec; ++i) c[i] = tt_small_int(&rng, -4, 4);
                    double *R = malloc(sizeof(double) * (size_t)(cr * cc));
                    if (u.layout == CblasColMajor)
                        tt_ref_gemm(u.ta, u.tb, u.m, u.n, u.k, 1.0, a, lda, b, ldb, u.beta, c, ldc, R, NULL);
                    else
                        tt_ref_gemm(u.tb, u.ta, u.n, u.m, u.k, 1.0, b, ldb, a, lda, u.beta, c, ldc, R, NULL);
                    do_call(&u, a, lda, b, ldb, c, ldc); /* a fault here kills the test: loud */
                    tt_check ck = tt_compare(c, ldc, cr, cc, u.k, R, NULL, 0.0);
                    assert_int_equal(ck.bad, 0);
                    free(R);
                    tt_guarded_free(a, ea);
                    tt_guarded_free(b, eb);
                    tt_guarded_free(c, ec);
                }
}

/* ------------------------------------------------------------------ class 8: no leaking state */

static void test_big_nan_call_then_small_clean_call(void **state)
{
    (void)state;
    ucall big = {CblasColMajor, 'N', 'N', 300, 300, 300, 1.0f, 1.0f, 0, 0, 0, 0, 0, 0, 1, 0};
    tt_rng rng;
    tt_seed(&rng, 8);
    operands o;
    make_operands(&big, &o, &rng);
    tt_mat_fill_value(&o.A, NAN);
    tt_mat_fill_value(&o.B, NAN);
    tt_mat_fill_value(&o.C, NAN);
    do_call(&big, o.A.p, o.A.ld, o.B.p, o.B.ld, o.C.p, o.C.ld);
    assert_true(isnan(o.C.p[0]));
    free_operands(&o);
    for (int s = 0; s < 3; ++s) { /* smaller and differently shaped, beta 0 and not */
        ucall u = {CblasColMajor, 'T', 'N', 150 - 40 * s, 140 - 30 * s, 130, 1.0f, s == 1 ? 0.0f : 1.0f,
                   0, 0, 0, 0, 0, 0, 1, s == 1};
        check_call(&u, 80 + s);
    }
}

/* ------------------------------------------------------------------ class 17: C aliasing A */

static void test_c_aliasing_a_writes_only_c(void **state)
{
    (void)state;
    /* Undefined in BLAS; documented behaviour: no crash, nothing outside C's window written. */
    const int64_t m = 150, n = 150, k = 150, ld = 160;
    tt_mat X;
    assert_int_equal(tt_mat_alloc(&X, m, n, ld, 0), 0);
    tt_rng rng;
    tt_seed(&rng, 17);
    tt_mat_fill_int(&X, &rng, -2, 2);
    float *snap = tt_mat_snapshot(&X);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, X.p,
                (int)ld, X.p, (int)ld, 0.5f, X.p, (int)ld);
    assert_int_equal(tt_mat_outside_changed(&X, snap), 0);
    free(snap);
    tt_mat_free(&X);
}

/* ------------------------------------------------------------------ Fortran and ILP64 names */

static void test_fortran_and_ilp64_entry_points(void **state)
{
    (void)state;
    tt_rng rng;
    tt_seed(&rng, 64);
    ucall u = {CblasColMajor, 'T', 'T', 140, 133, 129, -1.5f, 0.5f, 1, 2, 3, 0, 0, 0, 1, 0};
    operands o;
    make_operands(&u, &o, &rng);
    int m = (int)u.m, n = (int)u.n, k = (int)u.k, lda = (int)o.A.ld, ldb = (int)o.B.ld,
        ldc = (int)o.C.ld;
    sgemm_("t", "Conjugate", &m, &n, &k, &u.alpha, o.A.p, &lda, o.B.p, &ldb, &u.beta, o.C.p, &ldc);
    if (g_expect_gpu) assert_string_equal(tsgemm_last_path(), "gpu");
    assert_int_equal(tt_compare(o.C.p, ldc, m, n, k, o.R, NULL, 0.0).bad, 0);
    /* ILP64 on a fresh copy of C */
    memcpy(o.C.mem, o.snapC, o.C.total * sizeof(float));
    cblas_sgemm64_(CblasColMajor, CblasTrans, CblasTrans, u.m, u.n, u.k, u.alpha, o.A.p, o.A.ld,
                   o.B.p, o.B.ld, u.beta, o.C.p, o.C.ld);
    assert_int_equal(tt_compare(o.C.p, ldc, m, n, k, o.R, NULL, 0.0).bad, 0);
    assert_int_equal(tt_mat_outside_changed(&o.C, o.snapC), 0);
    free_operands(&o);
}

/* ------------------------------------------------------------------ class 12: threads */

enum { NTHREADS = 8, NSHAPES = 4 };
static const int64_t tshapes[NSHAPES][3] = {{7, 9, 11}, {200, 180, 160}, {64, 600, 33}, {513, 257, 129}};
static tt_mat tA, tB;              /* shared inputs, big enough for every shape (ld 600) */
static float *tC_single[NSHAPES]; /* single-threaded results */

static void run_shape(int s, float *c)
{
    const int64_t m = tshapes[s][0], n = tshapes[s][1], k = tshapes[s][2];
    cblas_sgemm(CblasColMajor, s % 2 ? CblasTrans : CblasNoTrans, CblasNoTrans, (int)m, (int)n,
                (int)k, 1.0f, tA.p, (int)tA.ld, tB.p, (int)tB.ld, 0.0f, c, (int)m);
}

static void *thread_main(void *arg)
{
    intptr_t id = (intptr_t)arg;
    float *c = malloc(sizeof(float) * 513 * 600);
    intptr_t mismatches = 0;
    for (int it = 0; it < 6; ++it) {
        int s = (int)((id + it) % NSHAPES);
        const int64_t mn = tshapes[s][0] * tshapes[s][1];
        for (int64_t i = 0; i < mn; ++i) c[i] = NAN;
        run_shape(s, c);
        if (memcmp(c, tC_single[s], sizeof(float) * (size_t)mn)) ++mismatches;
    }
    free(c);
    return (void *)mismatches;
}

static void test_many_threads_match_single_threaded(void **state)
{
    (void)state;
    tt_rng rng;
    tt_seed(&rng, 12);
    assert_int_equal(tt_mat_alloc(&tA, 600, 600, 600, 0), 0);
    assert_int_equal(tt_mat_alloc(&tB, 600, 600, 600, 0), 0);
    tt_mat_fill_uniform(&tA, &rng);
    tt_mat_fill_uniform(&tB, &rng);
    for (int s = 0; s < NSHAPES; ++s) {
        tC_single[s] = malloc(sizeof(float) * (size_t)(tshapes[s][0] * tshapes[s][1]));
        run_shape(s, tC_single[s]);
    }
    pthread_t th[NTHREADS];
    for (intptr_t i = 0; i < NTHREADS; ++i)
        assert_int_equal(pthread_create(&th[i], NULL, thread_main, (void *)i), 0);
    intptr_t bad = 0;
    for (int i = 0; i < NTHREADS; ++i) {
        void *r;
        pthread_join(th[i], &r);
        bad += (intptr_t)r;
    }
    assert_int_equal(bad, 0);
    for (int s = 0; s < NSHAPES; ++s) free(tC_single[s]);
    tt_mat_free(&tA);
    tt_mat_free(&tB);
}

/* ------------------------------------------------------------------ class 16: repeatability */

static void test_long_k_repeats_bit_identical(void **state)
{
    (void)state;
    const int64_t m = 96, n = 80, k = 20011;
    tt_rng rng;
    tt_seed(&rng, 16);
    tt_mat A, B;
    assert_int_equal(tt_mat_alloc(&A, m, k, m, 0), 0);
    assert_int_equal(tt_mat_alloc(&B, k, n, k, 0), 0);
    tt_mat_fill_uniform(&A, &rng);
    tt_mat_fill_uniform(&B, &rng);
    float *first = malloc(sizeof(float) * m * n), *again = malloc(sizeof(float) * m * n);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A.p, m, B.p, k, 0.0f,
                first, m);
    for (int r = 0; r < 10; ++r) {
        for (int64_t i = 0; i < m * n; ++i) again[i] = NAN;
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A.p, m, B.p, k,
                    0.0f, again, m);
        assert_memory_equal(first, again, sizeof(float) * m * n);
    }
    free(first);
    free(again);
    tt_mat_free(&A);
    tt_mat_free(&B);
}

/* ------------------------------------------------------------------ above the threshold */

/* gpu tier only (TSGEMM_TEST_EXPECT=gpu or auto): calls far above the CPU/GPU crossover, so that
 * the auto run has calls on the GPU side (every other call here is at most 300^3 or 96 x 80 x
 * 20011, at or below the crossover of docs/NOTES.md "v0.13", 256^3-420^3). With that section's
 * rates (CPU 1.04 TFLOP/s, GPU call 129 us, 56 GB/s up) 1031 x 1029 x 515 costs about 1 ms on
 * the CPU and 0.4 ms on the GPU. Padded lds,
 * offset pointers, beta != 0, integer data (bitwise); column-major TN and row-major NT (the
 * reference then reads both operands contiguously). */
static void test_above_the_threshold(void **state)
{
    (void)state;
    ucall u = {CblasColMajor, 'T', 'N', 1031, 1029, 515, -1.5f, 0.5f, 3, 1, 5, 1, 2, 3, 1, 0};
    check_call(&u, 5151);
    u.layout = CblasRowMajor, u.ta = 'N', u.tb = 'T';
    check_call(&u, 5152);
}

/* ------------------------------------------------------------------ class 13: fork */

/* In a child: one computing call checked bitwise; exit status 0 = right, 1 = wrong, 2 = path. */
static void child_call(const char *want_path)
{
    ucall u = {CblasRowMajor, 'N', 'T', 300, 280, 260, 1.0f, 0.0f, 0, 0, 0, 0, 0, 0, 1, 1};
    tt_rng rng;
    tt_seed(&rng, 1313);
    operands o;
    make_operands(&u, &o, &rng);
    do_call(&u, o.A.p, o.A.ld, o.B.p, o.B.ld, o.C.p, o.C.ld);
    tt_check ck = tt_compare(o.C.p, o.C.ld, u.n, u.m, u.k, o.R, NULL, 0.0);
    if (ck.bad) _exit(1);
    if (want_path && strcmp(tsgemm_last_path(), want_path)) {
        fprintf(stderr, "child ran on %s, expected %s\n", tsgemm_last_path(), want_path);
        _exit(2);
    }
    _exit(0);
}

static int wait_child(pid_t pid)
{
    for (int i = 0; i < 600; ++i) { /* 60 s: a hang fails the test instead of blocking ctest */
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
        usleep(100000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return 99;
}

static void test_fork_before_and_after_use(void **state)
{
    (void)state;
    /* before this process made any call that may use the GPU: the child may start its own */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) child_call(g_expect_gpu ? "gpu" : NULL);
    assert_int_equal(wait_child(pid), 0);
    /* the parent uses the library (the GPU when forced), then forks: the child must get the right
     * answer on the CPU, and the parent keeps working */
    ucall u = {CblasColMajor, 'N', 'N', 256, 256, 256, 1.0f, 0.0f, 0, 0, 0, 0, 0, 0, 1, 1};
    check_call(&u, 4242);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) child_call(g_expect_gpu ? "cpu" : NULL);
    assert_int_equal(wait_child(pid), 0);
    check_call(&u, 4343);
}

static int setup(void **state)
{
    (void)state;
    const char *e = getenv("TSGEMM_TEST_EXPECT");
    g_expect_gpu = e && !strcmp(e, "gpu");
    return 0;
}

/* 1 when tsgemm can use a GPU, asked in a child so that this process starts no CUDA context. */
static int gpu_usable_probe(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        char info[256];
        int ok = tsgemm_kernel_info(info, sizeof info) == 0;
        printf("%s%s\n", ok ? "kernel: " : "SKIP: ", info); /* info says "no usable GPU: why" */
        fflush(stdout);
        _exit(ok ? 0 : 1);
    }
    return pid > 0 && wait_child(pid) == 0;
}

int main(void)
{
    const char *e = getenv("TSGEMM_TEST_EXPECT");
    /* gpu: every computing call must run on the GPU; auto: a GPU must exist, and some call of
     * this process must have completed on it (checked after the run) */
    if (e && (!strcmp(e, "gpu") || !strcmp(e, "auto")) && !gpu_usable_probe()) return 77;
    const struct CMUnitTest tests[] = {
        /* first: the fork-before-use case needs a process that has not used the GPU yet */
        cmocka_unit_test(test_fork_before_and_after_use),
        cmocka_unit_test(test_k_zero_scales_c),
        cmocka_unit_test(test_alpha_zero_never_reads_ab),
        cmocka_unit_test(test_beta_zero_and_nan_propagation),
        cmocka_unit_test(test_edge_sizes_and_degenerate_shapes),
        cmocka_unit_test(test_layouts_transposes_padding_offsets),
        cmocka_unit_test(test_huge_ld_with_one_column),
        cmocka_unit_test(test_exact_extent_before_unmapped_page),
        cmocka_unit_test(test_big_nan_call_then_small_clean_call),
        cmocka_unit_test(test_c_aliasing_a_writes_only_c),
        cmocka_unit_test(test_fortran_and_ilp64_entry_points),
        cmocka_unit_test(test_many_threads_match_single_threaded),
        cmocka_unit_test(test_long_k_repeats_bit_identical),
    };
    int rc = cmocka_run_group_tests(tests, setup, NULL);
    if (e && (!strcmp(e, "gpu") || !strcmp(e, "auto"))) {
        const struct CMUnitTest gpu_tier_tests[] = {
            cmocka_unit_test(test_above_the_threshold),
        };
        rc += cmocka_run_group_tests(gpu_tier_tests, setup, NULL);
    }
    if (e && !strcmp(e, "auto")) {
        struct tsgemm_stats s;
        tsgemm_get_stats(&s);
        printf("TSGEMM_TEST_EXPECT=auto: %llu of %llu calls on the GPU, %llu on the CPU\n",
               (unsigned long long)s.gpu, (unsigned long long)s.calls, (unsigned long long)s.cpu);
        if (s.gpu == 0) {
            printf("FAIL: TSGEMM_TEST_EXPECT=auto: no call ran on the GPU\n");
            rc = 1;
        }
    }
    tsgemm_release();
    return rc;
}
