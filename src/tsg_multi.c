/*
 * tsg_multi.c — panels over several device slots, the count rule and the rounds. See tsg_multi.h.
 */
#include "tsg_multi.h"
#include "tsg_rates.h"

#include <math.h>
#include <string.h>

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Tiles per panel: `units` shared over d slots in proportion to weights (NULL or unusable: equal),
 * floors first, then one more tile to the largest remainders (ties: the lower slot). Returns -1
 * when some slot would get no tile. */
static int quotas(int64_t units, int d, const double *weights, int64_t *q)
{
    double sum = 0;
    int equal = weights == NULL;
    for (int i = 0; i < d && !equal; ++i) {
        if (!(weights[i] > 0) || !isfinite(weights[i])) equal = 1;
        else sum += weights[i];
    }
    double frac[TSG_MAX_DEVICES];
    int64_t given = 0;
    for (int i = 0; i < d; ++i) {
        const double exact = equal ? (double)units / d : (double)units * weights[i] / sum;
        q[i] = (int64_t)floor(exact);
        if (q[i] > units) q[i] = units;
        frac[i] = exact - (double)q[i];
        given += q[i];
    }
    while (given < units) { /* at most d rounds: each takes the largest remainder left */
        int best = -1;
        for (int i = 0; i < d; ++i)
            if (frac[i] >= 0 && (best < 0 || frac[i] > frac[best])) best = i;
        if (best < 0) break;
        q[best]++, given++;
        frac[best] = -1;
    }
    while (given > units) { /* rounding of the floors cannot overshoot; kept for safety */
        for (int i = d - 1; i >= 0 && given > units; --i)
            if (q[i] > 1) q[i]--, given--;
    }
    for (int i = 0; i < d; ++i)
        if (q[i] < 1) return -1;
    return 0;
}

int tsg_multi_split_make(const tsg_problem *p, int ndev, const double *weights,
                         const tsg_multi_limits *lim, tsg_multi_split *out)
{
    memset(out, 0, sizeof *out);
    out->by_cols = p->m <= p->n;
    const int64_t len = out->by_cols ? p->n : p->m;
    int64_t tile = lim ? (out->by_cols ? lim->tile_n : lim->tile_m) : 1;
    if (tile < 1) tile = 1;
    const int64_t units = cdiv(len, tile);
    const double flops = tsg_flops(p), area = (double)p->m * (double)p->n;
    int d = ndev < TSG_MAX_DEVICES ? ndev : TSG_MAX_DEVICES;
    if ((int64_t)d > units) d = (int)units;
    for (; d >= 2; --d) {
        int64_t q[TSG_MAX_DEVICES];
        if (quotas(units, d, weights, q) != 0) continue;
        int ok = 1;
        int64_t start = 0;
        for (int i = 0; i < d; ++i) {
            int64_t w = q[i] * tile;
            if (start + w > len || i == d - 1) w = len - start;
            const double share = (double)w / (double)len;
            if (w <= 0 || flops * share < TSG_MULTI_MIN_PANEL_FLOPS ||
                area * share < TSG_MULTI_MIN_PANEL_AREA)
                ok = 0;
            tsg_multi_panel *pn = &out->panel[i];
            pn->slot = i;
            if (out->by_cols) pn->r0 = 0, pn->m = p->m, pn->c0 = start, pn->n = w;
            else pn->r0 = start, pn->m = w, pn->c0 = 0, pn->n = p->n;
            start += w;
        }
        if (ok) {
            out->count = d;
            return d;
        }
    }
    out->count = 1;
    out->panel[0] = (tsg_multi_panel){0, 0, p->m, p->n, 0};
    memset(&out->panel[1], 0, sizeof out->panel - sizeof out->panel[0]);
    return 1;
}

static int moves(unsigned char where) { return where == TSG_HOST || where == TSG_PINNED; }

double tsg_estimate_multi_gpu_s(const tsg_problem *p, const tsg_rates *r, const tsg_multi_split *s)
{
    if (s->count <= 1) return tsg_estimate_gpu_s(p, r);
    double slowest = 0, in = 0, out = 0;
    for (int i = 0; i < s->count; ++i) {
        const tsg_multi_panel *pn = &s->panel[i];
        const tsg_problem w = tsg_problem_window(p, pn->r0, pn->m, pn->c0, pn->n);
        const double t = tsg_estimate_gpu_s(&w, r);
        if (t > slowest) slowest = t;
        /* bytes the panel's pipeline moves through the host: its rows of A, columns of B, C
         * down (C does not go up: beta is applied by the scatters, src/tsg_cost.c) */
        const double c = 4.0 * (double)pn->m * (double)pn->n;
        in += (moves(p->where_a) ? 4.0 * (double)pn->m * (double)p->k : 0.0) +
              (moves(p->where_b) ? 4.0 * (double)pn->n * (double)p->k : 0.0);
        out += moves(p->where_c) ? c : 0.0;
    }
    const double host = r->gpu_latency_s + in / r->h2d_bps + out / r->d2h_bps;
    return (slowest > host ? slowest : host) + (double)(s->count - 1) * TSG_MULTI_DEVICE_S;
}

static int rates_ok(const tsg_rates *r) { return r && tsg_rates_gpu_check(r, 0) < 0; }

int tsg_multi_devices(const tsg_problem *p, int ndev, const tsg_rates *r,
                      const tsg_multi_limits *lim, double *est)
{
    if (est) *est = 0;
    if (ndev <= 1) return 1;
    tsg_multi_split s;
    if (!rates_ok(r)) return tsg_multi_split_make(p, ndev, NULL, lim, &s);
    const double one = tsg_estimate_gpu_s(p, r);
    double best_t = one;
    int best = 1;
    for (int d = 2; d <= ndev && d <= TSG_MAX_DEVICES; ++d) {
        if (tsg_multi_split_make(p, d, NULL, lim, &s) != d) break; /* no more panels allowed */
        const double t = tsg_estimate_multi_gpu_s(p, r, &s);
        if (t < best_t && t < TSG_MULTI_MARGIN * one) best_t = t, best = d;
    }
    if (est) *est = best_t;
    return best;
}

/* ---- rounds ---- */

static void add_part(tsg_done *done, int64_t r0, int64_t c0, int64_t m, int64_t n, int64_t bm,
                     int64_t bn, int64_t blocks, int64_t cols)
{
    if (m <= 0 || n <= 0 || done->nparts >= TSG_DONE_MAX_PARTS) return;
    done->parts[done->nparts++] = (tsg_done_part){r0, c0, m, n, bm, bn, blocks, cols};
}

/* A whole window, final. */
static void add_final(tsg_done *done, int64_t r0, int64_t c0, int64_t m, int64_t n)
{
    add_part(done, r0, c0, m, n, m, n, 1, 0);
}

/* The window corner of sub-problem q of p (q's C lies inside p's window: r0 < m <= ldc). */
static void corner(const tsg_problem *p, const tsg_problem *q, int64_t *r0, int64_t *c0)
{
    const int64_t off = (int64_t)(q->c - p->c);
    *r0 = off % p->ldc;
    *c0 = off / p->ldc;
}

static void init_task(tsg_multi_task *t, const tsg_problem *p, const tsg_plan_limits *lim, int64_t r0,
                      int64_t c0, int64_t m, int64_t n, int slot)
{
    t->p = tsg_problem_window(p, r0, m, c0, n);
    t->r0 = r0, t->c0 = c0;
    t->slot = slot;
    t->planned = tsg_plan_make(&t->p, lim, &t->plan) == 0;
    t->status = 0;
    t->done.bm = m, t->done.bn = n, t->done.blocks = 0, t->done.cols = 0, t->done.nparts = 0;
    t->msg[0] = '\0';
}

static void note_failure(int st, const char *why, int *worst, char *msg, size_t len)
{
    if (st == 0) return;
    if (*worst == 0 || (st == TSG_MULTI_FATAL && *worst != TSG_MULTI_FATAL)) {
        *worst = st;
        if (msg && len) {
            size_t n = strlen(why);
            if (n >= len) n = len - 1;
            memcpy(msg, why, n);
            msg[n] = '\0';
        }
    }
}

int tsg_multi_run(const tsg_problem *p, const tsg_multi_split *s, const tsg_plan_limits *plan_limits,
                  tsg_multi_round_fn round, void *ctx, tsg_multi_task *tasks, tsg_done *done,
                  tsg_multi_stats *st, char *msg, size_t len)
{
    const int n = s->count;
    memset(st, 0, sizeof *st);
    done->bm = p->m, done->bn = p->n, done->blocks = 0, done->cols = 0;
    done->nparts = 0;
    if (msg && len) msg[0] = '\0';
    for (int i = 0; i < n; ++i) {
        const tsg_multi_panel *pn = &s->panel[i];
        init_task(&tasks[i], p, plan_limits, pn->r0, pn->c0, pn->m, pn->n, pn->slot);
    }
    round(ctx, tasks, n);
    int healthy[TSG_MAX_DEVICES], nh = 0;
    for (int i = 0; i < n; ++i)
        if (tasks[i].status == 0) healthy[nh++] = tasks[i].slot;
    int worst = 0, left = 0, n2 = 0;
    for (int i = 0; i < n; ++i) {
        tsg_multi_task *t = &tasks[i];
        if (t->status == 0) {
            add_final(done, t->r0, t->c0, t->p.m, t->p.n);
            continue;
        }
        st->failed++;
        note_failure(t->status, t->msg, &worst, msg, len);
        int64_t rect[8];
        const int nf = tsg_done_final_rects(&t->p, &t->done, rect);
        for (int f = 0; f < nf; ++f)
            add_final(done, t->r0 + rect[4 * f], t->c0 + rect[4 * f + 1], rect[4 * f + 2], rect[4 * f + 3]);
        tsg_problem rest[2];
        const int nr = tsg_done_remaining(&t->p, &t->done, rest);
        for (int k = 0; k < nr; ++k) {
            int64_t r0, c0;
            corner(p, &rest[k], &r0, &c0);
            if (nh > 0) { /* round 2: round-robin over the healthy slots */
                init_task(&tasks[n + n2], p, plan_limits, r0, c0, rest[k].m, rest[k].n, healthy[n2 % nh]);
                n2++;
            } else { /* nothing final in it: the CPU's */
                add_part(done, r0, c0, rest[k].m, rest[k].n, rest[k].m, rest[k].n, 0, 0);
                st->to_cpu++;
                left = 1;
            }
        }
    }
    if (n2 > 0) round(ctx, tasks + n, n2);
    for (int i = n; i < n + n2; ++i) {
        tsg_multi_task *t = &tasks[i];
        if (t->status == 0) {
            add_final(done, t->r0, t->c0, t->p.m, t->p.n);
            st->handed++;
            continue;
        }
        note_failure(t->status, t->msg, &worst, msg, len);
        /* its own prefix is what is final in its window; the rest goes to the CPU */
        add_part(done, t->r0, t->c0, t->p.m, t->p.n, t->done.bm, t->done.bn, t->done.blocks,
                 t->done.cols);
        tsg_problem rest[2];
        st->to_cpu += tsg_done_remaining(&t->p, &t->done, rest);
        left = 1;
    }
    return left ? (worst ? worst : -3) : 0;
}
