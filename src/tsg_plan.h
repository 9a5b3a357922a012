/*
 * tsg_plan.h — how one call from host memory is cut into pieces for the transfer pipeline, and
 * what part of C is final after a pipeline stopped half-way.
 *
 * Owns: the piece plan (C blocks, K chunks, split-K of each launch, whether A and B stay on the
 * device), shared by the executor (kernels/), which runs it, and the cost model
 * (src/tsg_dispatch.c), which prices it; and the "done" contract between the GPU backend and the
 * CPU retry. Must not: know CUDA, print, or depend on anything measured at run time — a plan is a
 * pure function of the shape and the limits, so results are bit-identical from run to run,
 * whatever the load, the copy threads or the other callers (docs/TESTING.md fault class 16/20).
 *
 * A call C = alpha*op(A)*op(B) + beta*C (column-major, m x n x k) becomes:
 *   - C blocks of bm x bn (the last row/column of blocks smaller), visited in row-major block
 *     order: block (i, j) is number i*gn + j. Blocks let C come down while later blocks compute.
 *   - K chunks of kc (the last one shorter). Chunk c of block (i, j) multiplies the stored
 *     sub-rectangles of A (rows/cols of block row i, k range of chunk c) and of B (block column
 *     j, chunk c) and accumulates into block (i, j) on the device: beta for chunk 0, 1 after.
 *     Chunks let the first launch start as soon as its first chunk is up.
 *   - every launch splits its chunk into slices of split_kc along k (split-K, reduced in a fixed
 *     order) when the block's tile grid is too small to fill the GPU. Chunk and slice boundaries
 *     are the same for every block, so every element of C is summed in the same order whatever
 *     the block sizes.
 * Each byte of A and B crosses PCIe once when `resident` (A and B stay on the device for the
 * call); otherwise (a problem larger than the device budget) each piece uploads its chunks into
 * a bounded ring and A/B cross again for each block they meet.
 */
#ifndef TSG_PLAN_H
#define TSG_PLAN_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdint.h>

#include "tsg_problem.h"

/* What the executor can give one call. Bytes are device or pinned host bytes. */
typedef struct tsg_plan_limits {
    double device_bytes; /* device memory this call may hold (buffers for A, B, C, split-K) */
    int64_t tile_m, tile_n; /* C tile of one thread block of the kernel                     */
    int64_t slots;       /* thread blocks resident at once on the device (one full wave)     */
    int64_t split_min_k; /* smallest k of a split-K slice                                     */
    int64_t max_rows;    /* most rows of a piece's column that fit one pinned slot (floats);
                            bounds kc when K runs down the columns (A transposed, B not)     */
    int64_t block_area;  /* floats of C per block; 0 = TSG_PLAN_BLOCK_AREA (tuning runs set it
                            through TSGEMM_TEST_BLOCK)                                        */
    int64_t first_floats; /* floats of A and B in the first K chunk; 0 = TSG_PLAN_FIRST_FLOATS
                             (tuning runs set it through TSGEMM_TEST_CHUNK)                   */
} tsg_plan_limits;

typedef struct tsg_plan {
    int64_t bm, bn, gm, gn; /* C block and the block grid (gm = ceil(m/bm), gn = ceil(n/bn))  */
    int64_t kc, nk;         /* K chunk, number of chunks                                       */
    int64_t split_kc;       /* k of one split-K slice (kc when a launch is not split)          */
    int64_t splits;         /* slices of a full chunk: ceil(kc / split_kc)                    */
    int resident;           /* 1: A and B are uploaded once and stay for the call              */
    double device_bytes;    /* device memory the plan needs (floats * 4)                       */
} tsg_plan;

/* Device floats are padded to whole 16-byte groups: every device leading dimension is a multiple
 * of 4 so the kernel's vector loads apply even when the caller's lda is odd. */
static inline int64_t tsg_pad4(int64_t x) { return (x + 3) & ~(int64_t)3; }

/* The leading dimension of a piece's device copy: padded to 4, except pieces of fewer than 4
 * rows (a 1 x k row of A, GEMV-like shapes), which stay packed — padding them would move 4x the
 * bytes, and their tiles are too thin for vector loads anyway. */
static inline int64_t tsg_dev_ld(int64_t rows) { return rows < 4 ? rows : tsg_pad4(rows); }

/*
 * Makes the plan for legal problem p (m, n, k > 0). Returns 0, or -1 when not even the smallest
 * pieces fit in lim->device_bytes (the call then cannot run on the GPU).
 * Rules (measured on the H200, docs/NOTES.md "Pipeline schedule"):
 *   - one block when C is at most TSG_PLAN_ONE_BLOCK floats, else blocks of about
 *     TSG_PLAN_BLOCK_AREA floats, or TSG_PLAN_BIG_BLOCK_AREA when C holds about four of
 *     those (TSG_PLAN_BIG_MIN_BLOCKS; a 2048 x 2048 block is 256 tiles of 128 x 128, one wave at two thread blocks per
 *     SM; 1024 x 2048 blocks left half the SMs' slots idle in every launch: 4096^3 6.59 ->
 *     5.79 ms, 8192^3 44.6 -> 35.3 ms, while 2048^3 in one block lost 1.75 -> 2.07 ms; v0.3
 *     run 1), multiples of the tile, the longer side split first;
 *   - kc: the first chunk of A and B (bm + bn) * kc floats about TSG_PLAN_FIRST_FLOATS (or
 *     TSG_PLAN_FIRST_FLOATS_BIG for C of more than four big blocks; the
 *     kernel starts after ~0.3 ms of upload; fewer, longer launches for the rest) and at most k / 4 (small problems still overlap
 *     upload and compute), kc in [TSG_PLAN_MIN_KC, TSG_PLAN_MAX_KC] and at most lim->max_rows
 *     when a piece's columns run along k, a multiple of 8; a K of at most 1.5 kc is one chunk,
 *     otherwise the chunks are evened out;
 *   - split-K when 2 * tiles <= slots: slices of at least split_min_k filling one wave.
 */
int tsg_plan_make(const tsg_problem *p, const tsg_plan_limits *lim, tsg_plan *out);

/* Rows and columns of block (i, j), and of chunk c (its k length). */
static inline int64_t tsg_plan_rows(const tsg_plan *pl, int64_t m, int64_t i)
{
    return m - i * pl->bm < pl->bm ? m - i * pl->bm : pl->bm;
}
static inline int64_t tsg_plan_cols(const tsg_plan *pl, int64_t n, int64_t j)
{
    return n - j * pl->bn < pl->bn ? n - j * pl->bn : pl->bn;
}
static inline int64_t tsg_plan_klen(const tsg_plan *pl, int64_t k, int64_t c)
{
    return k - c * pl->kc < pl->kc ? k - c * pl->kc : pl->kc;
}

/*
 * The order in which the executor uploads and launches a plan's gm * gn * nk pieces (block q in
 * row-major block order, chunk c): R leading chunk-major rounds (pieces s < R * blocks: c = s /
 * blocks, q = s % blocks — chunk c of every block, then chunk c + 1), then block-major over the
 * remaining chunks (every remaining chunk of block q, then block q + 1). R = 0 is block-major, R =
 * nk chunk-major. Blocks finish (their last chunk is launched) in increasing q for every R, so the
 * done contract below holds for all of them.
 *
 * Why rounds: block-major makes the first block wait for its whole row and column panels (at
 * 8192^3 with 2048^2 blocks, 128 MiB up, 2.7 ms at 48 GB/s, for 1.4 ms of work) and keeps the
 * uploads barely ahead of the kernels after it (each new 2048-row panel, 64 MiB, feeds 1.4 ms of
 * launches), so the kernels of v0.9's 8192^3 calls waited for uploads during the first 12 ms of
 * the call (about 3 ms lost; docs/NOTES.md "v0.9" timelines). A chunk round needs only a chunk's
 * slice of every panel per round of work: at 8192^3 (kc 1024) one round is 64 MiB up (1.4 ms)
 * for 2.8 ms of launches, so the uploads run ahead from the first round on (v0.10 run 1:
 * 27.18 / 27.32 -> 26.11 / 26.07 ms; then kc 2048, TSG_PLAN_FIRST_FLOATS_BIG). Chunk-major all the way, though,
 * leaves every block's download to the last round, and C's download then trails the kernels. So
 * the rounds stop while each block still has at least TSG_PLAN_TAIL_K of k to compute: from there
 * blocks finish one after another at least as slowly as their C comes down.
 * At 4096^3 (2 x 2 blocks) all-chunk-major was measured against block-major (v0.3 timeline:
 * block-major needs 96 of the 128 MiB up for the first half of the kernels; v0.4: 4096^3 6.04 ->
 * 5.89 ms in one run), and plans of 3-4 blocks keep it.
 *
 * tsg_plan_rounds: R. The rule, for resident plans whose C does not go up (`beta`, the beta the
 * kernels apply, is 0 — it is also 0 when the executor's scatters apply the caller's beta on the
 * host; gpu/tsg_pipeline.cu choose_modes): nk for 3-4 blocks and at least 2 chunks; for more
 * blocks nk - ceil(TSG_PLAN_TAIL_K / kc) when that is at least 1; otherwise 0. A beta the kernels
 * apply would move all of C up before the first round ends. force (TSGEMM_TEST_ORDER): 0 the rule,
 * 1 block-major, 2 chunk-major, 3 + r: r rounds (at most nk), for any resident plan (a bounded
 * plan's ring of pieces assumes block-major: it always gets 0).
 * tsg_plan_piece: block *q and chunk *c of the s-th piece, 0 <= s < gm * gn * nk, in the order of
 * `rounds` leading chunk-major rounds.
 */
int64_t tsg_plan_rounds(const tsg_plan *pl, float beta, int force);
void tsg_plan_piece(const tsg_plan *pl, int64_t rounds, int64_t s, int64_t *q, int64_t *c);

/* k a block still computes after the last chunk-major round (tsg_plan_rounds): its launches must
 * take at least as long as its C's download. A bm x bn block's 2 bm bn K flops at F take as long
 * as its 4 bm bn bytes at D when K = 2 F / D: 2000 at the H200's measured 48 TFLOP/s kernels and
 * 48 GB/s downloads (docs/NOTES.md "v0.9"); twice that leaves room for the host's scatters and
 * the other compute stream. */
#define TSG_PLAN_TAIL_K 4096

/*
 * What is final in C after a GPU attempt that stopped: the first `blocks` blocks in row-major
 * block order of a bm x bn grid (gn blocks per block row), and the first `cols` columns of the
 * block after them. Everything else in C's window still holds the caller's original values.
 * A backend that finished nothing reports blocks = cols = 0 (bm, bn may then be anything >= 1).
 */
/*
 * With several devices (src/tsg_multi.h) C's window is tiled by parts, each a rectangle of C with
 * its own prefix (bm, bn, blocks, cols relative to the part's own window, as above). A part whose
 * prefix covers its whole grid is final; one with blocks = cols = 0 holds the caller's values.
 */
typedef struct tsg_done_part {
    int64_t r0, c0, m, n;         /* the part's window: rows [r0, r0+m), columns [c0, c0+n)   */
    int64_t bm, bn, blocks, cols; /* what is final in it                                     */
} tsg_done_part;

/* Parts of a report: four per device slot at most (src/tsg_multi.c: a failed panel becomes at
 * most two final rectangles and two handed-off ones). */
#define TSG_DONE_MAX_PARTS 64

typedef struct tsg_done {
    int64_t bm, bn;
    int64_t blocks, cols;
    int nparts; /* 0: bm..cols describe the whole of C (one device); > 0: parts[0..nparts) tile
                   C's window and bm..cols are unused. Backends set it; 0 when unsure.        */
    tsg_done_part parts[TSG_DONE_MAX_PARTS];
    unsigned families; /* the kernel families that ran launches of the call, as a bitmask of
                          1u << tsg_math (src/tsg_config.h: 1 FP32, 2 3xTF32, 4 1xTF32); 0 when
                          none ran or the backend does not say. For logs only.        */
    double alloc_s;    /* seconds the call spent growing its workspace (device arena, pinned
                          slots; gpu/tsg_workspace.h); 0 when it grew nothing or the backend
                          does not say. For logs only.                                        */
} tsg_done;

/*
 * The at most two sub-problems that finish p after `d`: the rest of the current block row, then
 * every later row. Each is p restricted to a rectangle of C (A, B and C pointers moved, m/n
 * shrunk; lds, transposes, alpha and beta unchanged). Returns how many were written to out[].
 * Reads only d's prefix (bm, bn, blocks, cols), never its parts.
 */
int tsg_done_remaining(const tsg_problem *p, const tsg_done *d, tsg_problem out[2]);

/*
 * The sub-problems that finish p after `d`, parts included: for nparts == 0 those of
 * tsg_done_remaining, otherwise at most two per part. Writes at most `max` to out[] and returns
 * how many there are (a return above max means out[] was too small; 2 * TSG_DONE_MAX_PARTS
 * always suffices).
 */
int tsg_done_remaining_all(const tsg_problem *p, const tsg_done *d, tsg_problem *out, int max);

/*
 * The at most two rectangles of C (rows r0.., columns c0.., relative to p's window) that are final
 * after prefix d in p's m x n window: the complete block rows, then the final start of the
 * current block row. Each is written as {r0, c0, m, n} to out[4 * i]. Returns how many.
 */
int tsg_done_final_rects(const tsg_problem *p, const tsg_done *d, int64_t out[8]);

/* p restricted to rows [r0, r0 + rows) and columns [c0, c0 + cols) of C. */
tsg_problem tsg_problem_window(const tsg_problem *p, int64_t r0, int64_t rows, int64_t c0,
                               int64_t cols);

#define TSG_PLAN_ONE_BLOCK ((int64_t)1 << 20)   /* 4 MiB of C: one block       */
#define TSG_PLAN_BLOCK_AREA ((int64_t)1 << 21)  /* 8 MiB of C per block        */
#define TSG_PLAN_BIG_BLOCK_AREA ((int64_t)1 << 22) /* 16 MiB: C of about 4 such blocks or more */
/* C of at least TSG_PLAN_BIG_MIN_BLOCKS big blocks' area gets big blocks, and a block at most
 * TSG_PLAN_AREA_SLACK over the area is not halved again. v0.4 asked for exactly 4 and no slack:
 * 4095^3 (4095^2 is 8191 floats short of 4 x 2048^2) and numpy's 4096 x 4091 x 4103 (4103 rows
 * halve to 2052, 0.2% over 2048^2) then got 4 x 2 blocks of 1024 x 2048, block-major, and ran in
 * 6.28 and 6.97 ms where 4096^3's 2 x 2 chunk-major plan took 5.14 (v0.5 run 1, pipe_probe,
 * C reused; docs/NOTES.md). 3.5 and 1/64 change no plan of the bench's sweep but those. */
#define TSG_PLAN_BIG_MIN_BLOCKS 3.5
#define TSG_PLAN_AREA_SLACK (1.0 + 1.0 / 64)
#define TSG_PLAN_FIRST_FLOATS ((int64_t)1 << 22) /* first chunk of A and B: 16 MiB (v0.4 run 1:
                                                    8 MiB -> 16 MiB took 8192^3 36.0 -> 33.7 ms,
                                                    4096^3 5.56 -> 5.43; 32 MiB lost at 4096^3) */
/* ... and for C of more than four big blocks (8192^3: kc 1024 -> 2048, 128 launches of 2048 x 2048
 * x 1024 -> 64 of K = 2048). Such plans take chunk-major rounds first (tsg_plan_rounds), so the
 * uploads run ahead of the kernels after the first chunk whatever its size, and each launch's K
 * pays its fill and C's write-back (beta = 1 after the first chunk) half as often: 8192^3 26.23 /
 * 26.33 -> 25.38 / 25.36 ms (v0.10 run 2, pipe_probe, alternating processes); the same doubling
 * for every plan lost at 1024^3 (0.55 / 0.64 -> 0.81 / 0.81) and 2048^3 (docs/NOTES.md "v0.10"). */
#define TSG_PLAN_FIRST_FLOATS_BIG ((int64_t)1 << 23)
#define TSG_PLAN_MIN_KC 256
#define TSG_PLAN_MAX_KC ((int64_t)1 << 20) /* the first-chunk rule bounds it for any block of
                                              more than a few rows; this bounds GEMV-like ones */

#ifdef __cplusplus
}
#endif

#endif /* TSG_PLAN_H */
