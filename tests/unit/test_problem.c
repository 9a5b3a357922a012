/*
 * test_problem.c — src/tsg_problem.c: the CBLAS/Fortran -> canonical mapping over layout x transA
 * x transB, every reference error position in both layouts (two bad arguments at once included),
 * and the BLAS scalar rules. Pure: no library, no BLAS.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tsg_problem.h"
#include "tsg_testutil.h"

enum { ROW = TSG_CBLAS_ROW_MAJOR, COL = TSG_CBLAS_COL_MAJOR };
enum { NT = TSG_CBLAS_NO_TRANS, TR = TSG_CBLAS_TRANS, CT = TSG_CBLAS_CONJ_TRANS };

static float A[64], B[64], C[64];

/* Calls tsg_map_cblas on a legal 4x5x6 problem with one or two arguments replaced. */
typedef struct args {
    int layout, ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
} args;

static tsg_call map(args a)
{
    tsg_call call;
    tsg_map_cblas(a.layout, a.ta, a.tb, a.m, a.n, a.k, 2.0f, A, a.lda, B, a.ldb, 3.0f, C, a.ldc,
                  &call);
    return call;
}

/* A legal problem for this layout/transposes: M=4 N=5 K=6 with minimal lds. */
static args legal(int layout, int ta, int tb)
{
    args a = {layout, ta, tb, 4, 5, 6, 0, 0, 0};
    int row = layout == ROW;
    /* stored A: row-major M x K (N) or K x M (T); column-major rows = M (N) or K (T) */
    a.lda = row ? (ta == NT ? a.k : a.m) : (ta == NT ? a.m : a.k);
    a.ldb = row ? (tb == NT ? a.n : a.k) : (tb == NT ? a.k : a.n);
    a.ldc = row ? a.n : a.m;
    return a;
}

static void test_mapping_all_layouts_and_transposes(void **state)
{
    (void)state;
    const int layouts[2] = {ROW, COL}, trans[3] = {NT, TR, CT};
    for (int l = 0; l < 2; ++l)
        for (int x = 0; x < 3; ++x)
            for (int y = 0; y < 3; ++y) {
                args a = legal(layouts[l], trans[x], trans[y]);
                tsg_call c = map(a);
                assert_int_equal(c.info, 0);
                char ta = trans[x] == NT ? 'N' : 'T', tb = trans[y] == NT ? 'N' : 'T';
                const tsg_problem *p = &c.p;
                assert_true(p->alpha == 2.0f && p->beta == 3.0f && p->c == C && p->k == 6);
                if (layouts[l] == COL) {
                    assert_int_equal(c.row_major, 0);
                    assert_true(p->transa == ta && p->transb == tb);
                    assert_true(p->m == 4 && p->n == 5);
                    assert_true(p->a == A && p->b == B && p->lda == a.lda && p->ldb == a.ldb);
                } else { /* C^T = op(B)^T op(A)^T: A/B, M/N, lda/ldb, transA/transB swap */
                    assert_int_equal(c.row_major, 1);
                    assert_true(p->transa == tb && p->transb == ta);
                    assert_true(p->m == 5 && p->n == 4);
                    assert_true(p->a == B && p->b == A && p->lda == a.ldb && p->ldb == a.lda);
                }
                assert_int_equal(p->ldc, a.ldc);
            }
}

/* Expected (info handed to the handler, user-facing position) for one bad argument. */
static void expect(args a, int info, int user)
{
    tsg_call c = map(a);
    assert_int_equal(c.info, info);
    assert_int_equal(c.user_pos, user);
}

static void test_positions_column_major(void **state)
{
    (void)state;
    args a = legal(COL, NT, NT);
    args b;
    b = a, b.layout = 7, expect(b, 1, 1);
    b = a, b.ta = 0, expect(b, 2, 2);
    b = a, b.tb = 114, expect(b, 3, 3);
    b = a, b.m = -1, expect(b, 4, 4);
    b = a, b.n = -1, expect(b, 5, 5);
    b = a, b.k = -1, expect(b, 6, 6);
    b = a, b.lda = 3, expect(b, 9, 9);   /* lda < M */
    b = a, b.ldb = 5, expect(b, 11, 11); /* ldb < K */
    b = a, b.ldc = 3, expect(b, 14, 14); /* ldc < M */
    /* ld >= max(1, rows): M = 0 still needs lda >= 1 */
    b = a, b.m = 0, b.lda = 0, b.ldc = 1, expect(b, 9, 9);
    /* transposed: lda >= K, ldb >= N */
    args t = legal(COL, TR, TR);
    b = t, b.lda = 5, expect(b, 9, 9);
    b = t, b.ldb = 4, expect(b, 11, 11);
}

static void test_positions_row_major(void **state)
{
    (void)state;
    /* The reference checks the swapped problem: the handler receives 5 for a bad M, 4 for a
     * bad N, 11 for a bad lda, 9 for a bad ldb and swaps them back (cblas_xerbla.c). */
    args a = legal(ROW, NT, NT);
    args b;
    b = a, b.layout = 0, expect(b, 1, 1);
    b = a, b.ta = 1, expect(b, 2, 2);
    b = a, b.tb = -5, expect(b, 3, 3);
    b = a, b.m = -1, expect(b, 5, 4);
    b = a, b.n = -1, expect(b, 4, 5);
    b = a, b.k = -1, expect(b, 6, 6);
    b = a, b.lda = 5, expect(b, 11, 9);  /* row-major A is M x K: lda >= K = 6 */
    b = a, b.ldb = 4, expect(b, 9, 11);  /* B is K x N: ldb >= N = 5 */
    b = a, b.ldc = 4, expect(b, 14, 14); /* C is M x N: ldc >= N = 5 */
    args t = legal(ROW, TR, TR);         /* A stored K x M: lda >= M; B stored N x K: ldb >= K */
    b = t, b.lda = 3, expect(b, 11, 9);
    b = t, b.ldb = 5, expect(b, 9, 11);
}

static void test_two_bad_arguments(void **state)
{
    (void)state;
    args b;
    /* column-major: Fortran order, M before N */
    b = legal(COL, NT, NT), b.m = -1, b.n = -1, expect(b, 4, 4);
    /* row-major: the swapped problem checks N first, so the reference reports N */
    b = legal(ROW, NT, NT), b.m = -1, b.n = -1, expect(b, 4, 5);
    /* row-major bad lda and bad ldb: ldb (swapped lda) is reported */
    b = legal(ROW, NT, NT), b.lda = 1, b.ldb = 1, expect(b, 9, 11);
    /* a bad transpose wins over bad sizes in both layouts; layout over everything */
    b = legal(ROW, NT, NT), b.tb = 0, b.m = -1, expect(b, 3, 3);
    b = legal(COL, NT, NT), b.ta = 0, b.tb = 0, expect(b, 2, 2);
    b = legal(COL, NT, NT), b.layout = 0, b.ta = 0, expect(b, 1, 1);
    /* K and ldc bad: K first */
    b = legal(ROW, NT, NT), b.k = -2, b.ldc = 0, expect(b, 6, 6);
}

static void test_fortran_positions_and_characters(void **state)
{
    (void)state;
    tsg_call c;
    const char ok[] = "NnTtCc";
    for (int i = 0; ok[i]; ++i)
        for (int j = 0; ok[j]; ++j) {
            assert_int_equal(tsg_map_fortran(ok[i], ok[j], 4, 5, 6, 1, A, 6, B, 6, 0, C, 4, &c), 0);
            assert_int_equal(c.p.transa, (i < 2) ? 'N' : 'T');
            assert_int_equal(c.p.transb, (j < 2) ? 'N' : 'T');
        }
    assert_int_equal(tsg_map_fortran('X', 'N', 4, 5, 6, 1, A, 4, B, 6, 0, C, 4, &c), 1);
    assert_int_equal(tsg_map_fortran('N', ' ', 4, 5, 6, 1, A, 4, B, 6, 0, C, 4, &c), 2);
    assert_int_equal(tsg_map_fortran('N', 'N', -1, 5, 6, 1, A, 4, B, 6, 0, C, 4, &c), 3);
    assert_int_equal(tsg_map_fortran('N', 'N', 4, -1, 6, 1, A, 4, B, 6, 0, C, 4, &c), 4);
    assert_int_equal(tsg_map_fortran('N', 'N', 4, 5, -1, 1, A, 4, B, 6, 0, C, 4, &c), 5);
    assert_int_equal(tsg_map_fortran('N', 'N', 4, 5, 6, 1, A, 3, B, 6, 0, C, 4, &c), 8);
    assert_int_equal(tsg_map_fortran('N', 'N', 4, 5, 6, 1, A, 4, B, 5, 0, C, 4, &c), 10);
    assert_int_equal(tsg_map_fortran('N', 'N', 4, 5, 6, 1, A, 4, B, 6, 0, C, 3, &c), 13);
    assert_int_equal(tsg_map_fortran('T', 'T', 4, 5, 6, 1, A, 5, B, 5, 0, C, 4, &c), 8);
    assert_int_equal(tsg_map_fortran('T', 'T', 4, 5, 6, 1, A, 6, B, 4, 0, C, 4, &c), 10);
    assert_int_equal(c.user_pos, 10);
    /* a 64-bit size narrowed to a negative int by a caller is a clean error, not a crash */
    int narrowed = (int)(int64_t)3000000000LL;
    assert_int_equal(tsg_map_fortran('N', 'N', narrowed, 5, 6, 1, A, 4, B, 6, 0, C, 4, &c), 3);
    assert_string_equal(tsg_arg_name(1, 9), "lda");
    assert_string_equal(tsg_arg_name(0, 13), "LDC");
}

/* The decoders the tiny-call path shares with the mapping (src/tsg_problem.h): every byte and
 * every int near the CBLAS enum, not just the legal ones (the Fortran decoder lower-cases with
 * OR 0x20, which must not turn any other byte into n, t or c). */
static void test_decoders_whole_range(void **state)
{
    (void)state;
    for (int v = -128; v < 256; ++v) {
        const char t = (char)v;
        const char want = (t == 'N' || t == 'n') ? 'N'
                          : (t == 'T' || t == 't' || t == 'C' || t == 'c') ? 'T' : 0;
        if (tsg_decode_trans(t) != want) fail_msg("tsg_decode_trans(%d) = %d", v, tsg_decode_trans(t));
    }
    for (int v = -200; v < 400; ++v) {
        const char want = v == NT ? 'N' : (v == TR || v == CT) ? 'T' : 0;
        if (tsg_decode_cblas_trans(v) != want)
            fail_msg("tsg_decode_cblas_trans(%d) = %d", v, tsg_decode_cblas_trans(v));
    }
}

/* The row-major swap: the identity when not asked for, its own inverse when it is, and C, k, ldc,
 * the scalars and where C lives never move. */
static int same_problem(const tsg_problem *x, const tsg_problem *y)
{
    return x->transa == y->transa && x->transb == y->transb && x->m == y->m && x->n == y->n &&
           x->k == y->k && x->alpha == y->alpha && x->beta == y->beta && x->a == y->a &&
           x->lda == y->lda && x->b == y->b && x->ldb == y->ldb && x->c == y->c &&
           x->ldc == y->ldc && x->where_a == y->where_a && x->where_b == y->where_b &&
           x->where_c == y->where_c && x->math == y->math && x->fresh_c == y->fresh_c &&
           x->own_pool == y->own_pool;
}

/* The mapped problem's fields beyond the call's arguments start at their defaults, whatever the
 * memory held before (a tsg_call on the stack is not zeroed): host operands, FP32, C not known
 * fresh, tsgemm's own CPU BLAS (own_pool 0: a garbage own_pool would move the decision's margin) */
static void test_mapping_sets_the_defaults(void **state)
{
    (void)state;
    for (int form = 0; form < 2; ++form) {
        tsg_call call;
        memset(&call, 0xa5, sizeof call);
        const int bad = form ? tsg_map_fortran('N', 'T', 4, 5, 6, 1.0f, A, 4, B, 5, 0.0f, C, 4, &call)
                             : tsg_map_cblas(101, 111, 112, 4, 5, 6, 1.0f, A, 6, B, 6, 0.0f, C, 5, &call);
        assert_int_equal(bad, 0);
        assert_int_equal(call.info, 0);
        assert_int_equal(call.p.where_a, TSG_HOST);
        assert_int_equal(call.p.where_b, TSG_HOST);
        assert_int_equal(call.p.where_c, TSG_HOST);
        assert_int_equal(call.p.math, 0);
        assert_int_equal(call.p.fresh_c, 0);
        assert_int_equal(call.p.own_pool, 0);
    }
}

static void test_swap_rows_is_an_involution(void **state)
{
    (void)state;
    const tsg_problem p0 = {'N', 'T', 4, 5, 6, 2.0f, 3.0f, A, 7, B, 8, C, 9, TSG_PINNED, TSG_DEVICE,
                            TSG_MANAGED, 1, 1, 1};
    tsg_problem p = p0;
    tsg_problem_swap_rows(&p, 0);
    assert_true(same_problem(&p, &p0));
    tsg_problem_swap_rows(&p, 1);
    assert_true(p.transa == 'T' && p.transb == 'N' && p.m == 5 && p.n == 4 && p.k == 6);
    assert_true(p.a == B && p.b == A && p.lda == 8 && p.ldb == 7 && p.c == C && p.ldc == 9);
    assert_true(p.where_a == TSG_DEVICE && p.where_b == TSG_PINNED && p.where_c == TSG_MANAGED);
    assert_true(p.alpha == 2.0f && p.beta == 3.0f && p.math == 1 && p.fresh_c == 1);
    tsg_problem_swap_rows(&p, 1);
    assert_true(same_problem(&p, &p0));
}

/* ---- scalar rules ---- */

static tsg_problem prob(int64_t m, int64_t n, int64_t k, float alpha, float beta, float *c,
                        int64_t ldc)
{
    tsg_problem p = {'N', 'N', m, n, k, alpha, beta, NULL, m > 0 ? m : 1, NULL, k > 0 ? k : 1,
                     c, ldc, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    return p;
}

static void test_rules_quick_returns(void **state)
{
    (void)state;
    float c[12];
    for (int i = 0; i < 12; ++i) c[i] = NAN;
    tsg_problem p = prob(0, 3, 3, 1, 0, c, 1);
    assert_int_equal(tsg_apply_scalar_rules(&p), TSG_RULE_NOTHING);
    p = prob(3, 0, 3, 1, 0, c, 3);
    assert_int_equal(tsg_apply_scalar_rules(&p), TSG_RULE_NOTHING);
    p = prob(3, 3, 0, 1, 1, c, 3); /* k = 0, beta = 1: nothing at all, NaN stays */
    assert_int_equal(tsg_apply_scalar_rules(&p), TSG_RULE_NOTHING);
    p = prob(3, 3, 5, 0, 1, c, 3); /* alpha = 0, beta = 1 */
    assert_int_equal(tsg_apply_scalar_rules(&p), TSG_RULE_NOTHING);
    for (int i = 0; i < 12; ++i) assert_true(isnan(c[i]));
    p = prob(3, 3, 5, 1, 0, c, 3); /* a real product: the backend's job */
    assert_int_equal(tsg_apply_scalar_rules(&p), TSG_RULE_COMPUTE);
}

static void test_rules_scale_window_only(void **state)
{
    (void)state;
    /* C is 3 x 2 inside ldc = 4: the padding row must stay, beta = 0 overwrites NaN with +0 */
    float c[8] = {NAN, INFINITY, -NAN, 7, NAN, 1, 2, 9};
    tsg_problem p = prob(3, 2, 0, 1, 0, c, 4); /* k = 0 */
    assert_int_equal(tsg_apply_scalar_rules(&p), TSG_RULE_SCALED);
    const float want0[8] = {0, 0, 0, 7, 0, 0, 0, 9};
    for (int i = 0; i < 8; ++i) {
        assert_true(c[i] == want0[i]);
        if (i % 4 != 3) assert_false(signbit(c[i])); /* exact +0, as the reference writes ZERO */
    }
    float d[8] = {1, 2, 3, 7, 4, 5, 6, 9};
    p = prob(3, 2, 4, 0.0f, -0.5f, d, 4); /* alpha = 0: C = beta*C, A/B (NULL) never read */
    assert_int_equal(tsg_apply_scalar_rules(&p), TSG_RULE_SCALED);
    const float want1[8] = {-0.5f, -1, -1.5f, 7, -2, -2.5f, -3, 9};
    assert_memory_equal(d, want1, sizeof d);
}

static void test_extent_and_flops(void **state)
{
    (void)state;
    assert_int_equal(tsg_extent(3, 4, 10), 33); /* (4-1)*10 + 3, not 40 */
    assert_int_equal(tsg_extent(0, 4, 10), 0);
    assert_int_equal(tsg_extent(5, 0, 10), 0);
    tsg_problem p = prob(3, 4, 5, 1, 0, NULL, 3);
    assert_true(tsg_flops(&p) == 120.0);
    p.transa = 'T';
    int64_t r, c;
    tsg_stored_shape_a(&p, &r, &c);
    assert_true(r == 5 && c == 3);
    tsg_stored_shape_b(&p, &r, &c);
    assert_true(r == 5 && c == 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mapping_all_layouts_and_transposes),
        cmocka_unit_test(test_positions_column_major),
        cmocka_unit_test(test_positions_row_major),
        cmocka_unit_test(test_two_bad_arguments),
        cmocka_unit_test(test_fortran_positions_and_characters),
        cmocka_unit_test(test_decoders_whole_range),
        cmocka_unit_test(test_mapping_sets_the_defaults),
        cmocka_unit_test(test_swap_rows_is_an_involution),
        cmocka_unit_test(test_rules_quick_returns),
        cmocka_unit_test(test_rules_scale_window_only),
        cmocka_unit_test(test_extent_and_flops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
