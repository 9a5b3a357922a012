/*
 * tsg_measure.cu — the rates of this executor on this machine (tsg_gpu.h tsg_gpu_measure, for the
 * cost model of src/tsg_cost.h), in a few tens of milliseconds.
 *
 * The pipeline's own rates: real calls from populated pageable memory (as a caller's operands
 * are), each dominated by one term:
 *   upload   8192 x 8 x 2048 and 8192 x 8 x 8192: A is 64 and 256 MiB up, B and C tiny; the rate
 *            is the slope between the two (the sustained rate; one call's time over its bytes
 *            read 29-33 GB/s where 1 GiB moved at 48-50, docs/NOTES.md v0.4);
 *   download 4096 x 4096 x 8 and 8192 x 8192 x 8: C is 64 and 256 MiB down; likewise;
 *   call     TSG_GPU_FIT_N^3 (256^3) calls, the mean less the slowest, and the best of a few 64^3
 *            calls: the shim fits the model's fixed cost to the first (tsg_fit_gpu_latency) and
 *            never below the second (before v0.12 the executor took a 512^3 call less its bytes,
 *            and the model counted that call's kernel again: docs/NOTES.md "v0.12");
 *   kernel   2048^3 on device buffers with the configuration the per-shape rule picks for it
 *            (one wave of tiles on an H200; NN on configuration 7 since v0.4, where the rates up
 *            to cache v9 timed configuration 0: 38 TFLOP/s, 17% under what large calls run at),
 *            once per transpose pair (NN, TN, NT, TT), each with its own rate and tile: the
 *            pairs run other instances (1xTF32's NT 128 x 128 tiles at 157 TFLOP/s where NN runs
 *            128 x 256 at 375, H200 device run 69); with math != fp32 the launch the call's math
 *            gets (launch_product: the tensor-core family where it takes the shape), as do all
 *            the calls above (tsg_problem.math), so each math's rates are its own (cached per
 *            math by the shim). The spot check of a cached rate times NN alone.
 * These calls are the executor's own: they plan themselves (src/tsg_plan.h with plan_limits), as
 * no call of a caller ever does.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>

#include "tsg_device.h"
#include "tsg_exec.h"
#include "tsg_pool.h"
#include "../kernels/tsg_kernel.h"
#include "../kernels/tf32/tsg_kernel_tf32.h" /* tf32_call_tile */
#include "../src/tsg_cost.h"

namespace tsg {
namespace gpu {

namespace {

constexpr int FIT_CALLS = 7; /* TSG_GPU_FIT_N^3 calls timed (after one to warm up) */
constexpr int64_t KERNEL_N = 2048; /* the timed kernel's KERNEL_N^3, each transpose pair */

/* The calls' host memory, mapped and populated: the big operand (A up, C down: 8192^2 floats)
 * and a small buffer for the rest (B and C of the upload calls, A and B of the download calls,
 * the fixed cost's operands). Never zeros. */
struct HostBuffers {
    static constexpr size_t SMALL = (size_t)1 << 20;
    static constexpr size_t FLOATS = (size_t)8192 * 8192 + SMALL;
    void *map = MAP_FAILED;
    float *big = nullptr, *small = nullptr;

    bool make()
    {
        map = mmap(nullptr, FLOATS * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (map == MAP_FAILED) return false;
        float *host = (float *)map;
        for (size_t i = 0; i < FLOATS; i += 1024) host[i] = (float)(i % 7) * 0.25f;
        big = host;
        small = host + (size_t)8192 * 8192;
        return true;
    }
    ~HostBuffers()
    {
        if (map != MAP_FAILED) munmap(map, FLOATS * 4);
    }
};

/* What the calls took (seconds; the kernel in ms), best (or all) of their repeats. */
struct Times {
    double up[2] = {1e30, 1e30}, down[2] = {1e30, 1e30}; /* 64 and 256 MiB */
    double fit[FIT_CALLS] = {};
    double lat64 = 1e30;
    /* per transpose pair, pair = (transa != 'N') + 2 * (transb != 'N') (src/tsg_cost.h
     * tsg_rates.gpu_pair_*): the kernel's time, and the C tile its rate counts: the tensor-core
     * family's instance for the pair where it ran the timed kernel (tf32_call_tile: 1xTF32's NN
     * 128 x 256, NT 128 x 128, TT 256 x 128), else the FP32 kernels' model tile
     * (kernel_tile_m/n: 128 x 128, whichever configuration ran) */
    float kernel_ms[4] = {1e30f, 1e30f, 1e30f, 1e30f};
    double tile_m[4] = {}, tile_n[4] = {};
};

/* One measurement: its workspace, math and error message. */
struct Measure {
    Workspace *w;
    int math;
    char *msg;
    size_t len;
    HostBuffers host;
    Times t;

    /* A pipelined NN call on host memory, packed operands, beta = 0, planned as a caller's call
     * on one device would be. */
    int host_call(int64_t m, int64_t n, int64_t k, const float *A, const float *B, float *C)
    {
        const tsg_problem p = {'N', 'N', m, n, k, 1.0f, 0.0f, A, m, B, k, C, m, TSG_HOST, TSG_HOST, TSG_HOST,
                               (unsigned char)math, 0};
        const tsg_plan_limits lim = plan_limits();
        tsg_plan pl;
        const bool planned = tsg_plan_make(&p, &lim, &pl) == 0;
        tsg_done done;
        return sgemm_pipeline(w, &p, planned ? &pl : nullptr, &lim, &done, msg, len);
    }
};

/* Upload and download: r = 0 warms up (allocations, threads, page tables), then the best of four
 * calls of each size (v0.10: of two; a slope between two close times is sensitive to either).
 * The upload calls gather with memcpy (t_rates_memcpy), whatever way they end. */
int time_transfers(Measure &M)
{
    float *big = M.host.big, *small = M.host.small;
    for (int r = 0; r < 5; ++r)
        for (int z = 0; z < 2; ++z) {
            const int64_t big_side = z ? 8192 : 2048, c_side = z ? 8192 : 4096;
            double s0 = now_s();
            t_rates_memcpy = true;
            int s = M.host_call(8192, 8, big_side, big, small, small + 8192 * 8);
            t_rates_memcpy = false;
            if (s) return s;
            if (r) M.t.up[z] = std::min(M.t.up[z], now_s() - s0);
            s0 = now_s();
            if ((s = M.host_call(c_side, c_side, 8, small, small + 8192 * 8, big))) return s;
            if (r) M.t.down[z] = std::min(M.t.down[z], now_s() - s0);
        }
    return TSG_GPU_OK;
}

/* The fixed cost's calls, with the rule's gathers as callers get them; A, B, C of the
 * TSG_GPU_FIT_N^3 call in the small buffer (3 x 256 KiB). r = 0 warms up. */
int time_calls(Measure &M)
{
    const int64_t F = TSG_GPU_FIT_N;
    static_assert(3 * TSG_GPU_FIT_N * TSG_GPU_FIT_N <= (1 << 20), "fits the small buffer");
    float *small = M.host.small;
    for (int r = 0; r < FIT_CALLS + 1; ++r) {
        double s0 = now_s();
        int s = M.host_call(64, 64, 64, small, small + 4096, small + 8192);
        if (s) return s;
        M.t.lat64 = std::min(M.t.lat64, now_s() - s0);
        s0 = now_s();
        if ((s = M.host_call(F, F, F, small, small + F * F, small + 2 * F * F))) return s;
        if (r) M.t.fit[r - 1] = now_s() - s0;
    }
    return TSG_GPU_OK;
}

/* The kernel of math `math` for transpose pair `pair` (0 NN, 1 TN, 2 NT, 3 TT): KERNEL_N^3 on
 * hashed data in dev (3 KERNEL_N^2 floats) on `stream`, timed by events, the best of three after
 * one that warms up; into t->kernel_ms[pair] and the tile the rate counts (t->tile_m[pair],
 * tile_n[pair]). */
int time_kernel(int math, int pair, float *dev, cudaStream_t stream, Times *t, char *msg, size_t len)
{
    const int64_t N = KERNEL_N;
    const char ta = pair & 1 ? 'T' : 'N', tb = pair & 2 ? 'T' : 'N';
    const int kcfg = tsg::kernel_plan(ta, tb, N, N, N, state.sms, 0, -1, 0).config;
    float *dA = dev, *dB = dA + N * N, *dC = dB + N * N;
    cudaError_t e;
    if ((e = (cudaError_t)tsg::kernel_fill(dA, N * N, 1u, stream)) != cudaSuccess ||
        (e = (cudaError_t)tsg::kernel_fill(dB, N * N, 2u, stream)) != cudaSuccess)
        return fail(e, "kernel_fill", msg, len);
    int s = TSG_GPU_OK;
    cudaEvent_t t0 = nullptr, t1 = nullptr;
    if ((e = cudaEventCreate(&t0)) != cudaSuccess || (e = cudaEventCreate(&t1)) != cudaSuccess) {
        s = fail(e, "cudaEventCreate", msg, len);
    } else {
        for (int r = 0; r < 4 && e == cudaSuccess; ++r) {
            unsigned fam = 0;
            float ms;
            if ((e = cudaEventRecord(t0, stream)) != cudaSuccess ||
                (e = launch_product(math, kcfg, ta, tb, N, N, N, N, 1, 0, 0, 1.0f, dA, N, dB, N, 0.0f, dC, N,
                                    nullptr, stream, &fam)) != cudaSuccess ||
                (e = cudaEventRecord(t1, stream)) != cudaSuccess || (e = cudaEventSynchronize(t1)) != cudaSuccess ||
                (e = cudaEventElapsedTime(&ms, t0, t1)) != cudaSuccess)
                s = fail(e, "timed kernel launch", msg, len);
            else if (r > 0)
                t->kernel_ms[pair] = std::min(t->kernel_ms[pair], ms);
            if (e == cudaSuccess && r == 0) {
                int64_t tm = tsg::kernel_tile_m(), tn = tsg::kernel_tile_n();
                if (fam == 1u << math && math != TSG_MATH_FP32) tsg::tf32_call_tile(math, ta, tb, &tm, &tn);
                t->tile_m[pair] = (double)tm, t->tile_n[pair] = (double)tn;
            }
        }
    }
    if (t0) cudaEventDestroy(t0);
    if (t1) cudaEventDestroy(t1);
    return s;
}

/* time_kernel of every transpose pair on the measurement's workspace: its arena and compute
 * stream. */
int time_kernel(Measure &M)
{
    const size_t bytes = (size_t)3 * KERNEL_N * KERNEL_N * 4;
    int s = ensure_arena(M.w, bytes, M.msg, M.len);
    for (int pair = 0; pair < 4 && s == TSG_GPU_OK; ++pair)
        s = time_kernel(M.math, pair, M.w->arena, M.w->s_comp, &M.t, M.msg, M.len);
    return s;
}

/* The kernel's full-wave rate (FLOP/s) for transpose pair `pair` from its time: waves * slots
 * tiles' worth of work per time (see tsg_estimate_gpu_s); one block per SM is the model's wave (a
 * grid of <= 132 tiles runs each block about as fast as a full SM allows: 1024^3, 64 tiles:
 * 0.12 ms; 4096^3, 8 waves of 132: 3.6 ms). */
double kernel_rate(const Times &t, int pair)
{
    const double slots = (double)state.sms, tm = t.tile_m[pair], tn = t.tile_n[pair];
    const double n = (double)KERNEL_N, tiles = std::ceil(n / tm) * std::ceil(n / tn);
    return std::ceil(tiles / slots) * slots * 2.0 * tm * tn * n / (t.kernel_ms[pair] * 1e-3);
}

/* The rates from the times. */
void rates_from(const Times &t, tsg_gpu_rates *out)
{
    const double mib192 = (double)(256 - 64) * (1 << 20), mib256 = (double)256 * (1 << 20);
    /* the slope, but never above 1.5x the large call's own average (timing noise between two
     * close times must not invent a rate) */
    out->h2d_bps = std::min(1.5 * mib256 / t.up[1], mib192 / std::max(1e-9, t.up[1] - t.up[0]));
    out->d2h_bps = std::min(1.5 * mib256 / t.down[1], mib192 / std::max(1e-9, t.down[1] - t.down[0]));
    double fit[FIT_CALLS];
    std::copy(t.fit, t.fit + FIT_CALLS, fit);
    out->call_s = tsg_mean_less_slowest(fit, FIT_CALLS);
    out->floor_s = t.lat64;
    out->gpu_flops = kernel_rate(t, 0);
    out->tile_m = t.tile_m[0];
    out->tile_n = t.tile_n[0];
    for (int pair = 1; pair < 4; ++pair) {
        out->pair_flops[pair - 1] = kernel_rate(t, pair);
        out->pair_tile_m[pair - 1] = t.tile_m[pair];
        out->pair_tile_n[pair - 1] = t.tile_n[pair];
    }
    out->slots = (double)state.sms;
    out->split_min_k = SPLIT_MIN_K;
    out->device_bytes = call_budget();
    out->copy_threads = state.copy_threads;
}

} /* namespace */

int measure(int math, tsg_gpu_rates *out, char *msg, size_t len)
{
    ContextGuard guard;
    const cudaError_t e = cudaSetDevice(state.device);
    if (e != cudaSuccess) return fail(e, "cudaSetDevice", msg, len);
    tsg_pool_start(state.copy_threads);
    Measure M{nullptr, math, msg, len, {}, {}};
    if (!M.host.make()) {
        snprintf(msg, len, "host allocation failed");
        return TSG_GPU_ENOMEM;
    }
    int st = acquire(&M.w, msg, len);
    if (st != TSG_GPU_OK) return st;
    if ((st = time_transfers(M)) == TSG_GPU_OK && (st = time_calls(M)) == TSG_GPU_OK) st = time_kernel(M);
    if (st == TSG_GPU_OK) free_arena(M.w); /* the measurement's sizes are not the callers' */
    give_back(M.w, st);
    if (st != TSG_GPU_OK) return st;
    rates_from(M.t, out);
    return TSG_GPU_OK;
}

namespace {

/* The kernel's spot check, timed now: buffers and a stream of its own, not a workspace (a
 * workspace would wait for the warm-up). */
int spot_now(int math, double *gpu_flops, char *msg, size_t len)
{
    ContextGuard guard;
    cudaError_t e = cudaSetDevice(state.device);
    if (e != cudaSuccess) return fail(e, "cudaSetDevice", msg, len);
    float *dev = nullptr;
    cudaStream_t stream = nullptr;
    Times t;
    int st;
    if ((e = cudaMalloc((void **)&dev, (size_t)3 * KERNEL_N * KERNEL_N * 4)) != cudaSuccess)
        st = fail(e, "cudaMalloc (spot check)", msg, len);
    else if ((e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)) != cudaSuccess)
        st = fail(e, "cudaStreamCreateWithFlags", msg, len);
    else
        st = time_kernel(math, 0, dev, stream, &t, msg, len); /* NN: the cached gpu_flops */
    if (stream) cudaStreamDestroy(stream);
    if (dev) cudaFree(dev);
    if (st == TSG_GPU_OK) *gpu_flops = kernel_rate(t, 0);
    return st;
}

/* The warm-up's spot check (spot_ahead): the math it times (-1: none), its state, and once the
 * state is SPOT_DONE its status, rate and message (written before the state). Whoever moves the
 * state from SPOT_PENDING to SPOT_RUNNING times the kernel, the warm-up or a caller, never both:
 * under a tool that slows kernels (compute-sanitizer; racecheck most, on the FP32 kernels' shared
 * memory) a second timing beside the first doubles a long wait. */
enum { SPOT_PENDING, SPOT_RUNNING, SPOT_DONE, SPOT_CANCELLED };
std::atomic<int> g_spot_math{-1};
std::atomic<int> g_spot_state{SPOT_CANCELLED};
int g_spot_status = TSG_GPU_OK;
double g_spot_flops = 0;
char g_spot_msg[256];
/* How long spot_kernel waits for the warm-up to begin its check before it takes the check itself:
 * the check takes about 3 ms (device run 83, H100) once begun; the thread may start late on a
 * loaded host. */
constexpr double SPOT_WAIT_S = 2.0;
/* How long spot_kernel waits for a check the warm-up has begun: about 3 ms on an H100, far longer
 * under a sanitizer; a bound, so that no call waits forever on a thread that cannot finish,
 * after which the caller times the kernel itself. */
constexpr double SPOT_RUNNING_WAIT_S = 600.0;

/* Times `math` as the one who claimed the check, and publishes the result. */
void spot_claimed(int math)
{
    g_spot_status = spot_now(math, &g_spot_flops, g_spot_msg, sizeof g_spot_msg);
    g_spot_state.store(SPOT_DONE);
}

} /* namespace */

void spot_ahead(int math)
{
    g_spot_math.store(math);
    g_spot_state.store(math >= 0 ? SPOT_PENDING : SPOT_CANCELLED);
}

void spot_ahead_cancel()
{
    int pending = SPOT_PENDING;
    g_spot_state.compare_exchange_strong(pending, SPOT_CANCELLED);
}

void spot_ahead_run()
{
    const int math = g_spot_math.load();
    int pending = SPOT_PENDING;
    if (math >= 0 && g_spot_state.compare_exchange_strong(pending, SPOT_RUNNING)) spot_claimed(math);
}

int spot_kernel(int math, double *gpu_flops, char *msg, size_t len)
{
    if (g_spot_math.load() == math) {
        const double t0 = now_s();
        int st = g_spot_state.load();
        while (st == SPOT_PENDING && now_s() - t0 < SPOT_WAIT_S) usleep(100), st = g_spot_state.load();
        int pending = SPOT_PENDING;
        if (st == SPOT_PENDING && g_spot_state.compare_exchange_strong(pending, SPOT_RUNNING)) {
            spot_claimed(math); /* the warm-up had not begun it: it now skips it */
        }
        while (g_spot_state.load() == SPOT_RUNNING && now_s() - t0 < SPOT_RUNNING_WAIT_S) usleep(100);
        if (g_spot_state.load() == SPOT_DONE) {
            if (g_spot_status != TSG_GPU_OK) {
                snprintf(msg, len, "%s", g_spot_msg);
                return g_spot_status;
            }
            *gpu_flops = g_spot_flops;
            return TSG_GPU_OK;
        }
    }
    return spot_now(math, gpu_flops, msg, len);
}

} /* namespace gpu */
} /* namespace tsg */
