/*
 * tsg_gpu_fake.c — a stand-in GPU backend (gpu/tsg_gpu.h) for the CPU tier: the tests'
 * library libtsgemm_fake.so is the real shim/ and src/ over this file instead of the CUDA
 * executor, so the dispatch, the rates cache (read, write, lock), cancellation and signals run
 * on a machine without a GPU.
 *
 * What it pretends: one device "fake-0" with a fixed UUID; measured rates that make calls of
 * 256^3 and up faster "on the GPU" than on any CPU (NT's kernel at half NN's rate); each call's
 * C computed by the reference loop (double accumulation, src/tsg_split.h tsg_ref_sgemm) split
 * over the library's copy-thread pool, so the pool's threads exist and work during a call. Host
 * memory only.
 * Its own knobs (test code, read with getenv; never in a release library):
 *   TSGEMM_FAKE_GPU=absent        no device (tsg_gpu_init answers ENODEV)
 *   TSGEMM_FAKE_MEASURE_MS=N      the measurement takes N ms (a sleep)
 *   TSGEMM_FAKE_CALL_MS=N         every part of every call sleeps N ms before computing
 *   TSGEMM_FAKE_BAD=FIELD         the measurement returns FIELD (h2d, flops, tile, or pair: TT's
 *                                 rate) out of bounds
 *   TSGEMM_FAKE_WARM_MS=N         the warm-up (tsg_gpu_warm) takes N ms on a thread of its own:
 *                                 meanwhile the limits say warming and calls wait for it, as the
 *                                 executor's do; it prints "fake-gpu: warm-up N ms, spot check
 *                                 ahead: math M" when it starts (M: tsg_gpu_warm's spot_math, -1
 *                                 none), and tsg_gpu_spot_cancel "fake-gpu: spot check dropped"
 *                                 while that check is named
 * Every measurement is counted and printed to stderr as "fake-gpu: measured N (math M)" so a
 * test can tell a cached start from a measured one, and which math's rates were measured. The
 * kernel's spot check (tsg_gpu_spot_kernel) reads the measurement's 40 TFLOP/s and prints
 * "fake-gpu: spot check (math M)".
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../gpu/tsg_gpu.h"
#include "../../gpu/tsg_pool.h"
#include "../../src/tsg_split.h"

static atomic_int g_measures;
static atomic_int g_spot_pending; /* the warm-up was given a math to spot-check (tsg_gpu_warm) */
static atomic_int g_warming;  /* the warm-up thread is sleeping */
static atomic_long g_warm_ms; /* what it slept, once it ended   */
static atomic_long g_calls;

static long knob(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : 0;
}

static void sleep_ms(long ms)
{
    if (ms <= 0) return;
    struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0) {
    }
}

int tsg_gpu_init(int device, const tsg_gpu_config *cfg, int *used, char *info, size_t len)
{
    (void)cfg;
    (void)device;
    *used = 0;
    const char *v = getenv("TSGEMM_FAKE_GPU");
    if (v && !strcmp(v, "absent")) {
        snprintf(info, len, "fake backend: no device (TSGEMM_FAKE_GPU=absent)");
        return TSG_GPU_ENODEV;
    }
    snprintf(info, len, "fake-0 (the tests' stand-in GPU backend)");
    return TSG_GPU_OK;
}

int tsg_gpu_set_devices(const int *ordinals, int n, int *slots, char *info, size_t len)
{
    (void)ordinals, (void)n;
    *slots = 1;
    snprintf(info, len, "the fake backend has one slot; ");
    return TSG_GPU_OK;
}

int tsg_gpu_device_count(int *count)
{
    *count = 1;
    return TSG_GPU_OK;
}

int tsg_gpu_uuid(char *buf, size_t len)
{
    snprintf(buf, len, "GPU-fa4e0000-0000-0000-0000-000000000001");
    return TSG_GPU_OK;
}

int tsg_gpu_measure(int math, tsg_gpu_rates *out, char *msg, size_t len)
{
    (void)math, (void)msg, (void)len;
    sleep_ms(knob("TSGEMM_FAKE_MEASURE_MS"));
    memset(out, 0, sizeof *out);
    out->h2d_bps = out->d2h_bps = 40e9;
    out->gpu_flops = 40e12;
    out->call_s = 60e-6;
    out->floor_s = 20e-6;
    out->tile_m = out->tile_n = 128;
    /* the other pairs (TN, NT, TT): NT at half NN's rate, as 1xTF32's NT runs beside its NN on
     * an H200 (157 against 375 TFLOP/s), so that the cache and the model carry a pair's own rate */
    for (int i = 0; i < 3; ++i) out->pair_flops[i] = 40e12, out->pair_tile_m[i] = out->pair_tile_n[i] = 128;
    out->pair_flops[1] = 20e12;
    out->slots = 132;
    out->split_min_k = 256;
    out->device_bytes = 8.0 * (1 << 30);
    out->copy_threads = 2;
    const char *bad = getenv("TSGEMM_FAKE_BAD");
    if (bad && !strcmp(bad, "h2d")) out->h2d_bps = 0;
    if (bad && !strcmp(bad, "flops")) out->gpu_flops = 1e300;
    if (bad && !strcmp(bad, "tile")) out->tile_m = 1e19;
    if (bad && !strcmp(bad, "pair")) out->pair_flops[2] = NAN;
    fprintf(stderr, "fake-gpu: measured %d (math %d)\n", atomic_fetch_add(&g_measures, 1) + 1, math);
    return TSG_GPU_OK;
}

int tsg_gpu_spot_kernel(int math, double *gpu_flops, char *msg, size_t len)
{
    (void)msg, (void)len;
    *gpu_flops = 40e12;
    fprintf(stderr, "fake-gpu: spot check (math %d)\n", math);
    return TSG_GPU_OK;
}

/* One part of a call: a band of C's columns by the reference loop. */
typedef struct fake_call {
    const tsg_problem *p;
    long sleep_ms;
} fake_call;

static void run_part(void *ctx, int part, int nparts)
{
    const fake_call *fc = ctx;
    sleep_ms(fc->sleep_ms);
    const tsg_problem *p = fc->p;
    const int64_t c0 = p->n * part / nparts, c1 = p->n * (part + 1) / nparts;
    if (c1 <= c0) return;
    tsg_problem w = tsg_problem_window(p, 0, p->m, c0, c1 - c0);
    tsg_ref_sgemm(&w);
}

/* One device, limits as tsg_gpu_measure's rates say (8 GiB, 128 x 128 tiles, 132 slots). */
void tsg_gpu_get_limits(tsg_gpu_limits *out)
{
    memset(out, 0, sizeof *out);
    out->plan.device_bytes = 8.0 * (1 << 30);
    out->plan.tile_m = out->plan.tile_n = 128;
    out->plan.slots = 132;
    out->plan.split_min_k = 256;
    out->devices = 1;
    out->warming = atomic_load(&g_warming);
    out->warm_left_s = out->warming ? 1e-3 * (double)knob("TSGEMM_FAKE_WARM_MS") : 0.0;
}

static void *warm_thread(void *arg)
{
    const long ms = (long)(intptr_t)arg;
    sleep_ms(ms);
    atomic_store(&g_warm_ms, ms);
    atomic_store(&g_warming, 0);
    return NULL;
}

void tsg_gpu_spot_cancel(void)
{
    if (atomic_exchange(&g_spot_pending, 0)) fprintf(stderr, "fake-gpu: spot check dropped\n");
}

int tsg_gpu_warm(int spot_math)
{
    static atomic_int started;
    if (atomic_exchange(&started, 1)) return 0;
    const long ms = knob("TSGEMM_FAKE_WARM_MS");
    /* the spot check itself answers at once here (tsg_gpu_spot_kernel); only its naming is seen */
    if (spot_math >= 0) atomic_store(&g_spot_pending, 1);
    fprintf(stderr, "fake-gpu: warm-up %ld ms, spot check ahead: math %d\n", ms, spot_math);
    atomic_store(&g_warming, 1);
    pthread_t t;
    if (pthread_create(&t, NULL, warm_thread, (void *)(intptr_t)ms) != 0) {
        atomic_store(&g_warming, 0);
        return -1;
    }
    pthread_detach(t);
    return 0;
}

void tsg_gpu_warm_wait(double max_s)
{
    for (long ms = 0; atomic_load(&g_warming) && ms < (long)(max_s * 1e3); ++ms) sleep_ms(1);
}

/* Whatever the work says, the reference loop does all of C. */
int tsg_gpu_sgemm(const tsg_problem *p, const tsg_gpu_work *work, tsg_done *done, char *msg, size_t len)
{
    (void)work;
    done->bm = done->bn = 1;
    done->blocks = done->cols = 0;
    done->nparts = 0;
    done->families = 0;
    if (tsg_needs_device(p)) {
        snprintf(msg, len, "the fake backend has no device memory");
        return TSG_GPU_EPLACE;
    }
    while (atomic_load(&g_warming)) sleep_ms(1); /* the executor's reserve_ws waits for it too */
    tsg_pool_start(2);
    fake_call fc = {p, knob("TSGEMM_FAKE_CALL_MS")};
    tsg_job job;
    tsg_pool_submit(&job, run_part, &fc, 4);
    tsg_pool_wait(&job);
    atomic_fetch_add(&g_calls, 1);
    /* everything final: one block of the whole C */
    done->bm = p->m;
    done->bn = p->n;
    done->blocks = 1;
    done->families = 1u << (p->math < 3 ? p->math : 0);
    return TSG_GPU_OK;
}


int tsg_gpu_sgemm_device(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                         const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                         float *c, int64_t ldc, void *stream, int math, char *msg, size_t len)
{
    (void)math;
    (void)transa, (void)transb, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda;
    (void)b, (void)ldb, (void)beta, (void)c, (void)ldc, (void)stream;
    snprintf(msg, len, "the fake backend has no device memory");
    return TSG_GPU_EFAIL;
}

/* The fake pretends a tensor-core family: every call runs "on" the family its math asks for
 * (done->families), so the shim's per-call line and the per-math rates can be tested. */
int tsg_gpu_tf32_available(void) { return 1; }

void tsg_gpu_release(void) {}

void tsg_gpu_pool_sizes(tsg_gpu_pools *out)
{
    memset(out, 0, sizeof *out);
    out->copy_threads = tsg_pool_threads();
    out->devices = 1;
    const long ms = atomic_load(&g_warming) ? 0 : atomic_load(&g_warm_ms);
    out->warm_s = (double)ms * 1e-3;
    out->warm_bytes = ms ? 160.0 * (1 << 20) : 0.0;
}

void tsg_gpu_exiting(double wait_s) { (void)wait_s; }

int tsg_gpu_kernel_info(char *buf, size_t len)
{
    snprintf(buf, len, "fake kernel (reference loop on the copy threads)");
    return TSG_GPU_OK;
}

int tsg_gpu_set_kernel_config(int config, int64_t splits)
{
    (void)config, (void)splits;
    return -1;
}

int tsg_gpu_kernel_plan(char transa, char transb, int64_t m, int64_t n, int64_t k, int *config,
                        int64_t *splits)
{
    (void)transa, (void)transb, (void)m, (void)n, (void)k;
    *config = 0;
    *splits = 1;
    return TSG_GPU_OK;
}

int tsg_gpu_set_kernel_tail(int64_t blocks)
{
    (void)blocks;
    return -1;
}

int tsg_gpu_kernel_tail(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t *tiles,
                        int64_t *blocks)
{
    (void)transa, (void)transb, (void)m, (void)n, (void)k;
    *tiles = *blocks = 0;
    return TSG_GPU_OK;
}

int tsg_gpu_kernel_config_info(int config, char *buf, size_t len)
{
    (void)config;
    snprintf(buf, len, "fake");
    return 1;
}
