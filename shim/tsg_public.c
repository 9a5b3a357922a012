/*
 * tsg_public.c — the public tsgemm_* functions of include/tsgemm.h (the stable API) and the
 * counters behind tsgemm_get_stats. The tuning hooks of include/tsgemm_tuning.h are
 * tsg_tuning.c's.
 *
 * Counters are what tiny calls pay for, so each thread counts into its own block (tsg_thread.h:
 * a relaxed load and store, no locked instruction) and tsgemm_get_stats sums the blocks. `calls`
 * is the sum of the outcomes; a tiny CPU call (below TSG_GPU_FLOOR_FLOPS) adds its flops as an
 * integer and is not timed (a clock read costs more than such a call on a VM; TSGEMM_LOG >= 2
 * times every call).
 * Must not: hold a lock in the exit summary (exit while another thread is inside a call must not
 * hang).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TSGEMM_BUILDING_LIBRARY
#include "../include/tsgemm.h"
#include "../gpu/tsg_gpu.h"
#include "../src/tsg_config.h"
#include "../src/tsg_trace.h"
#include "tsg_cpublas.h"
#include "tsg_log.h"
#include "tsg_public.h"
#include "tsg_runtime.h"
#include "tsg_start.h"
#include "tsg_thread.h"
#include "tsg_tracer.h"

#define TSG_EXPORT __attribute__((visibility("default")))

/* ------------------------------------------------------------------ counters */

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
    if (tsg_start_now() == TSG_START_READY && !tsg_start_forked()) tsg_gpu_pool_sizes(&pools);
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

TSG_EXPORT const char *tsgemm_version(void) { return TSGEMM_VERSION_STRING; }

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
    uint64_t count[TSG_COUNT_N];
    double sum[TSG_SUM_N];
    tsg_thread_totals(count, sum);
    tsg_gpu_pools pools;
    memset(&pools, 0, sizeof pools);
    if (tsg_start_now() == TSG_START_READY && !tsg_start_forked()) tsg_gpu_pool_sizes(&pools);
    if (pools.warm_s > 0)
        fprintf(stderr, "tsgemm: GPU staging pinned at start, in the background: %.3g MiB in %.3g ms\n",
                pools.warm_bytes / (1 << 20), pools.warm_s * 1e3);
    if (count[TSG_COUNT_CLASSIFIED]) /* where a process with CUDA spends a call's first microseconds */
        fprintf(stderr,
                "tsgemm: operand checks: %llu calls' operands asked of the CUDA driver (a process "
                "with CUDA), %.3g ms in all\n",
                (unsigned long long)count[TSG_COUNT_CLASSIFIED], sum[TSG_SUM_CLASSIFY_SECONDS] * 1e3);
}

static pthread_once_t g_summary_once = PTHREAD_ONCE_INIT;
static void register_summary(void) { atexit(exit_summary); }

void tsg_stats_summary_at_exit(void) { pthread_once(&g_summary_once, register_summary); }

/* ------------------------------------------------------------------ the other public tsgemm_* */

TSG_EXPORT void tsgemm_release(void)
{
    const int c = tsg_cancel_off();
    if (tsg_start_live()) tsg_gpu_release();
    tsg_cancel_restore(c);
}

TSG_EXPORT int tsgemm_sgemm_device(char transa, char transb, int64_t m, int64_t n, int64_t k,
                                   float alpha, const float *A, int64_t lda, const float *B,
                                   int64_t ldb, float beta, float *C, int64_t ldc, void *stream)
{
    tsg_call call;
    if (tsg_map_fortran(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, &call))
        return call.info;
    if (!tsg_start_gpu()) return -1;
    char msg[256];
    const int c = tsg_cancel_off();
    const int tracing = tsg_tracer_on();
    const uint64_t t0_ns = tracing ? tsg_tracer_now_ns() : 0;
    int st = tsg_gpu_sgemm_device(call.p.transa, call.p.transb, m, n, k, alpha, A, lda, B, ldb,
                                  beta, C, ldc, stream, tsg_rt_math(), msg, sizeof msg);
    if (tracing) { /* device operands by the API's contract (not classified); enqueue time */
        call.p.where_a = call.p.where_b = call.p.where_c = TSG_DEVICE;
        tsg_tracer_record(TSG_TRACE_DEVICE, 0, &call.p,
                          st == TSG_GPU_OK ? TSG_TRACE_PATH_GPU : TSG_TRACE_REFUSED, t0_ns,
                          tsg_tracer_now_ns());
    }
    tsg_cancel_restore(c);
    if (st == TSG_GPU_OK) return 0;
    if (st == TSG_GPU_EFATAL) tsg_start_disable();
    tsg_log(1, "tsgemm_sgemm_device failed: %s", msg);
    return -1;
}

TSG_EXPORT int tsgemm_set_mode(int mode)
{
    if (mode != TSGEMM_MODE_AUTO && mode != TSGEMM_MODE_CPU && mode != TSGEMM_MODE_GPU) return -1;
    /* tsg_mode and tsgemm_mode share their values (checked below); the store is one int. */
    _Static_assert((int)TSG_MODE_CPU == (int)TSGEMM_MODE_CPU && (int)TSG_MODE_GPU == (int)TSGEMM_MODE_GPU &&
                       (int)TSG_MODE_AUTO == (int)TSGEMM_MODE_AUTO,
                   "mode values");
    return tsg_rt_set_mode(mode);
}

TSG_EXPORT int tsgemm_set_math(int math)
{
    _Static_assert((int)TSG_MATH_FP32 == (int)TSGEMM_MATH_FP32 &&
                       (int)TSG_MATH_3XTF32 == (int)TSGEMM_MATH_3XTF32 &&
                       (int)TSG_MATH_TF32 == (int)TSGEMM_MATH_TF32 && TSG_MATH_COUNT == 3,
                   "math values");
    if (math < 0 || math >= TSG_MATH_COUNT) return -1;
    return tsg_rt_set_math(math);
}

TSG_EXPORT int tsgemm_get_math(void) { return tsg_rt_math(); }

TSG_EXPORT int tsgemm_kernel_info(char *buf, int len)
{
    if (!buf || len <= 0) return -1;
    if (!tsg_start_gpu()) {
        const char *why = tsg_start_forked() ? "forked child of a process that used the GPU"
                          : tsg_start_now() == TSG_START_DISABLED ? "disabled after a fatal CUDA error"
                                                                  : tsg_start_info();
        snprintf(buf, (size_t)len, "no usable GPU: %s", why);
        return -1;
    }
    char k[640];
    if (tsg_gpu_kernel_info(k, sizeof k) != TSG_GPU_OK) {
        snprintf(buf, (size_t)len, "no usable GPU: %s", k);
        return -1;
    }
    snprintf(buf, (size_t)len, "%s; %s", tsg_start_info(), k);
    return 0;
}

TSG_EXPORT const char *tsgemm_cpu_blas(void)
{
    const int c = tsg_cancel_off(); /* may load the CPU BLAS */
    const char *d = tsg_cpu_describe();
    tsg_cancel_restore(c);
    return d;
}

#ifdef TSG_FAULT_INJECTION
/* Test builds only (libtsgemm_fi): arms a pipeline failure (gpu/tsg_gpu.h,
 * tsg_gpu_set_fault); "" disarms. Starts the GPU first so the spec is not overwritten by
 * TSGEMM_TEST_FAULT at start-up. Returns 0, or -1 without a usable GPU. */
TSG_EXPORT int tsgemm_test_fault(const char *spec)
{
    if (!tsg_start_gpu()) return -1;
    tsg_gpu_set_fault(spec);
    return 0;
}
#endif
