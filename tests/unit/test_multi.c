/*
 * test_multi.c — src/tsg_multi.c with fake devices: the panel split (N = 1, 2, 3, 8 slots; shapes
 * that do not divide; tiny shapes that stay on one device; weights; determinism), the count rule
 * with and without rates, and the rounds: a device failing at every point of its panel (before
 * anything, after some blocks, inside a block, after everything), the heir failing too, every
 * device failing — each time the call finished through tsg_run's CPU retry is bitwise the
 * one-piece reference, and every element of C is written exactly once.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tsg_dispatch.h"
#include "tsg_multi.h"
#include "tsg_split.h"

static tsg_problem shape(int64_t m, int64_t n, int64_t k)
{
    tsg_problem p = {'N', 'N', m, n, k, 1.0f, 0.0f, NULL, m, NULL, k, NULL, m, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    return p;
}

static const tsg_multi_limits tile128 = {128, 128};

/* The panels tile C exactly, in order along the cut, each edge a multiple of the tile but the
 * last; returns the widest minus the narrowest panel along the cut. */
static int64_t check_tiling(const tsg_problem *p, const tsg_multi_split *s, int64_t tile)
{
    int64_t at = 0, lo = INT64_MAX, hi = 0;
    for (int i = 0; i < s->count; ++i) {
        const tsg_multi_panel *pn = &s->panel[i];
        assert_int_equal(pn->slot, i);
        const int64_t w = s->by_cols ? pn->n : pn->m;
        if (s->by_cols) {
            assert_int_equal(pn->r0, 0);
            assert_int_equal(pn->m, p->m);
            assert_int_equal(pn->c0, at);
        } else {
            assert_int_equal(pn->c0, 0);
            assert_int_equal(pn->n, p->n);
            assert_int_equal(pn->r0, at);
        }
        assert_true(w > 0);
        if (i < s->count - 1) assert_int_equal(w % tile, 0);
        at += w;
        lo = w < lo ? w : lo;
        hi = w > hi ? w : hi;
    }
    assert_int_equal(at, s->by_cols ? p->n : p->m);
    return hi - lo;
}

static void test_split_counts(void **state)
{
    (void)state;
    const int ndevs[] = {1, 2, 3, 8};
    const int64_t shapes[][3] = {{8192, 8192, 8192}, {16384, 16384, 16384}, {8191, 8193, 4097},
                                 {3001, 9000, 2500}, {9000, 3001, 2500}, {4096, 4096, 4096}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (size_t d = 0; d < sizeof ndevs / sizeof ndevs[0]; ++d) {
            tsg_problem p = shape(shapes[s][0], shapes[s][1], shapes[s][2]);
            tsg_multi_split sp, again;
            const int c = tsg_multi_split_make(&p, ndevs[d], NULL, &tile128, &sp);
            assert_int_equal(c, sp.count);
            assert_true(c >= 1 && c <= ndevs[d]);
            assert_int_equal(sp.by_cols, p.m <= p.n);
            /* balanced: the panels' tile counts differ by at most one; the last panel also holds
             * the partial last tile, so widths differ by less than two tiles */
            const int64_t spread = check_tiling(&p, &sp, 128);
            assert_true(spread < 2 * 128);
            for (int i = 0; i < c; ++i) { /* every panel above the floor */
                const tsg_multi_panel *pn = &sp.panel[i];
                assert_true(2.0 * pn->m * pn->n * p.k >= TSG_MULTI_MIN_PANEL_FLOPS || c == 1);
                assert_true((double)pn->m * pn->n >= TSG_MULTI_MIN_PANEL_AREA || c == 1);
            }
            /* deterministic */
            tsg_multi_split_make(&p, ndevs[d], NULL, &tile128, &again);
            assert_memory_equal(&sp, &again, sizeof sp);
        }
    /* large squares use every slot */
    tsg_problem p = shape(16384, 16384, 16384);
    tsg_multi_split sp;
    assert_int_equal(tsg_multi_split_make(&p, 8, NULL, &tile128, &sp), 8);
    for (int i = 0; i < 8; ++i) assert_int_equal(sp.panel[i].n, 2048);
    assert_int_equal(tsg_multi_split_make(&p, 3, NULL, &tile128, &sp), 3);
    /* 128 tiles over 3: 43, 43, 42 */
    assert_int_equal(sp.panel[0].n, 43 * 128);
    assert_int_equal(sp.panel[1].n, 43 * 128);
    assert_int_equal(sp.panel[2].n, 16384 - 86 * 128);
    /* a shape that does not divide: 8193 columns = 65 tiles, the last one a single column */
    p = shape(8000, 8193, 3000);
    assert_int_equal(tsg_multi_split_make(&p, 2, NULL, &tile128, &sp), 2);
    assert_int_equal(sp.panel[0].n, 33 * 128);
    assert_int_equal(sp.panel[1].n, 8193 - 33 * 128);
    /* taller than wide: rows are cut, B is what every device reads */
    p = shape(20000, 5000, 3000);
    assert_int_equal(tsg_multi_split_make(&p, 2, NULL, &tile128, &sp), 2);
    assert_int_equal(sp.by_cols, 0);
    assert_int_equal(sp.panel[0].m, 79 * 128);
    assert_int_equal(sp.panel[1].r0, 79 * 128);
}

static void test_split_tiny_stays_on_one(void **state)
{
    (void)state;
    const int64_t shapes[][3] = {{1, 1, 1},   {64, 64, 64},     {1000, 1000, 1000}, {1024, 1024, 1024},
                                 {128, 65536, 128}, {2000, 200, 9000}, {1, 100000, 100000}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        tsg_problem p = shape(shapes[s][0], shapes[s][1], shapes[s][2]);
        tsg_multi_split sp;
        assert_int_equal(tsg_multi_split_make(&p, 8, NULL, &tile128, &sp), 1);
        assert_int_equal(sp.panel[0].m, p.m);
        assert_int_equal(sp.panel[0].n, p.n);
        assert_int_equal(sp.panel[0].slot, 0);
    }
    /* fewer tiles than slots: as many panels as tiles allow at most */
    tsg_problem p = shape(100000, 300, 100000); /* rows cut: 782 tiles; fine */
    tsg_multi_split sp;
    assert_int_equal(tsg_multi_split_make(&p, 8, NULL, &tile128, &sp), 8);
    p = shape(300, 200, 1000000); /* rows cut: 3 tiles, but C is below the area floor: one */
    assert_int_equal(tsg_multi_split_make(&p, 8, NULL, &tile128, &sp), 1);
    /* 2048^3 on 8 slots: 2048 x 256 panels fall below the area floor; 2 x 2048 x 1024 do not */
    p = shape(2048, 2048, 2048);
    const int c = tsg_multi_split_make(&p, 8, NULL, &tile128, &sp);
    assert_int_equal(c, 4); /* 2048 x 512 = 1M floats: exactly the floor */
}

static void test_split_weights(void **state)
{
    (void)state;
    tsg_problem p = shape(8192, 8192, 8192);
    tsg_multi_split sp;
    const double w[3] = {2.0, 1.0, 1.0}; /* 64 tiles: 32, 16, 16 */
    assert_int_equal(tsg_multi_split_make(&p, 3, w, &tile128, &sp), 3);
    assert_int_equal(sp.panel[0].n, 32 * 128);
    assert_int_equal(sp.panel[1].n, 16 * 128);
    assert_int_equal(sp.panel[2].n, 16 * 128);
    const double bad[2] = {1.0, NAN}; /* unusable weights: equal shares */
    assert_int_equal(tsg_multi_split_make(&p, 2, bad, &tile128, &sp), 2);
    assert_int_equal(sp.panel[0].n, 4096);
    const double tiny[2] = {1000.0, 1.0}; /* the slow slot would get nothing: one panel fewer */
    assert_int_equal(tsg_multi_split_make(&p, 2, tiny, &tile128, &sp), 1);
}

/* H200 pipeline rates (docs/PERF.md: 50 / 47 GB/s, kernel 38 TFLOP/s), two slots */
static tsg_rates h200x(double count)
{
    tsg_rates r = {50e9, 47e9, 38e12, 60e-6, 128, 128, 132, 256, 0, 1.25e12, 2e-6, count, 0, 0, 0, 0, 0,
                   {0}, {0}, {0}}; /* no pair's own kernel figures */
    return r;
}

static void test_count_rule(void **state)
{
    (void)state;
    const tsg_rates r = h200x(2);
    tsg_problem p = shape(8192, 8192, 8192);
    double est = 0;
    /* kernel-bound: two devices, estimated faster than one by the margin at least */
    assert_int_equal(tsg_multi_devices(&p, 2, &r, &tile128, &est), 2);
    assert_true(est > 0 && est < TSG_MULTI_MARGIN * tsg_estimate_gpu_s(&p, &r));
    p = shape(16384, 16384, 16384);
    assert_int_equal(tsg_multi_devices(&p, 2, &r, &tile128, &est), 2);
    assert_true(est < 0.6 * tsg_estimate_gpu_s(&p, &r)); /* the model's ~2x at 16384^3 */
    /* 4096^3: the two panels' host traffic (A read twice) is estimated above one GPU's time */
    p = shape(4096, 4096, 4096);
    assert_int_equal(tsg_multi_devices(&p, 2, &r, &tile128, NULL), 1);
    /* transfer-bound shapes share one host: no gain, one device */
    p = shape(65536, 64, 4096);
    assert_int_equal(tsg_multi_devices(&p, 2, &r, &tile128, NULL), 1);
    p = shape(8192, 8192, 256);
    assert_int_equal(tsg_multi_devices(&p, 2, &r, &tile128, NULL), 1);
    /* small: one device */
    p = shape(1024, 1024, 1024);
    assert_int_equal(tsg_multi_devices(&p, 2, &r, &tile128, NULL), 1);
    /* one slot, or no rates (forced mode): the size rule alone */
    p = shape(8192, 8192, 8192);
    assert_int_equal(tsg_multi_devices(&p, 1, &r, &tile128, NULL), 1);
    assert_int_equal(tsg_multi_devices(&p, 8, NULL, &tile128, NULL), 8);
    p = shape(1024, 1024, 1024);
    assert_int_equal(tsg_multi_devices(&p, 8, NULL, &tile128, NULL), 1);
    /* the decision's GPU estimate with two slots is the multi one, never worse than one */
    p = shape(8192, 8192, 8192);
    const tsg_rates one = h200x(1);
    assert_true(tsg_estimate_gpus_s(&p, &r) < tsg_estimate_gpus_s(&p, &one));
    assert_true(tsg_estimate_gpus_s(&p, &one) == tsg_estimate_gpu_s(&p, &one));
    p = shape(65536, 64, 4096);
    assert_true(tsg_estimate_gpus_s(&p, &r) == tsg_estimate_gpu_s(&p, &r));
}

/* ---- rounds with fake devices ---- */

enum { FB = 0, BM = 24, BN = 20 }; /* the fake devices' C blocks: every panel has several */

/* How each slot fails: in round `round` (1 or 2; 0 never), after `blocks` blocks and `cols`
 * columns of the next of its own BM x BN grid, with `status`. */
typedef struct fake_fail {
    int round, status;
    int64_t blocks, cols;
} fake_fail;

typedef struct fake {
    fake_fail fail[TSG_MAX_DEVICES];
    int rounds;
    int calls[TSG_MAX_DEVICES];
    unsigned char *writes; /* per element of C: how many times a backend wrote it final */
    const tsg_problem *whole;
    int cpu_calls;
} fake;

static void mark(fake *f, const tsg_problem *q)
{
    const int64_t off = (int64_t)(q->c - f->whole->c);
    const int64_t r0 = off % f->whole->ldc, c0 = off / f->whole->ldc;
    for (int64_t j = 0; j < q->n; ++j)
        for (int64_t i = 0; i < q->m; ++i) f->writes[(r0 + i) + (c0 + j) * f->whole->m]++;
}

/* Computes window q of the call exactly like the CPU would (tsg_ref_sgemm's per-element k order). */
static void compute(fake *f, const tsg_problem *q)
{
    tsg_ref_sgemm(q);
    mark(f, q);
}

/* The limits tsg_run's work carries here (be_ready): every task of every round is planned under
 * them (fake_round checks it; the fake devices compute without the plans). */
static tsg_plan_limits fake_plan_limits(void)
{
    tsg_plan_limits lim;
    memset(&lim, 0, sizeof lim);
    lim.device_bytes = 1e12;
    lim.tile_m = BM, lim.tile_n = BN;
    lim.slots = 8;
    return lim;
}

static void fake_round(void *ctx, tsg_multi_task *tasks, int count)
{
    fake *f = ctx;
    f->rounds++;
    const tsg_plan_limits lim = fake_plan_limits();
    for (int t = 0; t < count; ++t) {
        tsg_multi_task *k = &tasks[t];
        tsg_plan want; /* the task's own plan, made by tsg_multi_run: the executor makes none */
        assert_int_equal(tsg_plan_make(&k->p, &lim, &want), 0);
        assert_int_equal(k->planned, 1);
        assert_true(k->plan.bm == want.bm && k->plan.bn == want.bn && k->plan.kc == want.kc &&
                    k->plan.nk == want.nk && k->plan.splits == want.splits && k->plan.resident == want.resident);
        f->calls[k->slot]++;
        const fake_fail *ff = &f->fail[k->slot];
        const tsg_problem *q = &k->p;
        const int64_t gn = (q->n + BN - 1) / BN, gm = (q->m + BM - 1) / BM;
        int64_t blocks = gm * gn, cols = 0;
        int st = 0;
        if (ff->round == f->rounds) {
            st = ff->status;
            blocks = ff->blocks < gm * gn ? ff->blocks : gm * gn;
            cols = blocks < gm * gn ? ff->cols : 0;
        }
        for (int64_t b = 0; b < blocks; ++b) { /* final blocks, in row-major block order */
            const int64_t i = b / gn, j = b % gn;
            const int64_t rows = q->m - i * BM < BM ? q->m - i * BM : BM;
            const int64_t cl = q->n - j * BN < BN ? q->n - j * BN : BN;
            tsg_problem w = tsg_problem_window(q, i * BM, rows, j * BN, cl);
            compute(f, &w);
        }
        if (cols > 0) {
            const int64_t i = blocks / gn, j = blocks % gn;
            const int64_t rows = q->m - i * BM < BM ? q->m - i * BM : BM;
            const int64_t cl = q->n - j * BN < BN ? q->n - j * BN : BN;
            tsg_problem w = tsg_problem_window(q, i * BM, rows, j * BN, cols < cl ? cols : cl);
            compute(f, &w);
        }
        k->status = st;
        k->done.bm = BM, k->done.bn = BN, k->done.blocks = blocks, k->done.cols = cols;
        k->done.nparts = 0;
        if (st) snprintf(k->msg, sizeof k->msg, "fake slot %d failed", k->slot);
    }
}

/* tsg_run's backends: the "GPU" is tsg_multi_run over the fake devices, the CPU the reference. */
typedef struct harness {
    fake f;
    tsg_multi_split split;
    tsg_multi_task *tasks;
    tsg_multi_stats stats;
} harness;

static int be_ready(void *ctx, tsg_rates *r, tsg_gpu_limits *lim)
{
    (void)ctx;
    memset(r, 0, sizeof *r);
    lim->plan = fake_plan_limits();
    lim->devices = TSG_MAX_DEVICES;
    return 1;
}

static int be_gpu(void *ctx, const tsg_problem *p, const tsg_gpu_work *work, tsg_done *done, char *msg,
                  size_t len)
{
    harness *h = ctx;
    return tsg_multi_run(p, &h->split, &work->limits, fake_round, &h->f, h->tasks, done, &h->stats, msg, len);
}

static void be_cpu(void *ctx, const tsg_problem *p)
{
    harness *h = ctx;
    h->f.cpu_calls++;
    compute(&h->f, p);
}

/* Panels of C by hand (tsg_multi_split_make's floors are for real GPUs): `count` near-even ones. */
static tsg_multi_split panels(const tsg_problem *p, int count, int by_cols)
{
    tsg_multi_split s;
    memset(&s, 0, sizeof s);
    s.by_cols = by_cols;
    s.count = count;
    const int64_t len = by_cols ? p->n : p->m;
    for (int i = 0; i < count; ++i) {
        const int64_t a = len * i / count, b = len * (i + 1) / count;
        s.panel[i] = by_cols ? (tsg_multi_panel){0, a, p->m, b - a, i} : (tsg_multi_panel){a, 0, b - a, p->n, i};
    }
    return s;
}

/* One call through tsg_run; checks C bitwise against the one-piece reference and that every
 * element was written exactly once. Returns the report. */
static tsg_report run_one(int64_t m, int64_t n, int64_t k, float beta, int count, int by_cols,
                          const fake_fail *fails, harness *h)
{
    const int64_t ldc = m + 3;
    float *a = malloc(sizeof(float) * (size_t)(m * k)), *b = malloc(sizeof(float) * (size_t)(k * n));
    float *c = malloc(sizeof(float) * (size_t)(ldc * n)), *ref = malloc(sizeof(float) * (size_t)(ldc * n));
    for (int64_t i = 0; i < m * k; ++i) a[i] = (float)((i * 7919) % 17) * 0.125f - 1.0f;
    for (int64_t i = 0; i < k * n; ++i) b[i] = (float)((i * 104729) % 13) * 0.25f - 1.5f;
    for (int64_t i = 0; i < ldc * n; ++i) c[i] = ref[i] = (float)(i % 11) * 0.5f - 2.0f;
    tsg_problem p = {'N', 'N', m, n, k, 1.5f, beta, a, m, b, k, c, ldc, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    tsg_problem pr = p;
    pr.c = ref;
    tsg_ref_sgemm(&pr);
    memset(h, 0, sizeof *h);
    h->f.writes = calloc((size_t)(m * n), 1);
    h->f.whole = &p;
    if (fails) memcpy(h->f.fail, fails, sizeof h->f.fail);
    h->split = panels(&p, count, by_cols);
    h->tasks = calloc(3 * TSG_MAX_DEVICES, sizeof *h->tasks);
    const tsg_policy pol = {TSG_MODE_GPU, 0};
    const tsg_backends be = {be_ready, be_gpu, be_cpu, h};
    tsg_report rep;
    tsg_run(&p, &pol, &be, &rep);
    assert_memory_equal(c, ref, sizeof(float) * (size_t)(ldc * n)); /* padding untouched too */
    for (int64_t i = 0; i < m * n; ++i)
        if (h->f.writes[i] != 1) fail_msg("element %lld written %d times", (long long)i, h->f.writes[i]);
    free(a), free(b), free(c), free(ref), free(h->f.writes), free(h->tasks);
    return rep;
}

static void test_run_no_failure(void **state)
{
    (void)state;
    const int counts[] = {1, 2, 3, 8};
    harness h;
    for (size_t i = 0; i < 4; ++i)
        for (int by = 0; by < 2; ++by) {
            tsg_report rep = run_one(97, 131, 29, 0.5f, counts[i], by, NULL, &h);
            assert_int_equal(rep.path, TSG_PATH_GPU);
            assert_int_equal(h.f.rounds, 1);
            assert_int_equal(h.f.cpu_calls, 0);
            for (int s = 0; s < counts[i]; ++s) assert_int_equal(h.f.calls[s], 1);
        }
}

/* One slot fails at every point of its panel; the others finish it. */
static void test_run_one_fails_everywhere(void **state)
{
    (void)state;
    const int counts[] = {2, 3, 8};
    harness h;
    for (size_t ci = 0; ci < 3; ++ci) {
        const int count = counts[ci];
        const int64_t m = 101, n = 157, k = 23;
        for (int slot = 0; slot < count; ++slot) {
            const int64_t pm = m, pn = n * (slot + 1) / count - n * slot / count; /* by columns */
            const int64_t blocks = ((pm + BM - 1) / BM) * ((pn + BN - 1) / BN);
            const int64_t points[][2] = {{0, 0}, {1, 0}, {1, 3}, {blocks / 2, 1}, {blocks - 1, 0},
                                         {blocks - 1, 2}, {blocks, 0}};
            for (size_t pt = 0; pt < sizeof points / sizeof points[0]; ++pt) {
                fake_fail ff[TSG_MAX_DEVICES];
                memset(ff, 0, sizeof ff);
                ff[slot] = (fake_fail){1, pt % 2 ? -3 : -2, points[pt][0], points[pt][1]};
                tsg_report rep = run_one(m, n, k, pt % 3 ? 0.75f : 0.0f, count, 1, ff, &h);
                if (points[pt][0] >= blocks) { /* failed after everything was final */
                    assert_int_equal(rep.path, TSG_PATH_GPU);
                    assert_int_equal(h.stats.handed, 0);
                } else {
                    assert_int_equal(rep.path, TSG_PATH_GPU); /* the others took it over */
                    assert_true(h.stats.handed >= 1 && h.stats.handed <= 2);
                    assert_int_equal(h.f.rounds, 2);
                    assert_int_equal(h.f.calls[slot], 1); /* a failed slot gets nothing more */
                }
                assert_int_equal(h.stats.failed, 1);
                assert_int_equal(h.stats.to_cpu, 0);
                assert_int_equal(h.f.cpu_calls, 0);
            }
        }
    }
}

/* The heir fails too: what is left goes to the CPU retry, exactly. */
static void test_run_heir_fails(void **state)
{
    (void)state;
    harness h;
    for (int64_t hb = 0; hb < 4; ++hb) {
        fake_fail ff[TSG_MAX_DEVICES];
        memset(ff, 0, sizeof ff);
        ff[1] = (fake_fail){1, -3, 2, 5}; /* slot 1 fails inside its third block */
        ff[0] = (fake_fail){2, -3, hb, hb % 2 ? 4 : 0}; /* slot 0 then fails on what it took */
        tsg_report rep = run_one(77, 88, 19, 0.25f, 2, 0, ff, &h);
        assert_int_equal(rep.path, TSG_PATH_CPU_RETRY);
        assert_true(rep.done.nparts >= 3);
        assert_true(h.f.cpu_calls >= 1);
        assert_true(h.stats.to_cpu >= 1);
        assert_int_equal(rep.gpu_status, -3);
        assert_string_equal(rep.msg, "fake slot 1 failed");
    }
    /* a fatal status is reported whichever slot had it */
    fake_fail ff[TSG_MAX_DEVICES];
    memset(ff, 0, sizeof ff);
    ff[0] = (fake_fail){1, -3, 1, 0};
    ff[1] = (fake_fail){1, TSG_MULTI_FATAL, 0, 0};
    tsg_report rep = run_one(60, 90, 7, 1.0f, 2, 1, ff, &h);
    assert_int_equal(rep.path, TSG_PATH_CPU_RETRY);
    assert_int_equal(rep.gpu_status, TSG_MULTI_FATAL);
    assert_int_equal(h.f.rounds, 1); /* nothing healthy: no second round */
}

/* Every slot fails at some point: all of the rest is the CPU's. */
static void test_run_all_fail(void **state)
{
    (void)state;
    harness h;
    for (int count = 1; count <= 8; count += count == 1 ? 1 : 3) { /* 1, 2, 5, 8 */
        fake_fail ff[TSG_MAX_DEVICES];
        memset(ff, 0, sizeof ff);
        for (int s = 0; s < count; ++s) ff[s] = (fake_fail){1, -2, s % 3, s % 2 ? 3 : 0};
        tsg_report rep = run_one(64, 200, 31, count % 2 ? 0.5f : 0.0f, count, 1, ff, &h);
        assert_int_equal(rep.path, TSG_PATH_CPU_RETRY);
        assert_int_equal(h.stats.failed, count);
        assert_int_equal(h.stats.handed, 0);
        assert_int_equal(h.f.rounds, 1);
        assert_true(rep.done.nparts <= TSG_DONE_MAX_PARTS);
    }
}

/* tsg_done_remaining_all and tsg_done_final_rects agree: final and remaining tile the window. */
static void test_done_rects(void **state)
{
    (void)state;
    float cbuf[1];
    tsg_problem p = {'N', 'N', 50, 70, 3, 1, 0, NULL, 50, NULL, 3, cbuf, 50, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    for (int64_t blocks = 0; blocks <= 12; ++blocks)
        for (int64_t cols = 0; cols < 9; cols += 4) {
            tsg_done d = {16, 16, blocks, cols, 0, {{0}}, 0, 0.0};
            int64_t fin[8];
            const int nf = tsg_done_final_rects(&p, &d, fin);
            tsg_problem rest[2];
            const int nr = tsg_done_remaining(&p, &d, rest);
            int64_t area = 0;
            for (int i = 0; i < nf; ++i) area += fin[4 * i + 2] * fin[4 * i + 3];
            for (int i = 0; i < nr; ++i) area += rest[i].m * rest[i].n;
            assert_int_equal(area, 50 * 70);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_counts),       cmocka_unit_test(test_split_tiny_stays_on_one),
        cmocka_unit_test(test_split_weights),      cmocka_unit_test(test_count_rule),
        cmocka_unit_test(test_run_no_failure),     cmocka_unit_test(test_run_one_fails_everywhere),
        cmocka_unit_test(test_run_heir_fails),     cmocka_unit_test(test_run_all_fail),
        cmocka_unit_test(test_done_rects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
