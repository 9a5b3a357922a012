/*
 * test_plan.c — src/tsg_plan.c: the transfer pipeline's piece plan and the "done" contract.
 *
 * Proves: blocks and chunks cover C and K exactly for any shape (edges included); chunk and
 * split-K boundaries are multiples of 8 and the same for every block (the summation order of an
 * element does not depend on the blocks); the plan fits the device budget, switches to the bounded
 * mode and then to smaller pieces when the budget shrinks, and refuses when nothing fits; the
 * shapes the issue names get the pieces docs/NOTES.md describes; tsg_done_remaining returns
 * exactly the complement of what a backend reports final, for every possible report; both piece
 * orders visit every piece once and finish blocks in order, and the order rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tsg_plan.h"
#include "tsg_testutil.h"

static tsg_plan_limits h200_limits(double device_bytes)
{
    tsg_plan_limits lim = {device_bytes, 128, 128, 132, 256, (int64_t)4 << 20, 0, 0};
    return lim;
}

static tsg_problem shape(char ta, char tb, int64_t m, int64_t n, int64_t k)
{
    tsg_problem p = {ta, tb, m, n, k, 1.0f, 0.0f, NULL, ta == 'N' ? m : k, NULL, tb == 'N' ? k : n,
                     NULL, m, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    return p;
}

static void check_cover(const tsg_problem *p, const tsg_plan *pl, const tsg_plan_limits *lim)
{
    assert_true(pl->bm >= 1 && pl->bn >= 1 && pl->kc >= 1);
    assert_int_equal(pl->gm, (p->m + pl->bm - 1) / pl->bm);
    assert_int_equal(pl->gn, (p->n + pl->bn - 1) / pl->bn);
    assert_int_equal(pl->nk, (p->k + pl->kc - 1) / pl->kc);
    int64_t rows = 0, cols = 0, ks = 0;
    for (int64_t i = 0; i < pl->gm; ++i) rows += tsg_plan_rows(pl, p->m, i);
    for (int64_t j = 0; j < pl->gn; ++j) cols += tsg_plan_cols(pl, p->n, j);
    for (int64_t c = 0; c < pl->nk; ++c) {
        assert_true(tsg_plan_klen(pl, p->k, c) >= 1);
        ks += tsg_plan_klen(pl, p->k, c);
    }
    assert_int_equal(rows, p->m);
    assert_int_equal(cols, p->n);
    assert_int_equal(ks, p->k);
    /* chunk and slice boundaries at multiples of 8 (16-byte aligned device slices) */
    if (pl->nk > 1) assert_int_equal(pl->kc % 8, 0);
    if (pl->splits > 1) assert_int_equal(pl->split_kc % 8, 0);
    assert_int_equal(pl->splits, (pl->kc + pl->split_kc - 1) / pl->split_kc);
    assert_true(pl->device_bytes <= lim->device_bytes);
    assert_true(pl->bm <= 8192 && pl->bn <= 8192); /* one column of a piece fits a 64 KiB slot */
    if (pl->nk > 1) assert_true(pl->kc <= TSG_PLAN_MAX_KC + TSG_PLAN_MAX_KC / 2);
    if (pl->nk > 1 && (p->transa == 'T' || p->transb == 'N')) assert_true(pl->kc <= lim->max_rows);
}

static void test_cover_random(void **state)
{
    (void)state;
    tt_rng r;
    tt_seed(&r, 2026);
    const char t[2] = {'N', 'T'};
    for (int it = 0; it < 3000; ++it) {
        int64_t m = 1 + (int64_t)(tt_next(&r) % 20000), n = 1 + (int64_t)(tt_next(&r) % 20000);
        int64_t k = 1 + (int64_t)(tt_next(&r) % 70000);
        if (it % 3 == 0) m = 1 + m % 300, n = 1 + n % 300;
        tsg_problem p = shape(t[it % 2], t[(it / 2) % 2], m, n, k);
        const double budgets[3] = {1e12, 64e6, 2e6};
        tsg_plan_limits lim = h200_limits(budgets[it % 3]);
        tsg_plan pl;
        if (tsg_plan_make(&p, &lim, &pl) != 0) {
            assert_true(lim.device_bytes < 4e6); /* only tiny budgets may refuse */
            continue;
        }
        check_cover(&p, &pl, &lim);
        tsg_plan again; /* a pure function: the same plan every time */
        assert_int_equal(tsg_plan_make(&p, &lim, &again), 0);
        /* field by field: the padding after `resident` is not part of the plan */
        assert_int_equal(pl.bm, again.bm);
        assert_int_equal(pl.bn, again.bn);
        assert_int_equal(pl.gm, again.gm);
        assert_int_equal(pl.gn, again.gn);
        assert_int_equal(pl.kc, again.kc);
        assert_int_equal(pl.nk, again.nk);
        assert_int_equal(pl.split_kc, again.split_kc);
        assert_int_equal(pl.splits, again.splits);
        assert_int_equal(pl.resident, again.resident);
        assert_true(pl.device_bytes == again.device_bytes);
    }
}

static void test_named_shapes(void **state)
{
    (void)state;
    tsg_plan_limits lim = h200_limits(100e9);
    tsg_plan pl;
    tsg_problem p = shape('N', 'N', 4096, 4096, 4096); /* 2-D pieces: 4 big blocks, 4 chunks */
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
    assert_int_equal(pl.bm, 2048);
    assert_int_equal(pl.bn, 2048);
    assert_int_equal(pl.nk, 4);
    assert_int_equal(pl.splits, 1);
    assert_true(pl.resident);
    lim.block_area = (int64_t)2 << 20; /* TSGEMM_TEST_BLOCK: 1024 x 2048 blocks, same cover */
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
    assert_int_equal(pl.bm, 1024);
    assert_int_equal(pl.bn, 2048);
    assert_int_equal(pl.nk, 4);
    check_cover(&p, &pl, &lim);
    lim.block_area = 0;
    p = shape('N', 'N', 2048, 2048, 2048); /* C of 4M floats: two blocks of the small area */
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
    assert_int_equal(pl.gm * pl.gn, 2);
    /* one or a few floats short of 4096 (4095^3; numpy's 4096 x 4091 x 4103 as column-major
     * 4103 x 4096 x 4091): the same 2 x 2 big blocks as 4096^3 (TSG_PLAN_BIG_MIN_BLOCKS,
     * TSG_PLAN_AREA_SLACK), hence chunk-major (v0.4 gave both 4 x 2 blocks, block-major) */
    const int64_t near[][3] = {{4095, 4095, 4095}, {4103, 4096, 4091}, {4096, 4103, 4091}};
    for (int t = 0; t < 3; ++t) {
        p = shape('N', 'N', near[t][0], near[t][1], near[t][2]);
        assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
        assert_int_equal(pl.gm, 2);
        assert_int_equal(pl.gn, 2);
        assert_true(pl.resident);
        assert_int_equal(tsg_plan_rounds(&pl, 0.0f, 0), pl.nk);
        check_cover(&p, &pl, &lim);
    }
    p = shape('N', 'N', 3000, 3000, 3000); /* well below 4 big blocks: 8 small ones, as v0.4 */
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
    assert_int_equal(pl.gm * pl.gn, 8);
    p = shape('N', 'N', 512, 512, 65536); /* long K: one block, chunks split 8 ways */
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
    assert_int_equal(pl.gm * pl.gn, 1);
    assert_int_equal(pl.kc, 4096);
    assert_int_equal(pl.splits, 8);
    p = shape('N', 'N', 65536, 64, 4096); /* tall-skinny: blocks along m bound the first chunk */
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
    assert_int_equal(pl.bm, 8192);
    assert_int_equal(pl.gn, 1);
    assert_true((pl.bm + pl.bn) * pl.kc <= 2 * TSG_PLAN_FIRST_FLOATS);
    p = shape('T', 'N', 1000, 1000, 1000); /* small: one block, chunks to overlap anyway */
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
    assert_int_equal(pl.gm * pl.gn, 1);
    assert_true(pl.nk >= 3);
}

/* Every piece order (R leading chunk-major rounds, 0 <= R <= nk) visits every (block, chunk) once,
 * each block's chunks in increasing c, and finishes blocks in increasing q (the done contract). */
static void check_order(const tsg_plan *pl, int64_t rounds)
{
    const int64_t blocks = pl->gm * pl->gn, pieces = blocks * pl->nk;
    char *seen = calloc((size_t)pieces, 1);
    int64_t *next_c = calloc((size_t)blocks, sizeof *next_c);
    assert_non_null(seen);
    assert_non_null(next_c);
    int64_t last_finished = -1, q, c;
    for (int64_t s = 0; s < pieces; ++s) {
        tsg_plan_piece(pl, rounds, s, &q, &c);
        assert_true(q >= 0 && q < blocks && c >= 0 && c < pl->nk);
        assert_int_equal(seen[q * pl->nk + c], 0);
        seen[q * pl->nk + c] = 1;
        assert_int_equal(c, next_c[q]++); /* a block's chunks in order */
        /* the first rounds * blocks pieces are the chunk-major rounds */
        if (s < rounds * blocks) assert_int_equal(c, s / blocks);
        else assert_true(c >= rounds);
        if (c == pl->nk - 1) { /* block q is finished here: after every block before it */
            assert_int_equal(q, last_finished + 1);
            last_finished = q;
        }
    }
    assert_int_equal(last_finished, blocks - 1);
    tsg_plan_piece(pl, rounds, 0, &q, &c);
    assert_true(q == 0 && c == 0);
    free(seen);
    free(next_c);
}

static void test_piece_order(void **state)
{
    (void)state;
    tsg_plan_limits lim = h200_limits(100e9);
    tsg_plan pl;
    const int64_t shapes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {2048, 2048, 2048},
                                 {6000, 3000, 5000}, {1000, 1000, 1000}, {65536, 64, 4096},
                                 {16384, 16384, 16384}, {8192, 8192, 4096}, {12000, 9000, 7000}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
        tsg_problem p = shape('N', 'T', shapes[i][0], shapes[i][1], shapes[i][2]);
        assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
        for (int64_t r = 0; r <= pl.nk; ++r) check_order(&pl, r);
        const int64_t blocks = pl.gm * pl.gn;
        const int64_t rule = tsg_plan_rounds(&pl, 0.0f, 0);
        if (blocks >= 3 && blocks <= 4 && pl.nk >= 2) assert_int_equal(rule, pl.nk);
        else if (blocks > 4 && pl.nk >= 2 && rule > 0) /* rounds stop with TAIL_K of k left */
            assert_true((pl.nk - rule) * pl.kc >= TSG_PLAN_TAIL_K &&
                        (pl.nk - rule - 1) * pl.kc < TSG_PLAN_TAIL_K);
        else assert_int_equal(rule, 0);
        assert_int_equal(tsg_plan_rounds(&pl, 1.0f, 0), 0); /* beta != 0: block-major */
        assert_int_equal(tsg_plan_rounds(&pl, 0.0f, 1), 0);
        assert_int_equal(tsg_plan_rounds(&pl, 1.0f, 2), pl.nk);
        assert_int_equal(tsg_plan_rounds(&pl, 0.0f, 3 + 1), 1);
        assert_int_equal(tsg_plan_rounds(&pl, 0.0f, 3 + 1000), pl.nk); /* at most nk */
    }
    /* the case all-chunk-major exists for: 4096^3, 2 x 2 resident blocks */
    tsg_problem p = shape('N', 'N', 4096, 4096, 4096);
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
    assert_int_equal(tsg_plan_rounds(&pl, 0.0f, 0), pl.nk);
    /* 8192^3: 16 blocks of 2048^2, 4 chunks of 2048 (TSG_PLAN_FIRST_FLOATS_BIG): 2 rounds, then
     * 4096 of k per block */
    p = shape('N', 'N', 8192, 8192, 8192);
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
    assert_int_equal(pl.gm * pl.gn, 16);
    assert_int_equal(pl.kc, 2048);
    assert_int_equal(tsg_plan_rounds(&pl, 0.0f, 0), 2);
    int64_t q, c;
    tsg_plan_piece(&pl, 2, 31, &q, &c); /* the last piece of the rounds */
    assert_true(q == 15 && c == 1);
    tsg_plan_piece(&pl, 2, 32, &q, &c); /* then block 0's remaining chunks */
    assert_true(q == 0 && c == 2);
    tsg_plan_piece(&pl, 2, 34, &q, &c);
    assert_true(q == 1 && c == 2);
    /* the doubled first chunk is only for C of more than four big blocks */
    p = shape('N', 'N', 4096, 4096, 4096);
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
    assert_int_equal(pl.kc, 1024);
    /* download-bound: C of 256 MiB for k = 1024 stays block-major */
    p = shape('N', 'N', 8192, 8192, 1024);
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
    assert_int_equal(tsg_plan_rounds(&pl, 0.0f, 0), 0);
    /* a bounded plan is always block-major, even when forced */
    lim = h200_limits(64e6);
    p = shape('N', 'N', 4096, 4096, 4096);
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
    assert_false(pl.resident);
    assert_int_equal(tsg_plan_rounds(&pl, 0.0f, 2), 0);
    assert_int_equal(tsg_plan_rounds(&pl, 0.0f, 3 + 2), 0);
    check_order(&pl, 0);
}

static void test_budget(void **state)
{
    (void)state;
    tsg_problem p = shape('N', 'T', 3000, 2000, 5000);
    tsg_plan_limits lim = h200_limits(1e12);
    tsg_plan big, mid, small;
    assert_int_equal(tsg_plan_make(&p, &lim, &big), 0);
    assert_true(big.resident);
    assert_true(big.device_bytes >= 4.0 * (3000.0 * 5000 + 5000.0 * 2000 + 3000.0 * 2000));
    lim.device_bytes = big.device_bytes / 4; /* bounded ring, same pieces if they fit */
    assert_int_equal(tsg_plan_make(&p, &lim, &mid), 0);
    assert_false(mid.resident);
    assert_true(mid.device_bytes <= lim.device_bytes);
    lim.device_bytes = 1 << 20; /* 1 MiB: many small pieces */
    assert_int_equal(tsg_plan_make(&p, &lim, &small), 0);
    assert_false(small.resident);
    assert_true(small.gm * small.gn * small.nk > 100);
    check_cover(&p, &small, &lim);
    lim.device_bytes = 1000; /* nothing fits */
    assert_int_equal(tsg_plan_make(&p, &lim, &small), -1);
}

/* For every report a backend can make on a grid, the remaining sub-problems are exactly the
 * elements not reported final, each once. */
static void test_done_remaining(void **state)
{
    (void)state;
    const int64_t m = 37, n = 29;
    static float c[37 * 29];
    tsg_problem p = shape('N', 'N', m, n, 5);
    p.c = c;
    p.ldc = m;
    const int64_t bms[3] = {37, 10, 8}, bns[3] = {29, 7, 1};
    for (int g = 0; g < 3; ++g) {
        const int64_t bm = bms[g], bn = bns[g], gm = (m + bm - 1) / bm, gn = (n + bn - 1) / bn;
        for (int64_t blocks = 0; blocks <= gm * gn; ++blocks)
            for (int64_t cols = 0; cols < (blocks < gm * gn ? bn : 1); ++cols) {
                int mark[37 * 29] = {0};
                /* final: blocks before `blocks` in row-major block order, then `cols` columns */
                for (int64_t q = 0; q <= blocks && q < gm * gn; ++q) {
                    const int64_t i = q / gn, j = q % gn;
                    const int64_t c1 = q < blocks ? bn : cols;
                    for (int64_t jj = j * bn; jj < j * bn + c1 && jj < n; ++jj)
                        for (int64_t ii = i * bm; ii < i * bm + bm && ii < m; ++ii) mark[ii + jj * m] += 1;
                }
                tsg_done d = {bm, bn, blocks, cols, 0, {{0}}, 0, 0.0};
                tsg_problem rest[2];
                int nr = tsg_done_remaining(&p, &d, rest);
                assert_true(nr >= 0 && nr <= 2);
                for (int r = 0; r < nr; ++r) {
                    assert_true(rest[r].m > 0 && rest[r].n > 0);
                    const int64_t off = rest[r].c - c, i0 = off % m, j0 = off / m;
                    assert_ptr_equal(rest[r].b, p.b + j0 * p.ldb); /* B follows C's columns */
                    assert_ptr_equal(rest[r].a, p.a + i0);        /* A follows C's rows */
                    for (int64_t jj = j0; jj < j0 + rest[r].n; ++jj)
                        for (int64_t ii = i0; ii < i0 + rest[r].m; ++ii) mark[ii + jj * m] += 1;
                }
                for (int64_t e = 0; e < m * n; ++e) assert_int_equal(mark[e], 1);
            }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cover_random),
        cmocka_unit_test(test_named_shapes),
        cmocka_unit_test(test_piece_order),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_done_remaining),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
