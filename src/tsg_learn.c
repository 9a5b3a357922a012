/*
 * tsg_learn.c — auto mode's learned corrections. See tsg_learn.h.
 */
#include "tsg_learn.h"

#include <math.h>

int tsg_learn_class_of(const tsg_problem *p)
{
    const double f = tsg_flops(p);
    if (!(f > 0)) return -1;
    const int octave = (int)floor(log2(f)) - TSG_LEARN_MIN_LOG2;
    if (octave < 0 || octave >= TSG_LEARN_OCTAVES) return -1;
    /* 0: k smallest (square and rank-k-like calls), 1: m smallest, 2: n smallest */
    const int shape = (p->k <= p->m && p->k <= p->n) ? 0 : p->m <= p->n ? 1 : 2;
    return octave * TSG_LEARN_SHAPES + shape;
}

static int valid(const tsg_learn *l, int cls, int side)
{
    return l && cls >= 0 && cls < TSG_LEARN_CLASSES && (side == TSG_LEARN_CPU || side == TSG_LEARN_GPU);
}

double tsg_learn_factor(const tsg_learn *l, int cls, int side)
{
    if (!valid(l, cls, side)) return 1.0;
    const tsg_learn_class *c = &l->cls[cls];
    if (atomic_load_explicit(&c->seen[side], memory_order_relaxed) == 0) return 1.0;
    return exp(atomic_load_explicit(&c->log_ratio[side], memory_order_relaxed));
}

/* Which side the call runs on, before the switch bookkeeping. */
static int choose(tsg_learn *l, int cls, const double est_s[2], double margin, int *explored)
{
    const double ec = est_s[TSG_LEARN_CPU], eg = est_s[TSG_LEARN_GPU];
    const int gpu = eg * tsg_learn_factor(l, cls, TSG_LEARN_GPU) <
                    margin * ec * tsg_learn_factor(l, cls, TSG_LEARN_CPU);
    /* only close calls explore: the model's own estimates within the band */
    if (!(eg < TSG_LEARN_BAND * ec && ec < TSG_LEARN_BAND * eg)) return gpu;
    tsg_learn_class *c = &l->cls[cls];
    const unsigned n = atomic_fetch_add_explicit(&c->decided, 1u, memory_order_relaxed);
    const unsigned mine = atomic_load_explicit(&c->seen[gpu], memory_order_relaxed);
    const unsigned other = atomic_load_explicit(&c->seen[!gpu], memory_order_relaxed);
    /* the model's side first; then the other side until it is known; then a streak in EVERY */
    if (mine >= 1 && (other < TSG_LEARN_FIRST || n % TSG_LEARN_EVERY < TSG_LEARN_STREAK)) {
        *explored = 1;
        return !gpu;
    }
    return gpu;
}

int tsg_learn_decide(tsg_learn *l, int cls, const double est_s[2], double margin, int *explored,
                     int *learn)
{
    *explored = *learn = 0;
    if (!valid(l, cls, TSG_LEARN_CPU))
        return est_s[TSG_LEARN_GPU] < margin * est_s[TSG_LEARN_CPU];
    const int gpu = choose(l, cls, est_s, margin, explored);
    /* a call that switches sides pays the side's wake-up: not what the next calls will cost */
    const int last = atomic_exchange_explicit(&l->last_side, gpu + 1, memory_order_relaxed);
    *learn = last == gpu + 1;
    return gpu;
}

void tsg_learn_observe(tsg_learn *l, int cls, int side, double observed_s, double estimated_s)
{
    if (!valid(l, cls, side) || !(observed_s > 0) || !(estimated_s > 0)) return;
    tsg_learn_class *c = &l->cls[cls];
    double x = log(observed_s / estimated_s);
    if (!isfinite(x)) return;
    if (x > TSG_LEARN_CLIP) x = TSG_LEARN_CLIP;
    if (x < -TSG_LEARN_CLIP) x = -TSG_LEARN_CLIP;
    const unsigned n = atomic_load_explicit(&c->seen[side], memory_order_relaxed);
    /* the running mean for the first 8 observations, then a moving average */
    const double w = n < 8 ? 1.0 / (double)(n + 1) : TSG_LEARN_WEIGHT;
    const double old = n ? atomic_load_explicit(&c->log_ratio[side], memory_order_relaxed) : 0.0;
    atomic_store_explicit(&c->log_ratio[side], old + w * (x - old), memory_order_relaxed);
    if (n < 1000000000u) atomic_store_explicit(&c->seen[side], n + 1, memory_order_relaxed);
}
