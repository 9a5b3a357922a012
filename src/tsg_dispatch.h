/*
 * tsg_dispatch.h — where a legal call runs: the CPU/GPU decision over the cost model
 * (src/tsg_cost.h, and src/tsg_multi.h for several GPUs), the backend table, and the retry on the
 * CPU when the GPU fails.
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
#include "tsg_cost.h"
#include "tsg_multi.h"
#include "tsg_plan.h"
#include "tsg_problem.h"

/*
 * Below this many flops (2*m*n*k) a GPU call cannot win on any machine we know of: one GPU call
 * costs at least two PCIe transfers, a launch and a synchronisation (>= 20 us measured on the
 * H200 host, docs/PERF.md), while OpenBLAS does 2*128^3 = 4.2 Mflop in 3.4 us at
 * 1.25 TFLOP/s. Auto mode sends such calls to the CPU without ever creating a CUDA context.
 */
#define TSG_GPU_FLOOR_FLOPS (2.0 * 128.0 * 128.0 * 128.0)

/*
 * The model sends a call to the GPU only when it estimates it at least this much faster (GPU
 * time < TSG_GPU_MARGIN x CPU time). The two estimates come from different conditions: the CPU
 * BLAS's rates are timed back to back (its worker threads spinning between calls: its best case,
 * shim/tsg_cpublas.c tsg_cpu_measure), the GPU's in a quiet process (no worker spinning beside
 * the copy threads: its best case). In a program the GPU call often follows a CPU BLAS call, and
 * then runs 1.04-1.36x its time alone (H100 runs 85-86, a 1024^3 OpenBLAS call right before;
 * 1.00-1.13x on the H200, run 71), while a call kept on the CPU costs what OpenBLAS alone costs:
 * a close call is safer on the CPU. Run 86's sweep without pauses sent 256^3, priced at 0.956x
 * the CPU's time (GPU 136 us against 142), to the GPU, where it took 0.156-0.171 ms against
 * OpenBLAS's 0.127-0.135 (1.30x; docs/NOTES.md "2026-12-07 twenty-fourth session"). 0.9 keeps
 * such calls on the CPU and gives up at most 1/0.9 = 1.11x where the GPU would have won alone.
 */
#define TSG_GPU_MARGIN 0.9

/*
 * The margin for a call whose CPU side is the caller's own BLAS (tsg_problem.own_pool: the
 * OpenBLAS a numpy or scipy wheel brings, behind its own names): the GPU is chosen only when it is
 * estimated at least twice as fast. That library's worker threads spin for about 0.1 s after each
 * of the program's own BLAS calls (dgemm, dot, ...), which tsgemm neither sees nor can quiet
 * (docs/NOTES.md "2026-12-05 traces"), and a GPU call's copy threads then share the CPUs with them.
 * Measured: numpy's tall `a @ b` (65536 x 256 x 64, a new C per call), priced at 0.94x the CPU's
 * time (both estimates then dominated by the new C's first touch at one thread's rate, which neither
 * side pays in full), ran 1.87x (H100 run 29) and 2.13x (H100 run 60) slower on the GPU than plain,
 * 2.9x the pipeline's own 2.84 ms for it; beside tsgemm's own pool right after a 1024^3 call, GPU
 * calls ran 1.04-1.19x their time alone (run 60). The factor of two keeps that call, and calls
 * priced as close, on the CPU; it is not a bound: a call priced at 0.45 could still run slower on
 * the GPU beside a spinning pool. The CPU side of such a call is the program's own library, so
 * keeping a close call there is never slower than the program without tsgemm.
 */
#define TSG_GPU_MARGIN_OWN_POOL 0.5

/* the margin for p (TSG_GPU_MARGIN, or TSG_GPU_MARGIN_OWN_POOL for the caller's own BLAS) */
static inline double tsg_gpu_margin(const tsg_problem *p)
{
    return p->own_pool ? TSG_GPU_MARGIN_OWN_POOL : TSG_GPU_MARGIN;
}


typedef enum tsg_why {
    TSG_WHY_MODE_CPU = 0,   /* TSGEMM_MODE=cpu                                       */
    TSG_WHY_MODE_GPU,       /* TSGEMM_MODE=gpu                                       */
    TSG_WHY_TINY,           /* below TSG_GPU_FLOOR_FLOPS                             */
    TSG_WHY_NO_GPU,         /* no usable GPU (absent, init failed, disabled, forked)  */
    TSG_WHY_THRESHOLD_CPU,  /* TSGEMM_GPU_THRESHOLD says CPU                         */
    TSG_WHY_THRESHOLD_GPU,  /* TSGEMM_GPU_THRESHOLD says GPU                         */
    TSG_WHY_MODEL_CPU,      /* cost model: OpenBLAS is estimated faster              */
    TSG_WHY_MODEL_GPU,      /* cost model: the GPU is estimated faster               */
    TSG_WHY_DEVICE_OPERAND, /* an operand is device memory: only the GPU can run it  */
    TSG_WHY_WARMING,        /* the model said GPU, but the GPU's first workspace is still being
                               pinned (tsg_gpu_limits.warming) and the CPU is faster than the
                               wait plus the GPU: the CPU takes the call                      */
    TSG_WHY_OWN_POOL,       /* the GPU is estimated faster by TSG_GPU_MARGIN but not by
                               TSG_GPU_MARGIN_OWN_POOL, and the CPU side is the caller's own
                               BLAS (tsg_problem.own_pool): the CPU takes the call            */
    TSG_WHY_COUNT
} tsg_why;

const char *tsg_why_text(tsg_why why);


/*
 * The GPU side's estimate as the decision uses it: one device (tsg_estimate_gpu_s), or with
 * gpu_count > 1 the best split over the device slots (src/tsg_multi.h, tsg_multi_devices).
 */
double tsg_estimate_gpus_s(const tsg_problem *p, const tsg_rates *r);

/*
 * Pure decision for a legal problem that needs computing, given the knobs and the GPU state:
 * gpu_usable = 1 with measured rates (r != NULL); gpu_usable = 0 when there is none.
 * Returns 1 for GPU, 0 for CPU, and the reason in *why.
 * It must stay a function of these arguments only, never of earlier calls' times: a process's
 * repeated calls, from any number of threads, then run on one side and give bit-identical
 * results (docs/TESTING.md fault classes 16 and 20; v0.12's learning of close calls broke
 * that and was removed, docs/NOTES.md "v0.13").
 */
int tsg_wants_gpu(const tsg_problem *p, const tsg_policy *cfg, int gpu_usable,
                  const tsg_rates *r, tsg_why *why);

/* True when the decision may need the GPU, i.e. it is worth initialising one for this call. */
int tsg_may_want_gpu(const tsg_problem *p, const tsg_policy *cfg);

/* What the GPU backend can give one call now (the executor answers: gpu/tsg_gpu.h
 * tsg_gpu_get_limits; tests answer for fake devices). */
typedef struct tsg_gpu_limits {
    tsg_plan_limits plan; /* a call through the pipeline on one device (src/tsg_plan.h)        */
    int devices;          /* device slots one call may be split over now (<= 1: one device)    */
    int warming;          /* 1 while the GPU's first workspace is pinned in the background after
                             the start (gpu/tsg_gpu.h tsg_gpu_warm): a GPU call waits for it      */
    double warm_left_s;   /* while warming: the seconds it is expected to take still (> 0)     */
    int64_t tc_tile[2][4][2]; /* the tensor-core family's C tile, rows x columns of the call's C,
                             per math (0: TSG_MATH_3XTF32, 1: TSG_MATH_TF32) and pair (1 for
                             transa 'T' + 2 for transb 'T'); 0 where the family is not available.
                             A call of that math plans its blocks and split-K with it
                             (tsg_gpu_work_make), so that a split fills the GPU with the tiles
                             that really run (1xTF32's NN and TN 128 x 256, its TT 256 x 128:
                             half as many tiles as the FP32 kernels' 128 x 128) */
} tsg_gpu_limits;

/* How a GPU call runs. */
typedef enum tsg_gpu_how {
    TSG_GPU_IN_PLACE = 0, /* on the operands where they are: every operand device or managed
                             memory and C device memory (or managed with beta = 0: a half-written
                             C cannot mislead a retry), or only the scalar rules on a device C    */
    TSG_GPU_PIPELINE,     /* on one device, host operands through the transfer pipeline (plan)  */
    TSG_GPU_PANELS        /* over several devices: split's panels, each a pipelined call        */
} tsg_gpu_how;

/* The work dispatch hands the GPU backend with the problem: decided and planned here, once, so
 * that the executor only runs it. */
typedef struct tsg_gpu_work {
    tsg_gpu_how how;
    tsg_plan_limits limits; /* the limits `plan` and the panels' plans (tsg_multi_run) are made
                               with                                                            */
    int planned;            /* TSG_GPU_PIPELINE: 1 when `plan` is p's plan; 0 when not even its
                               smallest pieces fit the device budget (the backend then fails
                               the call with out-of-memory, and the CPU redoes it)             */
    tsg_plan plan;
    tsg_multi_split split;  /* TSG_GPU_PANELS: the panels, panel i on the i-th live slot         */
} tsg_gpu_work;

/*
 * The GPU work of legal problem p under lim: TSG_GPU_IN_PLACE as said there; TSG_GPU_PANELS when
 * lim->devices > 1, p is a real product (k > 0, alpha != 0) with every operand in host memory,
 * and the count rule of src/tsg_multi.h (tsg_multi_devices, with rates r when usable, else the
 * panel floors alone) and tsg_multi_split_make give several panels; otherwise TSG_GPU_PIPELINE
 * with tsg_plan_make's plan under lim->plan, its tile replaced by lim->tc_tile's for a call of a
 * tensor-core math where that tile is known. A pure function of its arguments.
 */
void tsg_gpu_work_make(const tsg_problem *p, const tsg_gpu_limits *lim, const tsg_rates *r,
                       tsg_gpu_work *out);

typedef struct tsg_backends {
    /* Makes the GPU usable (once per process; later calls return the cached answer) and fills
     * *rates and *lim (what a call may get now). Returns 1 when a GPU can take calls now, 0
     * otherwise (*lim then unused). */
    int (*gpu_ready)(void *ctx, tsg_rates *rates, tsg_gpu_limits *lim);
    /* Runs p on the GPU as `work` (tsg_gpu_work_make) says. 0 = done (C holds the result).
     * Nonzero = failed: *done says which part of C is final (tsg_plan.h); the rest holds the
     * caller's original values (the backend writes C only from completed device work). msg: the
     * reason. Also takes the scalar-rule cases (alpha = 0 or k = 0) when C is device memory. */
    int (*gpu_sgemm)(void *ctx, const tsg_problem *p, const tsg_gpu_work *work, tsg_done *done,
                     char *msg, size_t msglen);
    /* Runs p on the CPU BLAS; cannot fail. */
    void (*cpu_sgemm)(void *ctx, const tsg_problem *p);
    void *ctx;
} tsg_backends;

typedef enum tsg_path {
    TSG_PATH_NONE = 0,  /* finished by the scalar rules */
    TSG_PATH_GPU,
    TSG_PATH_CPU,
    TSG_PATH_CPU_RETRY, /* the GPU failed, the CPU redid what the GPU had not finished */
    TSG_PATH_REFUSED    /* a device operand and no GPU to run it (TSGEMM_MODE=cpu, no GPU, or
                           the GPU failed): nothing computed; C holds the caller's values except
                           what the done report says is final */
} tsg_path;

typedef struct tsg_report {
    tsg_rule rule;
    tsg_path path;
    tsg_why why;
    int gpu_status;  /* gpu_sgemm's return value when it was tried, else 0 */
    tsg_done done;   /* on a failed GPU attempt: the part of C already final */
    char msg[256];   /* gpu_sgemm's reason when it failed */
} tsg_report;

/*
 * Runs a legal problem: scalar rules first (no backend sees alpha = 0, k = 0 or an empty C, except
 * the GPU when C is device memory), then the decision, then the GPU (with the work of
 * tsg_gpu_work_make) and a CPU retry of exactly the part not final on failure, or the CPU. A
 * problem with a device operand runs on the GPU whatever its size, or not at all
 * (TSG_PATH_REFUSED).
 */
void tsg_run(const tsg_problem *p, const tsg_policy *cfg, const tsg_backends *be, tsg_report *rep);

#endif /* TSG_DISPATCH_H */
