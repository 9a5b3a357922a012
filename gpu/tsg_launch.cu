/*
 * tsg_launch.cu — the compute side of the pipeline (tsg_pipeline.h): one launch per piece (C
 * block, K chunk), ordered after its units' DMAs and before the downloads and ring reuse that
 * depend on it.
 */
#include <algorithm>

#include "tsg_fault.h"
#include "tsg_pipeline.h"
#include "../kernels/tsg_kernel.h"

namespace tsg {
namespace gpu {

namespace {

int launch_piece(Pipeline &P, int64_t piece)
{
    const tsg_plan &pl = P.pl;
    Workspace *w = P.w;
    int64_t q, c;
    tsg_plan_piece(&P.pl, P.rounds, piece, &q, &c);
    const int64_t i = q / pl.gn, j = q % pl.gn;
    const float *A, *B;
    float *C;
    int64_t lda, ldb, ldc;
    a_dev(P, piece, i, c, &A, &lda);
    b_dev(P, piece, j, c, &B, &ldb);
    c_dev(P, q, &C, &ldc);
    cudaError_t e = cudaSuccess;
    const cudaStream_t cs = P.comp(q);
    if (c == 0 && !pl.resident && q >= 2 && P.mcd != M_INPLACE) { /* C buffer reuse */
        if (!downloads_issued_through(P, q - 1)) return P.status;
        e = cudaStreamWaitEvent(cs, w->ev_cfree[q % 2], 0);
    }
    const int64_t kl = P.klen(c);
    const int64_t splits = (kl + pl.split_kc - 1) / pl.split_kc;
    if (piece == 0 && e == cudaSuccess) {
        P.tl.mark(TL_KSTART, cs);
        if (P.tl.on) P.tl.first_launch = now_s() - P.tl.h0;
    }
    /* The pipeline plans its blocks and splits for configuration 0's tile (plan_limits; a call
     * of a tensor-core math for that family's tile, src/tsg_dispatch.c call_limits); a launch
     * the plan does not split takes the family's rule for its shape (a 1024 x 2048 block is
     * 128 tiles of configuration 0, half a wave), a split one stays on configuration 0 for the
     * workspace the plan sized. A shape's choice is fixed, so results do not depend on load. */
    int kcfg = state.kernel_config.load(std::memory_order_relaxed);
    if (kcfg < 0)
        kcfg = splits > 1 ? 0
                          : tsg::kernel_plan(P.p->transa, P.p->transb, P.rows(i), P.cols(j), kl, state.sms, 0, -1, 0,
                                             0, tsg::kernel_vec_ok(A, lda), tsg::kernel_vec_ok(B, ldb))
                                .config;
    if (e == cudaSuccess)
        e = TSG_STAGE(ST_KERNEL, launch_product(P.p->math, kcfg, P.p->transa, P.p->transb, P.rows(i), P.cols(j), kl,
                                                pl.split_kc, splits, 0, 0, P.p->alpha, A, lda, B, ldb,
                                                c == 0 ? P.dev_beta : 1.0f, C, ldc,
                                                splits > 1 ? P.dev(P.offW) : nullptr, cs, &P.fam));
    if (e == cudaSuccess && P.tl.steps) P.tl.host(TE_K, piece, 1, now_s()), P.tl.gpu(TE_K, piece, cs);
    if (e == cudaSuccess && !pl.resident) e = cudaEventRecord(w->ev_launch[piece % RING], cs);
    if (e == cudaSuccess && piece == P.pieces - 1) {
        if (P.tl.on && P.ncomp == 2) { /* the timeline's "kernels done": both streams' */
            const cudaStream_t other = cs == w->s_comp ? w->s_comp2 : w->s_comp;
            if (cudaEventRecord(w->ev_join, other) == cudaSuccess) (void)cudaStreamWaitEvent(cs, w->ev_join, 0);
            (void)cudaGetLastError();
        }
        P.tl.mark(TL_KDONE, cs);
    }
    if (e == cudaSuccess && c == pl.nk - 1) {
        /* the block is computed: its event slot must have been consumed by downloads */
        if (q >= NB && !downloads_issued_through(P, q - NB + 1)) return P.status;
        e = cudaEventRecord(w->ev_block[q % NB], cs);
        if (e == cudaSuccess) P.blocks_launched = q + 1;
    }
    if (e != cudaSuccess) return P.err(e, "kernel launch");
    return TSG_GPU_OK;
}

/* The first touch of a fresh C (tsg_copy.h tsg_touch), once, after the call's first launch: on
 * TSGEMM_TEST_TOUCH's parts, else on up to 16 copy threads. */
void start_touch(Pipeline &P)
{
    P.touch_started = true;
    if (!P.touch.lo) return;
    tsg_pool_submit(&P.touch_job, tsg_touch_part, &P.touch,
                    state.touch > 0 ? state.touch : std::max(1, std::min(state.copy_threads, 16)));
    P.pending.push_back(&P.touch_job);
}

} /* namespace */

int launch_ready(Pipeline &P, int64_t limit)
{
    if (P.next_launch >= limit) return TSG_GPU_OK;
    Workspace *w = P.w;
    cudaError_t e = cudaEventRecord(w->ev_ready, w->s_up);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(w->s_comp, w->ev_ready, 0);
    if (e == cudaSuccess && P.ncomp == 2) e = cudaStreamWaitEvent(w->s_comp2, w->ev_ready, 0);
    if (e != cudaSuccess) return P.err(e, "launch ordering");
    while (P.next_launch < limit && P.status == TSG_GPU_OK) {
        launch_piece(P, P.next_launch++);
        if (!P.touch_started && P.status == TSG_GPU_OK) start_touch(P);
    }
    return P.status;
}

} /* namespace gpu */
} /* namespace tsg */
