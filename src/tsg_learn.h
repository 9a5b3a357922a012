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
 * model's estimates (the shim times every call above the tiny floor anyway), decides with the
 * estimates corrected by that, and in a class where the model calls it close (the estimates
 * within TSG_LEARN_BAND of each other) sends a few calls to the side it did not choose, so that
 * both corrections stay current: until that side has TSG_LEARN_FIRST observations, then a streak
 * of TSG_LEARN_STREAK calls in every TSG_LEARN_EVERY. A call that switches the process to the other
 * side is not learned: it pays that side's wake-up (the copy threads block 1 ms after their last
 * part, OpenBLAS's workers sleep after theirs) which the calls after it do not (v0.12 run 4: at
 * 320^3 single explored GPU calls amid CPU calls priced the GPU above its steady 0.146 ms and the
 * class stayed on the CPU at 0.188). A class the model calls clear is never explored: the learned
 * factors only move decisions that were close to begin with.
 *
 * Owns: the table's meaning, the classes, the correction and the exploration schedule.
 * Must not: read clocks, allocate, lock, print. The table is relaxed atomics: racing threads may
 * lose an update, which delays the learning by a call and never breaks a call.
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
    TSG_LEARN_STREAK = 4     /* calls in a streak (the first, a switch, is not learned) */
};

/* The model's estimates within this factor of each other: a close call, worth exploring. At 2 a
 * call sent the other way costs at most twice its time, TSG_LEARN_STREAK calls in every
 * TSG_LEARN_EVERY (at most 6% more time in a class where the learned side is twice as fast). */
#define TSG_LEARN_BAND 2.0

/* Weight of a new observation once a side has 8 (before: the running mean). */
#define TSG_LEARN_WEIGHT 0.125

/* One observation moves ln(observed / estimated) by at most this much: one call stalled by a
 * page fault or a descheduled thread must not swing the class. */
#define TSG_LEARN_CLIP 1.5

typedef struct tsg_learn_class {
    _Atomic double log_ratio[2]; /* per side: mean of ln(observed s / estimated s)        */
    atomic_uint seen[2];         /* per side: observations (saturating)                    */
    atomic_uint decided;         /* close calls decided in this class                      */
} tsg_learn_class;

/* The whole table (a process has one; zero-initialised = nothing learned). */
typedef struct tsg_learn {
    tsg_learn_class cls[TSG_LEARN_CLASSES];
    atomic_int last_side;        /* the side of the last decided call + 1 (0: none yet)   */
} tsg_learn;

/* The class of p (flops' octave, smallest dimension), or -1 outside the table's octaves. */
int tsg_learn_class_of(const tsg_problem *p);

/*
 * The decision for a call the model decided: est_s[TSG_LEARN_CPU / _GPU] are the model's
 * estimates (seconds, > 0), margin the GPU's (TSG_GPU_MARGIN: GPU when its estimate is below
 * margin x the CPU's). Corrects each estimate by exp(its class's mean log ratio) once the side
 * has an observation, decides, and in a close class (the uncorrected estimates within
 * TSG_LEARN_BAND) may pick the other side to explore it (*explored = 1). *learn = 1 when the
 * caller should record the call's time (tsg_learn_observe), 0 when it switches the process to
 * the other side. Returns 1 for the GPU. l == NULL or cls < 0: the model's own decision, *learn 0.
 */
int tsg_learn_decide(tsg_learn *l, int cls, const double est_s[2], double margin, int *explored,
                     int *learn);

/* Records one call of `side` in class cls that took observed_s where the model estimated
 * estimated_s (both > 0; anything else is ignored). */
void tsg_learn_observe(tsg_learn *l, int cls, int side, double observed_s, double estimated_s);

/* The class's correction factor for side (1 when nothing is learned yet). */
double tsg_learn_factor(const tsg_learn *l, int cls, int side);

#ifdef __cplusplus
}
#endif

#endif /* TSG_LEARN_H */
