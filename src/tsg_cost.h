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
    double gpu_flops;      /* NN kernel flop/s on a large square problem (the full-wave rate) */
    double gpu_latency_s;  /* fixed cost of one pipelined GPU call (set-up, launches, syncs, the
                              ring's fill and drain): fitted so that the model prices a
                              TSG_GPU_FIT_N^3 call at its measured time (tsg_fit_gpu_latency) */
    double gpu_tile_m, gpu_tile_n; /* NN's C tile per thread block (0 = ignore wave
                                      quantisation)                                          */
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
    double cpu_small_s;    /* seconds of one TSG_CPU_SMALL_N^3 CPU BLAS call (a mean less the
                              slowest call, see TSG_CPU_SMALL_N); 0 = not measured: the CPU
                              estimate is then linear from (0, latency) to the TSG_CPU_MID_N^3 point */
    double cpu_touch_bps;  /* bytes/s of the first touch of fresh anonymous memory by the CPU
                              BLAS's threads at once, each its own part (page faults, zeroing,
                              4 KiB pages; shim/tsg_cpublas.h tsg_cpu_measure); 0 = not
                              measured: a fresh C costs nothing extra (tsg_first_touch_s)     */
    double cpu_thin_m_s;   /* seconds of one CPU BLAS call with m thin: TSG_CPU_THIN x
                              TSG_CPU_THIN_LONG x TSG_CPU_THIN_LONG (a median); 0 = not measured */
    double cpu_thin_n_s;   /* the same with n thin: TSG_CPU_THIN_LONG x TSG_CPU_THIN x
                              TSG_CPU_THIN_LONG                                               */
    /* The kernel figures of the other transpose pairs, as gpu_flops, gpu_tile_m and gpu_tile_n
     * are NN's: element pair - 1, pair = tsg_problem_pair (src/tsg_problem.h) of the call's
     * tsg_problem (column-major, as src/tsg_dispatch.c call_limits numbers them): [0] TN
     * (A transposed), [1] NT (B transposed), [2] TT. Each 0 = not measured: NN's figure stands
     * for it (tsg_gpu_kernel_of). */
    double gpu_pair_flops[3];
    double gpu_pair_tile_m[3], gpu_pair_tile_n[3];
} tsg_rates;

/* The kernel figures the model prices call p with: its transpose pair's full-wave rate and C
 * tile (tsg_rates.gpu_pair_*), NN's (gpu_flops, gpu_tile_m, gpu_tile_n) where the pair's is 0. */
typedef struct tsg_gpu_kernel {
    double flops, tile_m, tile_n;
} tsg_gpu_kernel;
tsg_gpu_kernel tsg_gpu_kernel_of(const tsg_problem *p, const tsg_rates *r);

/* The sizes of the CPU BLAS measurement (shim/tsg_cpublas.c tsg_cpu_measure): cpu_mid_s is a
 * TSG_CPU_MID_N^3 call, cpu_flops the rate of a TSG_CPU_BIG_N^3 one. */
#define TSG_CPU_MID_N 512
#define TSG_CPU_BIG_N 1024

/*
 * The crossover's size. On the H200 host a 256^3 call takes about as long on either side (v0.11
 * runs 1-4: OpenBLAS, 16 threads, 0.12-0.17 ms; the pipelined GPU call 0.12-0.14), so both sides
 * are measured there rather than extrapolated: cpu_small_s is a TSG_CPU_SMALL_N^3 CPU call and
 * the GPU's fixed cost is fitted to a TSG_GPU_FIT_N^3 pipelined call. Both are priced as the mean
 * of their calls less the slowest one, not the median: what a caller pays over many calls is the
 * mean, and at this size OpenBLAS's times are wide and skewed (run 4's auto column on the CPU:
 * 0.102-0.276 ms over 7 calls, median 0.149) where the median under-prices the CPU and sent the
 * call there at 1.24x the GPU's time. Before v0.12 the CPU side was a straight line from the 8^3
 * call to 512^3 (0.049 ms at 256^3) and the GPU's fixed cost came from a 512^3 call whose kernel
 * the model then counted again (0.169 ms at 256^3; docs/NOTES.md "v0.12").
 */
#define TSG_CPU_SMALL_N 256
#define TSG_GPU_FIT_N 256

/*
 * Thin calls. OpenBLAS runs a call with m or n small far below the rate of a square one of the
 * same flops: on the H100 host (16 threads) 5312 x 64 x 2816 NT took 10.2 ms (0.19 TFLOP/s)
 * where the square curve says 2.0, and 42 x 10000 x 256 took 2.5 ms for 0.4 (the device replays
 * of reference LAPACK's spotrf and scikit-learn's PCA, docs/NOTES.md "2026-12-05 real
 * programs"); a small k costs it nothing (3968 x 3968 x 64: 1.07 TFLOP/s). So the shim times one
 * call with m = TSG_CPU_THIN and one with n = TSG_CPU_THIN (the other two sizes
 * TSG_CPU_THIN_LONG), and the CPU estimate of a call is the square curve's times a thinness
 * factor: the measured call over the curve's estimate of its flops (never below 1) when m or n
 * is at most TSG_CPU_THIN, falling geometrically to 1 at TSG_CPU_WIDE. m and n are each thin
 * against the larger of the other two sizes (at least TSG_CPU_WIDE), and a call thin in both
 * pays both factors, in calls of at least TSG_CPU_SMALL_N^3's flops. The honest replays of
 * run 30 (H100, docs/results/h100-2026-12-06-run30.txt) had OpenBLAS at 0.98 ms for spotrf's
 * 64 x 64 x 8064 NT (GPU 0.39), 2.18 ms for PCA's 42 x 256 x 10000 (GPU 0.76) and 0.52 ms for
 * 8064 x 64 x 64 (GPU 0.43), all of which the curve alone priced at 0.14-0.35 ms; 1500 x 8 x 1500
 * (0.27 ms, GPU 0.39) is priced 0.24. Square calls, k-thin calls (3968 x 3968 x 64, 512 x 512 x
 * 32) and smaller calls keep the curve.
 */
#define TSG_CPU_THIN 64
#define TSG_CPU_THIN_LONG 2048
#define TSG_CPU_WIDE 512

/* Gap between two back-to-back launches of the pipeline on one stream (H200: 2-4 us). */
#define TSG_GPU_LAUNCH_S 3e-6

/*
 * Estimated seconds of one call on each side (tsg_wants_gpu's model, exposed for logs/tests).
 * GPU: the pipeline of src/tsg_plan.h overlaps uploads, kernels and downloads, so a call costs
 *   latency + first piece up + max(all up, all kernels, all down) + last block down
 * where bytes count only host operands (A and B as rows x cols: the gaps of a leading dimension
 * larger than the rows never move; C down; C never goes up: the scatters apply beta != 0 on the
 * host),
 * and the kernels are the plan's launches: each runs ceil(units / slots) waves of
 * tile_m x tile_n x split_kc blocks at the full-wave rate, units = tiles of the block times its
 * split-K slices, plus TSG_GPU_LAUNCH_S per launch; rate and tile are the call's transpose
 * pair's (tsg_gpu_kernel_of), and the plan is made with that tile, as the executor makes it.
 * Small C grids thus pay for a whole wave unless the plan splits K, as the executor does.
 * CPU: with cpu_mid_s, piecewise linear in the call's flops through (0, cpu_latency_s),
 *   (TSG_CPU_SMALL_N^3's flops, cpu_small_s) when measured, (TSG_CPU_MID_N^3's, cpu_mid_s) and
 *   (TSG_CPU_BIG_N^3's, their time at cpu_flops), and flops / cpu_flops above that; each point
 *   no slower than the next (a slower one is a bad measurement); without cpu_mid_s latency +
 *   flops / cpu_flops; then times the thinness factor (TSG_CPU_THIN). OpenBLAS's threaded
 *   calls have a fixed cost of their own: at 512^3 it ran at 0.37 TFLOP/s where 1024^3's best ran
 *   at 0.92, so the one-rate model priced a 512^3 call at 0.29 ms that took 0.66-0.72 and kept it
 *   from a GPU that took 0.38 (docs/NOTES.md "v0.9", run 3).
 */
double tsg_estimate_gpu_s(const tsg_problem *p, const tsg_rates *r);
double tsg_estimate_cpu_s(const tsg_problem *p, const tsg_rates *r);

/*
 * The first touch of a fresh C (p->fresh_c, host memory, beta = 0: the result lands in pages the
 * process has never written): seconds of faulting C's extent in at cpu_touch_bps, or 0 when C is
 * not fresh, not host memory, beta != 0 (the program wrote C before, so its pages are in), or the
 * rate was not measured. Both sides pay it, differently:
 *   CPU: added to the estimate — OpenBLAS's threads fault the pages as they write C, inside the
 *        call (the rates above were measured on a reused C, so they leave it out);
 *   GPU: added to the pipeline's upload side, inside the max() of tsg_estimate_gpu_s — the copy
 *        threads first-touch C (gpu/tsg_copy.c, MADV_POPULATE_WRITE) beside their gathers,
 *        while the kernels run; it shows only where the host side is the bottleneck.
 * Both at the same rate, the BLAS's threads touching at once: the copy threads touch in parallel
 * parts too, with huge pages where the kernel gives them. Until the eighteenth session the rate
 * was one thread's, and it priced a fresh 64 MiB C at ~25 ms on both sides, where numpy's plain
 * product with one took 3.9 ms in all and the GPU's 4096 x 4096 x 512 with one 3.8 ms (H100 runs
 * 60, 30): the GPU's estimate 7.6x its time, squeezing the ratio toward 1, where the own-pool
 * margin (tsg_dispatch.h) then kept a call the GPU won by 10x (docs/NOTES.md "eighteenth
 * session: the replays stand for the programs' own BLAS").
 */
double tsg_first_touch_s(const tsg_problem *p, const tsg_rates *r);

/*
 * The GPU's fixed cost (seconds) that makes tsg_estimate_gpu_s price an NN n^3 call on host
 * memory (A, B, C packed, beta = 0) at call_s, its measured time: call_s less the model's other
 * terms under r's rates (r->gpu_latency_s is ignored), and never below floor_s (the time of a
 * call too small to move or compute anything that counts; kernels/ measures a 64^3 one). So the
 * model is exact at the size where the decision is closest (TSG_GPU_FIT_N) and whatever the
 * kernel and transfer terms get wrong there is absorbed instead of counted twice.
 */
double tsg_fit_gpu_latency(const tsg_rates *r, int64_t n, double call_s, double floor_s);

/*
 * How the crossover's calls are priced on both sides (TSG_CPU_SMALL_N, TSG_GPU_FIT_N): the mean of
 * n >= 2 call times t[] (seconds) less the slowest one. Reorders t. n < 2: t[0] (or 0 for n = 0).
 */
double tsg_mean_less_slowest(double *t, int n);

#ifdef __cplusplus
}
#endif

#endif /* TSG_COST_H */
