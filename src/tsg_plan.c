/*
 * tsg_plan.c — the piece plan of the transfer pipeline and the "done" contract. See tsg_plan.h.
 */
#include "tsg_plan.h"

/* Longest side of a C block: bounds the first chunk of A or B even for tall-skinny shapes
 * (65536 x 64 x 4096 in one block would upload 64 MiB before the first launch). */
#define TSG_PLAN_MAX_SIDE ((int64_t)8192)
/* Ring depth of the bounded mode: pieces in flight while one is computed. */
#define TSG_PLAN_RING 3

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t round_up(int64_t a, int64_t b) { return cdiv(a, b) * b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Floats of the device copies of A's pieces (all block rows, all chunks), or of one piece. */
static double a_floats(const tsg_problem *p, const tsg_plan *pl, int all)
{
    /* stored rows of a piece: 'N' -> block rows, 'T' -> chunk k; padded to 4 */
    if (!all)
        return (double)(p->transa == 'N' ? tsg_dev_ld(pl->bm) * pl->kc : tsg_dev_ld(pl->kc) * pl->bm);
    double f = 0;
    for (int64_t i = 0; i < pl->gm; ++i)
        for (int64_t c = 0; c < pl->nk; ++c) {
            int64_t r = tsg_plan_rows(pl, p->m, i), kl = tsg_plan_klen(pl, p->k, c);
            f += (double)(p->transa == 'N' ? tsg_dev_ld(r) * kl : tsg_dev_ld(kl) * r);
        }
    return f;
}

static double b_floats(const tsg_problem *p, const tsg_plan *pl, int all)
{
    if (!all)
        return (double)(p->transb == 'N' ? tsg_dev_ld(pl->kc) * pl->bn : tsg_dev_ld(pl->bn) * pl->kc);
    double f = 0;
    for (int64_t j = 0; j < pl->gn; ++j)
        for (int64_t c = 0; c < pl->nk; ++c) {
            int64_t cl = tsg_plan_cols(pl, p->n, j), kl = tsg_plan_klen(pl, p->k, c);
            f += (double)(p->transb == 'N' ? tsg_dev_ld(kl) * cl : tsg_dev_ld(cl) * kl);
        }
    return f;
}

static void set_blocks(const tsg_problem *p, tsg_plan *pl,
                       int64_t bm, int64_t bn)
{
    pl->bm = min64(p->m, max64(bm, 1));
    pl->bn = min64(p->n, max64(bn, 1));
    pl->gm = cdiv(p->m, pl->bm);
    pl->gn = cdiv(p->n, pl->bn);
}

static void set_chunks(const tsg_problem *p, const tsg_plan_limits *lim, tsg_plan *pl, int64_t kc)
{
    /* as many chunks as kc asks for, evened out: no short remainder chunk that costs a launch
     * (kc only shrinks here, so it stays within the slot bound of tsg_plan_make) */
    if (p->k <= kc + kc / 2 && (p->k <= kc || !lim->max_rows || p->k <= lim->max_rows)) kc = p->k;
    else kc = round_up(cdiv(p->k, cdiv(p->k, kc)), 8);
    pl->kc = kc;
    pl->nk = cdiv(p->k, kc);
    /* split-K of each launch: a block grid that fills at most half a wave is split into slices of
     * at least split_min_k, enough of them to fill one wave */
    /* no divisor below is zero whatever the limits hold (a tile of 0 counts as 1) */
    const int64_t tiles = cdiv(pl->bm, max64(lim->tile_m, 1)) * cdiv(pl->bn, max64(lim->tile_n, 1));
    int64_t s = 1;
    if (lim->split_min_k > 0 && tiles > 0 && 2 * tiles <= lim->slots && kc >= 2 * lim->split_min_k)
        s = min64(lim->slots / tiles, kc / lim->split_min_k);
    pl->split_kc = s > 1 ? round_up(cdiv(kc, s), 8) : kc;
    pl->splits = cdiv(kc, pl->split_kc);
}

static double plan_bytes(const tsg_problem *p, tsg_plan *pl, int resident)
{
    const double cblock = (double)tsg_dev_ld(pl->bm) * (double)pl->bn;
    const double w = pl->splits > 1 ? (double)pl->splits * (double)pl->bm * (double)pl->bn : 0;
    if (resident) {
        double cf = 0;
        for (int64_t i = 0; i < pl->gm; ++i) cf += (double)tsg_dev_ld(tsg_plan_rows(pl, p->m, i)) * p->n;
        return 4.0 * (a_floats(p, pl, 1) + b_floats(p, pl, 1) + cf + w);
    }
    return 4.0 * (TSG_PLAN_RING * (a_floats(p, pl, 0) + b_floats(p, pl, 0)) + 2 * cblock + w);
}

int tsg_plan_make(const tsg_problem *p, const tsg_plan_limits *lim, tsg_plan *out)
{
    const int64_t m = p->m, n = p->n;
    const int64_t tm = lim->tile_m > 0 ? lim->tile_m : 1, tn = lim->tile_n > 0 ? lim->tile_n : 1;
    tsg_plan pl;
    /* C blocks: about TSG_PLAN_BLOCK_AREA floats, the longer side halved first, no side over
     * TSG_PLAN_MAX_SIDE, multiples of the tile */
    int64_t gm = 1, gn = 1;
    int64_t area = lim->block_area;
    if (area <= 0) /* large C: blocks big enough for a full wave of tiles */
        area = (double)m * (double)n >= TSG_PLAN_BIG_MIN_BLOCKS * (double)TSG_PLAN_BIG_BLOCK_AREA
                   ? TSG_PLAN_BIG_BLOCK_AREA
                   : TSG_PLAN_BLOCK_AREA;
    if ((double)m * (double)n > (double)TSG_PLAN_ONE_BLOCK) {
        while ((double)cdiv(m, gm) * (double)cdiv(n, gn) > TSG_PLAN_AREA_SLACK * (double)area) {
            if (cdiv(m, gm) >= cdiv(n, gn)) gm *= 2;
            else gn *= 2;
        }
    }
    const int64_t side = lim->max_rows > 0 ? min64(TSG_PLAN_MAX_SIDE, lim->max_rows) : TSG_PLAN_MAX_SIDE;
    while (cdiv(m, gm) > side) gm *= 2;
    while (cdiv(n, gn) > side) gn *= 2;
    set_blocks(p, &pl, round_up(cdiv(m, gm), tm), round_up(cdiv(n, gn), tn));
    /* K chunks: the first chunk of A and B about TSG_PLAN_FIRST_FLOATS, twice that for C of more
     * than four big blocks */
    const int big = area == TSG_PLAN_BIG_BLOCK_AREA && pl.gm * pl.gn > 4;
    const int64_t first = lim->first_floats > 0 ? lim->first_floats
                          : big                  ? TSG_PLAN_FIRST_FLOATS_BIG
                                                 : TSG_PLAN_FIRST_FLOATS;
    int64_t kc = min64(first / (pl.bm + pl.bn), p->k / 4);
    kc = max64(TSG_PLAN_MIN_KC, min64(TSG_PLAN_MAX_KC, kc));
    if ((p->transa == 'T' || p->transb == 'N') && lim->max_rows > 0) kc = min64(kc, lim->max_rows);
    kc = max64(8, kc & ~(int64_t)7);
    set_chunks(p, lim, &pl, kc);
    pl.resident = 1;
    pl.device_bytes = plan_bytes(p, &pl, 1);
    /* Bigger than the budget: a bounded ring of pieces, then smaller blocks and chunks. */
    while (pl.device_bytes > lim->device_bytes) {
        if (pl.resident) {
            pl.resident = 0;
        } else if (pl.bm > tm || pl.bn > tn) {
            if (pl.bm >= pl.bn) set_blocks(p, &pl, round_up(cdiv(pl.bm, 2), tm), pl.bn);
            else set_blocks(p, &pl, pl.bm, round_up(cdiv(pl.bn, 2), tn));
            set_chunks(p, lim, &pl, pl.kc);
        } else if (pl.kc > 8) {
            set_chunks(p, lim, &pl, max64(8, (pl.kc / 2) & ~(int64_t)7));
        } else {
            return -1;
        }
        pl.device_bytes = plan_bytes(p, &pl, pl.resident);
    }
    *out = pl;
    return 0;
}

tsg_problem tsg_problem_window(const tsg_problem *p, int64_t r0, int64_t rows, int64_t c0,
                               int64_t cols)
{
    tsg_problem q = *p;
    q.m = rows;
    q.n = cols;
    q.a = p->transa == 'N' ? p->a + r0 : p->a + r0 * p->lda;
    q.b = p->transb == 'N' ? p->b + c0 * p->ldb : p->b + c0;
    q.c = p->c + r0 + c0 * p->ldc;
    return q;
}

int tsg_done_remaining(const tsg_problem *p, const tsg_done *d, tsg_problem out[2])
{
    const int64_t bm = d->bm > 0 ? d->bm : p->m, bn = d->bn > 0 ? d->bn : p->n;
    const int64_t gn = cdiv(p->n, bn), gm = cdiv(p->m, bm);
    int64_t i = d->blocks / gn, j = d->blocks % gn;
    if (d->blocks < 0 || i >= gm) return 0; /* everything is final */
    int64_t col = j * bn + (d->cols > 0 ? d->cols : 0); /* first column not final in row i */
    int count = 0;
    const int64_t r0 = i * bm, rows = p->m - r0 < bm ? p->m - r0 : bm;
    if (col < p->n) out[count++] = tsg_problem_window(p, r0, rows, col, p->n - col);
    if (r0 + rows < p->m) out[count++] = tsg_problem_window(p, r0 + rows, p->m - r0 - rows, 0, p->n);
    return count;
}

int tsg_done_remaining_all(const tsg_problem *p, const tsg_done *d, tsg_problem *out, int max)
{
    if (d->nparts <= 0) {
        tsg_problem rest[2];
        const int count = tsg_done_remaining(p, d, rest);
        for (int i = 0; i < count && i < max; ++i) out[i] = rest[i];
        return count;
    }
    int count = 0;
    for (int i = 0; i < d->nparts && i < TSG_DONE_MAX_PARTS; ++i) {
        const tsg_done_part *q = &d->parts[i];
        if (q->m <= 0 || q->n <= 0) continue;
        const tsg_problem w = tsg_problem_window(p, q->r0, q->m, q->c0, q->n);
        const tsg_done pre = {q->bm, q->bn, q->blocks, q->cols, 0, {{0}}, 0, 0.0};
        tsg_problem rest[2];
        const int c = tsg_done_remaining(&w, &pre, rest);
        for (int k = 0; k < c; ++k, ++count)
            if (count < max) out[count] = rest[k];
    }
    return count;
}

int tsg_done_final_rects(const tsg_problem *p, const tsg_done *d, int64_t out[8])
{
    const int64_t bm = d->bm > 0 ? d->bm : p->m, bn = d->bn > 0 ? d->bn : p->n;
    const int64_t gn = cdiv(p->n, bn), gm = cdiv(p->m, bm);
    if (d->blocks <= 0 && d->cols <= 0) return 0;
    const int64_t i = d->blocks / gn, j = d->blocks % gn;
    if (i >= gm) { /* everything */
        out[0] = 0, out[1] = 0, out[2] = p->m, out[3] = p->n;
        return 1;
    }
    int count = 0;
    if (i > 0) { /* complete block rows */
        out[0] = 0, out[1] = 0, out[2] = i * bm, out[3] = p->n;
        count = 1;
    }
    const int64_t col = j * bn + (d->cols > 0 ? d->cols : 0);
    if (col > 0) {
        const int64_t r0 = i * bm, rows = p->m - r0 < bm ? p->m - r0 : bm;
        out[4 * count] = r0, out[4 * count + 1] = 0, out[4 * count + 2] = rows,
        out[4 * count + 3] = col < p->n ? col : p->n;
        count++;
    }
    return count;
}

int64_t tsg_plan_rounds(const tsg_plan *pl, float beta, int force)
{
    if (!pl->resident) return 0;
    if (force == 1) return 0;
    if (force == 2) return pl->nk;
    if (force >= 3) return min64(force - 3, pl->nk);
    const int64_t blocks = pl->gm * pl->gn;
    if (beta != 0.0f || blocks < 3 || pl->nk < 2) return 0;
    if (blocks <= 4) return pl->nk;
    const int64_t r = pl->nk - cdiv(TSG_PLAN_TAIL_K, pl->kc);
    return r >= 1 ? r : 0;
}

void tsg_plan_piece(const tsg_plan *pl, int64_t rounds, int64_t s, int64_t *q, int64_t *c)
{
    const int64_t blocks = pl->gm * pl->gn;
    if (s < rounds * blocks) {
        *c = s / blocks, *q = s % blocks;
        return;
    }
    const int64_t rest = pl->nk - rounds; /* chunks each block has left, block-major */
    s -= rounds * blocks;
    *q = s / rest, *c = rounds + s % rest;
}
