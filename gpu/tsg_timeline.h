/*
 * tsg_timeline.h — where a pipelined call's time goes (TSGEMM_TEST_TIMELINE, tuning runs of the
 * tests' twin library): GPU times from timing events on the call's streams, measured from an
 * event recorded on the upload stream at the start of the call, host times from the monotonic
 * clock, and the line (level 2: the lines) that tell them.
 *
 * Owns: the timeline of one call and the only printing of gpu/: timeline_print writes to stderr,
 * and nothing else in the executor prints. Off (State::timeline == 0): nothing is created, read
 * or printed.
 */
#ifndef TSG_TIMELINE_H
#define TSG_TIMELINE_H

#include <cuda_runtime.h>
#include <stdint.h>

#include <memory>

#include "../src/tsg_plan.h"
#include "../src/tsg_problem.h"

namespace tsg {
namespace gpu {

/* The call's marks on the GPU: its start (on the upload stream), the first launch, the last
 * upload, the last launch (both compute streams' when there are two), the last download. */
enum { TL_T0, TL_KSTART, TL_UPDONE, TL_KDONE, TL_DNDONE, TL_COUNT };
/* TSGEMM_TEST_TIMELINE=2: the first TD steps of each kind, host times (s from h0) and GPU events.
 * Upload unit u: gather submitted, DMA issued, DMA done; launch: issued, done; download unit d:
 * D2H issued, D2H done, scatter submitted (the host saw the D2H done), scatter seen done. */
constexpr int TD = 160;
enum { TE_UP, TE_K, TE_DN, TE_KINDS };

struct Steps {
    double h[TE_KINDS][TD][3];          /* host times of each step (-1: none) */
    cudaEvent_t dev[TE_KINDS][TD] = {}; /* recorded when the step's GPU work is done */
    bool dev_rec[TE_KINDS][TD] = {};
};

struct Timeline {
    bool on = false;
    cudaEvent_t ev[TL_COUNT] = {};
    bool recorded[TL_COUNT] = {};
    double h0 = 0, first_launch = 0, uploads_issued = 0, end = 0; /* host s from h0 */
    double gather = 0, dma = 0, down = 0; /* host s blocked: gathers, DMA slots, downloads */
    /* level 2 only: on the heap, so that a call's pipeline (on the caller's stack) stays small */
    std::unique_ptr<Steps> steps;

    /* Host time t of step `which` of the i-th step of `kind` (level 2). */
    void host(int kind, int64_t i, int which, double t)
    {
        if (steps && i >= 0 && i < TD) steps->h[kind][i][which] = t - h0;
    }
    /* The i-th step of `kind` is done when stream s reaches this point (level 2). */
    void gpu(int kind, int64_t i, cudaStream_t s)
    {
        if (steps && i >= 0 && i < TD && steps->dev[kind][i] &&
            cudaEventRecord(steps->dev[kind][i], s) == cudaSuccess)
            steps->dev_rec[kind][i] = true;
    }
    /* Mark `which` (TL_*) when stream s reaches this point. */
    void mark(int which, cudaStream_t s)
    {
        if (on && ev[which] && cudaEventRecord(ev[which], s) == cudaSuccess) recorded[which] = true;
    }
};

/* Starts t at State::timeline's level (nothing at 0): its events, and the host clock's origin. */
void timeline_start(Timeline &t);

/* The TSGEMM_TEST_TIMELINE line(s) of a finished call of problem p with plan pl and `rounds`
 * chunk-major rounds (stderr; GPU times only when status is TSG_GPU_OK); then t's events are
 * destroyed. */
void timeline_print(Timeline &t, int status, const tsg_problem *p, const tsg_plan &pl, int64_t rounds);

} /* namespace gpu */
} /* namespace tsg */

#endif /* TSG_TIMELINE_H */
