/*
 * tsg_multi.h — one call over several device slots (TSGEMM_DEVICE=0,1 / all / 0,0): how C is cut
 * into one panel per device, how many devices a call should use, and what happens when a device
 * fails half-way (its unfinished panel goes to the devices that finished theirs, else to the CPU).
 *
 * Owns: the panel split, the count rule (size floor and cost model), and the orchestration of the
 * rounds and of the report of what is final (tsg_done parts, src/tsg_plan.h). Must not: know CUDA,
 * threads, print, or depend on load: the executor (gpu/tsg_devices.cu) runs the tasks of a round
 * concurrently through a callback, unit tests run them on fake devices (tests/unit/test_multi.c).
 *
 * A device "slot" is an entry of the TSGEMM_DEVICE list; the same GPU may be listed twice ("0,0"),
 * which runs exactly this code on one GPU (two pipelines, two workspaces, one GPU).
 */
#ifndef TSG_MULTI_H
#define TSG_MULTI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* gpu/tsg_devices.cu runs the rounds */
#endif

#include "tsg_config.h"
#include "tsg_cost.h"
#include "tsg_plan.h"
#include "tsg_problem.h"

/*
 * A panel's floor: below these, a panel's pipeline is mostly fixed costs (the first piece's
 * upload, the call's latency, a thread and a workspace of its own), so a call is never split into
 * panels smaller than this, whatever the mode. 2 * 1024^3 flops is about 1 ms on one H200
 * (tests/gpu/pipe_probe, 1024^3: 1.00 ms, v0.3 run 3), and 1024 x 1024 of C is the plan's
 * one-block threshold (TSG_PLAN_ONE_BLOCK): a smaller C does not even pipeline its download.
 */
#define TSG_MULTI_MIN_PANEL_FLOPS (2.0 * 1024.0 * 1024.0 * 1024.0)
#define TSG_MULTI_MIN_PANEL_AREA ((double)TSG_PLAN_ONE_BLOCK)

/* Fixed cost the model charges each device beyond the first: a host thread started per call and
 * a second workspace's synchronisation. A guess, not a measurement (to be measured with the first
 * multi-GPU machine); it matters only near the panel floors. */
#define TSG_MULTI_DEVICE_S 50e-6

/* Several devices are used only when the model says they are at least this much faster than one
 * (their estimates are less tested than the one-device model's: a wider margin than
 * TSG_GPU_MARGIN). */
#define TSG_MULTI_MARGIN 0.9

typedef struct tsg_multi_panel {
    int64_t r0, c0, m, n; /* the panel's window of C */
    int slot;             /* device slot (index into the TSGEMM_DEVICE list)              */
} tsg_multi_panel;

typedef struct tsg_multi_split {
    int by_cols; /* 1: panels are column ranges of C (each device reads all of A),
                    0: row ranges (each device reads all of B)                          */
    int count;   /* panels, 1..TSG_MAX_DEVICES; tsg_multi_split_make sets panel[i].slot = i,
                    the executor maps it to the i-th slot still usable                     */
    tsg_multi_panel panel[TSG_MAX_DEVICES];
} tsg_multi_split;

/* The kernel's C tile (panel edges are multiples of it, so each panel's tile grid is the one the
 * whole call would have had there). */
typedef struct tsg_multi_limits {
    int64_t tile_m, tile_n;
} tsg_multi_limits;

/*
 * Splits legal problem p (m, n, k > 0) over at most `ndev` slots (1..TSG_MAX_DEVICES).
 * The panels are column ranges of C when m <= n (so A, the smaller of the two operands, is the one
 * every device reads), row ranges otherwise; each panel's edge along the cut is a multiple
 * of the tile (tile_n for columns, tile_m for rows) except the last one, which ends at n (m).
 * weights (NULL: all equal) are relative speeds of the slots: tiles are shared in proportion,
 * largest remainders first, ties to the lower slot. Fewer panels than ndev when the panels would
 * fall below TSG_MULTI_MIN_PANEL_FLOPS or TSG_MULTI_MIN_PANEL_AREA, or there are fewer tiles than
 * slots; one panel (the whole of C, slot 0) for small problems. A pure function of its arguments.
 * Returns out->count.
 */
int tsg_multi_split_make(const tsg_problem *p, int ndev, const double *weights,
                         const tsg_multi_limits *lim, tsg_multi_split *out);

/*
 * Estimated seconds of p over the panels of `s` (the model of tsg_estimate_gpu_s per panel, the
 * panels running at once), at least the host's share: every panel's pipeline gathers its operands
 * through the one host (copy threads, memory bandwidth), so all of the bytes of all panels move at
 * no more than the one-device pipeline rates r->h2d_bps / r->d2h_bps — conservative: on the H200
 * host those rates are set by host copies, not by one PCIe link (docs/PERF.md) — plus
 * TSG_MULTI_DEVICE_S per extra device.
 */
double tsg_estimate_multi_gpu_s(const tsg_problem *p, const tsg_rates *r,
                                const tsg_multi_split *s);

/*
 * How many of `ndev` slots call p should use: with rates (r != NULL, usable), the count d in
 * 1..ndev whose split tsg_estimate_multi_gpu_s estimates fastest, taken only when it beats one
 * device by TSG_MULTI_MARGIN (ties: fewer devices); without rates (TSGEMM_MODE=gpu,
 * TSGEMM_GPU_THRESHOLD), as many as tsg_multi_split_make allows. *est (may be NULL) receives the
 * chosen estimate (0 without rates). 1 for ndev <= 1.
 */
int tsg_multi_devices(const tsg_problem *p, int ndev, const tsg_rates *r,
                      const tsg_multi_limits *lim, double *est);

/* The status that poisons a device's context (TSG_GPU_EFATAL of gpu/tsg_gpu.h, which src/
 * does not include; gpu/tsg_device.cu checks that the two agree). */
#define TSG_MULTI_FATAL (-4)

/* One sub-problem of a round, run by one device slot. */
typedef struct tsg_multi_task {
    tsg_problem p;  /* p restricted to the task's window of C                                 */
    int64_t r0, c0; /* the window's corner in the call's C                                   */
    int slot;       /* the device slot that runs it                                          */
    int planned;    /* 1: plan is the pipeline's plan of p (tsg_plan_make under the run's
                       limits); 0: not even its smallest pieces fit the device budget        */
    tsg_plan plan;
    int status;     /* out: 0, or the backend's negative status                               */
    tsg_done done;  /* out on failure: what is final in the window (a one-device prefix)       */
    char msg[160];  /* out on failure: the reason                                            */
} tsg_multi_task;

/* Runs tasks[0..count) — each on its slot, at once or in any order — and fills their status,
 * done and msg. Tasks never overlap in C. */
typedef void (*tsg_multi_round_fn)(void *ctx, tsg_multi_task *tasks, int count);

/* What tsg_multi_run did, for counters and logs. */
typedef struct tsg_multi_stats {
    int failed;    /* panels whose device failed in the first round                  */
    int handed;    /* sub-problems handed to another device in the second round      */
    int to_cpu;    /* sub-problems left for the CPU (nothing healthy, or it failed too) */
} tsg_multi_stats;

/*
 * Runs p over split s (s->count >= 1), each task planned under `plan_limits` (src/tsg_plan.h:
 * what one pipelined call on one device may take; the executor only runs the plans): round 1
 * runs every panel on its slot; every panel that
 * failed leaves at most two unfinished rectangles (tsg_done_remaining), handed round-robin, in
 * panel order, to the slots whose panel succeeded (round 2, at once); whatever is still not final
 * — nothing healthy was left, or a round-2 task failed too — is left to the caller's CPU retry.
 * tasks: caller's scratch of at least 3 * s->count entries (large: allocate it).
 * Returns 0 when all of C is final; otherwise the status of the failure that left work behind
 * (TSG_GPU_EFATAL-like -4 wins over others, so a poisoned context is never hidden), its reason in
 * msg, and *done (nparts > 0) says exactly which parts of C are final: everything else still
 * holds the caller's values. Never writes C itself.
 */
int tsg_multi_run(const tsg_problem *p, const tsg_multi_split *s, const tsg_plan_limits *plan_limits,
                  tsg_multi_round_fn round, void *ctx, tsg_multi_task *tasks, tsg_done *done,
                  tsg_multi_stats *st, char *msg, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TSG_MULTI_H */
