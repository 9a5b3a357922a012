/*
 * tsg_gpu.h — the only bridge between host C and the CUDA code: the executor of gpu/ (its face is
 * gpu/tsg_gpu.cu; the units behind it are listed in gpu/tsg_exec.h), which runs calls on the
 * kernels of kernels/.
 *
 * The executor receives a canonical column-major problem (src/tsg_problem.h: transa/transb 'N' or
 * 'T', m n k, alpha, A lda, B ldb, beta, C ldc, and where each operand lives) and returns a
 * status; it knows nothing of CBLAS, xerbla, the environment or OpenBLAS. It prints nothing,
 * with one exception: the TSGEMM_TEST_TIMELINE lines on stderr (gpu/tsg_timeline.cu), which only
 * the tests' twin library tsgemm_fi can be asked for (tsg_gpu_config.timeline; the release
 * library never reads a TSGEMM_TEST_* knob). Built without CUDA, tsg_gpu_stub.c implements this
 * header and every function answers TSG_GPU_ENODEV.
 *
 * All functions are thread-safe. None of them may be called in a forked child of a process that
 * initialised the GPU (the shim makes sure of that).
 */
#ifndef TSG_GPU_H
#define TSG_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "../src/tsg_dispatch.h"
#include "../src/tsg_plan.h"
#include "../src/tsg_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. Negative = the call did not produce a result. */
enum {
    TSG_GPU_OK = 0,
    TSG_GPU_ENODEV = -1, /* no CUDA driver or device, or built without CUDA                   */
    TSG_GPU_ENOMEM = -2, /* device or pinned memory exhausted: this call only                 */
    TSG_GPU_EFAIL = -3,  /* a CUDA error that leaves the context usable                       */
    TSG_GPU_EFATAL = -4, /* a sticky CUDA error (the context is poisoned): stop using the GPU */
    TSG_GPU_EPLACE = -5  /* a device operand lives on another GPU than tsgemm's               */
};

/* Limits of the executor (the shim passes the knobs; 0 = the default named). */
typedef struct tsg_gpu_config {
    double device_bytes; /* TSGEMM_DEVICE_MEMORY: device memory all calls together may hold;
                            default 3/4 of the device's memory                               */
    double pinned_bytes; /* TSGEMM_PINNED_MEMORY: pinned staging all calls together may hold;
                            default 512 MiB                                                  */
    int copy_threads;    /* TSGEMM_COPY_THREADS: host copy threads; default 3/4 of the CPUs
                            this process may use (tsg_pool_usable_cpus), at most 12          */
    double unit_bytes;   /* TSGEMM_TEST_UNIT: bytes per pipeline unit (tuning experiments);
                            0 = the executor's rule                                          */
    int copy_kind;       /* TSGEMM_TEST_COPY: 1 = memcpy, 2 = non-temporal stores, for gathers
                            and scatters alike; 0 = the default pair (memcpy, non-temporal)  */
    double block_floats; /* TSGEMM_TEST_BLOCK: floats of C per pipeline block (tuning
                            experiments); 0 = the plan's rule (src/tsg_plan.h)               */
    int timeline;        /* TSGEMM_TEST_TIMELINE: print where each pipelined call's time went
                            (stderr; tuning experiments): 1 one line, 2 also the times of every
                            upload unit, launch and download unit (the first 160 of each)    */
    int ramp;            /* TSGEMM_TEST_RAMP: N > 0: the first N upload units are 1/2^N, ..., 1/2
                            of a unit; 0 = the executor's rule (RAMP_STEPS)                  */
    double chunk_floats; /* TSGEMM_TEST_CHUNK: floats of A and B per K chunk (tuning
                            experiments); 0 = the plan's rule (src/tsg_plan.h)               */
    int order;           /* TSGEMM_TEST_ORDER: 1 block-major, 2 chunk-major pieces, 3 + R: R
                            chunk-major rounds, then block-major (tuning experiments); 0 =
                            the plan's rule (src/tsg_plan.h tsg_plan_rounds)                 */
    int touch;           /* TSGEMM_TEST_TOUCH: a fresh pageable C's first touch by the copy
                            threads (tuning experiments): 0 = the executor's rule, -1 = none
                            (the scatters fault the pages in), -2 = without the huge-page
                            advice, > 0 = in that many parts                                 */
    int poll;            /* TSGEMM_TEST_POLL=1 (tuning A/B): the copy threads poll inside
                            pipelined calls (tsg_pool_burst_begin) even where the rule has
                            them block (fewer CPUs than copy threads + POLL_SPARE_CPUS);
                            0 = the executor's rule                                          */
} tsg_gpu_config;

/*
 * Creates the CUDA context on device `device` (an ordinal). When it does not exist, uses device
 * 0 and sets *used to 0. info receives a one-line description (name, compute capability, SMs,
 * memory, driver and runtime versions) or, on failure, the reason. Call once per process.
 * The calling thread's current CUDA context is the same on return as before.
 */
int tsg_gpu_init(int device, const tsg_gpu_config *cfg, int *used, char *info, size_t len);

/*
 * Several devices (TSGEMM_DEVICE=0,1 / all / 0,0; src/tsg_multi.h): after tsg_gpu_init, the device
 * slots calls may be split over. ordinals[0] is the device tsg_gpu_init was given (slot 0 is
 * always the device it started); ordinals[1..n) each become a slot when they exist and are of the
 * first device's kind (same name, compute capability and SM count: one plan and one set of
 * rates serve every slot), and the same device may be listed again (two pipelines on one GPU).
 * Creates each new device's context. *slots receives the slot count (>= 1); info the devices
 * left out and why ("" when none). The calling thread's current context is unchanged.
 */
int tsg_gpu_set_devices(const int *ordinals, int n, int *slots, char *info, size_t len);

/* Visible CUDA devices (cudaGetDeviceCount) without creating a context. */
int tsg_gpu_device_count(int *count);

/* The device's UUID as text (for caches keyed per GPU). Requires a successful tsg_gpu_init. */
int tsg_gpu_uuid(char *buf, size_t len);

/* Rates of this executor on this machine (see tsg_rates in src/tsg_cost.h). */
typedef struct tsg_gpu_rates {
    double h2d_bps, d2h_bps; /* through the pipeline: pageable memory, copy threads, pinned
                                staging and DMA, sustained (64 MiB each way, alone)         */
    double gpu_flops;      /* NN's kernel: the full-wave FLOP/s of a 2048^3 call            */
    double call_s;         /* one pipelined NN call of TSG_GPU_FIT_N^3 (src/tsg_cost.h) on host
                              memory: the mean of its calls less the slowest                 */
    double floor_s;        /* the best of a few 64^3 pipelined calls: no call costs less     */
    double tile_m, tile_n; /* NN's C tile of one thread block                              */
    /* the other transpose pairs' kernels, as gpu_flops, tile_m and tile_n are NN's: element
     * pair - 1, pair = (transa != 'N') + 2 * (transb != 'N'), i.e. TN, NT, TT (src/tsg_cost.h
     * tsg_rates.gpu_pair_*) */
    double pair_flops[3], pair_tile_m[3], pair_tile_n[3];
    double slots;          /* tiles that run at full speed at once (one wave): one per SM  */
    double split_min_k;    /* smallest split-K slice of the plans                           */
    double device_bytes;   /* device memory one call may plan for                           */
    int copy_threads;      /* copy threads the rates were measured with                     */
} tsg_gpu_rates;

/* Measures the rates in a few tens of milliseconds, every call and the kernel rates (each
 * transpose pair's) with math `math` (src/tsg_config.h tsg_math: the kernels a call of that math
 * gets, the tensor-core family where it takes the call). Requires a successful tsg_gpu_init. */
int tsg_gpu_measure(int math, tsg_gpu_rates *out, char *msg, size_t len);

/*
 * NN's kernel rate alone, as tsg_gpu_measure takes it (the same launch of math `math` on device
 * buffers, the same full-wave FLOP/s in *gpu_flops): a check of a cached rate (the shim's:
 * shim/tsg_measure.c TSG_GPU_STALE_FACTOR). The warm-up's reading when it timed this math
 * (tsg_gpu_warm; waits for it), else timed now: about 3 ms alone, 51-99 ms beside the warm-up's
 * pinning (device run 83, H100). Reads no host memory and leaves no device memory held.
 * Requires a successful tsg_gpu_init.
 * Returns TSG_GPU_OK, or an error with msg set and *gpu_flops untouched.
 */
int tsg_gpu_spot_kernel(int math, double *gpu_flops, char *msg, size_t len);

/* Drops the warm-up's spot check (tsg_gpu_warm's spot_math) if it has not begun: a process that
 * turned away from auto mode reads no rates, and its calls would wait for the check (under a
 * sanitizer, for long). A later tsg_gpu_spot_kernel times the kernel itself. Safe at any time,
 * from any thread; nothing when no check is pending. */
void tsg_gpu_spot_cancel(void);

/* Whether the tensor-core family (kernels/tf32/tsg_kernel_tf32.h) runs on tsgemm's device: 1 when
 * calls of math TSG_MATH_3XTF32 / TSG_MATH_TF32 may take it, 0 when they all run on the FP32
 * kernels (not Hopper, or the family not built). Requires a successful tsg_gpu_init. */
int tsg_gpu_tf32_available(void);

/*
 * What a call may get now (src/tsg_dispatch.h, which plans with it: tsg_gpu_work_make): the plan
 * limits of a pipelined call on one device (a workspace's share of the device memory cap, the
 * FP32 kernels' tile and wave, the split-K floor, a pinned slot's floats, the TSGEMM_TEST_BLOCK /
 * _CHUNK sizes), the tensor-core family's tile per math and pair (0 where it does not run) and
 * the device slots one call may be split over (1 with one slot; else the slots
 * whose device had no sticky error, at most as many as the workspace budget holds). Requires a
 * successful tsg_gpu_init.
 */
void tsg_gpu_get_limits(tsg_gpu_limits *out);

/*
 * C = alpha*op(A)*op(B) + beta*C with each operand where p->where_* says (src/tsg_problem.h), run
 * as `work` says (src/tsg_dispatch.h tsg_gpu_work_make: the executor takes the decision and the
 * plans it is handed, and makes none of its own):
 *   TSG_GPU_IN_PLACE  managed and device memory used where it is, one launch; or the scalar rules
 *                     on a device C;
 *   TSG_GPU_PIPELINE  host memory through the pipeline with work->plan (pageable: copy threads and
 *                     pinned staging; pinned: direct DMA); work->planned = 0: TSG_GPU_ENOMEM,
 *                     nothing done;
 *   TSG_GPU_PANELS    over the device slots of tsg_gpu_set_devices: work->split's panel i on the
 *                     i-th slot whose device is still healthy, each a pipelined call of its own on
 *                     its slot's device, all at once; a slot that fails hands its unfinished
 *                     rectangles to the slots that finished (tsg_multi_run, which plans them
 *                     under work->limits). Slots whose device had a sticky error are left out of
 *                     later calls (tsg_gpu_get_limits). Returns 0 when all of C is final, even if
 *                     a device failed on the way (counted in tsg_gpu_pools.handoffs; msg says why).
 * Device operands must be on tsgemm's GPU (else TSG_GPU_EPLACE, nothing done). Needs m, n > 0 and
 * either a real product (k > 0, alpha != 0) or C in device memory (the scalar rules then run on
 * the GPU).
 * Reads A and B only within their extents (cols-1)*ld + rows, C only when beta != 0 and only its
 * m x n window; writes only the m x n window of C, and host C only from completed device work:
 * on failure *done says what is final (tsg_plan.h; with nparts > 0: per part) and every other
 * element of C's window holds its original value. Returns when C is final (the call is
 * synchronous); the calling thread's current CUDA context is the same on return as before. msg
 * receives the reason of a failure. p->math picks the arithmetic: each launch with math !=
 * TSG_MATH_FP32 that the tensor-core family takes (tsg::tf32_takes) runs on it, the others on the
 * FP32 kernels; done->families says which ran.
 */
int tsg_gpu_sgemm(const tsg_problem *p, const tsg_gpu_work *work, tsg_done *done, char *msg, size_t len);

/*
 * The same on device pointers, enqueued on `stream` (cudaStream_t; NULL = legacy default).
 * Any legal sizes (m, n, k >= 0; alpha = 0 or k = 0 scale C by beta, beta = 0 never reads C).
 * math: as tsg_problem's (tsg_gpu_sgemm). Returns when enqueued.
 */
int tsg_gpu_sgemm_device(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                         const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                         float *c, int64_t ldc, void *stream, int math, char *msg, size_t len);

/* Frees pooled device buffers, pinned staging and streams not in use right now. */
void tsg_gpu_release(void);

/* What the pools hold now, and their caps (bytes). */
typedef struct tsg_gpu_pools {
    double device_bytes, device_cap;
    double pinned_bytes, pinned_cap;
    int workspaces, copy_threads;
    int devices;         /* device slots (1 unless TSGEMM_DEVICE lists several)          */
    double multi_calls;  /* calls split over several slots                               */
    double handoffs;     /* panels of such calls whose device failed                     */
    double warm_s;       /* seconds the warm-up (tsg_gpu_warm) took; 0: not run or running */
    double warm_bytes;   /* what it pinned (0 when it failed or did not run)               */
} tsg_gpu_pools;
void tsg_gpu_pool_sizes(tsg_gpu_pools *out);

/* The warm-up, once, after tsg_gpu_init: a background thread pins the first workspace's NS + ND
 * slots at their full size (10 x 16 MiB by default: what a 4096^3 call grows them to; pinning
 * costs about 0.5 ms per MiB, docs/NOTES.md "2026-12-06 the first GPU call"), so that no call
 * pays it. Until it ends tsg_gpu_get_limits reports warming = 1 and every call that takes a
 * workspace waits for it. Before the pinning (whose driver calls slow everything beside them) it
 * times the kernel of math spot_math (0 .. TSG_MATH_COUNT-1; -1: none), which a later
 * tsg_gpu_spot_kernel of that math returns. Returns 0 when it started (or ran before), -1 when
 * no thread could be made (nothing changed: calls grow the slots as they need). */
int tsg_gpu_warm(int spot_math);

/* Waits until the warm-up is over, at most `max_s` seconds; returns at once when none runs. The
 * CPU rate measurement waits here, so that the measurement's page faults (its fresh buffers, the
 * first-touch probe) never run beside the pinning, which may slow them and be taken for a slow
 * CPU — a precaution, not a measured effect (docs/NOTES.md "2026-12-06 the staging pinned at
 * start"). */
void tsg_gpu_warm_wait(double max_s);

/* Process exit has begun: pipelines in flight stop at their next step (their calls fail and are
 * redone on the CPU path) and this returns once none is left and the warm-up is over, or after
 * `wait_s` seconds. */
void tsg_gpu_exiting(double wait_s);

/* The kernel configuration as text (tile, threads, smem, target architecture). */
int tsg_gpu_kernel_info(char *buf, size_t len);

/* Forces configuration `config` of the kernel family with `splits` slices of K (0: the rule's
 * split) for the calls that follow; config = -1 restores the rule (tsg_kernel.h, kernel_plan).
 * Returns 0, or -1 for a value out of range. */
int tsg_gpu_set_kernel_config(int config, int64_t splits);

/* The configuration and split count a call on device data of shape m x n x k with op(A) / op(B)
 * per transa / transb ('N' or 'T') gets now. */
int tsg_gpu_kernel_plan(char transa, char transb, int64_t m, int64_t n, int64_t k, int *config,
                        int64_t *splits);

/* The stream-K tail of calls on device data from now on (tsg_kernel.h, kernel_plan's `tail`):
 * 0 the rule's (the default), -1 none, > 0 forced onto that many blocks. Returns 0, or -1 for a
 * value out of range. */
int tsg_gpu_set_kernel_tail(int64_t blocks);

/* The stream-K tail a call on device data of shape m x n x k gets now: *tiles tiles of the grid
 * shared by *blocks blocks (0 and 0: none). */
int tsg_gpu_kernel_tail(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t *tiles,
                        int64_t *blocks);

/* Describes configuration `config`; returns the number of configurations, or a negative status. */
int tsg_gpu_kernel_config_info(int config, char *buf, size_t len);

#ifdef TSG_FAULT_INJECTION
/*
 * Test builds only (the tsgemm_fi library): makes a pipeline stage fail as a CUDA error would.
 * spec "STAGE:N" fails the N-th time (counted from 1, process-wide) STAGE is reached,
 * "STAGE:N:every" every N-th time; STAGE is alloc, pinned, upload, kernel, download, sync or any.
 * A suffix "@SLOT" ("kernel:1@1") counts only the stages reached while device slot SLOT runs a
 * panel of a call over several devices (TSG_GPU_PANELS), so one of two slots fails.
 * NULL or "" disarms. A release build has no such entry point.
 */
void tsg_gpu_set_fault(const char *spec);
#endif

#ifdef __cplusplus
}
#endif

#endif /* TSG_GPU_H */
