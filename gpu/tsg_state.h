/*
 * tsg_state.h — the executor's state (CUDA C++, gpu/ only): every variable that outlives a call,
 * in one object, and the fixed sizes that more than one unit of gpu/ uses.
 *
 * Owns: struct State — what each field means, who writes it and under which lock. Must not hold
 * a call's own state (a call's pipeline, its workspace and its device slot group live on the
 * calling thread's stack) or do anything itself: the units change the fields as each field's
 * comment says.
 *
 * Life cycle. At load every field holds the value written here. The
 * device, budget and knob fields are written once by tsg_gpu_init, and the slot fields by
 * tsg_gpu_set_devices, both before the shim lets any call in (shim/tsg_runtime.c gpu_init_once,
 * under pthread_once, which orders those writes before every later call's reads): from then on
 * they are read-only and read without a lock. Fields that change while calls run are atomics or
 * sit under pool_lock, as marked. A forked child never touches any of it (tsg_gpu.h).
 */
#ifndef TSG_STATE_H
#define TSG_STATE_H

#include <cuda_runtime.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include "tsg_copy.h"
#include "../src/tsg_config.h"

namespace tsg {
namespace gpu {

/* ---- fixed sizes (docs/DESIGN.md "Calls from host memory"; docs/NOTES.md per version) ---- */

constexpr int NS = 6;   /* upload slots of a workspace: one DMA in flight while the next ones are
                           gathered                                                            */
constexpr int ND = 4;   /* download slots of a workspace                                         */
constexpr int NB = 16;  /* block events in flight (downloads may lag launches by this much)      */
constexpr int RING = 3; /* device pieces of the bounded mode (src/tsg_plan.c counts the same)    */
constexpr size_t SLOT_MAX = (size_t)16 << 20; /* 8-16 MiB slots sustain 50 GB/s (docs/PERF.md)     */
constexpr size_t SLOT_MIN = (size_t)64 << 10; /* one column of the tallest piece (8192 rows) fits */
constexpr int64_t SPLIT_MIN_K = 256; /* smallest k of a split-K slice of the pipeline's plans */
/* The call's first RAMP_STEPS upload units are 1/2^RAMP_STEPS, ..., 1/2 of a unit (at least
 * UNIT_MIN of the pipeline), so the first DMA starts after a short gather (the pipeline's fill;
 * v0.4). TSGEMM_TEST_RAMP=N sets the count (State::ramp_steps). */
constexpr int RAMP_STEPS = 2;
/* What pinning costs, seconds per MiB: 0.41-0.55 ms (device run 6, H100), 160 MiB in 65-97 ms
 * (runs 21-22): the upper end, so that the warm-up's remaining time is not underestimated. */
constexpr double PIN_S_PER_MIB = 0.6e-3;

struct Workspace; /* gpu/tsg_workspace.h */

/* The driver's current-context calls (cuCtxGetCurrent / cuCtxSetCurrent), to leave the caller's
 * thread as it was: cudaSetDevice would create a context on a device the caller never used. */
typedef int (*ctx_get_fn)(void **);
typedef int (*ctx_set_fn)(void *);

struct State {
    /* ---- the device: written once by tsg_gpu_init ---- */
    int device = 0;        /* tsgemm's CUDA device ordinal (device slot 0)                     */
    cudaDeviceProp prop{}; /* its properties                                                   */
    int64_t sms = 1;       /* its SM count: one wave of the kernels' resident blocks           */
    ctx_get_fn ctx_get = nullptr; /* from libcuda (NULL: the caller's context is not restored) */
    ctx_set_fn ctx_set = nullptr;
    /* Split-K partials of calls on device data: a memory pool of our own that keeps up to
     * SPLIT_POOL_KEEP bytes mapped between calls. The default pool returns its memory at every
     * synchronisation (release threshold 0), so each split call paid a fresh mapping: 1024^3 in
     * 2 splits took 60 us more than unsplit (v0.3 run 1). Ours, so the caller's default pool is
     * left as the caller set it. nullptr: not available, cudaMallocAsync is used. */
    cudaMemPool_t split_pool = nullptr;

    /* ---- budgets: written by tsg_gpu_init; max_ws and pinned_cap again by tsg_gpu_set_devices
     * (start-up, before any call) ---- */
    double device_cap = 0;       /* device memory all calls together may hold (bytes)          */
    double pinned_cap = 0;       /* pinned staging all calls together may hold (bytes)         */
    bool pinned_default = true;  /* TSGEMM_PINNED_MEMORY unset: the cap grows with the slots   */
    size_t slot_bytes = SLOT_MAX; /* one pinned slot                                           */
    int max_ws = 1;              /* workspaces (calls on the GPU at once) the pinned cap buys  */
    int copy_threads = 1;        /* host copy threads (gpu/tsg_pool.h)                         */

    /* ---- tuning knobs (TSGEMM_TEST_*, test builds only; gpu/tsg_gpu.h tsg_gpu_config):
     * written by tsg_gpu_init; 0 = the rule ---- */
    double unit_bytes = 0;       /* TSGEMM_TEST_UNIT: bytes per pipeline unit                  */
    double block_floats = 0;     /* TSGEMM_TEST_BLOCK: floats of C per block (src/tsg_plan.h)  */
    double chunk_floats = 0;     /* TSGEMM_TEST_CHUNK: floats of A and B in the first K chunk  */
    int order = 0;               /* TSGEMM_TEST_ORDER: 1 block-major, 2 chunk-major, 3 + r: r
                                    rounds (src/tsg_plan.h tsg_plan_rounds' force)            */
    int ramp_steps = RAMP_STEPS; /* TSGEMM_TEST_RAMP=N: the first N upload units ramp up       */
    int timeline = 0;            /* TSGEMM_TEST_TIMELINE: 1 one line per pipelined call, 2 also
                                    every step                                                 */
    int touch = 0;               /* TSGEMM_TEST_TOUCH: -1 no first touch of a fresh C, -2 no
                                    huge-page advice, > 0 in that many parts                   */
    /* How the copy threads copy (gpu/tsg_copy.h): gathers by the pipeline's rule (gather_kind)
     * unless gather_copy != 0, scatters non-temporal; TSGEMM_TEST_COPY sets both. A scatter
     * with beta != 0 combines (TSG_COPY_AXPBY) whatever these say. */
    int gather_copy = 0;
    int scatter_copy = TSG_COPY_STREAM;

    /* ---- the kernel configuration of calls on device data (tests, tuning): written at any
     * time by tsg_gpu_set_kernel_config / _tail, read by every call (atomics) ---- */
    std::atomic<int> kernel_config{-1};     /* forced configuration; -1: tsg::kernel_plan's rule */
    std::atomic<long long> kernel_splits{0}; /* forced split count with it; 0: the rule's       */
    std::atomic<long long> kernel_tail{0};   /* stream-K tail: 0 the rule's, -1 none, > 0 forced
                                                onto that many blocks                           */

    /* ---- device slots (TSGEMM_DEVICE=0,1 / all / 0,0): nslots and slot_dev written by
     * tsg_gpu_set_devices; slot_dead by any call whose device had a sticky error (atomic) ---- */
    int nslots = 1;                         /* slot 0 is `device`                              */
    int slot_dev[TSG_MAX_DEVICES] = {};     /* each slot's CUDA device                         */
    std::atomic<bool> slot_dead[TSG_MAX_DEVICES] = {}; /* calls over several devices leave it out */

    /* ---- the workspace pool: every field under pool_lock ---- */
    pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t pool_cv = PTHREAD_COND_INITIALIZER; /* a workspace came back              */
    Workspace *free_list = nullptr; /* pooled workspaces no call holds                         */
    int ws_out = 0;                 /* workspaces reserved by calls now (at most max_ws)       */
    int ws_made = 0;                /* workspaces that exist (pooled or held)                  */
    /* 1 from tsg_gpu_warm until its thread has pinned the first workspace's slots and given it
     * back: reserve_ws waits meanwhile (written under pool_lock; tsg_gpu_get_limits and
     * tsg_gpu_exiting read it without) */
    std::atomic<int> warming{0};
    std::atomic<long long> warm_ns{0};  /* how long the warm-up took; 0 until it ended         */
    double warm_t0 = 0;                 /* when it began (now_s) and how long it should take:   */
    double warm_expect_s = 0;           /* written by warm_start before `warming` is set        */
    std::atomic<int> warm_status{1};    /* its TSG_GPU_* status; 1 until it ended or if never run */

    /* ---- accounting (atomics; any thread) ---- */
    std::atomic<long long> device_held{0}, pinned_held{0}; /* bytes the workspaces hold      */
    std::atomic<long long> multi_calls{0}; /* calls split over several slots                   */
    std::atomic<long long> handoffs{0};    /* panels of such calls whose device failed         */
    std::atomic<int> inflight{0};          /* calls inside the executor now                    */
    std::atomic<int> exiting{0};           /* tsg_gpu_exiting: pipelines stop at their next step */

#ifdef TSG_FAULT_INJECTION
    /* ---- fault injection (test builds): written by tsg_gpu_set_fault, counted by every stage
     * reached (atomics) ---- */
    std::atomic<int> fault_stage{-2};      /* the Stage that fails; -2 disarmed, -1 any        */
    std::atomic<long long> fault_n{0};     /* ... its N-th time (or every N-th)                */
    std::atomic<long long> fault_count{0}; /* stages reached since armed                       */
    std::atomic<int> fault_every{0};       /* 1: every N-th time, 0: once                      */
    std::atomic<int> fault_slot{-1};       /* "@SLOT": only stages reached by that slot count  */
#endif
};

extern State state;

/* Per thread, not per process (so not in State): the device slot this thread runs a panel for
 * (calls over several devices; -1: none; the fault hook's "@SLOT" reads it), and whether this
 * thread is measuring the rates (its upload calls gather with memcpy, tsg_gpu_measure). */
extern thread_local int t_slot;
extern thread_local bool t_rates_memcpy;

} /* namespace gpu */
} /* namespace tsg */

#endif /* TSG_STATE_H */
