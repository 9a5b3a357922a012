/*
 * tsg_dispatch.h — where a legal call runs: the CPU/GPU cost model, the backend table, and the
 * retry on the CPU when the GPU fails.
 *
 * Owns: the decision (a pure predicate over the problem, the knobs and measured rates) and the
 * order of attempts. Must not: know CUDA, dlopen, print or read the environment — backends come
 * in through tsg_backends, so tests inject fakes (a GPU that fails, rates of any machine).
 */
#ifndef TSG_DISPATCH_H
#define TSG_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "tsg_config.h"
#include "tsg_problem.h"

/*
 * Rates measured on the machine at hand (kernels/ measures the GPU side at first GPU use; the
 * shim measures OpenBLAS). Seconds and bytes/flops per second.
 */
typedef struct tsg_rates {
    double h2d_bps;        /* host -> device bytes/s for a call's operands (as the executor copies) */
    double d2h_bps;        /* device -> host bytes/s for C                                     */
    double gpu_flops;      /* kernel flop/s on a large square problem                          */
    double gpu_latency_s;  /* fixed cost of one GPU call (launches, syncs, small copies)      */
    double gpu_tile_m, gpu_tile_n; /* C tile per thread block (0 = ignore wave quantisation)  */
    double gpu_slots;      /* thread blocks resident at once: one wave                       */
    double gpu_split_min_k; /* split-K slice floor of the executor (0 = no split-K)          */
    double cpu_flops;      /* CPU BLAS flop/s at a mid size                                    */
    double cpu_latency_s;  /* fixed cost of one CPU BLAS call                                  */
} tsg_rates;

/*
 * Below this many flops (2*m*n*k) a GPU call cannot win on any machine we know of: one GPU call
 * costs at least two PCIe transfers, a launch and a synchronisation (>= 20 us measured on the
 * H200 host, ../shared/PERF.md), while OpenBLAS does 2*128^3 = 4.2 Mflop in 3.4 us at
 * 1.25 TFLOP/s. Auto mode sends such calls to the CPU without ever creating a CUDA context.
 */
#define TSG_GPU_FLOOR_FLOPS (2.0 * 128.0 * 128.0 * 128.0)

/*
 * The model sends a call to the GPU only when it estimates it at least this much faster: the rates
 * are measured once, in a few ms, and a 10% error must not move a call to the slower side
 * (8192 x 8192 x 256 measured 0.62x of OpenBLAS on the GPU when the estimates were close).
 */
#define TSG_GPU_MARGIN 0.9

typedef enum tsg_why {
    TSG_WHY_MODE_CPU = 0,   /* TSGEMM_MODE=cpu                                       */
    TSG_WHY_MODE_GPU,       /* TSGEMM_MODE=gpu                                       */
    TSG_WHY_TINY,           /* below TSG_GPU_FLOOR_FLOPS                             */
    TSG_WHY_NO_GPU,         /* no usable GPU (absent, init failed, disabled, forked)  */
    TSG_WHY_THRESHOLD_CPU,  /* TSGEMM_GPU_THRESHOLD says CPU                         */
    TSG_WHY_THRESHOLD_GPU,  /* TSGEMM_GPU_THRESHOLD says GPU                         */
    TSG_WHY_MODEL_CPU,      /* cost model: OpenBLAS is estimated faster              */
    TSG_WHY_MODEL_GPU,      /* cost model: the GPU is estimated faster               */
    TSG_WHY_COUNT
} tsg_why;

const char *tsg_why_text(tsg_why why);

/*
 * Estimated seconds of one call on each side (tsg_wants_gpu's model, exposed for logs/tests).
 * GPU: latency + bytes in / h2d + bytes out / d2h + kernel, where the kernel runs
 * ceil(tiles / slots) waves, each as long as a full wave of tile_m x tile_n x k blocks takes at
 * gpu_flops (gpu_flops is the full-wave rate). Small C grids thus pay for a whole wave, which is
 * what makes a 512 x 512 problem slower per flop than 4096 x 4096 on the GPU — unless the
 * executor splits K (grids of <= slots/2 tiles, slices >= split_min_k), which the model mirrors:
 * tiles * splits units of k/splits each. CPU: latency +
 * flops / cpu_flops.
 */
double tsg_estimate_gpu_s(const tsg_problem *p, const tsg_rates *r);
double tsg_estimate_cpu_s(const tsg_problem *p, const tsg_rates *r);

/*
 * Pure decision for a legal problem that needs computing, given the knobs and the GPU state:
 * gpu_usable = 1 with measured rates (r != NULL); gpu_usable = 0 when there is none.
 * Returns 1 for GPU, 0 for CPU, and the reason in *why.
 */
int tsg_wants_gpu(const tsg_problem *p, const tsg_policy *cfg, int gpu_usable,
                  const tsg_rates *r, tsg_why *why);

/* True when the decision may need the GPU, i.e. it is worth initialising one for this call. */
int tsg_may_want_gpu(const tsg_problem *p, const tsg_policy *cfg);

typedef struct tsg_backends {
    /* Makes the GPU usable (once per process; later calls return the cached answer) and fills
     * *rates. Returns 1 when a GPU can take calls now, 0 otherwise. */
    int (*gpu_ready)(void *ctx, tsg_rates *rates);
    /* Runs p on the GPU. 0 = done (C holds the result). Nonzero = failed: columns
     * [*done_cols, n) of C are the caller's original values and [0, *done_cols) are final (the
     * backend writes C only from completed device work). msg: the reason. */
    int (*gpu_sgemm)(void *ctx, const tsg_problem *p, int64_t *done_cols, char *msg,
                     size_t msglen);
    /* Runs p on the CPU BLAS; cannot fail. */
    void (*cpu_sgemm)(void *ctx, const tsg_problem *p);
    void *ctx;
} tsg_backends;

typedef enum tsg_path {
    TSG_PATH_NONE = 0,  /* finished by the scalar rules */
    TSG_PATH_GPU,
    TSG_PATH_CPU,
    TSG_PATH_CPU_RETRY  /* the GPU failed, the CPU redid what the GPU had not finished */
} tsg_path;

typedef struct tsg_report {
    tsg_rule rule;
    tsg_path path;
    tsg_why why;
    int gpu_status;  /* gpu_sgemm's return value when it was tried, else 0 */
    int64_t gpu_done_cols; /* on a failed GPU attempt: leading columns of C already final */
    char msg[256];   /* gpu_sgemm's reason when it failed */
} tsg_report;

/*
 * Runs a legal problem: scalar rules first (no backend sees alpha = 0, k = 0 or an empty C),
 * then the decision, then the GPU with a CPU retry on failure, or the CPU.
 */
void tsg_run(const tsg_problem *p, const tsg_policy *cfg, const tsg_backends *be, tsg_report *rep);

#endif /* TSG_DISPATCH_H */
