/*
 * tsg_learn.h — what auto mode learns from its own calls near the crossover.
 *
 * The cost model (tsg_cost.h) prices each side from rates measured once per process. Near the
 * crossover the two estimates are close and each side's real time moves by 20-30% between
 * processes and phases of a program: v0.12 runs 1 and 3 (H200 host, tsgemm-bench medians) timed
 * a 256^3 call at 0.093 ms on OpenBLAS and 0.119 on the GPU in one run and at 0.120 and 0.102 in
 * the other, while the rates measured at start priced them the other way round each time. So a
 * decision from the rates alone is a coin flip there (docs/NOTES.md "v0.12").
 *
 * Auto mode therefore keeps, per size class, how each side's real times compare with the
 * model's estimates (the shim times every call above the tiny floor anyway). In a class where the
 * model calls it close (its two estimates within TSG_LEARN_BAND of each other) it decides with
 * the estimates corrected by that, and sends a few calls to the side it did not choose so that
 * both corrections stay current: until that side has TSG_LEARN_FIRST observations, then a streak
 * of TSG_LEARN_STREAK calls in every TSG_LEARN_EVERY. A class the model calls clear is decided by
 * the model alone and learns nothing: one slow call there (a first call waiting for the rates, a
 * workspace growing) must not move it to a side it would then never try again.
 *
 * A call that switches its class to the other side is not learned: it pays that side's wake-up
 * (the copy threads block 1 ms after their last part, OpenBLAS's workers sleep after theirs),
 * which the calls after it do not (v0.12 run 4: at 320^3 single explored GPU calls amid CPU calls
 * priced the GPU above its steady 0.146 ms and the class stayed on the CPU at 0.188). The last
 * side is kept per class, so calls of other classes in between (a program alternating a close
 * size with a large one) never starve a class of observations. The model's estimate counts as
 * TSG_LEARN_PRIOR observations of ratio 1, so no single call moves a factor by more than
 * exp(TSG_LEARN_CLIP / (TSG_LEARN_PRIOR + 1)) = 1.65x.
 *
 * Owns: the table's meaning, the classes, the correction and the exploration schedule.
 * Must not: read clocks, allocate, lock, print. Each side's mean and count are one 64-bit atomic
 * word updated by compare-and-swap: threads racing on a class serialise there and lose nothing;
 * the decision reads the two sides' words without a common snapshot, which at worst decides one
 * call on a mean one observation old.
 */
#ifndef TSG_LEARN_H
#define TSG_LEARN_H

#include <stdatomic.h>

#include "tsg_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    TSG_LEARN_CPU = 0,
    TSG_LEARN_GPU = 1,
    TSG_LEARN_OCTAVES = 16,  /* classes of flops: 2^22 (2*128^3, the GPU floor) .. 2^38 */
    TSG_LEARN_MIN_LOG2 = 22,
    TSG_LEARN_SHAPES = 3,    /* which of m, n, k is smallest (square calls: k)        */
    TSG_LEARN_CLASSES = TSG_LEARN_OCTAVES * TSG_LEARN_SHAPES,
    TSG_LEARN_FIRST = 2,     /* observations of each side before the periodic streaks */
    TSG_LEARN_EVERY = 64,    /* then a streak in this many calls goes to the other side */
    TSG_LEARN_STREAK = 4,    /* calls in a streak (the first, a switch, is not learned) */
    TSG_LEARN_PRIOR = 2      /* the model's estimate counts as this many observations  */
};

/* The model's estimates within this factor of each other: a close call, learned and explored.
 * Explored calls are TSG_LEARN_STREAK in every TSG_LEARN_EVERY (6.25%) of a close class's calls,
 * each costing what the other side really takes there. */
#define TSG_LEARN_BAND 2.0

/* Weight of a side's 6th and later observations (before: the mean with the prior's). */
#define TSG_LEARN_WEIGHT 0.125

/* One observation's ln(observed / estimated) is clipped to +-this much before it is averaged: a
 * call stalled by a page fault or a descheduled thread is one bounded sample. */
#define TSG_LEARN_CLIP 1.5

typedef struct tsg_learn_class {
    /* per side: the mean of ln(observed s / estimated s) as a float (low 32 bits) and the count
     * of observations (high 32 bits), one word so that they change together */
    atomic_uint_least64_t side[2];
    atomic_uint decided;         /* close calls decided in this class                      */
    atomic_int last_side;        /* the side of its last decided call + 1 (0: none yet)   */
} tsg_learn_class;

/* The whole table (a process has one; zero-initialised = nothing learned). */
typedef struct tsg_learn {
    tsg_learn_class cls[TSG_LEARN_CLASSES];
} tsg_learn;

/* The class of p (flops' octave, smallest dimension), or -1 outside the table's octaves. */
int tsg_learn_class_of(const tsg_problem *p);

/*
 * The decision for a call the model decided: est_s[TSG_LEARN_CPU / _GPU] are the model's
 * estimates (seconds, > 0), margin the GPU's (TSG_GPU_MARGIN: GPU when its estimate is below
 * margin x the CPU's). A clear call (the estimates not within TSG_LEARN_BAND): the model's
 * decision, *learn = 0. A close call: each estimate corrected by its class's factor, then maybe
 * the other side to explore it (*explored = 1); *learn = 1 when the caller should record the
 * call's time (tsg_learn_observe), 0 when the call switches its class to the other side.
 * Returns 1 for the GPU. l == NULL or cls < 0: the model's own decision, *learn = 0.
 */
int tsg_learn_decide(tsg_learn *l, int cls, const double est_s[2], double margin, int *explored,
                     int *learn);

/* Records one call of `side` in class cls that took observed_s where the model estimated
 * estimated_s (both > 0; anything else is ignored). */
void tsg_learn_observe(tsg_learn *l, int cls, int side, double observed_s, double estimated_s);

/* The class's correction factor for side: exp(mean log ratio), 1 when nothing is learned yet. */
double tsg_learn_factor(const tsg_learn *l, int cls, int side);

#ifdef __cplusplus
}
#endif

#endif /* TSG_LEARN_H */
