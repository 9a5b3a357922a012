/*
 * tsg_download.cu — the download side of the pipeline (tsg_pipeline.h): each C block, once its
 * last chunk ran, comes down in units through ND pinned slots on s_down, and the copy threads
 * scatter each landed unit into the caller's C (applying beta there when C did not go up);
 * direct mode (pinned C): the whole block by one 2-D DMA into the caller's C. Units become final
 * in order, so Pipeline::done is always a prefix.
 */
#include <stdio.h>

#include <algorithm>

#include "tsg_fault.h"
#include "tsg_pipeline.h"

namespace tsg {
namespace gpu {

namespace {

/* The prefix of C that is final once a unit of block q ending at column c_end is. */
void account(Pipeline &P, int64_t q, int64_t c_end)
{
    if (c_end >= P.cols(q % P.pl.gn)) P.done.blocks = q + 1, P.done.cols = 0;
    else P.done.blocks = q, P.done.cols = c_end;
}

/* Issues the D2H of the next download unit (a column range of the oldest launched block whose
 * download is not yet issued) into a free slot; direct mode: the whole block into the caller's
 * pinned C. Returns false when nothing could be issued. */
bool issue_download(Pipeline &P)
{
    Workspace *w = P.w;
    if (P.dq >= P.blocks_launched || P.d_issue - P.d_done >= ND) return false;
    const int64_t q = P.dq, i = q / P.pl.gn, j = q % P.pl.gn, bc = P.cols(j);
    float *src;
    int64_t dld;
    c_dev(P, q, &src, &dld);
    float *user = P.p->c + i * P.pl.bm + j * P.pl.bn * P.p->ldc;
    const int slot = (int)(P.d_issue % ND);
    /* the last block comes down in quarter units: its scatter overlaps its own D2H instead of
     * following all of it (the call's tail; docs/NOTES.md "v0.3"); at least 1 MiB (v0.4: a
     * 1024^3 call's 4 MiB came down in 16 units of 256 KiB and took 0.4 ms, each unit's handoffs
     * costing more than its bytes) */
    const int64_t quarter = std::max<int64_t>(P.unit_bytes / 4, std::min<int64_t>(P.unit_bytes, (int64_t)1 << 20));
    const int64_t unit = q == P.blocks() - 1 ? quarter : P.unit_bytes;
    const int64_t n = P.mcd == M_DIRECT ? bc : std::min(std::max<int64_t>(1, unit / (4 * dld)), bc - P.dcol);
    cudaError_t e = cudaSuccess;
    if (P.dcol == 0) e = cudaStreamWaitEvent(w->s_down, w->ev_block[q % NB], 0);
    if (e == cudaSuccess) {
        if (P.mcd == M_DIRECT)
            e = TSG_STAGE(ST_DOWNLOAD, cudaMemcpy2DAsync(user, P.p->ldc * 4, src, dld * 4, P.rows(i) * 4, bc,
                                                         cudaMemcpyDeviceToHost, w->s_down));
        else if (dld == P.rows(i)) /* contiguous columns: one plain copy */
            e = TSG_STAGE(ST_DOWNLOAD, cudaMemcpyAsync(dn_slot(w, slot), src + P.dcol * dld, (size_t)(n * dld * 4),
                                                       cudaMemcpyDeviceToHost, w->s_down));
        else /* padded device C: only the block's rows (the padding was never written) */
            e = TSG_STAGE(ST_DOWNLOAD, cudaMemcpy2DAsync(dn_slot(w, slot), dld * 4, src + P.dcol * dld, dld * 4,
                                                         P.rows(i) * 4, n, cudaMemcpyDeviceToHost, w->s_down));
    }
    if (e == cudaSuccess) e = cudaEventRecord(w->ev_dn[slot], w->s_down);
    if (e != cudaSuccess) {
        P.err(e, "download (D2H)");
        return false;
    }
    if (P.tl.steps) P.tl.host(TE_DN, P.d_issue, 1, now_s()), P.tl.gpu(TE_DN, P.d_issue, w->s_down);
    Pipeline::Dn &d = P.dn[slot];
    d.q = q, d.c0 = P.dcol, d.cols = n;
    if (P.mcd == M_STAGE)
        d.copy = tsg_copy_rect{dn_slot(w, slot), dld, user + P.dcol * P.p->ldc, P.p->ldc, P.rows(i), n, 1,
                               P.host_beta ? TSG_COPY_AXPBY : state.scatter_copy, P.p->beta};
    P.d_issue++;
    P.dcol += n;
    if (P.dcol >= bc) { /* the block's last unit */
        P.dcol = 0;
        P.blocks_issued_down = ++P.dq;
        if (P.dq == P.blocks()) P.tl.mark(TL_DNDONE, w->s_down);
        if (!P.pl.resident) { /* bounded mode: its C buffer is free once this D2H is done */
            e = cudaEventRecord(w->ev_cfree[q % 2], w->s_down);
            if (e != cudaSuccess) P.err(e, "download (event)");
        }
    }
    return true;
}

/* A landed unit goes to the copy threads (direct mode: it is already in place). */
void land(Pipeline &P)
{
    Pipeline::Dn &d = P.dn[P.d_submit % ND];
    if (P.mcd == M_STAGE)
        tsg_pool_submit(&d.job, tsg_copy_rect_part, &d.copy, tsg_copy_rect_parts(&d.copy, state.copy_threads));
    if (P.tl.steps) P.tl.host(TE_DN, P.d_submit, 0, now_s());
    P.d_submit++;
}

/* A finished unit: the caller's C holds it. */
bool finished(Pipeline &P)
{
    Pipeline::Dn &d = P.dn[P.d_done % ND];
    return P.mcd != M_STAGE || tsg_pool_done(&d.job);
}

} /* namespace */

void retire(Pipeline &P)
{
    Pipeline::Dn &d = P.dn[P.d_done % ND];
    account(P, d.q, d.c0 + d.cols);
    if (P.tl.steps) P.tl.host(TE_DN, P.d_done, 2, now_s());
    P.d_done++;
}

bool service_downloads(Pipeline &P, bool blocking)
{
    if (!P.downloads()) return false;
    Workspace *w = P.w;
    bool moved = false;
    for (bool step = true; step && P.status == TSG_GPU_OK;) {
        step = false;
        while (P.d_done < P.d_submit && finished(P)) retire(P), step = true;
        while (P.d_submit < P.d_issue && P.status == TSG_GPU_OK) {
            cudaError_t e = TSG_STAGE(ST_SYNC, cudaEventQuery(w->ev_dn[P.d_submit % ND]));
            if (e == cudaErrorNotReady) break;
            if (e != cudaSuccess) {
                P.err(e, "download (sync)");
                break;
            }
            land(P);
            step = true;
        }
        while (P.status == TSG_GPU_OK && issue_download(P)) step = true;
        moved = moved || step;
    }
    if (!blocking || moved || P.status != TSG_GPU_OK) return moved;
    if (P.d_submit < P.d_issue) {
        cudaError_t e = TSG_STAGE(ST_SYNC, cudaEventSynchronize(w->ev_dn[P.d_submit % ND]));
        if (e != cudaSuccess) {
            P.err(e, "download (sync)");
            return false;
        }
        land(P);
        return true;
    }
    if (P.d_done < P.d_submit) {
        if (P.mcd == M_STAGE) tsg_pool_wait(&P.dn[P.d_done % ND].job);
        retire(P);
        return true;
    }
    return false;
}

bool downloads_issued_through(Pipeline &P, int64_t q_limit)
{
    if (!P.downloads()) return true;
    while (P.blocks_issued_down < q_limit && P.status == TSG_GPU_OK)
        if (!service_downloads(P, true) && P.status == TSG_GPU_OK) {
            snprintf(P.msg, P.len, "downloads stalled before block %lld (internal error)", (long long)q_limit);
            P.status = TSG_GPU_EFAIL;
        }
    return P.status == TSG_GPU_OK;
}

} /* namespace gpu */
} /* namespace tsg */
