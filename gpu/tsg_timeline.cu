/*
 * tsg_timeline.cu — where a pipelined call's time goes; the executor's only printing. See
 * tsg_timeline.h.
 */
#include "tsg_timeline.h"

#include <stdio.h>

#include <new>

#include "tsg_device.h"
#include "tsg_gpu.h"
#include "tsg_state.h"

namespace tsg {
namespace gpu {

void timeline_start(Timeline &t)
{
    if (!state.timeline) return;
    t.on = true;
    for (auto &ev : t.ev)
        if (cudaEventCreate(&ev) != cudaSuccess) ev = nullptr;
    if (state.timeline >= 2) t.steps.reset(new (std::nothrow) Steps); /* none: no steps */
    if (t.steps) {
        for (auto &kind : t.steps->h)
            for (auto &step : kind) step[0] = step[1] = step[2] = -1;
        for (auto &kind : t.steps->dev)
            for (auto &ev : kind)
                if (cudaEventCreate(&ev) != cudaSuccess) ev = nullptr;
    }
    (void)cudaGetLastError();
    t.h0 = now_s();
}

namespace {

/* Level 2: one line per kind of step, host times and the GPU's done time, ms from the call's
 * start (the GPU's from TL_T0, recorded on the upload stream as the call began). */
void print_steps(const Timeline &t, const Steps &st, int status)
{
    static const char *const name[TE_KINDS] = {
        "upload units (gather submitted / DMA issued / DMA done)", "launches (issued / done)",
        "download units (D2H issued / D2H done / scatter submitted / scatter done)"};
    for (int kind = 0; kind < TE_KINDS; ++kind) {
        fprintf(stderr, "  %s:", name[kind]);
        for (int i = 0; i < TD; ++i) {
            float g = -1;
            if (status == TSG_GPU_OK && st.dev_rec[kind][i] && t.recorded[TL_T0] &&
                (cudaEventSynchronize(st.dev[kind][i]) != cudaSuccess ||
                 cudaEventElapsedTime(&g, t.ev[TL_T0], st.dev[kind][i]) != cudaSuccess))
                g = -1;
            const double *hs = st.h[kind][i];
            if (hs[0] < 0 && hs[1] < 0 && !st.dev_rec[kind][i]) continue;
            if (kind == TE_UP) fprintf(stderr, " %.3f/%.3f/%.3f", hs[0] * 1e3, hs[1] * 1e3, g);
            else if (kind == TE_K) fprintf(stderr, " %.3f/%.3f", hs[1] * 1e3, g);
            else fprintf(stderr, " %.3f/%.3f/%.3f/%.3f", hs[1] * 1e3, g, hs[0] * 1e3, hs[2] * 1e3);
        }
        fputc('\n', stderr);
    }
    (void)cudaGetLastError();
}

} /* namespace */

void timeline_print(Timeline &t, int status, const tsg_problem *p, const tsg_plan &pl, int64_t rounds)
{
    t.end = now_s() - t.h0;
    float ms[TL_COUNT] = {};
    for (int i = 1; i < TL_COUNT; ++i)
        if (status != TSG_GPU_OK || !t.recorded[TL_T0] || !t.recorded[i] ||
            cudaEventSynchronize(t.ev[i]) != cudaSuccess ||
            cudaEventElapsedTime(&ms[i], t.ev[TL_T0], t.ev[i]) != cudaSuccess)
            ms[i] = -1;
    (void)cudaGetLastError();
    fprintf(stderr,
            "tsgemm timeline: %lldx%lldx%lld blocks %lldx%lld (%lldx%lld) kc %lld (%lld) splits %lld "
            "%s %s (%lld of %lld rounds chunk-major) | gpu ms: kernels start %.3f, uploads done %.3f, "
            "kernels done %.3f, downloads done %.3f | host ms: first launch %.3f, uploads issued %.3f, "
            "end %.3f | host blocked ms: gathers %.3f, dma slots %.3f, downloads %.3f\n",
            (long long)p->m, (long long)p->n, (long long)p->k, (long long)pl.bm, (long long)pl.bn,
            (long long)pl.gm, (long long)pl.gn, (long long)pl.kc, (long long)pl.nk, (long long)pl.splits,
            pl.resident ? "resident" : "bounded",
            rounds == pl.nk ? "chunk-major" : rounds ? "rounds" : "block-major", (long long)rounds,
            (long long)pl.nk, ms[TL_KSTART], ms[TL_UPDONE], ms[TL_KDONE], ms[TL_DNDONE],
            t.first_launch * 1e3, t.uploads_issued * 1e3, t.end * 1e3, t.gather * 1e3, t.dma * 1e3,
            t.down * 1e3);
    if (Steps *st = t.steps.get()) {
        print_steps(t, *st, status);
        for (auto &kind : st->dev)
            for (auto &ev : kind)
                if (ev) cudaEventDestroy(ev), ev = nullptr;
        t.steps.reset();
    }
    for (auto &ev : t.ev)
        if (ev) cudaEventDestroy(ev), ev = nullptr;
}

} /* namespace gpu */
} /* namespace tsg */
