/*
 * tsg_learn.c — auto mode's learned corrections. See tsg_learn.h.
 */
#include "tsg_learn.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

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

/* A side's word: the mean log ratio (a float's bits) and the observation count. */
static void unpack(uint64_t w, float *mean, uint32_t *n)
{
    const uint32_t bits = (uint32_t)w;
    memcpy(mean, &bits, sizeof bits);
    *n = (uint32_t)(w >> 32);
}

static uint64_t pack(float mean, uint32_t n)
{
    uint32_t bits;
    memcpy(&bits, &mean, sizeof bits);
    return (uint64_t)n << 32 | bits;
}

static uint32_t seen(const tsg_learn_class *c, int side)
{
    float mean;
    uint32_t n;
    unpack(atomic_load_explicit(&c->side[side], memory_order_relaxed), &mean, &n);
    return n;
}

double tsg_learn_factor(const tsg_learn *l, int cls, int side)
{
    if (!valid(l, cls, side)) return 1.0;
    float mean;
    uint32_t n;
    unpack(atomic_load_explicit(&l->cls[cls].side[side], memory_order_relaxed), &mean, &n);
    return n ? exp((double)mean) : 1.0;
}

int tsg_learn_decide(tsg_learn *l, int cls, const double est_s[2], double margin, int *explored,
                     int *learn)
{
    *explored = *learn = 0;
    const double ec = est_s[TSG_LEARN_CPU], eg = est_s[TSG_LEARN_GPU];
    /* a clear call (or no table): the model alone */
    if (!valid(l, cls, TSG_LEARN_CPU) || !(eg < TSG_LEARN_BAND * ec && ec < TSG_LEARN_BAND * eg))
        return eg < margin * ec;
    tsg_learn_class *c = &l->cls[cls];
    int gpu = eg * tsg_learn_factor(l, cls, TSG_LEARN_GPU) <
              margin * ec * tsg_learn_factor(l, cls, TSG_LEARN_CPU);
    const unsigned n = atomic_fetch_add_explicit(&c->decided, 1u, memory_order_relaxed);
    /* the model's side first; then the other side until it is known; then a streak in EVERY */
    if (seen(c, gpu) >= 1 && (seen(c, !gpu) < TSG_LEARN_FIRST || n % TSG_LEARN_EVERY < TSG_LEARN_STREAK)) {
        *explored = 1;
        gpu = !gpu;
    }
    /* a call that switches its class's side pays the side's wake-up: not what the next calls cost */
    const int last = atomic_exchange_explicit(&c->last_side, gpu + 1, memory_order_relaxed);
    *learn = last == gpu + 1;
    return gpu;
}

void tsg_learn_observe(tsg_learn *l, int cls, int side, double observed_s, double estimated_s)
{
    if (!valid(l, cls, side) || !(observed_s > 0) || !(estimated_s > 0)) return;
    double x = log(observed_s / estimated_s);
    if (!isfinite(x)) return;
    if (x > TSG_LEARN_CLIP) x = TSG_LEARN_CLIP;
    if (x < -TSG_LEARN_CLIP) x = -TSG_LEARN_CLIP;
    atomic_uint_least64_t *word = &l->cls[cls].side[side];
    uint64_t old = atomic_load_explicit(word, memory_order_relaxed);
    for (;;) { /* mean and count change together; a racing thread's update is retried, not lost */
        float mean;
        uint32_t n;
        unpack(old, &mean, &n);
        /* the mean with the prior's TSG_LEARN_PRIOR observations of 0, then a moving average */
        const double w = n + 1 + TSG_LEARN_PRIOR < 1.0 / TSG_LEARN_WEIGHT
                             ? 1.0 / (double)(n + 1 + TSG_LEARN_PRIOR)
                             : TSG_LEARN_WEIGHT;
        const float next = (float)(mean + w * (x - mean));
        if (atomic_compare_exchange_weak_explicit(word, &old, pack(next, n < 1000000000u ? n + 1 : n),
                                                  memory_order_relaxed, memory_order_relaxed))
            return;
    }
}
