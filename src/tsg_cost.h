/*
 * tsg_cost.h — the cost model: estimated seconds of one call on the CPU BLAS and on one GPU
 * through the transfer pipeline, from rates measured on the machine at hand.
 *
 * Owns: the rates' meaning and the estimates. Must not: decide (src/tsg_dispatch.h does, and
 * src/tsg_multi.h prices several GPUs from these one-GPU estimates), know CUDA, print or read the
 * environment. Its own unit so that the decision and the several-GPU split can both use it
 * without including each other.
 */
#ifndef TSG_COST_H
#define TSG_COST_H

#include "tsg_plan.h"
#include "tsg_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Rates measured on the machine at hand (kernels/ measures the GPU side at first GPU use; the
 * shim measures OpenBLAS). Seconds and bytes/flops per second.
 */
typedef struct tsg_rates {
    double h2d_bps;        /* host -> device bytes/s through the pipeline (pageable user memory,
                              copy threads, pinned staging, DMA), sustained                    */
    double d2h_bps;        /* device -> host bytes/s through the pipeline, sustained           */
    double gpu_flops;      /* kernel flop/s on a large square problem                          */
    double gpu_latency_s;  /* fixed cost of one pipelined GPU call (set-up, launches, syncs, the
                              ring's fill and drain): a 512^3 call less its bytes at the rates */
    double gpu_tile_m, gpu_tile_n; /* C tile per thread block (0 = ignore wave quantisation)  */
    double gpu_slots;      /* thread blocks resident at once: one wave                       */
    double gpu_split_min_k; /* split-K slice floor of the executor (0 = no split-K)          */
    double gpu_device_bytes; /* device memory one call may hold (the pipeline's plan budget)  */
    double cpu_flops;      /* CPU BLAS flop/s of a TSG_CPU_BIG_N^3 call (a median)             */
    double cpu_latency_s;  /* fixed cost of one CPU BLAS call                                  */
    double gpu_count;      /* device slots a call may be split over (TSGEMM_DEVICE list,
                              src/tsg_multi.h); 0 or 1: one. The GPU rates are one
                              device's (the first), taken to hold for every slot          */
    double cpu_mid_s;      /* seconds of one TSG_CPU_MID_N^3 CPU BLAS call (a median); 0 =
                              not measured: the CPU estimate is then latency + flops / cpu_flops */
} tsg_rates;

/* The sizes of the CPU BLAS measurement (shim/tsg_cpublas.c tsg_cpu_measure): cpu_mid_s is a
 * TSG_CPU_MID_N^3 call, cpu_flops the rate of a TSG_CPU_BIG_N^3 one. */
#define TSG_CPU_MID_N 512
#define TSG_CPU_BIG_N 1024

/* Gap between two back-to-back launches of the pipeline on one stream (H200: 2-4 us). */
#define TSG_GPU_LAUNCH_S 3e-6

/*
 * Estimated seconds of one call on each side (tsg_wants_gpu's model, exposed for logs/tests).
 * GPU: the pipeline of src/tsg_plan.h overlaps uploads, kernels and downloads, so a call costs
 *   latency + first piece up + max(all up, all kernels, all down) + last block down
 * where bytes count only host operands (A and B at their extents, C down; C never goes up: the
 * scatters apply beta != 0 on the host),
 * and the kernels are the plan's launches: each runs ceil(units / slots) waves of
 * tile_m x tile_n x split_kc blocks at gpu_flops (the full-wave rate), units = tiles of the block
 * times its split-K slices, plus TSG_GPU_LAUNCH_S per launch. Small C grids thus pay for a whole
 * wave unless the plan splits K, as the executor does.
 * CPU: with cpu_mid_s, piecewise linear in the call's flops through (0, cpu_latency_s),
 *   (TSG_CPU_MID_N^3's flops, cpu_mid_s) and (TSG_CPU_BIG_N^3's, their time at cpu_flops), and
 *   flops / cpu_flops above that; without it latency + flops / cpu_flops. OpenBLAS's threaded
 *   calls have a fixed cost of their own: at 512^3 it ran at 0.37 TFLOP/s where 1024^3's best ran
 *   at 0.92, so the one-rate model priced a 512^3 call at 0.29 ms that took 0.66-0.72 and kept it
 *   from a GPU that took 0.38 (docs/NOTES.md "v0.9", run 3).
 */
double tsg_estimate_gpu_s(const tsg_problem *p, const tsg_rates *r);
double tsg_estimate_cpu_s(const tsg_problem *p, const tsg_rates *r);

#ifdef __cplusplus
}
#endif

#endif /* TSG_COST_H */
