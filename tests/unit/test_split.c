/*
 * test_split.c — src/tsg_split.c: ILP64 problems handed to a 32-bit BLAS in blocks (exercised
 * with tiny blocks so every edge is hit: partial blocks in m, n and k, beta applied once, beta = 0
 * never reading C), the refusal when a leading dimension cannot be expressed, and the portable
 * fallback loop against the double reference.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tsg_split.h"
#include "tsg_testutil.h"

static int g_blocks;
static int64_t g_max_edge;

static void run_ref(void *ctx, const tsg_problem *b)
{
    (void)ctx;
    g_blocks++;
    if (b->m > g_max_edge) g_max_edge = b->m;
    if (b->n > g_max_edge) g_max_edge = b->n;
    if (b->k > g_max_edge) g_max_edge = b->k;
    tsg_ref_sgemm(b);
}

static void check_split(char ta, char tb, float beta)
{
    const int64_t m = 23, n = 17, k = 29, lda = 31, ldb = 33, ldc = 27;
    tt_rng r;
    tt_seed(&r, 7);
    tt_mat A, B, C;
    int64_t ar = ta == 'N' ? m : k, ac = ta == 'N' ? k : m;
    int64_t br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
    assert_int_equal(tt_mat_alloc(&A, ar, ac, lda, 0), 0);
    assert_int_equal(tt_mat_alloc(&B, br, bc, ldb, 0), 0);
    assert_int_equal(tt_mat_alloc(&C, m, n, ldc, 0), 0);
    tt_mat_fill_int(&A, &r, -8, 8);
    tt_mat_fill_int(&B, &r, -8, 8);
    if (beta == 0.0f) tt_mat_fill_value(&C, NAN);
    else tt_mat_fill_int(&C, &r, -8, 8);
    double *R = malloc(sizeof(double) * m * n);
    tt_ref_gemm(ta, tb, m, n, k, 1.0, A.p, lda, B.p, ldb, beta, C.p, ldc, R, NULL);
    float *snap = tt_mat_snapshot(&C);
    tsg_problem p = {ta, tb, m, n, k, 1.0f, beta, A.p, lda, B.p, ldb, C.p, ldc, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    g_blocks = 0;
    g_max_edge = 0;
    assert_int_equal(tsg_split_int32(&p, run_ref, NULL, 5), 0);
    assert_int_equal(g_blocks, 5 * 4 * 6); /* ceil(23/5) * ceil(17/5) * ceil(29/5) */
    assert_true(g_max_edge <= 5);
    tt_check ck = tt_compare(C.p, ldc, m, n, k, R, NULL, 0.0); /* integers: exact */
    assert_int_equal(ck.bad, 0);
    assert_true(ck.nonzero > 0);
    assert_int_equal(tt_mat_outside_changed(&C, snap), 0);
    free(snap);
    free(R);
    tt_mat_free(&A);
    tt_mat_free(&B);
    tt_mat_free(&C);
}

static void test_split_all_transposes(void **state)
{
    (void)state;
    const char t[2] = {'N', 'T'};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            check_split(t[i], t[j], 0.0f);
            check_split(t[i], t[j], 1.0f);
            check_split(t[i], t[j], -2.0f);
        }
}

static void test_fits_and_refuses(void **state)
{
    (void)state;
    tsg_problem p = {'N', 'N', 10, 10, 10, 1, 0, NULL, 10, NULL, 10, NULL, 10, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    assert_true(tsg_fits_int32(&p));
    p.k = (int64_t)INT32_MAX + 1;
    assert_false(tsg_fits_int32(&p));
    p.k = 10;
    p.lda = (int64_t)INT32_MAX + 1;
    assert_false(tsg_fits_int32(&p));
    g_blocks = 0;
    assert_int_equal(tsg_split_int32(&p, run_ref, NULL, TSG_INT32_BLOCK), -1);
    assert_int_equal(g_blocks, 0); /* nothing ran */
}

static void test_ref_sgemm_random(void **state)
{
    (void)state;
    const int64_t m = 37, n = 41, k = 53;
    tt_rng r;
    tt_seed(&r, 99);
    tt_mat A, B, C;
    assert_int_equal(tt_mat_alloc(&A, k, m, k + 3, 1), 0); /* transposed A, padded, offset */
    assert_int_equal(tt_mat_alloc(&B, k, n, k, 2), 0);
    assert_int_equal(tt_mat_alloc(&C, m, n, m + 1, 3), 0);
    tt_mat_fill_uniform(&A, &r);
    tt_mat_fill_uniform(&B, &r);
    tt_mat_fill_uniform(&C, &r);
    double *R = malloc(sizeof(double) * m * n), *S = malloc(sizeof(double) * m * n);
    tt_ref_gemm('T', 'N', m, n, k, -1.5, A.p, A.ld, B.p, B.ld, 0.5, C.p, C.ld, R, S);
    float *snap = tt_mat_snapshot(&C);
    tsg_problem p = {'T', 'N', m, n, k, -1.5f, 0.5f, A.p, A.ld, B.p, B.ld, C.p, C.ld, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    tsg_ref_sgemm(&p);
    tt_check ck = tt_compare(C.p, C.ld, m, n, k, R, S, TT_GAMMA);
    assert_int_equal(ck.bad, 0);
    assert_true(ck.rel_fro < 1e-5);
    assert_int_equal(tt_mat_outside_changed(&C, snap), 0);
    free(snap);
    free(R);
    free(S);
    tt_mat_free(&A);
    tt_mat_free(&B);
    tt_mat_free(&C);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_all_transposes),
        cmocka_unit_test(test_fits_and_refuses),
        cmocka_unit_test(test_ref_sgemm_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
