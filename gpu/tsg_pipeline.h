/*
 * tsg_pipeline.h — the transfer pipeline of one call from host memory (CUDA C++, gpu/ only): the
 * state of a call in flight and the steps its four units share (tsg_pipeline.cu: set-up, device
 * layout and the loop; tsg_upload.cu; tsg_launch.cu; tsg_download.cu).
 *
 * One call (the plan of src/tsg_plan.h; docs/DESIGN.md "Calls from host memory") is three
 * overlapped streams of work driven by the calling thread:
 *   upload   units (column ranges of the pieces of A, B, and of C's blocks when C goes up, at most
 *            a pinned slot each): pageable ones are gathered by the copy threads (gpu/tsg_pool.h)
 *            into a ring of NS pinned slots and DMA'd on s_up; pinned ones are DMA'd directly;
 *            device and managed operands are used in place.
 *   compute  a launch per piece (C block, K chunk) on s_comp, or on s_comp and s_comp2 by
 *            block (Pipeline::comp), once the piece's units are up.
 *   download each C block, once its last chunk ran, in units through ND pinned slots on s_down;
 *            the copy threads scatter each landed unit into the caller's C.
 * The calling thread never idles while work is ready: it issues DMAs for gathered units, fills
 * the ring, launches, services downloads, and when nothing is ready it helps with the gather it
 * waits for. C is written only by scatters of completed device work, in order, so after a
 * failure Pipeline::done (a prefix of blocks and columns) is exactly what the caller's C holds
 * as final. A step that fails sets Pipeline::status (the first failure wins, Pipeline::err); every
 * step after it does nothing.
 */
#ifndef TSG_PIPELINE_H
#define TSG_PIPELINE_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "tsg_copy.h"
#include "tsg_device.h"
#include "tsg_pool.h"
#include "tsg_timeline.h"
#include "tsg_workspace.h"
#include "../src/tsg_plan.h"
#include "../src/tsg_problem.h"

namespace tsg {
namespace gpu {

/* The smallest upload unit (the ramp of RAMP_STEPS does not go below it). */
constexpr size_t UNIT_MIN = (size_t)256 << 10;

/* How an operand moves: not at all, gathered into pinned slots and DMA'd (pageable), DMA'd
 * directly (pinned), or used where it is (device, managed). */
enum Mode { M_NONE, M_STAGE, M_DIRECT, M_INPLACE };

/* One upload unit: a column range of a piece or of a C block. */
struct Unit {
    int64_t piece;      /* the launch that needs it */
    Mode mode;          /* M_STAGE (gather + DMA) or M_DIRECT (2-D DMA from pinned memory) */
    tsg_copy_rect host; /* user memory -> slot (stage) or -> device (direct: dst is device) */
    float *dev;         /* device destination of the unit (first column)                   */
    int64_t dld;        /* device leading dimension                                        */
    int ring;           /* bounded mode: ring entry the unit fills (-1: resident)          */
    int64_t cblock;     /* C upload of this block (bounded mode hazard), or -1             */
};

struct Pipeline {
    const tsg_problem *p;
    tsg_plan pl;
    Workspace *w;
    Mode ma, mb, mcu, mcd;  /* A, B, C up, C down */
    bool host_beta = false; /* the scatters apply beta (C does not go up; choose_modes) */
    float dev_beta = 0.0f;  /* the beta of each block's first launch: p->beta, or 0 with host_beta */
    char *msg;
    size_t len;
    int status = TSG_GPU_OK;
    /* device layout (floats from the arena start) */
    std::vector<int64_t> offA, offB, offC; /* resident: per (i, c), (j, c), block */
    int64_t ringA = 0, ringB = 0, ringStride = 0, cbuf[2] = {0, 0}, offW = 0;
    int64_t unit_bytes = 0;
    /* upload state */
    Unit ring_units[NS];
    tsg_copy_rect ring_copy[NS];
    tsg_job ring_job[NS];
    bool ring_staged[NS] = {};
    int64_t u_submit = 0, u_issue = 0, next_launch = 0, pieces = 0;
    /* generator cursor: piece, part (0 C, 1 A, 2 B), column */
    int64_t g_piece = 0, g_col = 0;
    int64_t rounds = 0; /* piece order: leading chunk-major rounds (src/tsg_plan.h tsg_plan_rounds) */
    int g_part = 0;
    bool g_done = false;
    /* download state */
    struct Dn {
        int64_t q, c0, cols;
        tsg_copy_rect copy;
        tsg_job job;
    } dn[ND];
    int64_t d_issue = 0, d_submit = 0, d_done = 0;
    int64_t dq = 0, dcol = 0; /* next download unit's block and column */
    int64_t blocks_launched = 0, blocks_issued_down = 0;
    struct { int64_t blocks, cols; } done{}; /* the final prefix (tsg_done's, without its parts) */
    bool touch_started = false;
    tsg_job touch_job;
    tsg_touch touch{}; /* lo == nullptr: no first touch */
    std::vector<tsg_job *> pending; /* jobs to wait for on the way out */
    Timeline tl;
    int ncomp = 1;    /* compute streams of the call (run_pipeline: 2 when C has several blocks) */
    unsigned fam = 0; /* kernel families launched (tsg_done.families) */
    int gather_kind = TSG_COPY_MEMCPY; /* the gathers' copy (gather_kind(), sgemm_pipeline) */

    /* The compute stream of C's block q: with two, even blocks on s_comp and odd ones on s_comp2,
     * so a block's chunks stay in order on one stream (the same sums, bit for bit) while the next
     * block's launch fills the SMs that this one's last wave leaves idle. Every resource two
     * launches could share is ordered by an event whatever the stream: pieces and ring entries
     * (ev_ready, ev_launch), C's buffers (ev_cfree, ev_block); split-K's one workspace is not,
     * so a call that splits keeps one stream. */
    cudaStream_t comp(int64_t q) const { return ncomp == 2 && (q & 1) ? w->s_comp2 : w->s_comp; }

    int64_t rows(int64_t i) const { return tsg_plan_rows(&pl, p->m, i); }
    int64_t cols(int64_t j) const { return tsg_plan_cols(&pl, p->n, j); }
    int64_t klen(int64_t c) const { return tsg_plan_klen(&pl, p->k, c); }
    int64_t blocks() const { return pl.gm * pl.gn; }
    float *dev(int64_t off) const { return w->arena + off; }
    /* C comes down through slots or by DMA (not in place). */
    bool downloads() const { return mcd == M_STAGE || mcd == M_DIRECT; }

    /* The call's first failure: its status and message; later ones keep them. */
    int err(cudaError_t e, const char *what)
    {
        if (status == TSG_GPU_OK) status = fail(e, what, msg, len);
        return status;
    }
};

/* ---- the pieces (tsg_pipeline.cu) ---- */

/* Stored shape of A's piece (i, c) and of B's piece (j, c), and the user pointer of its corner. */
void a_piece(const Pipeline &P, int64_t i, int64_t c, int64_t *sr, int64_t *sc, const float **src);
void b_piece(const Pipeline &P, int64_t j, int64_t c, int64_t *sr, int64_t *sc, const float **src);
/* Device pointer and ld of A's / B's piece for launch `piece`, and of C's block q. */
void a_dev(const Pipeline &P, int64_t piece, int64_t i, int64_t c, const float **ptr, int64_t *ld);
void b_dev(const Pipeline &P, int64_t piece, int64_t j, int64_t c, const float **ptr, int64_t *ld);
void c_dev(const Pipeline &P, int64_t q, float **ptr, int64_t *ld);

/* ---- uploads (tsg_upload.cu) ---- */

/* Piece of the next unit not yet issued, or P.pieces when none is left. */
int64_t next_unit_piece(Pipeline &P);
/* The oldest unit in the ring is ready for its DMA (gathered, or nothing to gather). */
bool unit_ready(Pipeline &P);
/* Issues the DMA of the oldest unit in the ring (launching first every piece before it). */
int issue_unit(Pipeline &P);
/* Puts the next unit into the ring (its gather submitted) when its entry is free; blocking: waits
 * for the entry's previous DMA. Returns true when a unit was added. */
bool refill(Pipeline &P, bool blocking);

/* ---- launches (tsg_launch.cu) ---- */

/* Launches every piece before `limit` (their units are all issued on s_up); the first launch
 * also starts the first touch of a fresh C. Returns P.status. */
int launch_ready(Pipeline &P, int64_t limit);

/* ---- downloads (tsg_download.cu) ---- */

/* The download side: moves whatever can move without waiting; with `blocking`, when nothing
 * could, waits for the oldest outstanding step (a D2H to land, then a scatter to finish).
 * Returns true when something moved. */
bool service_downloads(Pipeline &P, bool blocking);
/* Blocks until downloads have been issued for every unit of blocks < q_limit. */
bool downloads_issued_through(Pipeline &P, int64_t q_limit);
/* Counts the oldest submitted download unit as final (its scatter is done). */
void retire(Pipeline &P);

} /* namespace gpu */
} /* namespace tsg */

#endif /* TSG_PIPELINE_H */
