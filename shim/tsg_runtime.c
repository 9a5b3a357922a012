/*
 * tsg_runtime.c — the per-call driver of the ABI layer: joins src/ (decisions) to the backends
 * for every call the entry points hand over (tsg_rt_sgemm), counts it, and traces it.
 *
 * Owns: tsgemm_set_mode's and tsgemm_set_math's overrides, the tiny-call path's gate
 * (tsg_rt_fast), the backends src/tsg_dispatch.h runs (GPU ready, GPU call, CPU call), the
 * per-call line of TSGEMM_LOG=3 and the record of TSGEMM_TRACE. The GPU's start is
 * tsg_start.c's, the rates tsg_measure.c's, the counters' sums and the public functions
 * tsg_public.c's; knobs and printing tsg_log.c's.
 * Must not: hold a lock across a backend call or in the exit summary (exit while another thread
 * is inside a call must not hang).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "../gpu/tsg_gpu.h"
#include "../src/tsg_dispatch.h"
#include "../src/tsg_split.h"
#include "../src/tsg_trace.h"
#include "tsg_cpublas.h"
#include "tsg_log.h"
#include "tsg_measure.h"
#include "tsg_public.h"
#include "tsg_residency.h"
#include "tsg_runtime.h"
#include "tsg_start.h"
#include "tsg_thread.h"
#include "tsg_tracer.h"
#include "tsg_xerbla.h"

/* tsgemm_set_mode's override (-1: none, TSGEMM_MODE applies). One int: read relaxed per call. */
static int g_mode_override = -1;

static tsg_mode current_mode(void)
{
    int m = __atomic_load_n(&g_mode_override, __ATOMIC_RELAXED);
    return m >= 0 ? (tsg_mode)m : tsg_rt_config()->policy.mode;
}

/* tsgemm_set_math's override (-1: none, TSGEMM_MATH applies); read once per call. */
static int g_math_override = -1;

int tsg_rt_math(void)
{
    int m = __atomic_load_n(&g_math_override, __ATOMIC_RELAXED);
    return m >= 0 ? m : tsg_rt_config()->math;
}

int tsg_rt_set_math(int math)
{
    tsg_rt_config();
    int old = __atomic_exchange_n(&g_math_override, math, __ATOMIC_SEQ_CST);
    return old >= 0 ? old : tsg_rt_config()->math;
}

/* ------------------------------------------------------------------ the tiny-call path's gate */

tsg_fast tsg_rt_fast;
/* Bit api set: the gate of that entry point is decided (refresh_fast ran, and its answer did not
 * wait on a CPU BLAS not loaded yet or a lookup not made yet). */
static atomic_uint g_fast_known;
_Static_assert(TSG_API_COUNT <= 32, "g_fast_known has a bit per entry point");
static pthread_mutex_t g_fast_lock = PTHREAD_MUTEX_INITIALIZER;

/* 1 for the entry points whose tiny path runs tsgemm's own CPU BLAS (tsg_cpu_entry_points): only a
 * call through one of them loads it to open the gate. The other names' gates open on the caller's
 * own library (tsg_cpu_tiny_fn), which a call through them looks up. */
static inline int gate_loads(tsg_api api) { return api == TSG_API_CBLAS || api == TSG_API_F77; }

/*
 * Opens or closes tsg_rt_fast (the rule is in tsg_runtime.h) and sets g_fast_known. With `load`
 * (a call through `asking`), first, outside the lock, when the knobs could let the gate open
 * (TSGEMM_LOG < 2): for cblas_sgemm and sgemm_ the CPU BLAS is loaded (loading takes the dynamic
 * loader's lock), for the other names the caller's own function is looked up (once per name);
 * without, only what is loaded and looked up already counts. The decision is made under the lock,
 * so the last tsgemm_set_mode always wins over a call deciding at the same time. An entry point
 * whose gate waits on a load or a lookup stays undecided: the next full-path call through it
 * decides again.
 */
static void refresh_fast(tsg_api asking, int load)
{
    const tsg_config *cfg = tsg_rt_config();
    if (load && cfg->log_level < 2) {
        if (gate_loads(asking)) {
            tsg_cblas_sgemm_fn cblas;
            tsg_f77_sgemm_fn f77;
            tsg_cpu_entry_points(&cblas, &f77);
        } else {
            tsg_cpu_native_lookup(asking);
        }
    }
    /* a traced process takes the full path for every call (tiny ones are recorded there) */
    const int tracing = tsg_tracer_on();
    pthread_mutex_lock(&g_fast_lock);
    tsg_mode mode = current_mode();
    /* the tiny path's entry mark needs membarrier's asymmetric barrier (tsg_thread.h); the first
     * call enrolled this thread, so the answer is known */
    const int allowed = cfg->log_level < 2 && !tracing && tsg_thread_self() &&
                        tsg_thread_asymmetric() &&
                        (mode == TSG_MODE_CPU || (mode == TSG_MODE_AUTO && cfg->policy.threshold <= 0));
    tsg_cblas_sgemm_fn cblas = NULL;
    tsg_f77_sgemm_fn f77 = NULL;
    const int loaded = allowed && tsg_cpu_loaded_entry_points(&cblas, &f77);
    const int ok = allowed && (cblas || f77);
    atomic_store_explicit(&tsg_rt_fast.cblas, ok ? cblas : NULL, memory_order_release);
    atomic_store_explicit(&tsg_rt_fast.f77, ok ? f77 : NULL, memory_order_release);
    unsigned known = !allowed || loaded ? (1u << TSG_API_CBLAS) | (1u << TSG_API_F77) : 0u;
    for (int a = 0; a < TSG_API_COUNT; ++a) {
        if (gate_loads((tsg_api)a)) continue;
        int decided = 1;
        void *fn = allowed ? tsg_cpu_tiny_fn((tsg_api)a, &decided) : NULL;
        atomic_store_explicit(&tsg_rt_fast.own[a], fn, memory_order_release);
        if (decided) known |= 1u << a;
    }
    atomic_store_explicit(&g_fast_known, known, memory_order_relaxed);
    pthread_mutex_unlock(&g_fast_lock);
}

int tsg_rt_mode(void) { return (int)current_mode(); }

int tsg_rt_set_mode(int mode)
{
    tsg_rt_config();
    int old = __atomic_exchange_n(&g_mode_override, mode, __ATOMIC_SEQ_CST);
    if (mode != TSG_MODE_AUTO) tsg_gpu_spot_cancel();
    const int c = tsg_cancel_off(); /* refresh_fast takes the gate's lock */
    refresh_fast(TSG_API_COUNT, 0); /* never loads nor looks up: a gate that waits on either opens
                                     * at the next full-path call through its entry point */
    tsg_cancel_restore(c);
    return old >= 0 ? old : (int)tsg_rt_config()->policy.mode;
}

/* The per-call context of the backends: the entry point and the math the call reads once. */
typedef struct rt_ctx {
    tsg_api api;
    int math;
} rt_ctx;

/* ------------------------------------------------------------------ backends for src/ */

static int be_gpu_ready(void *ctx, tsg_rates *rates, tsg_gpu_limits *lim)
{
    const rt_ctx *c = ctx;
    const int math = c->math;
    if (!tsg_start_gpu()) {
        if (current_mode() == TSG_MODE_GPU && tsg_log_first(TSG_ONCE_FORCED_NO_GPU))
            tsg_log(1, "TSGEMM_MODE=gpu but no GPU is usable; running on the CPU BLAS");
        return 0;
    }
    if (current_mode() == TSG_MODE_AUTO && tsg_rt_config()->policy.threshold <= 0)
        tsg_measure_once(math, c->api); /* the CPU rates: of this call's CPU library */
    if (tsg_start_now() != TSG_START_READY) return 0;
    *rates = *tsg_measure_rates(math); /* all zero unless measured: the model then keeps calls on the CPU */
    tsg_gpu_get_limits(lim); /* what src/ plans the call with (tsg_gpu_work_make) */
    return 1;
}

static const char *status_text(int st)
{
    switch (st) {
    case TSG_GPU_ENOMEM: return "out of memory";
    case TSG_GPU_EFATAL: return "fatal CUDA error";
    case TSG_GPU_ENODEV: return "no device";
    default: return "CUDA error";
    }
}

static int be_gpu_sgemm(void *ctx, const tsg_problem *p, const tsg_gpu_work *work, tsg_done *done,
                        char *msg, size_t len)
{
    (void)ctx;
    /* work: how src/ decided the call runs, over how many devices, and its plan */
    int st = tsg_gpu_sgemm(p, work, done, msg, len);
    if (st == TSG_GPU_OK) {
        /* a split call whose failed panel the other GPUs finished: said once, like a failure */
        if (tsg_start_slots() > 1 && msg[0] && tsg_log_first(TSG_ONCE_EFAIL))
            tsg_log(1, "a GPU failed during a call split over several (%s); the other GPUs finished its "
                       "panel", msg);
        return 0;
    }
    if (st == TSG_GPU_EPLACE) return st; /* the caller's placement, not a GPU fault: said per call */
    tsg_once kind = st == TSG_GPU_ENOMEM   ? TSG_ONCE_ENOMEM
                    : st == TSG_GPU_EFATAL ? TSG_ONCE_EFATAL
                                           : TSG_ONCE_EFAIL;
    if (st == TSG_GPU_EFATAL || st == TSG_GPU_ENODEV) tsg_start_disable();
    if (tsg_log_first(kind))
        tsg_log(1, "GPU call failed (%s: %s); %s%s", status_text(st), msg,
                tsg_needs_device(p) ? "not redone (an operand is device memory)"
                                    : "redone on the CPU BLAS",
                st == TSG_GPU_EFATAL ? "; GPU disabled for this process" : "");
    return st;
}

static void be_cpu_sgemm(void *ctx, const tsg_problem *p)
{
    tsg_cpu_sgemm_api(((const rt_ctx *)ctx)->api, p); /* the entry point the call came through */
}

/* ------------------------------------------------------------------ the per-call driver */


static const char *path_name(const tsg_report *rep)
{
    switch (rep->path) {
    case TSG_PATH_GPU: return "gpu";
    case TSG_PATH_CPU: return "cpu";
    case TSG_PATH_CPU_RETRY: return "cpu-retry";
    case TSG_PATH_REFUSED: return "refused";
    default: return "quick";
    }
}

/* The kernel families a GPU call ran on (tsg_done.families), for the per-call line. */
static const char *family_text(unsigned families)
{
    switch (families) {
    case 1u << TSG_MATH_FP32: return "fp32";
    case 1u << TSG_MATH_3XTF32: return "3xtf32";
    case 1u << TSG_MATH_TF32: return "tf32 (reduced precision)";
    case (1u << TSG_MATH_FP32) | (1u << TSG_MATH_3XTF32): return "3xtf32+fp32";
    case (1u << TSG_MATH_FP32) | (1u << TSG_MATH_TF32): return "tf32+fp32 (reduced precision)";
    default: return "";
    }
}

/* One line per call in the caller's own terms (row-major calls un-swapped). */
static void trace(tsg_api api, const tsg_call *call, const tsg_problem *p, const tsg_report *rep,
                  double dt)
{
    const int row = tsg_api_is_cblas(api) && call->row_major;
    tsg_problem q = *p; /* the caller's terms */
    tsg_problem_swap_rows(&q, row);
    char where[32] = "";
    if (tsg_any_cuda_memory(p)) /* A, B, C as the caller named them: h host, p pinned, ... */
        snprintf(where, sizeof where, " where=%c%c%c", tsg_trace_where_letter(q.where_a),
                 tsg_trace_where_letter(q.where_b), tsg_trace_where_letter(q.where_c));
    char family[64] = "";
    if (rep->path == TSG_PATH_GPU || rep->path == TSG_PATH_CPU_RETRY || p->math != TSG_MATH_FP32) {
        const char *f = family_text(rep->done.families);
        if (f[0] || p->math != TSG_MATH_FP32)
            snprintf(family, sizeof family, " math=%s%s%s", tsg_math_name(p->math), f[0] ? " kernels=" : "", f);
    }
    tsg_log(3,
            "%s layout=%s transa=%c transb=%c m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld "
            "alpha=%g beta=%g%s%s -> %s (%s) %.3f ms",
            tsg_api_name(api), !tsg_api_is_cblas(api) ? "col(f77)" : row ? "row" : "col",
            q.transa, q.transb, (long long)q.m, (long long)q.n, (long long)q.k, (long long)q.lda,
            (long long)q.ldb, (long long)q.ldc, p->alpha, p->beta, where, family, path_name(rep),
            rep->path == TSG_PATH_NONE ? "scalar rules" : tsg_why_text(rep->why), dt * 1e3);
}

/* A call with a device operand that could not run: one line each time (like an illegal
 * argument, it is the caller's problem to see), C untouched. */
static void report_refused(tsg_api api, const tsg_report *rep, int device)
{
    const char *why = rep->gpu_status == TSG_GPU_EPLACE ? rep->msg
                      : rep->why == TSG_WHY_MODE_CPU   ? "TSGEMM_MODE=cpu"
                      : rep->gpu_status != 0          ? rep->msg
                      : device == -2                  ? "operands on two GPUs"
                                                      : "no usable GPU";
    tsg_log(1, "%s: an operand is in GPU memory and the GPU cannot run this call (%s); the call "
               "did nothing, C is unchanged%s",
            tsg_api_name(api), why,
            rep->gpu_status != 0 && rep->done.blocks > 0 ? " except the blocks already finished" : "");
}

/* TSGEMM_LOG=2: a GPU call that grew its workspace (the first of a process, a larger one), with
 * what the growing cost; at level 3 the per-call line stands for it. Out of line: rare. */
static __attribute__((noinline)) void log_growth(const tsg_problem *p, const tsg_report *rep, double dt)
{
    tsg_gpu_pools pools;
    tsg_gpu_pool_sizes(&pools);
    tsg_log(2, "GPU call %lldx%lldx%lld: %.3f ms, %.3f ms of it growing its workspace (now %.3g MiB "
               "pinned, %.3g MiB device)",
            (long long)p->m, (long long)p->n, (long long)p->k, dt * 1e3, rep->done.alloc_s * 1e3,
            pools.pinned_bytes / (1 << 20), pools.device_bytes / (1 << 20));
}

static void rt_sgemm(tsg_api api, const tsg_call *call);

void tsg_rt_sgemm(tsg_api api, const tsg_call *call)
{
    const int c = tsg_cancel_off();
    rt_sgemm(api, call);
    tsg_cancel_restore(c);
}

/* The call's problem as this call may change it: *p becomes the private copy (made from *p on the
 * first use) and is returned, writable. */
static inline tsg_problem *private_copy(const tsg_problem **p, tsg_problem *copy)
{
    if (*p != copy) *copy = **p, *p = copy;
    return copy;
}

static void rt_sgemm(tsg_api api, const tsg_call *call)
{
    const tsg_config *cfg = tsg_rt_config();
    tsg_thread *self = tsg_thread_self();
    if (call->info) {
        tsg_thread_count(self, TSG_COUNT_ILLEGAL, 1);
        tsg_tl.last_path = "illegal";
        tsg_report_illegal(api, call);
        return;
    }
    if (tsg_thread_in_blas(&tsg_tl)) { /* an ILP64 name re-entered from the CPU BLAS: never recurse */
        if (tsg_apply_scalar_rules(&call->p) == TSG_RULE_COMPUTE) tsg_ref_sgemm(&call->p);
        return;
    }
    const tsg_problem *p = &call->p;
    tsg_problem classified;
    int device = -1;
    if (tsg_cuda_may_pass_operands()) { /* a process with CUDA: operands may be CUDA memory */
        const double tc = cfg->log_level >= 2 ? tsg_now_s() : 0;
        classified = *p;
        tsg_classify_operands(&classified, &device);
        p = &classified;
        if (tsg_any_cuda_memory(p)) tsg_cuda_wait_caller_streams();
        tsg_thread_count(self, TSG_COUNT_CLASSIFIED, 1);
        if (cfg->log_level >= 2) tsg_thread_add(self, TSG_SUM_CLASSIFY_SECONDS, tsg_now_s() - tc);
    }
    const rt_ctx ctx = {api, tsg_rt_math()}; /* the call's math, read once */
    if (ctx.math != TSG_MATH_FP32) private_copy(&p, &classified)->math = (unsigned char)ctx.math;
    tsg_report rep;
    tsg_policy now = {current_mode(), cfg->policy.threshold}; /* tsgemm_set_mode may change it */
    if (cfg->log_level >= 2) tsg_stats_summary_at_exit();
    const double flops = tsg_flops(p);
    const int tracing = tsg_tracer_on();
    const uint64_t t0_ns = tracing ? tsg_tracer_now_ns() : 0;
    /* the calls the cost model prices: auto mode, no threshold, above the GPU floor */
    const int modelled = now.mode == TSG_MODE_AUTO && now.threshold <= 0 && flops >= TSG_GPU_FLOOR_FLOPS;
    /* C's freshness where it is read: the trace, and the cost model's first-touch term (beta = 0
     * on host memory, a GPU not known absent) */
    if (tracing || (modelled && p->beta == 0.0f && p->where_c == TSG_HOST &&
                    tsg_start_now() != TSG_START_ABSENT && tsg_start_now() != TSG_START_DISABLED))
        private_copy(&p, &classified)->fresh_c = (unsigned char)tsg_c_fresh(p);
    /* the caller's own BLAS on the CPU side: the model asks more of the GPU (the one place that
     * reads it: src/tsg_dispatch.h TSG_GPU_MARGIN_OWN_POOL) */
    if (modelled && tsg_cpu_own_pool(api)) private_copy(&p, &classified)->own_pool = 1;
    const int timed = cfg->log_level >= 2 || flops >= TSG_GPU_FLOOR_FLOPS;
    double t0 = timed ? tsg_now_s() : 0;
    const tsg_backends backends = {be_gpu_ready, be_gpu_sgemm, be_cpu_sgemm, (void *)&ctx};
    if (device == -2) { /* device operands on two GPUs: no single context can read them */
        rep.rule = tsg_scalar_rule(p);
        rep.path = TSG_PATH_REFUSED;
        rep.why = TSG_WHY_DEVICE_OPERAND;
        rep.gpu_status = 0;
        rep.done.blocks = 0;
    } else {
        tsg_run(p, &now, &backends, &rep);
    }
    double dt = timed ? tsg_now_s() - t0 : 0;
    tsg_tl.last_path = path_name(&rep);
    if (rep.path == TSG_PATH_NONE) {
        tsg_thread_count(self, TSG_COUNT_QUICK, 1);
    } else if (rep.path == TSG_PATH_REFUSED) {
        tsg_thread_count(self, TSG_COUNT_REFUSED, 1);
        report_refused(api, &rep, device);
    } else if (rep.path == TSG_PATH_GPU) {
        tsg_thread_count(self, TSG_COUNT_GPU, 1);
        tsg_thread_add(self, TSG_SUM_GPU_FLOPS, rep.rule == TSG_RULE_COMPUTE ? flops : 0.0);
        tsg_thread_add(self, TSG_SUM_GPU_SECONDS, dt);
    } else {
        tsg_thread_count(self, TSG_COUNT_CPU, 1);
        if (rep.path == TSG_PATH_CPU_RETRY) tsg_thread_count(self, TSG_COUNT_GPU_FAILED, 1);
        if (timed) {
            tsg_thread_add(self, TSG_SUM_CPU_FLOPS, flops);
            tsg_thread_add(self, TSG_SUM_CPU_SECONDS, dt);
        } else { /* below the floor 2mnk is an exact integer < 2^23 */
            tsg_thread_count(self, TSG_COUNT_TINY_FLOPS, (uint64_t)flops);
        }
    }
    if (cfg->log_level >= 3) trace(api, call, p, &rep, dt);
    else if (cfg->log_level >= 2 && rep.path == TSG_PATH_GPU && rep.done.alloc_s >= 1e-4)
        log_growth(p, &rep, dt);
    if (tracing) {
        const int path = rep.path == TSG_PATH_GPU        ? TSG_TRACE_PATH_GPU
                         : rep.path == TSG_PATH_CPU_RETRY ? TSG_TRACE_RETRY
                         : rep.path == TSG_PATH_REFUSED   ? TSG_TRACE_REFUSED
                         : rep.path == TSG_PATH_NONE      ? TSG_TRACE_QUICK
                         : flops < TSG_GPU_FLOOR_FLOPS    ? TSG_TRACE_TINY
                                                          : TSG_TRACE_PATH_CPU;
        _Static_assert((int)TSG_API_SCIPY_F77 == (int)TSG_TRACE_SCIPY_F77 &&
                           (int)TSG_API_COUNT == (int)TSG_TRACE_DEVICE,
                       "tsg_trace_entry follows tsg_api");
        tsg_tracer_record((int)api, tsg_api_is_cblas(api) && call->row_major, p, path, t0_ns,
                          tsg_tracer_now_ns());
    }
    /* this entry point's gate, decided by a full-path call through it */
    if (!(atomic_load_explicit(&g_fast_known, memory_order_relaxed) & (1u << api))) refresh_fast(api, 1);
}

