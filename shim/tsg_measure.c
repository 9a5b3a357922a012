/*
 * tsg_measure.c — the cost model's rates per math: the on-disk cache or a measurement. See
 * tsg_measure.h.
 */
#define _GNU_SOURCE
#include "tsg_measure.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "../gpu/tsg_gpu.h"
#include "../src/tsg_config.h"
#include "../src/tsg_rates.h"
#include "tsg_cpublas.h"
#include "tsg_log.h"
#include "tsg_ratecache.h"
#include "tsg_start.h"

/* The rates per math (tsg_math); the GPU's part measured with that math's kernels. */
static tsg_rates g_rates[TSG_MATH_COUNT];
static pthread_once_t g_math_rates_once[TSG_MATH_COUNT] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT,
                                                           PTHREAD_ONCE_INIT};
static pthread_once_t g_cpu_rates_once = PTHREAD_ONCE_INIT;
/* Processes that measure the CPU BLAS before the cache's figure stands (cpu_rates_once). */
enum { TSG_CPU_SAMPLES = 3 };
/* A cached CPU whose 256^3 time is over this many times the spot check's is measured again: the
 * processes that measured it ran on a loaded machine (device runs 21-22: a parallel test suite's
 * measurements priced 256^3 at 0.74-3.7 ms where OpenBLAS takes 0.12-0.15). The spot check can
 * only read the CPU slower than it is, never faster, so a factor well above the measurements'
 * own spread (the cache's mean of a few calls, the spot check's fastest of two: within 20% on
 * the device machines) only fires on a cache that is wrong. */
#define TSG_CPU_STALE_FACTOR 1.5
/* A cached kernel rate this many times under this process's spot check of the same kernel
 * (tsg_gpu_spot_kernel) is measured again: the process that measured it ran under a tool that
 * slows kernels. compute-sanitizer's processes cached 1.1 TFLOP/s and 15.9 GB/s where the H100
 * runs 48.7 TFLOP/s and 55.7 GB/s, and auto mode kept every later process's calls on the CPU
 * (device runs 78-80, docs/NOTES.md "2026-12-07 twenty-first session"). Like the CPU's check, it
 * fires one way only: a spot check reads the kernel as fast as it runs or slower (clocks still
 * low, another process on the GPU), so a factor well above two best-of-three readings' spread
 * fires only on a cache that is wrong. */
#define TSG_GPU_STALE_FACTOR 1.5
/* The longest the CPU measurement waits for the GPU's warm-up: 160 MiB pinned in 65 ms (device run
 * 21, H100), 0.41-0.55 ms per MiB (run 6); a host 50x slower than that still fits. */
#define TSG_WARM_WAIT_S 5.0
static tsg_cpu_rates g_cpu; /* the CPU BLAS's rates: cpu_rates_once */
/* The entry point whose CPU path cpu_rates_once measures: the first tsg_measure_once's (-1:
 * none yet). */
static atomic_int g_cpu_api = -1;
/* The library measured (tsg_cpu_describe_api of g_cpu_api): cpu_rates_once writes it. */
static char g_cpu_blas[768];

/* The cache file's name in the cache folder: per GPU (its UUID) and per set of knobs the rates
 * depend on (copy threads, device and pinned budgets). The format's version is the file's first
 * line (src/tsg_rates.h TSG_RATES_HEADER); the "v17" in the name keeps older tsgemm versions,
 * which read any file of their name, away from it, and has a machine with an older file measure
 * once more (v16: a tensor-core math's rates count the tiles of the family's NN instance,
 * 1xTF32's 128 x 256, not the FP32 kernels' 128 x 128; v17: each transpose pair's kernel rate
 * and tile, the file's optional pairs' group, so that a v16 file would read as "pairs not
 * measured"). The format's first line stays: the fields' meaning for FP32 did not change, and
 * the committed files of older runs still parse. Returns 0, or -1 without a cache. */
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
    int n = snprintf(buf, len, "gpu-rates-v17-%s-t%d-d%.0f-p%.0f%s.txt", uuid, cfg->copy_threads,
                     cfg->device_memory / (1 << 20), cfg->pinned_memory / (1 << 20), mathpart);
    return (n > 0 && (size_t)n < len) ? 0 : -1;
}

/* Why the cache was not used, once per process at TSGEMM_LOG >= 1 for what the user should fix
 * (a folder refused, a file that cannot be written) and at 2 for the rest. */
static void cache_trouble(int level, const char *why)
{
    if (level <= 1 && !tsg_log_first(TSG_ONCE_CACHE)) return;
    tsg_log(level, "rates cache: %s; GPU rates are measured in this process", why);
}

static int measure_gpu(int math, tsg_rates *rates, int dirfd, const char *name, double t0)
{
    tsg_gpu_rates gr;
    char msg[256];
    if (tsg_gpu_measure(math, &gr, msg, sizeof msg) != TSG_GPU_OK) {
        if (tsg_log_first(TSG_ONCE_INIT)) tsg_log(1, "GPU measurement failed (%s); GPU disabled", msg);
        tsg_start_disable();
        return -1;
    }
    rates->h2d_bps = gr.h2d_bps;
    rates->d2h_bps = gr.d2h_bps;
    rates->gpu_flops = gr.gpu_flops;
    rates->gpu_tile_m = gr.tile_m;
    rates->gpu_tile_n = gr.tile_n;
    for (int i = 0; i < 3; ++i) { /* TN, NT, TT */
        rates->gpu_pair_flops[i] = gr.pair_flops[i];
        rates->gpu_pair_tile_m[i] = gr.pair_tile_m[i];
        rates->gpu_pair_tile_n[i] = gr.pair_tile_n[i];
    }
    rates->gpu_slots = gr.slots;
    rates->gpu_split_min_k = gr.split_min_k;
    rates->gpu_device_bytes = gr.device_bytes;
    /* the fixed cost last: it is what the other terms leave of the TSG_GPU_FIT_N^3 call */
    rates->gpu_latency_s = tsg_fit_gpu_latency(rates, TSG_GPU_FIT_N, gr.call_s, gr.floor_s);
    const int bad = tsg_rates_gpu_check(rates, 1);
    if (bad >= 0) { /* not cached; the model then keeps auto-mode calls on the CPU */
        if (tsg_log_first(TSG_ONCE_RATES))
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

/* The CPU file's name: one per CPU BLAS as loaded (library, its configuration, threads, core
 * type: `blas`, tsg_cpu_describe_api's text) on this host (a home folder shared over NFS serves
 * several machines). FNV-1a 64 of the two, in hex: a name, never a path. */
static void cpu_cache_name(const char *blas, char *buf, size_t len)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *parts[2] = {blas, host}, **q = parts; q < parts + 2; ++q)
        for (const unsigned char *c = (const unsigned char *)*q; *c; ++c) h = (h ^ *c) * 0x100000001b3ull;
    snprintf(buf, len, "cpu-rates-v3-%016llx.txt", (unsigned long long)h);
}

/*
 * The CPU BLAS's rates — of the library the CPU path of g_cpu_api's calls runs on, described
 * into g_cpu_blas: from the cache once it holds the best of TSG_CPU_SAMPLES measurements
 * (earlier processes on this host); until then measured here (~30 ms on the H200 host: five
 * 1024^3 calls and some smaller ones), merged into the file's best and written back. Without a
 * cache folder, measured in every process. Writes g_cpu and g_cpu_blas.
 */
static void cpu_rates_once(void)
{
    const tsg_config *cfg = tsg_rt_config();
    const double t1 = tsg_now_s();
    const int a = atomic_load(&g_cpu_api);
    const tsg_api api = a >= 0 && a < TSG_API_COUNT ? (tsg_api)a : TSG_API_CBLAS;
    char name[96], why[512];
    int dirfd = -1, lock = -1;
    tsg_cpu_describe_api(api, g_cpu_blas, sizeof g_cpu_blas);
    cpu_cache_name(g_cpu_blas, name, sizeof name);
    if (cfg->cache_dir[0]) {
        dirfd = tsg_cache_open_dir(cfg->cache_dir, why, sizeof why);
        if (dirfd >= 0) lock = tsg_cache_lock(dirfd, name, TSG_CACHE_LOCK_WAIT_S, why, sizeof why);
        if (dirfd >= 0 && lock < 0) close(dirfd), dirfd = -1;
    }
    tsg_cpu_rates best = {0}, m;
    const int have = dirfd >= 0 && tsg_cache_read_cpu(dirfd, name, &best, why, sizeof why) == 0;
    int measured = !have || best.samples < TSG_CPU_SAMPLES;
    double spot = 0;
    if (!measured && best.small_s > 0) { /* a settled cache: is it this machine, unloaded? */
        spot = tsg_cpu_spot_s(api);
        if (spot > 0 && spot * TSG_CPU_STALE_FACTOR < best.small_s) {
            tsg_log(2, "CPU rates in %s/%s read %.3g ms at %d^3, this process's spot check %.3g ms: "
                       "measured again",
                    cfg->cache_dir, name, best.small_s * 1e3, TSG_CPU_SMALL_N, spot * 1e3);
            measured = 1;
        }
    }
    if (measured) {
        /* not beside the GPU's warm-up, whose pinning may slow the measurement's page faults (a
         * precaution: gpu/tsg_gpu.h tsg_gpu_warm_wait) */
        if (tsg_start_now() == TSG_START_READY) tsg_gpu_warm_wait(TSG_WARM_WAIT_S);
        tsg_cpu_measure(api, &m);
        if (have) tsg_cpu_rates_merge(&best, &m);
        else best = m;
        if (dirfd >= 0 && tsg_cache_write_cpu(dirfd, name, &best, why, sizeof why) != 0)
            tsg_log(2, "rates cache: %s; the CPU measurement is not kept", why);
    }
    tsg_cache_unlock(lock);
    if (dirfd >= 0) close(dirfd);
    g_cpu = best;
    if (measured)
        tsg_log(2, "CPU rate measured in %.0f ms (%.3g TFLOP/s; the best of %.0f: %.3g); first touch %.3g GB/s",
                (tsg_now_s() - t1) * 1e3, m.flops * 1e-12, best.samples, best.flops * 1e-12,
                best.touch_bps * 1e-9);
    else
        tsg_log(2, "CPU rates from %s/%s (the best of %.0f measurements)", cfg->cache_dir, name, best.samples);
}

/* 1 when the cached kernel rate reads under 1 / TSG_GPU_STALE_FACTOR of this process's spot
 * check (logged at 2 with both figures); 0 when it stands, or when the spot check failed (the
 * cache is used: a GPU fault shows itself to the calls, which fall back). */
static int gpu_cache_stale(int math, const tsg_rates *cached, const char *name)
{
    const double t0 = tsg_now_s();
    double spot = 0;
    char msg[256];
    if (tsg_gpu_spot_kernel(math, &spot, msg, sizeof msg) != TSG_GPU_OK) {
        tsg_log(2, "GPU spot check failed (%s); the cached rates stand", msg);
        return 0;
    }
    const int stale = spot > TSG_GPU_STALE_FACTOR * cached->gpu_flops;
    tsg_log(2, "GPU rates in %s/%s: kernel %.3g TFLOP/s, this process's spot check %.3g (%.2g ms)%s",
            tsg_rt_config()->cache_dir, name, cached->gpu_flops * 1e-12, spot * 1e-12,
            (tsg_now_s() - t0) * 1e3, stale ? ": measured again" : "");
    return stale;
}

/* Cached rates when a good file is there, else measured (and cached when the folder and the lock
 * allow). Runs once per process per math, with cancellation disabled (the entry points disable
 * it), so a cancelled caller never leaves the lock held. */
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
    if (from_cache && gpu_cache_stale(math, rates, name)) from_cache = 0;
    const int st = from_cache ? 0 : measure_gpu(math, rates, dirfd, name, t0);
    tsg_cache_unlock(lock);
    if (dirfd >= 0) close(dirfd);
    if (st != 0) return;
    pthread_once(&g_cpu_rates_once, cpu_rates_once);
    tsg_rates_set_cpu(rates, &g_cpu);
    rates->gpu_count = tsg_start_slots(); /* the first device's rates stand for every slot */
    tsg_log(2, "rates (math %s) in %.0f ms in all", tsg_math_name(math), (tsg_now_s() - t0) * 1e3);
    /* each pair's kernel rate as the model prices it (tsg_gpu_kernel_of: 0 = NN's) */
    double pair_flops[4];
    for (int pair = 0; pair < 4; ++pair) {
        const tsg_problem p = {.transa = pair & 1 ? 'T' : 'N', .transb = pair & 2 ? 'T' : 'N'};
        pair_flops[pair] = tsg_gpu_kernel_of(&p, rates).flops;
    }
    tsg_log(2,
            "rates (math %s): upload %.3g GB/s, download %.3g GB/s (pipeline, sustained), kernel "
            "%.3g TFLOP/s (TN %.3g, NT %.3g, TT %.3g), GPU call %.3g us; CPU BLAS %.3g TFLOP/s at "
            "%d^3, %.3g ms at %d^3, %.3g ms at %d^3, call %.3g us (%s)",
            tsg_math_name(math), rates->h2d_bps * 1e-9, rates->d2h_bps * 1e-9, pair_flops[0] * 1e-12,
            pair_flops[1] * 1e-12, pair_flops[2] * 1e-12, pair_flops[3] * 1e-12,
            rates->gpu_latency_s * 1e6, rates->cpu_flops * 1e-12, TSG_CPU_BIG_N, rates->cpu_mid_s * 1e3,
            TSG_CPU_MID_N, rates->cpu_small_s * 1e3, TSG_CPU_SMALL_N, rates->cpu_latency_s * 1e6, g_cpu_blas);
}

static void rates_once_fp32(void) { rates_once(TSG_MATH_FP32); }
static void rates_once_3xtf32(void) { rates_once(TSG_MATH_3XTF32); }
static void rates_once_tf32(void) { rates_once(TSG_MATH_TF32); }
static void (*const g_rates_once_fn[TSG_MATH_COUNT])(void) = {rates_once_fp32, rates_once_3xtf32,
                                                              rates_once_tf32};

void tsg_measure_once(int math, tsg_api api)
{
    int none = -1; /* the first api to ask names the CPU library; a race between two is benign */
    atomic_compare_exchange_strong(&g_cpu_api, &none, (int)api);
    pthread_once(&g_math_rates_once[math], g_rates_once_fn[math]);
}

const tsg_rates *tsg_measure_rates(int math) { return &g_rates[math]; }
