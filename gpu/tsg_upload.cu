/*
 * tsg_upload.cu — the upload side of the pipeline (tsg_pipeline.h): the units of A, B and C in
 * piece order, the ring of NS pinned slots the copy threads gather them into, and their DMAs on
 * s_up.
 */
#include <algorithm>

#include "tsg_fault.h"
#include "tsg_pipeline.h"

namespace tsg {
namespace gpu {

namespace {

/* Next upload unit in piece order (C block up, then A's piece, then B's piece), or false. */
bool gen_next(Pipeline &P, Unit *u)
{
    const tsg_plan &pl = P.pl;
    while (!P.g_done) {
        if (P.g_piece >= P.pieces) {
            P.g_done = true;
            break;
        }
        const int64_t piece = P.g_piece;
        int64_t q, c;
        tsg_plan_piece(&P.pl, P.rounds, piece, &q, &c);
        const int64_t i = q / pl.gn, j = q % pl.gn;
        Mode mode = M_NONE;
        int64_t sr = 0, sc = 0, ld = 0;
        const float *src = nullptr;
        float *dst = nullptr;
        int64_t dld = 0, cblock = -1;
        if (P.g_part == 0) { /* C's block, before its first chunk */
            if (c == 0 && (P.mcu == M_STAGE || P.mcu == M_DIRECT)) {
                mode = P.mcu;
                sr = P.rows(i), sc = P.cols(j), ld = P.p->ldc;
                src = P.p->c + i * pl.bm + j * pl.bn * P.p->ldc;
                c_dev(P, q, &dst, &dld);
                cblock = q;
            }
        } else if (P.g_part == 1) {
            if ((P.ma == M_STAGE || P.ma == M_DIRECT) && (!pl.resident || j == 0)) {
                mode = P.ma;
                a_piece(P, i, c, &sr, &sc, &src);
                ld = P.p->lda;
                const float *d;
                a_dev(P, piece, i, c, &d, &dld);
                dst = (float *)d;
            }
        } else {
            if ((P.mb == M_STAGE || P.mb == M_DIRECT) && (!pl.resident || i == 0)) {
                mode = P.mb;
                b_piece(P, j, c, &sr, &sc, &src);
                ld = P.p->ldb;
                const float *d;
                b_dev(P, piece, j, c, &d, &dld);
                dst = (float *)d;
            }
        }
        if (mode == M_NONE || P.g_col >= sc) { /* next part / piece */
            P.g_col = 0;
            if (++P.g_part == 3) P.g_part = 0, P.g_piece++;
            continue;
        }
        /* a column range of at most one unit (never above it: it is at most a pinned slot); the
         * call's first units ramp up (RAMP_STEPS) */
        const int steps = state.ramp_steps;
        const int64_t ub = P.u_submit < steps
                               ? std::min(P.unit_bytes, std::max<int64_t>((int64_t)UNIT_MIN, P.unit_bytes >> (steps - P.u_submit)))
                               : P.unit_bytes;
        const int64_t per = mode == M_DIRECT ? sc : std::max<int64_t>(1, ub / (4 * tsg_dev_ld(sr)));
        const int64_t c0 = P.g_col, n = std::min(per, sc - c0);
        u->piece = piece;
        u->mode = mode;
        u->host = tsg_copy_rect{src + c0 * ld, ld, nullptr, tsg_dev_ld(sr), sr, n, 1, P.gather_kind, 0.0f};
        u->dev = dst + c0 * dld;
        u->dld = dld;
        u->ring = (pl.resident || P.g_part == 0) ? -1 : (int)(piece % RING);
        u->cblock = cblock;
        P.g_col += n;
        return true;
    }
    return false;
}

} /* namespace */

int64_t next_unit_piece(Pipeline &P)
{
    if (P.u_issue < P.u_submit) return P.ring_units[P.u_issue % NS].piece;
    if (P.g_done) return P.pieces;
    /* the generator's cursor: pieces before it have all their units issued */
    return P.g_piece;
}

bool unit_ready(Pipeline &P)
{
    if (P.u_issue >= P.u_submit) return false;
    const int e_idx = (int)(P.u_issue % NS);
    return P.ring_units[e_idx].mode != M_STAGE || tsg_pool_done(&P.ring_job[e_idx]);
}

int issue_unit(Pipeline &P)
{
    Workspace *w = P.w;
    const int e_idx = (int)(P.u_issue % NS);
    const Unit &u = P.ring_units[e_idx];
    /* every earlier piece has all its units up: launch them first (bounded mode's ring entries
     * and C buffers are reused only after the launches that read them are recorded) */
    if (launch_ready(P, u.piece) != TSG_GPU_OK) return P.status;
    cudaError_t e = cudaSuccess;
    if (u.ring >= 0 && u.piece >= RING) /* bounded mode: the ring entry's last reader is done */
        e = cudaStreamWaitEvent(w->s_up, w->ev_launch[u.ring], 0);
    if (e == cudaSuccess && u.cblock >= 2 && !P.pl.resident) { /* C buffer's last download */
        if (!downloads_issued_through(P, u.cblock - 1)) return P.status;
        e = cudaStreamWaitEvent(w->s_up, w->ev_cfree[u.cblock % 2], 0);
    }
    if (e == cudaSuccess) {
        if (u.mode == M_STAGE)
            e = TSG_STAGE(ST_UPLOAD, cudaMemcpyAsync(u.dev, up_slot(w, e_idx),
                                                     (size_t)(u.host.cols * u.dld * 4),
                                                     cudaMemcpyHostToDevice, w->s_up));
        else
            e = TSG_STAGE(ST_UPLOAD, cudaMemcpy2DAsync(u.dev, u.dld * 4, u.host.src, u.host.sld * 4,
                                                       u.host.rows * 4, u.host.cols,
                                                       cudaMemcpyHostToDevice, w->s_up));
    }
    if (e == cudaSuccess) e = cudaEventRecord(w->ev_up[e_idx], w->s_up);
    if (e != cudaSuccess) return P.err(e, "upload (H2D)");
    if (P.tl.steps) P.tl.host(TE_UP, P.u_issue, 1, now_s()), P.tl.gpu(TE_UP, P.u_issue, w->s_up);
    P.u_issue++;
    return TSG_GPU_OK;
}

bool refill(Pipeline &P, bool blocking)
{
    if (P.g_done || P.u_submit >= P.u_issue + NS) return false;
    Workspace *w = P.w;
    const int e_idx = (int)(P.u_submit % NS);
    if (P.u_submit >= NS && P.ring_staged[e_idx]) { /* the slot's last DMA must be done */
        cudaError_t e = TSG_STAGE(ST_SYNC, blocking ? cudaEventSynchronize(w->ev_up[e_idx])
                                                    : cudaEventQuery(w->ev_up[e_idx]));
        if (e == cudaErrorNotReady) return false;
        if (e != cudaSuccess) {
            P.err(e, "upload (sync)");
            return false;
        }
    }
    Unit u;
    if (!gen_next(P, &u)) return false;
    if (P.tl.steps) P.tl.host(TE_UP, P.u_submit, 0, now_s());
    P.ring_units[e_idx] = u;
    P.ring_staged[e_idx] = u.mode == M_STAGE;
    if (u.mode == M_STAGE) {
        tsg_copy_rect &gather = P.ring_copy[e_idx];
        gather = u.host;
        gather.dst = up_slot(w, e_idx);
        tsg_pool_submit(&P.ring_job[e_idx], tsg_copy_rect_part, &gather,
                        tsg_copy_rect_parts(&gather, state.copy_threads));
    }
    P.u_submit++;
    return true;
}

} /* namespace gpu */
} /* namespace tsg */
