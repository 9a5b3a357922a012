/*
 * tsg_start.c — the GPU's lazy start, device choice and fork handling. See tsg_start.h.
 */
#define _GNU_SOURCE
#include "tsg_start.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "../gpu/tsg_gpu.h"
#include "tsg_log.h"
#include "tsg_residency.h"
#include "tsg_runtime.h"
#include "tsg_thread.h"

static atomic_int g_phase;          /* tsg_start_phase                                     */
static atomic_int g_forked;         /* this process is a fork of one that started the GPU   */
static atomic_int g_started;        /* tsg_gpu_init was entered in this process             */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_info[512] = "GPU not started"; /* the device, or why there is none */
static int g_nslots = 1;            /* device slots (TSGEMM_DEVICE list); written once at start */

static void atfork_child(void)
{
    if (atomic_load(&g_started)) {
        atomic_store(&g_forked, 1);
        atomic_store(&g_phase, TSG_START_DISABLED);
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
    char *info = g_info;
    if (tsg_rt_privileged()) { /* README "Privileged programs": the CUDA driver reads its own
                                * environment (libraries to inject, cache folders) */
        snprintf(info, sizeof g_info, "privileged process (AT_SECURE): the GPU is not used, "
                                      "TSGEMM_* and the rates cache are ignored");
        atomic_store(&g_phase, TSG_START_ABSENT);
        tsg_log(2, "%s", info);
        return;
    }
    pthread_atfork(NULL, NULL, atfork_child); /* only a process that started the GPU needs it */
    atomic_store(&g_started, 1);
    const tsg_gpu_config gcfg = {cfg->device_memory, cfg->pinned_memory, cfg->copy_threads,
                                 cfg->test_unit, cfg->test_copy, cfg->test_block,
                                 cfg->test_timeline, cfg->test_ramp, cfg->test_chunk,
                                 cfg->test_order, cfg->test_touch, cfg->test_poll};
    char why[256];
    int device = pick_device(cfg, why, sizeof why);
    int used = device;
    tsg_residency_gpu_starting();
    int st = tsg_gpu_init(device, &gcfg, &used, info, sizeof g_info);
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
        /* before READY: the first call that sees the GPU ready also sees it warming */
        /* the warm-up first spot-checks the kernel of the math calls get now (TSGEMM_MATH's, or
         * tsgemm_set_math's before the first call) where rates may be read: a cache, auto mode,
         * the cost model (shim/tsg_measure.c gpu_cache_stale asks for it; a later change of
         * math or mode has it timed then). Elsewhere no rates are read, and calls would only
         * wait for it (racecheck: a forced-mode test past 100 s, most likely behind it, run 89) */
        const int spot = cfg->cache_dir[0] && tsg_rt_mode() == TSG_MODE_AUTO && cfg->policy.threshold <= 0
                             ? tsg_rt_math()
                             : -1;
        if (cfg->pin_at_start && tsg_gpu_warm(spot) == 0)
            tsg_log(2, "GPU staging: being pinned in the background; until it is done auto mode "
                       "runs on the CPU the calls the GPU would not win after waiting for it "
                       "(TSGEMM_PIN_AT_START=0 turns this off)");
        atomic_store(&g_phase, TSG_START_READY);
    } else {
        atomic_store(&g_phase, TSG_START_ABSENT);
        if (st == TSG_GPU_ENODEV)
            tsg_log(2, "no usable GPU (%s); all calls run on the CPU BLAS", info);
        else if (tsg_log_first(TSG_ONCE_INIT))
            tsg_log(1, "GPU start-up failed (%s); all calls run on the CPU BLAS", info);
    }
}

int tsg_start_gpu(void)
{
    if (atomic_load(&g_forked)) {
        if (tsg_log_first(TSG_ONCE_FORK))
            tsg_log(1, "forked child of a process that used the GPU: CPU path from now on");
        return 0;
    }
    const int c = tsg_cancel_off(); /* the public tsgemm_* functions start the GPU through here */
    pthread_once(&g_once, gpu_init_once);
    tsg_cancel_restore(c);
    return atomic_load(&g_phase) == TSG_START_READY;
}

tsg_start_phase tsg_start_now(void) { return (tsg_start_phase)atomic_load(&g_phase); }

void tsg_start_disable(void) { atomic_store(&g_phase, TSG_START_DISABLED); }

int tsg_start_forked(void) { return atomic_load(&g_forked); }

int tsg_start_live(void) { return atomic_load(&g_started) && !atomic_load(&g_forked); }

int tsg_start_slots(void) { return g_nslots; }

const char *tsg_start_info(void) { return g_info; }
