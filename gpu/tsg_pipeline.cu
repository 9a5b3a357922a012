/*
 * tsg_pipeline.cu — one call from host memory through the transfer pipeline (tsg_pipeline.h):
 * how each operand moves, the call's device layout and units, the first touch of a fresh C, and
 * the loop that drives the upload, compute and download sides (tsg_upload.cu, tsg_launch.cu,
 * tsg_download.cu) to the end of the call, or to its first failure.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include "tsg_exec.h"
#include "tsg_fault.h"
#include "tsg_pipeline.h"
#include "../kernels/tsg_kernel.h"

namespace tsg {
namespace gpu {

/* ---- the pieces ---- */

void a_piece(const Pipeline &P, int64_t i, int64_t c, int64_t *sr, int64_t *sc, const float **src)
{
    const tsg_problem *p = P.p;
    const int64_t r0 = i * P.pl.bm, k0 = c * P.pl.kc;
    if (p->transa == 'N') *sr = P.rows(i), *sc = P.klen(c), *src = p->a + r0 + k0 * p->lda;
    else *sr = P.klen(c), *sc = P.rows(i), *src = p->a + k0 + r0 * p->lda;
}

void b_piece(const Pipeline &P, int64_t j, int64_t c, int64_t *sr, int64_t *sc, const float **src)
{
    const tsg_problem *p = P.p;
    const int64_t c0 = j * P.pl.bn, k0 = c * P.pl.kc;
    if (p->transb == 'N') *sr = P.klen(c), *sc = P.cols(j), *src = p->b + k0 + c0 * p->ldb;
    else *sr = P.cols(j), *sc = P.klen(c), *src = p->b + c0 + k0 * p->ldb;
}

void a_dev(const Pipeline &P, int64_t piece, int64_t i, int64_t c, const float **ptr, int64_t *ld)
{
    int64_t sr, sc;
    const float *src;
    a_piece(P, i, c, &sr, &sc, &src);
    if (P.ma == M_INPLACE) {
        *ptr = src;
        *ld = P.p->lda;
        return;
    }
    *ld = tsg_dev_ld(sr);
    *ptr = P.pl.resident ? P.dev(P.offA[i * P.pl.nk + c]) : P.dev(P.ringA + (piece % RING) * P.ringStride);
}

void b_dev(const Pipeline &P, int64_t piece, int64_t j, int64_t c, const float **ptr, int64_t *ld)
{
    int64_t sr, sc;
    const float *src;
    b_piece(P, j, c, &sr, &sc, &src);
    if (P.mb == M_INPLACE) {
        *ptr = src;
        *ld = P.p->ldb;
        return;
    }
    *ld = tsg_dev_ld(sr);
    *ptr = P.pl.resident ? P.dev(P.offB[j * P.pl.nk + c]) : P.dev(P.ringB + (piece % RING) * P.ringStride);
}

void c_dev(const Pipeline &P, int64_t q, float **ptr, int64_t *ld)
{
    const int64_t i = q / P.pl.gn, j = q % P.pl.gn;
    if (P.mcd == M_INPLACE) {
        *ptr = P.p->c + i * P.pl.bm + j * P.pl.bn * P.p->ldc;
        *ld = P.p->ldc;
        return;
    }
    *ld = tsg_dev_ld(P.rows(i));
    *ptr = P.pl.resident ? P.dev(P.offC[q]) : P.dev(P.cbuf[q % 2]);
}

namespace {

/* ---- the call's set-up ---- */

/*
 * The gathers of a call that uploads at most NT_GATHER_MAX_BYTES of A and B use non-temporal
 * stores, larger ones memcpy (the rule before v0.9). Measured in alternating processes
 * (docs/NOTES.md "v0.9", runs 2 and 4): with memcpy a small call's slots keep their lines dirty
 * in the CPU's caches and its 1 MiB uploads ran at 20-22 GB/s; non-temporal gathers took 1024^3
 * (8 MiB up) from 0.86 / 0.95 to 0.48 / 0.54 ms and 2048^3 (32 MiB) from 1.78 / 1.74 to
 * 1.46 / 1.47, left 4096^3 (128 MiB) and 8192^3 unchanged, and lost on the streaming uploads:
 * 512 x 512 x 65536 (256 MiB) 5.99 / 6.22 -> 6.29 / 7.93, 65536 x 64 x 4096 (1 GiB) 21.3 / 21.3
 * -> 27.0 / 30.2.
 * Up to NT_GATHER_REUSED_MAX_BYTES they are non-temporal too when C is not fresh (the call does
 * not first-touch it): v0.10 run 2's tsgemm-bench (C reused), two rounds in alternating
 * processes, took the 128 MiB calls 4096^3 NN / NT / TN and 4095^3 from 5.03-5.68 ms with memcpy
 * to 4.57-5.50 with non-temporal gathers (14 of 16 pairs of medians faster), while numpy's
 * 4096 x 4091 x 4103 a @ b (134 MiB up, a new C every call) went the other way in the same run
 * (fastest call 6.70 / 7.47 ms with memcpy, 9.19 / 7.98 non-temporal; a.T @ b and the others
 * alike). Why a fresh C (whose first touch runs on the copy threads beside the gathers) turns the
 * comparison around is not known.
 * The thread that measures the rates (t_rates_memcpy, tsg_measure.cu) gathers its upload calls
 * (64 and 256 MiB of A) both with memcpy, the path of large uploads, so that the slope between
 * them is one kind's sustained rate (with the 64-160 MiB rule the 64 MiB call went non-temporal
 * and v0.10 run 5's slope read 44.8 GB/s where run 1's, both memcpy, read 45.6).
 */
constexpr double NT_GATHER_MAX_BYTES = 64.0 * (1 << 20);
constexpr double NT_GATHER_REUSED_MAX_BYTES = 160.0 * (1 << 20);

/* The gathers' copy for problem p; fresh_c: the call first-touches C (a new C, numpy's case). */
int gather_kind(const tsg_problem *p, bool fresh_c)
{
    if (state.gather_copy) return state.gather_copy;
    if (t_rates_memcpy) return TSG_COPY_MEMCPY;
    const double up = 4.0 * ((double)p->m * (double)p->k + (double)p->k * (double)p->n);
    if (up <= NT_GATHER_MAX_BYTES) return TSG_COPY_STREAM;
    return up <= NT_GATHER_REUSED_MAX_BYTES && !fresh_c ? TSG_COPY_STREAM : TSG_COPY_MEMCPY;
}

/* How each operand moves (tsg_gpu.h): pageable -> staged, pinned -> direct DMA, managed and
 * device -> in place; C comes down in place only when it cannot be half-written on failure
 * with a value the CPU retry would read (device memory, or managed with beta = 0).
 * beta != 0 with C in host memory (pageable or pinned): C does not go up. The kernels compute
 * alpha*op(A)*op(B) (beta = 0) and the scatters write fmaf(beta, C, that) into the caller's C,
 * the write-back's own operation; each byte of C then crosses PCIe once instead of twice (4096^3:
 * 64 MiB less up, docs/NOTES.md "v0.8"). A block is final when its scatter is done, as with beta =
 * 0, and C's other blocks still hold the caller's values, so the done contract is unchanged.
 * The sum order differs from the kernels' beta when K has several chunks (fmaf(beta, C, P0 + P1
 * + ...) against ((beta*C + P0) + P1) + ...): both are fixed functions of the shape, so results
 * stay bit-identical from run to run. Managed C keeps the earlier path (C staged up, the kernels
 * apply beta): the scatters were not measured on managed C. */
void choose_modes(const tsg_problem *p, Pipeline &P)
{
    auto mode_of = [](unsigned char where) {
        return where == TSG_PINNED ? M_DIRECT : where == TSG_HOST ? M_STAGE : M_INPLACE;
    };
    P.ma = mode_of(p->where_a);
    P.mb = mode_of(p->where_b);
    const bool beta = p->beta != 0.0f;
    P.host_beta = beta && (p->where_c == TSG_HOST || p->where_c == TSG_PINNED);
    P.dev_beta = P.host_beta ? 0.0f : p->beta;
    const bool up = beta && !P.host_beta; /* C goes up: the kernels apply beta */
    switch (p->where_c) {
    case TSG_DEVICE: P.mcu = M_NONE, P.mcd = M_INPLACE; break;
    case TSG_MANAGED: /* in place only when a half-written C cannot mislead a retry */
        if (beta) P.mcu = M_STAGE, P.mcd = M_STAGE;
        else P.mcu = M_NONE, P.mcd = M_INPLACE;
        break;
    case TSG_PINNED: P.mcu = up ? M_DIRECT : M_NONE, P.mcd = beta ? M_STAGE : M_DIRECT; break;
    default: P.mcu = up ? M_STAGE : M_NONE, P.mcd = M_STAGE; break;
    }
}

/* Lays the call's device memory out in the arena; returns the floats needed. */
int64_t layout(Pipeline &P)
{
    const tsg_plan &pl = P.pl;
    int64_t off = 0;
    auto take = [&](int64_t floats) {
        int64_t at = off;
        off += (floats + 63) & ~(int64_t)63; /* 256-byte aligned pieces */
        return at;
    };
    int64_t sr, sc;
    const float *src;
    if (pl.resident) {
        if (P.ma == M_STAGE || P.ma == M_DIRECT)
            for (int64_t i = 0; i < pl.gm; ++i)
                for (int64_t c = 0; c < pl.nk; ++c) {
                    a_piece(P, i, c, &sr, &sc, &src);
                    P.offA.push_back(take(tsg_dev_ld(sr) * sc));
                }
        if (P.mb == M_STAGE || P.mb == M_DIRECT)
            for (int64_t j = 0; j < pl.gn; ++j)
                for (int64_t c = 0; c < pl.nk; ++c) {
                    b_piece(P, j, c, &sr, &sc, &src);
                    P.offB.push_back(take(tsg_dev_ld(sr) * sc));
                }
        if (P.mcd != M_INPLACE)
            for (int64_t q = 0; q < pl.gm * pl.gn; ++q)
                P.offC.push_back(take(tsg_dev_ld(P.rows(q / pl.gn)) * P.cols(q % pl.gn)));
    } else {
        const int64_t amax = P.p->transa == 'N' ? tsg_dev_ld(pl.bm) * pl.kc : tsg_dev_ld(pl.kc) * pl.bm;
        const int64_t bmax = P.p->transb == 'N' ? tsg_dev_ld(pl.kc) * pl.bn : tsg_dev_ld(pl.bn) * pl.kc;
        P.ringStride = ((amax + 63) & ~(int64_t)63) + ((bmax + 63) & ~(int64_t)63);
        P.ringA = take(RING * P.ringStride);
        P.ringB = P.ringA + ((amax + 63) & ~(int64_t)63);
        if (P.mcd != M_INPLACE) {
            P.cbuf[0] = take(tsg_dev_ld(pl.bm) * pl.bn);
            P.cbuf[1] = take(tsg_dev_ld(pl.bm) * pl.bn);
        }
    }
    if (pl.splits > 1) P.offW = take(pl.splits * pl.bm * pl.bn);
    return off;
}

/* Bytes per upload unit: about 1/16 of what crosses, within [UNIT_MIN, the slot cap
 * State::slot_bytes]; or TSGEMM_TEST_UNIT's (at least 4 KiB), within the cap. */
int64_t unit_bytes(const tsg_problem *p)
{
    const double cap = (double)state.slot_bytes;
    const double bytes = 4.0 * ((double)p->m * (double)p->k + (double)p->k * (double)p->n +
                                2.0 * (double)p->m * (double)p->n);
    int64_t unit = (int64_t)std::max<double>((double)UNIT_MIN, std::min<double>(cap, bytes / 16));
    if (state.unit_bytes > 0) unit = (int64_t)std::min<double>(cap, std::max<double>(4096.0, state.unit_bytes));
    return std::min(unit, (int64_t)state.slot_bytes);
}

/* What one pinned slot must hold for this call: a unit, or one column of the tallest piece when
 * that is more (a unit is never less than one column: gen_next, issue_download). Pieces' columns
 * run along bm, bn or kc (C blocks; A or B as stored), each at most the planner's max_rows. */
size_t slot_need(const Pipeline &P)
{
    const int64_t col = tsg_dev_ld(std::max(P.pl.bm, std::max(P.pl.bn, P.pl.kc)));
    return (size_t)std::max(P.unit_bytes, 4 * col);
}

/* The first touch of a fresh pageable C (beta = 0: the call writes every element), set up in
 * P.touch when C's first and last pages are not mapped yet; launch_ready starts it. */
void plan_touch(Pipeline &P)
{
    const tsg_problem *p = P.p;
    if (!(P.mcd == M_STAGE && p->where_c == TSG_HOST && p->beta == 0.0f && state.touch >= 0)) return;
    const size_t cbytes = (size_t)tsg_extent(p->m, p->n, p->ldc) * 4;
    if (tsg_copy_mapped(p->c, cbytes)) return;
    const long page = sysconf(_SC_PAGESIZE);
    P.touch.c_lo = p->c;
    P.touch.c_hi = p->c + tsg_extent(p->m, p->n, p->ldc);
    P.touch.lo = (char *)((uintptr_t)p->c & ~(uintptr_t)(page - 1));
    P.touch.hi = (char *)(((uintptr_t)p->c + cbytes + page - 1) & ~(uintptr_t)(page - 1));
#ifdef MADV_HUGEPAGE
    /* The call writes every float of C's extent, so backing its whole 2 MiB pieces with huge
     * pages costs no memory and saves 511 of every 512 faults (numpy advises its own large
     * arrays the same way). Only the 2 MiB ranges wholly inside the extent, so no byte outside C
     * changes its backing; a refusal only costs speed. */
    const uintptr_t h = (uintptr_t)2 << 20;
    const uintptr_t hlo = ((uintptr_t)p->c + h - 1) & ~(h - 1), hhi = ((uintptr_t)p->c + cbytes) & ~(h - 1);
    if (state.touch != -2 && hhi > hlo) (void)madvise((void *)hlo, hhi - hlo, MADV_HUGEPAGE);
#endif
}

/* ---- the loop ---- */

/* Process exit has begun (tsg_gpu_exiting): the call stops here and fails. */
bool stop_if_exiting(Pipeline &P)
{
    if (!state.exiting.load(std::memory_order_relaxed)) return false;
    snprintf(P.msg, P.len, "the process is exiting");
    P.status = TSG_GPU_EFAIL;
    return true;
}

/* Every unit up: DMAs back to back, launches as their pieces become ready, the ring refilled,
 * downloads serviced on the way; when nothing is ready, the calling thread helps with the gather
 * the DMA engine needs next, or waits for the oldest DMA in flight. */
void upload_all(Pipeline &P)
{
    while (P.status == TSG_GPU_OK && !stop_if_exiting(P)) {
        bool moved = false;
        while (P.status == TSG_GPU_OK && unit_ready(P)) {
            issue_unit(P);
            moved = true;
        }
        if (P.status != TSG_GPU_OK) break;
        launch_ready(P, next_unit_piece(P));
        while (P.status == TSG_GPU_OK && refill(P, false)) moved = true;
        if (service_downloads(P, false)) moved = true;
        if (P.status != TSG_GPU_OK) break;
        if (P.u_issue == P.u_submit && P.g_done) break; /* every unit is up */
        if (moved) continue;
        const double t0 = P.tl.on ? now_s() : 0;
        if (P.u_issue < P.u_submit) { /* help gather the unit the DMA engine needs next */
            tsg_pool_wait(&P.ring_job[P.u_issue % NS]);
            if (P.tl.on) P.tl.gather += now_s() - t0;
        } else {
            refill(P, true); /* the ring is full of DMAs in flight: wait for the oldest */
            if (P.tl.on) P.tl.dma += now_s() - t0;
        }
    }
}

/* The rest of C comes down (or, in place, the kernels finish). */
void download_rest(Pipeline &P)
{
    while (P.status == TSG_GPU_OK && P.downloads() && P.done.blocks < P.blocks() && !stop_if_exiting(P)) {
        const double t0 = P.tl.on ? now_s() : 0;
        const bool moved = service_downloads(P, true);
        if (P.tl.on) P.tl.down += now_s() - t0;
        if (!moved && P.status == TSG_GPU_OK) {
            snprintf(P.msg, P.len, "download stalled at block %lld of %lld (internal error)",
                     (long long)P.done.blocks, (long long)P.blocks());
            P.status = TSG_GPU_EFAIL;
        }
    }
    if (P.status == TSG_GPU_OK && P.mcd == M_INPLACE) {
        cudaError_t e = TSG_STAGE(ST_SYNC, cudaStreamSynchronize(P.w->s_comp));
        if (e == cudaSuccess) e = TSG_STAGE(ST_SYNC, cudaStreamSynchronize(P.w->s_comp2));
        if (e != cudaSuccess) P.err(e, "kernel (sync)");
    }
}

/* On the way out, success or not: no copy thread and no DMA touches the call's memory any more
 * when the call returns (the slots go back to the pool, the caller's C is final or original). */
void finish(Pipeline &P)
{
    for (int64_t u = P.u_issue; u < P.u_submit; ++u) /* gathers */
        if (P.ring_units[u % NS].mode == M_STAGE) tsg_pool_wait(&P.ring_job[u % NS]);
    if (P.mcd == M_STAGE) /* scatters */
        for (int64_t d = P.d_done; d < P.d_submit; ++d) tsg_pool_wait(&P.dn[d % ND].job);
    for (tsg_job *j : P.pending) tsg_pool_wait(j); /* the first touch */
    /* every scatter submitted has now landed in the caller's C: count it (a prefix, in order) */
    while (P.d_done < P.d_submit) retire(P);
    if (P.status != TSG_GPU_OK) {
        Workspace *w = P.w;
        cudaStreamSynchronize(w->s_up);
        cudaStreamSynchronize(w->s_comp);
        cudaStreamSynchronize(w->s_comp2);
        cudaStreamSynchronize(w->s_down);
        if (P.status != TSG_GPU_EFATAL) (void)cudaGetLastError();
    }
}

int run_pipeline(Pipeline &P)
{
    const tsg_plan &pl = P.pl;
    P.pieces = pl.gm * pl.gn * pl.nk;
    P.rounds = tsg_plan_rounds(&pl, P.dev_beta, state.order);
    P.ncomp = pl.splits <= 1 && P.blocks() > 1 ? 2 : 1;
    P.tl.mark(TL_T0, P.w->s_up);
    upload_all(P);
    if (P.status == TSG_GPU_OK) {
        P.tl.mark(TL_UPDONE, P.w->s_up);
        if (P.tl.on) P.tl.uploads_issued = now_s() - P.tl.h0;
        launch_ready(P, P.pieces);
    }
    download_rest(P);
    finish(P);
    return P.status;
}

/* The copy threads stay awake for the whole of a call that stages (tsg_device.cu's polling). */
struct Burst {
    bool on;
    explicit Burst(bool b) : on(b)
    {
        if (on) tsg_pool_burst_begin();
    }
    ~Burst()
    {
        if (on) tsg_pool_burst_end();
    }
    Burst(const Burst &) = delete;
    Burst &operator=(const Burst &) = delete;
};

} /* namespace */

tsg_plan_limits plan_limits()
{
    tsg_plan_limits lim;
    lim.device_bytes = call_budget();
    lim.tile_m = tsg::kernel_tile_m();
    lim.tile_n = tsg::kernel_tile_n();
    lim.slots = state.sms;
    lim.split_min_k = SPLIT_MIN_K;
    lim.max_rows = (int64_t)(state.slot_bytes / 4);
    lim.block_area = (int64_t)state.block_floats;
    lim.first_floats = (int64_t)state.chunk_floats;
    return lim;
}

int sgemm_pipeline(Workspace *w, const tsg_problem *p, const tsg_plan *pl, const tsg_plan_limits *lim,
                   tsg_done *done, char *msg, size_t len)
{
    Pipeline P;
    P.p = p;
    P.w = w;
    P.msg = msg;
    P.len = len;
    choose_modes(p, P);
    const bool staged = P.ma == M_STAGE || P.mb == M_STAGE || P.mcu == M_STAGE || P.mcd == M_STAGE;
    Burst burst(staged);
    if (!pl) {
        snprintf(msg, len, "the problem does not fit in the device memory budget (%.3g MiB)",
                 lim->device_bytes / (1 << 20));
        return TSG_GPU_ENOMEM;
    }
    P.pl = *pl;
    done->bm = P.pl.bm;
    done->bn = P.pl.bn;
    done->blocks = done->cols = 0;
    P.unit_bytes = unit_bytes(p);
    const double t_alloc = now_s();
    int st = ensure_arena(w, (size_t)layout(P) * 4, msg, len);
    if (st != TSG_GPU_OK) return st;
    if (staged && (st = ensure_pinned(w, slot_need(P), msg, len)) != TSG_GPU_OK) return st;
    done->alloc_s = now_s() - t_alloc;
    prefetch_managed(p, true, P.mcd == M_INPLACE, w->s_comp);
    plan_touch(P);
    P.gather_kind = gather_kind(p, P.touch.lo != nullptr);
    timeline_start(P.tl);
    st = run_pipeline(P);
    done->families = P.fam;
    if (P.tl.on) timeline_print(P.tl, st, p, P.pl, P.rounds);
    if (st == TSG_GPU_OK) done->blocks = P.blocks(), done->cols = 0;
    else if (P.downloads())
        done->blocks = P.done.blocks, done->cols = P.done.cols, done->bm = P.pl.bm, done->bn = P.pl.bn;
    /* in place: nothing of the host's C was written by us; a retry redoes everything */
    return st;
}

} /* namespace gpu */
} /* namespace tsg */
