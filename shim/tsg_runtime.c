/*
 * tsg_runtime.c — process-wide state of the ABI layer: counters, the lazily started GPU (with its measured and cached rates), fork handling, and the per-call driver that
 * joins src/ (decisions) to the backends.
 *
 * Knobs and printing live in tsg_log.c (which imports nothing else of shim/).
 * Nothing happens at load time: the knobs are read on the first call, the GPU is started on the
 * first call that may want it (pthread_once), so a process that never calls SGEMM, or forks
 * before its first big call, never creates a CUDA context. A forked child of a process that
 * started the GPU uses the CPU for good (a CUDA context does not survive fork()).
 * Must not: hold a lock across a backend call or in the exit summary (exit while another thread
 * is inside a call must not hang).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TSGEMM_BUILDING_LIBRARY
#include "../include/tsgemm.h"
#include "../gpu/tsg_gpu.h"
#include "../src/tsg_dispatch.h"
#include "../src/tsg_rates.h"
#include "../src/tsg_split.h"
#include "tsg_cpublas.h"
#include "tsg_log.h"
#include "tsg_ratecache.h"
#include "tsg_residency.h"
#include "tsg_runtime.h"
#include "tsg_thread.h"
#include "tsg_tracer.h"
#include "tsg_xerbla.h"
#include "../src/tsg_trace.h"

#define TSG_EXPORT __attribute__((visibility("default")))

static void exit_summary(void);
static void atfork_child(void);

/* Every exported function that may block runs with cancellation disabled (restored on return):
 * a caller cancelled at a cancellation point inside the library (a condition wait of the copy
 * threads' pool, a sleep of the cache lock, a write of the log) would leave a mutex, the lock or
 * a pthread_once half done and the copy threads writing into its dead stack. A cancellation
 * request made meanwhile acts at the caller's next cancellation point after the call. */
static inline int cancel_off(void)
{
    int old = PTHREAD_CANCEL_ENABLE;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    return old;
}

static inline void cancel_restore(int old)
{
    int ignored;
    pthread_setcancelstate(old, &ignored);
}

/* tsgemm_set_mode's override (-1: none, TSGEMM_MODE applies). One int: read relaxed per call. */
static int g_mode_override = -1;

static tsg_mode current_mode(void)
{
    int m = __atomic_load_n(&g_mode_override, __ATOMIC_RELAXED);
    return m >= 0 ? (tsg_mode)m : tsg_rt_config()->policy.mode;
}

/* tsgemm_set_math's override (-1: none, TSGEMM_MATH applies); read once per call. */
static int g_math_override = -1;

static int current_math(void)
{
    int m = __atomic_load_n(&g_math_override, __ATOMIC_RELAXED);
    return m >= 0 ? m : tsg_rt_config()->math;
}

/* ------------------------------------------------------------------ the tiny-call path's gate */

tsg_fast tsg_rt_fast;
static atomic_int g_fast_known; /* refresh_fast ran since the knobs were read */
static pthread_mutex_t g_fast_lock = PTHREAD_MUTEX_INITIALIZER;

/* Opens or closes tsg_rt_fast (the rule is in tsg_runtime.h). The CPU BLAS is loaded outside
 * the lock (loading takes the dynamic loader's lock); the decision is made under it, so the
 * last tsgemm_set_mode always wins over a call deciding at the same time. */
static void refresh_fast(void)
{
    const tsg_config *cfg = tsg_rt_config();
    tsg_cblas_sgemm_fn cblas = NULL;
    tsg_f77_sgemm_fn f77 = NULL;
    if (cfg->log_level < 2) tsg_cpu_entry_points(&cblas, &f77);
    /* a traced process takes the full path for every call (tiny ones are recorded there) */
    const int tracing = tsg_tracer_on();
    pthread_mutex_lock(&g_fast_lock);
    tsg_mode mode = current_mode();
    /* the tiny path's entry mark needs membarrier's asymmetric barrier (tsg_thread.h); the first
     * call enrolled this thread, so the answer is known */
    int ok = cfg->log_level < 2 && !tracing && (cblas || f77) && tsg_thread_self() &&
             tsg_thread_asymmetric() &&
             (mode == TSG_MODE_CPU || (mode == TSG_MODE_AUTO && cfg->policy.threshold <= 0));
    atomic_store_explicit(&tsg_rt_fast.cblas, ok ? cblas : NULL, memory_order_release);
    atomic_store_explicit(&tsg_rt_fast.f77, ok ? f77 : NULL, memory_order_release);
    atomic_store_explicit(&g_fast_known, 1, memory_order_relaxed);
    pthread_mutex_unlock(&g_fast_lock);
}

/* ------------------------------------------------------------------ counters */

/*
 * Counters are what tiny calls pay for, so each thread counts into its own block (tsg_thread.h:
 * a relaxed load and store, no locked instruction) and tsgemm_get_stats sums the blocks. `calls`
 * is the sum of the outcomes; a tiny CPU call (below TSG_GPU_FLOOR_FLOPS) adds its flops as an
 * integer and is not timed (a clock read costs more than such a call on a VM; TSGEMM_LOG >= 2
 * times every call).
 */
enum { GPU_UNKNOWN = 0, GPU_READY, GPU_ABSENT, GPU_DISABLED };
static atomic_int g_gpu_state;      /* GPU_*                                             */
static atomic_int g_forked;         /* this process is a fork of one that started the GPU */

static void get_stats(struct tsgemm_stats *out)
{
    uint64_t count[TSG_COUNT_N];
    double sum[TSG_SUM_N];
    tsg_thread_totals(count, sum);
    out->illegal = count[TSG_COUNT_ILLEGAL];
    out->quick = count[TSG_COUNT_QUICK];
    out->gpu = count[TSG_COUNT_GPU];
    out->cpu = count[TSG_COUNT_CPU];
    out->refused = count[TSG_COUNT_REFUSED];
    out->calls = out->illegal + out->quick + out->gpu + out->cpu + out->refused;
    out->gpu_failed = count[TSG_COUNT_GPU_FAILED];
    out->gpu_flops = sum[TSG_SUM_GPU_FLOPS];
    out->cpu_flops = sum[TSG_SUM_CPU_FLOPS] + (double)count[TSG_COUNT_TINY_FLOPS];
    out->gpu_seconds = sum[TSG_SUM_GPU_SECONDS];
    out->cpu_seconds = sum[TSG_SUM_CPU_SECONDS];
    tsg_gpu_pools pools;
    memset(&pools, 0, sizeof pools);
    if (atomic_load(&g_gpu_state) == GPU_READY && !atomic_load(&g_forked)) tsg_gpu_pool_sizes(&pools);
    out->device_pool_bytes = pools.device_bytes;
    out->device_pool_cap = pools.device_cap;
    out->pinned_pool_bytes = pools.pinned_bytes;
    out->pinned_pool_cap = pools.pinned_cap;
    out->copy_threads = (uint32_t)pools.copy_threads;
    out->workspaces = (uint32_t)pools.workspaces;
    out->gpu_devices = (uint32_t)pools.devices;
    out->multi_gpu_calls = (uint64_t)pools.multi_calls;
    out->gpu_handoffs = (uint64_t)pools.handoffs;
}

TSG_EXPORT void tsgemm_get_stats_v(struct tsgemm_stats *out, size_t size)
{
    struct tsgemm_stats s;
    get_stats(&s);
    memcpy(out, &s, size < sizeof s ? size : sizeof s);
}

/* The 0.1 ABI: programs built against 0.1's header (and ctypes callers) pass a struct that ends
 * at cpu_seconds. */
TSG_EXPORT void tsgemm_get_stats(struct tsgemm_stats *out)
{
    tsgemm_get_stats_v(out, offsetof(struct tsgemm_stats, refused));
}

TSG_EXPORT const char *tsgemm_last_path(void) { return tsg_tl.last_path; }

TSG_EXPORT const char *tsgemm_version(void)
{
#define TSG_STR2(x) #x
#define TSG_STR(x) TSG_STR2(x)
    return TSG_STR(TSGEMM_VERSION_MAJOR) "." TSG_STR(TSGEMM_VERSION_MINOR) "." TSG_STR(
        TSGEMM_VERSION_PATCH);
}

static void exit_summary(void)
{
    struct tsgemm_stats s;
    get_stats(&s);
    fprintf(stderr,
            "tsgemm: summary: %llu calls: %llu gpu (%.3g GFLOP in %.3g s), %llu cpu (%.3g GFLOP in "
            "%.3g s), %llu gpu failures redone on cpu, %llu quick, %llu illegal, %llu refused\n",
            (unsigned long long)s.calls, (unsigned long long)s.gpu, s.gpu_flops * 1e-9,
            s.gpu_seconds, (unsigned long long)s.cpu, s.cpu_flops * 1e-9, s.cpu_seconds,
            (unsigned long long)s.gpu_failed, (unsigned long long)s.quick,
            (unsigned long long)s.illegal, (unsigned long long)s.refused);
}

static pthread_once_t g_summary_once = PTHREAD_ONCE_INIT;
static void register_summary(void) { atexit(exit_summary); }

/* ------------------------------------------------------------------ GPU state */

static atomic_int g_gpu_started;    /* tsg_gpu_init was entered in this process          */
static pthread_once_t g_gpu_once = PTHREAD_ONCE_INIT;
static pthread_once_t g_cpu_rates_once = PTHREAD_ONCE_INIT;
static char g_gpu_info[512] = "GPU not started"; /* the device, or why there is none */
/* The rates per math (tsg_math): the GPU's are measured with that math's kernels (tsgemm_set_math
 * may switch between calls, so each math is measured, or read from its own cache file, the first
 * time a call of it wants the model); the CPU BLAS's are measured once and copied into each. */
static tsg_rates g_rates[TSG_MATH_COUNT];
static atomic_int g_rates_ok[TSG_MATH_COUNT]; /* g_rates[m] holds measured (or cached) rates */
static pthread_once_t g_math_rates_once[TSG_MATH_COUNT] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT,
                                                           PTHREAD_ONCE_INIT};
static int g_nslots = 1;       /* device slots (TSGEMM_DEVICE list); written once at GPU start */
static atomic_int g_warned[8];      /* "first time" flags, one per kind of GPU trouble    */

enum { WARN_FORK, WARN_ENOMEM, WARN_EFAIL, WARN_EFATAL, WARN_FORCED_NO_GPU, WARN_INIT, WARN_CACHE,
       WARN_RATES };

static int first_time(int kind) { return atomic_exchange(&g_warned[kind], 1) == 0; }

static void atfork_child(void)
{
    if (atomic_load(&g_gpu_started)) {
        atomic_store(&g_forked, 1);
        atomic_store(&g_gpu_state, GPU_DISABLED);
    }
}

/* exit(): pipelines in flight stop (their calls are redone on the CPU path, which at exit is the
 * portable loop) before the CUDA runtime's own exit handlers tear the context down — this
 * handler is registered after the runtime started, so it runs before them. */
static void gpu_exit_handler(void) { tsg_gpu_exiting(2.0); }

/*
 * The device to start (src/tsg_config.c decides): TSGEMM_DEVICE, else in an MPI rank the node-local
 * rank modulo the GPUs this process sees, else 0. why[] receives the reason for TSGEMM_LOG=2.
 */
static int pick_device(const tsg_config *cfg, char *why, size_t len)
{
    int visible = 0;
    int st = cfg->device_set || cfg->local_rank < 0 ? TSG_GPU_OK : tsg_gpu_device_count(&visible);
    tsg_device_why rule;
    int device = tsg_config_device(cfg, st == TSG_GPU_OK ? visible : 0, &rule);
    if (rule == TSG_DEVICE_KNOB)
        snprintf(why, len, "TSGEMM_DEVICE=%d", cfg->device);
    else if (rule == TSG_DEVICE_LOCAL_RANK)
        snprintf(why, len, "MPI local rank %d (%s) modulo %d visible GPU%s", cfg->local_rank,
                 cfg->local_rank_var, visible, visible == 1 ? "" : "s");
    else if (cfg->local_rank >= 0)
        snprintf(why, len, "default; MPI local rank %d (%s), but the GPU count is unknown",
                 cfg->local_rank, cfg->local_rank_var);
    else
        snprintf(why, len, "default (TSGEMM_DEVICE unset, not an MPI rank)");
    return device;
}

/* Several devices (TSGEMM_DEVICE=0,1 / all / 0,0): the slots beyond the first. One list of
 * devices left out at TSGEMM_LOG >= 1 (like a bad knob value), the slots at 2. */
static void start_slots(const tsg_config *cfg, int used)
{
    if (!cfg->device_all && cfg->ndevices <= 1) return;
    int visible = 0;
    if (tsg_gpu_device_count(&visible) != TSG_GPU_OK) visible = 0;
    int list[TSG_MAX_DEVICES];
    tsg_device_why rule;
    const int n = tsg_config_devices(cfg, visible, list, TSG_MAX_DEVICES, &rule);
    if (n <= 1) return;
    list[0] = used;
    char left_out[512];
    int slots = 1;
    tsg_gpu_set_devices(list, n, &slots, left_out, sizeof left_out);
    if (left_out[0]) tsg_log(1, "TSGEMM_DEVICE: %sleft out", left_out);
    g_nslots = slots;
    char text[8 * TSG_MAX_DEVICES] = "";
    for (int i = 0, pos = 0; i < n && pos < (int)sizeof text - 8; ++i)
        pos += snprintf(text + pos, sizeof text - (size_t)pos, i ? ",%d" : "%d", list[i]);
    tsg_log(2, "GPU device slots: %d of %s%s (large calls are split into panels over them)", slots,
            cfg->device_all ? "all: " : "", text);
}

static void gpu_init_once(void)
{
    const tsg_config *cfg = tsg_rt_config();
    char *info = g_gpu_info;
    if (tsg_rt_privileged()) { /* README "Privileged programs": the CUDA driver reads its own
                                * environment (libraries to inject, cache folders) */
        snprintf(info, sizeof g_gpu_info, "privileged process (AT_SECURE): the GPU is not used, "
                                          "TSGEMM_* and the rates cache are ignored");
        atomic_store(&g_gpu_state, GPU_ABSENT);
        tsg_log(2, "%s", info);
        return;
    }
    pthread_atfork(NULL, NULL, atfork_child); /* only a process that started the GPU needs it */
    atomic_store(&g_gpu_started, 1);
    const tsg_gpu_config gcfg = {cfg->device_memory, cfg->pinned_memory, cfg->copy_threads,
                                 cfg->test_unit, cfg->test_copy, cfg->test_block,
                                 cfg->test_timeline, cfg->test_ramp, cfg->test_chunk,
                                 cfg->test_order, cfg->test_touch, cfg->test_poll};
    char why[256];
    int device = pick_device(cfg, why, sizeof why);
    int used = device;
    tsg_residency_gpu_starting();
    int st = tsg_gpu_init(device, &gcfg, &used, info, sizeof g_gpu_info);
    if (st == TSG_GPU_OK) {
        atexit(gpu_exit_handler);
#ifdef TSG_FAULT_INJECTION
        tsg_gpu_set_fault(cfg->test_fault);
        if (cfg->test_fault[0]) tsg_log(2, "test build: TSGEMM_TEST_FAULT=%s armed", cfg->test_fault);
#endif
        if (used != device)
            tsg_log(1, "TSGEMM_DEVICE=%d does not exist; using device %d", device, used);
        tsg_log(2, "GPU: %s", info);
        tsg_log(2, "GPU device %d chosen: %s", used, why);
        tsg_log(2, "tensor-core family (TSGEMM_MATH=3xtf32 or tf32): %s",
                tsg_gpu_tf32_available() ? "runs on this device"
                                         : "not on this device (not built, or not Hopper): such "
                                           "calls run on the FP32 kernels");
        start_slots(cfg, used);
        atomic_store(&g_gpu_state, GPU_READY);
    } else {
        atomic_store(&g_gpu_state, GPU_ABSENT);
        if (st == TSG_GPU_ENODEV)
            tsg_log(2, "no usable GPU (%s); all calls run on the CPU BLAS", info);
        else if (first_time(WARN_INIT))
            tsg_log(1, "GPU start-up failed (%s); all calls run on the CPU BLAS", info);
    }
}

/* 1 when the GPU may be used from this process now; starts it on first use. */
static int gpu_usable(void)
{
    if (atomic_load(&g_forked)) {
        if (first_time(WARN_FORK))
            tsg_log(1, "forked child of a process that used the GPU: CPU path from now on");
        return 0;
    }
    const int c = cancel_off(); /* the public tsgemm_* functions start the GPU through here */
    pthread_once(&g_gpu_once, gpu_init_once);
    cancel_restore(c);
    return atomic_load(&g_gpu_state) == GPU_READY;
}

/*
 * --- rates. The GPU's (transfers, kernel, call latency) are measured once per GPU and cached
 * under the cache dir: they belong to the card and its PCIe link. The CPU BLAS's rate is measured
 * in every process (~10 ms): it depends on OPENBLAS_NUM_THREADS, the core type and the machine's
 * load right now, and one unlucky measurement must not stick (a cached 0.1 TFLOP/s once sent
 * 256^3 calls to the GPU; docs/NOTES.md). --- */

/* The cache file's name in the cache folder: per GPU (its UUID) and per set of knobs the rates
 * depend on (copy threads, device and pinned budgets). The format's version is the file's first
 * line (src/tsg_rates.h TSG_RATES_HEADER); the "v15" in the name keeps older tsgemm versions,
 * which read any file of their name, away from it. Returns 0, or -1 without a cache. */
static int cache_name(int math, char *buf, size_t len)
{
    const tsg_config *cfg = tsg_rt_config();
    char uuid[64];
    if (!cfg->cache_dir[0] || tsg_gpu_uuid(uuid, sizeof uuid) != TSG_GPU_OK) return -1;
    for (const char *c = uuid; *c; ++c) /* a name, never a path */
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '-'))
            return -1;
    /* FP32's name is the one before the math existed (its rates are the same measurement); the
     * other maths get their own file, so their kernel rates never stand in for FP32's */
    char mathpart[16] = "";
    if (math != TSG_MATH_FP32) snprintf(mathpart, sizeof mathpart, "-%s", tsg_math_name(math));
    int n = snprintf(buf, len, "gpu-rates-v15-%s-t%d-d%.0f-p%.0f%s.txt", uuid, cfg->copy_threads,
                     cfg->device_memory / (1 << 20), cfg->pinned_memory / (1 << 20), mathpart);
    return (n > 0 && (size_t)n < len) ? 0 : -1;
}

/* Why the cache was not used, once per process at TSGEMM_LOG >= 1 for what the user should fix
 * (a folder refused, a file that cannot be written) and at 2 for the rest. */
static void cache_trouble(int level, const char *why)
{
    if (level <= 1 && !first_time(WARN_CACHE)) return;
    tsg_log(level, "rates cache: %s; GPU rates are measured in this process", why);
}

static int measure_gpu(int math, tsg_rates *rates, int dirfd, const char *name, double t0)
{
    tsg_gpu_rates gr;
    char msg[256];
    if (tsg_gpu_measure(math, &gr, msg, sizeof msg) != TSG_GPU_OK) {
        if (first_time(WARN_INIT)) tsg_log(1, "GPU measurement failed (%s); GPU disabled", msg);
        atomic_store(&g_gpu_state, GPU_DISABLED);
        return -1;
    }
    rates->h2d_bps = gr.h2d_bps;
    rates->d2h_bps = gr.d2h_bps;
    rates->gpu_flops = gr.gpu_flops;
    rates->gpu_tile_m = gr.tile_m;
    rates->gpu_tile_n = gr.tile_n;
    rates->gpu_slots = gr.slots;
    rates->gpu_split_min_k = gr.split_min_k;
    rates->gpu_device_bytes = gr.device_bytes;
    /* the fixed cost last: it is what the other terms leave of the TSG_GPU_FIT_N^3 call */
    rates->gpu_latency_s = tsg_fit_gpu_latency(rates, TSG_GPU_FIT_N, gr.call_s, gr.floor_s);
    const int bad = tsg_rates_gpu_check(rates, 1);
    if (bad >= 0) { /* not cached; the model then keeps auto-mode calls on the CPU */
        if (first_time(WARN_RATES))
            tsg_log(1, "GPU measurement gave %s = %g, outside its physical bounds; auto mode runs "
                       "calls on the CPU BLAS", tsg_rates_gpu_bound(bad)->name,
                    *tsg_rates_gpu_field(rates, bad));
    }
    char why[512] = "";
    const int cached = bad < 0 && dirfd >= 0 && tsg_cache_write(dirfd, name, rates, why, sizeof why) == 0;
    if (bad < 0 && dirfd >= 0 && !cached) cache_trouble(1, why);
    tsg_log(2, "GPU rates measured in %.0f ms with %d copy threads%s%s; a %d^3 call %.3g us, a 64^3 "
            "one %.3g us", (tsg_now_s() - t0) * 1e3, gr.copy_threads, cached ? ", cached as " : "",
            cached ? name : "", TSG_GPU_FIT_N, gr.call_s * 1e6, gr.floor_s * 1e6);
    return 0;
}

/* Cached rates when a good file is there, else measured (and cached when the folder and the lock
 * allow). Runs once per process, with cancellation disabled (the entry points disable it), so a
 * cancelled caller never leaves the lock held. */
static tsg_rates g_cpu_rates; /* cpu_* fields only: cpu_rates_once */

static void cpu_rates_once(void)
{
    double t1 = tsg_now_s();
    tsg_cpu_measure(&g_cpu_rates.cpu_flops, &g_cpu_rates.cpu_mid_s, &g_cpu_rates.cpu_small_s,
                    &g_cpu_rates.cpu_latency_s);
    g_cpu_rates.cpu_touch_bps = tsg_cpu_touch_bps(); /* a fresh C's first touch (src/tsg_cost.h) */
    tsg_log(2, "CPU rate measured in %.0f ms; first touch %.3g GB/s", (tsg_now_s() - t1) * 1e3,
            g_cpu_rates.cpu_touch_bps * 1e-9);
}

static void rates_once(int math)
{
    const tsg_config *cfg = tsg_rt_config();
    tsg_rates *const rates = &g_rates[math];
    char name[512], why[512];
    double t0 = tsg_now_s();
    int dirfd = -1, lock = -1;
    if (cfg->cache_dir[0] && cache_name(math, name, sizeof name) == 0) {
        dirfd = tsg_cache_open_dir(cfg->cache_dir, why, sizeof why);
        if (dirfd < 0) cache_trouble(1, why);
    }
    if (dirfd >= 0) {
        lock = tsg_cache_lock(dirfd, name, TSG_CACHE_LOCK_WAIT_S, why, sizeof why);
        if (lock < 0) { /* measured without caching: a held lock is no reason to hang */
            cache_trouble(2, why);
            close(dirfd);
            dirfd = -1;
        }
    }
    int from_cache = 0;
    if (dirfd >= 0) {
        from_cache = tsg_cache_read(dirfd, name, rates, why, sizeof why) == 0;
        if (from_cache) tsg_log(2, "GPU rates from %s/%s", cfg->cache_dir, name);
        else tsg_log(2, "rates cache: %s", why);
    }
    const int st = from_cache ? 0 : measure_gpu(math, rates, dirfd, name, t0);
    tsg_cache_unlock(lock);
    if (dirfd >= 0) close(dirfd);
    if (st != 0) return;
    pthread_once(&g_cpu_rates_once, cpu_rates_once);
    rates->cpu_flops = g_cpu_rates.cpu_flops;
    rates->cpu_mid_s = g_cpu_rates.cpu_mid_s;
    rates->cpu_small_s = g_cpu_rates.cpu_small_s;
    rates->cpu_latency_s = g_cpu_rates.cpu_latency_s;
    rates->cpu_touch_bps = g_cpu_rates.cpu_touch_bps; /* a fresh C's first touch (src/tsg_cost.h) */
    rates->gpu_count = g_nslots; /* the first device's rates stand for every slot */
    atomic_store(&g_rates_ok[math], 1);
    tsg_log(2, "rates (math %s) in %.0f ms in all", tsg_math_name(math), (tsg_now_s() - t0) * 1e3);
    tsg_log(2,
            "rates (math %s): upload %.3g GB/s, download %.3g GB/s (pipeline, sustained), kernel "
            "%.3g TFLOP/s, GPU call %.3g us; CPU BLAS %.3g TFLOP/s at %d^3, %.3g ms at %d^3, %.3g "
            "ms at %d^3, call %.3g us (%s)",
            tsg_math_name(math), rates->h2d_bps * 1e-9, rates->d2h_bps * 1e-9,
            rates->gpu_flops * 1e-12, rates->gpu_latency_s * 1e6, rates->cpu_flops * 1e-12,
            TSG_CPU_BIG_N, rates->cpu_mid_s * 1e3, TSG_CPU_MID_N, rates->cpu_small_s * 1e3,
            TSG_CPU_SMALL_N, rates->cpu_latency_s * 1e6, tsg_cpu_describe());
}

static void rates_once_fp32(void) { rates_once(TSG_MATH_FP32); }
static void rates_once_3xtf32(void) { rates_once(TSG_MATH_3XTF32); }
static void rates_once_tf32(void) { rates_once(TSG_MATH_TF32); }
static void (*const g_rates_once_fn[TSG_MATH_COUNT])(void) = {rates_once_fp32, rates_once_3xtf32,
                                                              rates_once_tf32};

/* The per-call context of the backends: the entry point and the math the call reads once. */
typedef struct rt_ctx {
    tsg_api api;
    int math;
} rt_ctx;

/* ------------------------------------------------------------------ backends for src/ */

static int be_gpu_ready(void *ctx, tsg_rates *rates, tsg_gpu_limits *lim)
{
    const int math = ((const rt_ctx *)ctx)->math;
    if (!gpu_usable()) {
        if (current_mode() == TSG_MODE_GPU && first_time(WARN_FORCED_NO_GPU))
            tsg_log(1, "TSGEMM_MODE=gpu but no GPU is usable; running on the CPU BLAS");
        return 0;
    }
    if (current_mode() == TSG_MODE_AUTO && tsg_rt_config()->policy.threshold <= 0)
        pthread_once(&g_math_rates_once[math], g_rates_once_fn[math]);
    if (atomic_load(&g_gpu_state) != GPU_READY) return 0;
    *rates = g_rates[math]; /* all zero unless measured: the model then keeps calls on the CPU */
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
        if (g_nslots > 1 && msg[0] && first_time(WARN_EFAIL))
            tsg_log(1, "a GPU failed during a call split over several (%s); the other GPUs finished its "
                       "panel", msg);
        return 0;
    }
    if (st == TSG_GPU_EPLACE) return st; /* the caller's placement, not a GPU fault: said per call */
    int kind = st == TSG_GPU_ENOMEM ? WARN_ENOMEM : st == TSG_GPU_EFATAL ? WARN_EFATAL : WARN_EFAIL;
    if (st == TSG_GPU_EFATAL || st == TSG_GPU_ENODEV) atomic_store(&g_gpu_state, GPU_DISABLED);
    if (first_time(kind))
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

static char where_char(unsigned char w)
{
    return w == TSG_DEVICE ? 'd' : w == TSG_MANAGED ? 'm' : w == TSG_PINNED ? 'p' : 'h';
}

/* One line per call in the caller's own terms (row-major calls un-swapped). */
static void trace(tsg_api api, const tsg_call *call, const tsg_problem *p, const tsg_report *rep,
                  double dt)
{
    int row = tsg_api_is_cblas(api) && call->row_major;
    char where[32] = "";
    if (tsg_any_cuda_memory(p)) /* A, B, C as the caller named them: h host, p pinned, ... */
        snprintf(where, sizeof where, " where=%c%c%c", where_char(row ? p->where_b : p->where_a),
                 where_char(row ? p->where_a : p->where_b), where_char(p->where_c));
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
            row ? p->transb : p->transa, row ? p->transa : p->transb,
            (long long)(row ? p->n : p->m), (long long)(row ? p->m : p->n), (long long)p->k,
            (long long)(row ? p->ldb : p->lda), (long long)(row ? p->lda : p->ldb),
            (long long)p->ldc, p->alpha, p->beta, where, family, path_name(rep),
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

static void rt_sgemm(tsg_api api, const tsg_call *call);

void tsg_rt_sgemm(tsg_api api, const tsg_call *call)
{
    const int c = cancel_off();
    rt_sgemm(api, call);
    cancel_restore(c);
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
        classified = *p;
        tsg_classify_operands(&classified, &device);
        p = &classified;
        if (tsg_any_cuda_memory(p)) tsg_cuda_wait_caller_streams();
    }
    const rt_ctx ctx = {api, current_math()}; /* the call's math, read once */
    if (ctx.math != TSG_MATH_FP32) {
        if (p != &classified) classified = *p;
        classified.math = (unsigned char)ctx.math;
        p = &classified;
    }
    tsg_report rep;
    tsg_policy now = {current_mode(), cfg->policy.threshold}; /* tsgemm_set_mode may change it */
    if (cfg->log_level >= 2) pthread_once(&g_summary_once, register_summary);
    const double flops = tsg_flops(p);
    const int tracing = tsg_tracer_on();
    const uint64_t t0_ns = tracing ? tsg_tracer_now_ns() : 0;
    /* C's freshness where it is read: the trace, and the cost model's first-touch term (auto
     * mode, a call above the GPU floor, beta = 0 on host memory, a GPU not known absent) */
    if (tracing || (now.mode == TSG_MODE_AUTO && now.threshold <= 0 && flops >= TSG_GPU_FLOOR_FLOPS &&
                    p->beta == 0.0f && p->where_c == TSG_HOST &&
                    atomic_load(&g_gpu_state) != GPU_ABSENT && atomic_load(&g_gpu_state) != GPU_DISABLED)) {
        if (p != &classified) {
            classified = *p;
            p = &classified;
        }
        classified.fresh_c = (unsigned char)tsg_c_fresh(p);
    }
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
    if (!atomic_load_explicit(&g_fast_known, memory_order_relaxed)) refresh_fast();
}

/* ------------------------------------------------------------------ public tsgemm_* */

TSG_EXPORT void tsgemm_release(void)
{
    const int c = cancel_off();
    if (atomic_load(&g_gpu_started) && !atomic_load(&g_forked)) tsg_gpu_release();
    cancel_restore(c);
}

TSG_EXPORT int tsgemm_sgemm_device(char transa, char transb, int64_t m, int64_t n, int64_t k,
                                   float alpha, const float *A, int64_t lda, const float *B,
                                   int64_t ldb, float beta, float *C, int64_t ldc, void *stream)
{
    tsg_call call;
    if (tsg_map_fortran(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, &call))
        return call.info;
    if (!gpu_usable()) return -1;
    char msg[256];
    const int c = cancel_off();
    const int tracing = tsg_tracer_on();
    const uint64_t t0_ns = tracing ? tsg_tracer_now_ns() : 0;
    int st = tsg_gpu_sgemm_device(call.p.transa, call.p.transb, m, n, k, alpha, A, lda, B, ldb,
                                  beta, C, ldc, stream, current_math(), msg, sizeof msg);
    if (tracing) { /* device operands by the API's contract (not classified); enqueue time */
        call.p.where_a = call.p.where_b = call.p.where_c = TSG_DEVICE;
        tsg_tracer_record(TSG_TRACE_DEVICE, 0, &call.p,
                          st == TSG_GPU_OK ? TSG_TRACE_PATH_GPU : TSG_TRACE_REFUSED, t0_ns,
                          tsg_tracer_now_ns());
    }
    cancel_restore(c);
    if (st == TSG_GPU_OK) return 0;
    if (st == TSG_GPU_EFATAL) atomic_store(&g_gpu_state, GPU_DISABLED);
    tsg_log(1, "tsgemm_sgemm_device failed: %s", msg);
    return -1;
}

TSG_EXPORT int tsgemm_set_mode(int mode)
{
    if (mode != TSGEMM_MODE_AUTO && mode != TSGEMM_MODE_CPU && mode != TSGEMM_MODE_GPU) return -1;
    tsg_rt_config();
    /* tsg_mode and tsgemm_mode share their values (checked below); the store is one int. */
    _Static_assert((int)TSG_MODE_CPU == (int)TSGEMM_MODE_CPU && (int)TSG_MODE_GPU == (int)TSGEMM_MODE_GPU &&
                       (int)TSG_MODE_AUTO == (int)TSGEMM_MODE_AUTO,
                   "mode values");
    int old = __atomic_exchange_n(&g_mode_override, mode, __ATOMIC_SEQ_CST);
    const int c = cancel_off(); /* refresh_fast may load the CPU BLAS */
    refresh_fast();
    cancel_restore(c);
    return old >= 0 ? old : (int)tsg_rt_config()->policy.mode;
}

TSG_EXPORT int tsgemm_set_math(int math)
{
    _Static_assert((int)TSG_MATH_FP32 == (int)TSGEMM_MATH_FP32 &&
                       (int)TSG_MATH_3XTF32 == (int)TSGEMM_MATH_3XTF32 &&
                       (int)TSG_MATH_TF32 == (int)TSGEMM_MATH_TF32 && TSG_MATH_COUNT == 3,
                   "math values");
    if (math < 0 || math >= TSG_MATH_COUNT) return -1;
    tsg_rt_config();
    int old = __atomic_exchange_n(&g_math_override, math, __ATOMIC_SEQ_CST);
    return old >= 0 ? old : tsg_rt_config()->math;
}

TSG_EXPORT int tsgemm_get_math(void) { return current_math(); }

TSG_EXPORT int tsgemm_kernel_info(char *buf, int len)
{
    if (!buf || len <= 0) return -1;
    if (!gpu_usable()) {
        snprintf(buf, (size_t)len, "no usable GPU: %s",
                 atomic_load(&g_forked) ? "forked child of a process that used the GPU"
                 : atomic_load(&g_gpu_state) == GPU_DISABLED ? "disabled after a fatal CUDA error"
                                                             : g_gpu_info);
        return -1;
    }
    char k[640];
    if (tsg_gpu_kernel_info(k, sizeof k) != TSG_GPU_OK) {
        snprintf(buf, (size_t)len, "no usable GPU: %s", k);
        return -1;
    }
    snprintf(buf, (size_t)len, "%s; %s", g_gpu_info, k);
    return 0;
}

TSG_EXPORT int tsgemm_set_kernel_config(int config, int64_t splits)
{
    if (!gpu_usable()) return -1;
    return tsg_gpu_set_kernel_config(config, splits) == 0 ? 0 : -1;
}

TSG_EXPORT int tsgemm_kernel_config_info(int config, char *buf, int len)
{
    if (!buf || len <= 0 || !gpu_usable()) return -1;
    int n = tsg_gpu_kernel_config_info(config, buf, (size_t)len);
    return n > 0 ? n : -1;
}

TSG_EXPORT int tsgemm_kernel_plan(char transa, char transb, int64_t m, int64_t n, int64_t k, int *config,
                                  int64_t *splits)
{
    const char ta = tsg_decode_trans(transa), tb = tsg_decode_trans(transb);
    if (!config || !splits || !ta || !tb || !gpu_usable()) return -1;
    return tsg_gpu_kernel_plan(ta, tb, m, n, k, config, splits) == TSG_GPU_OK ? 0 : -1;
}

TSG_EXPORT int tsgemm_set_kernel_tail(int64_t blocks)
{
    if (!gpu_usable()) return -1;
    return tsg_gpu_set_kernel_tail(blocks) == 0 ? 0 : -1;
}

TSG_EXPORT int tsgemm_kernel_tail(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t *tiles,
                                  int64_t *blocks)
{
    const char ta = tsg_decode_trans(transa), tb = tsg_decode_trans(transb);
    if (!tiles || !blocks || !ta || !tb || !gpu_usable()) return -1;
    return tsg_gpu_kernel_tail(ta, tb, m, n, k, tiles, blocks) == TSG_GPU_OK ? 0 : -1;
}

TSG_EXPORT const char *tsgemm_cpu_blas(void)
{
    const int c = cancel_off(); /* may load the CPU BLAS */
    const char *d = tsg_cpu_describe();
    cancel_restore(c);
    return d;
}

#ifdef TSG_FAULT_INJECTION
/* Test builds only (libtsgemm_fi): arms a pipeline failure (gpu/tsg_gpu.h,
 * tsg_gpu_set_fault); "" disarms. Starts the GPU first so the spec is not overwritten by
 * TSGEMM_TEST_FAULT at start-up. Returns 0, or -1 without a usable GPU. */
TSG_EXPORT int tsgemm_test_fault(const char *spec)
{
    if (!gpu_usable()) return -1;
    tsg_gpu_set_fault(spec);
    return 0;
}
#endif
