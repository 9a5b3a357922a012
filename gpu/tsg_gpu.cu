/*
 * tsg_gpu.cu — the face of the executor: every extern "C" function of tsg_gpu.h, the only names
 * the shim calls (built without CUDA, tsg_gpu_stub.c stands in for this file and the units
 * behind it).
 *
 * Owns: nothing but the hand-over. Each function keeps tsg_gpu.h's contract and passes the work
 * to the unit that does it (tsg_exec.h lists them; the executor's state is gpu/tsg_state.h). Like
 * every unit of gpu/ it never prints (the TSGEMM_TEST_TIMELINE lines of gpu/tsg_timeline.cu
 * aside), never reads the environment, and knows nothing of BLAS interfaces: every CUDA error
 * becomes a status.
 */
#include <stdio.h>
#include <unistd.h>

#include <algorithm>

#include "tsg_device.h"
#include "tsg_exec.h"
#include "tsg_fault.h"
#include "tsg_gpu.h"
#include "tsg_pool.h"
#include "tsg_workspace.h"
#include "../kernels/tsg_kernel.h"
#include "../kernels/tf32/tsg_kernel_tf32.h" /* tf32_available, tf32_call_tile */

using namespace tsg::gpu;

/* ---- start-up ---- */

extern "C" int tsg_gpu_device_count(int *count)
{
    *count = 0;
    cudaError_t e = cudaGetDeviceCount(count);
    if (e != cudaSuccess) {
        *count = 0;
        return classify(e) == TSG_GPU_EFAIL ? TSG_GPU_ENODEV : classify(e);
    }
    return TSG_GPU_OK;
}

extern "C" int tsg_gpu_init(int device, const tsg_gpu_config *cfg, int *used, char *info, size_t len)
{
    return start_device(device, cfg, used, info, len);
}

extern "C" int tsg_gpu_set_devices(const int *ordinals, int n, int *slots, char *info, size_t len)
{
    return set_devices(ordinals, n, slots, info, len);
}

extern "C" int tsg_gpu_uuid(char *buf, size_t len)
{
    size_t pos = 0;
    for (int i = 0; i < 16 && pos + 3 <= len; ++i)
        pos += snprintf(buf + pos, len - pos, "%02x", (unsigned char)state.prop.uuid.bytes[i]);
    return TSG_GPU_OK;
}

extern "C" int tsg_gpu_measure(int math, tsg_gpu_rates *out, char *msg, size_t len)
{
    return measure(math, out, msg, len);
}

extern "C" int tsg_gpu_spot_kernel(int math, double *gpu_flops, char *msg, size_t len)
{
    return spot_kernel(math, gpu_flops, msg, len);
}

extern "C" void tsg_gpu_spot_cancel(void) { spot_ahead_cancel(); }

extern "C" int tsg_gpu_tf32_available(void) { return tsg::tf32_available() ? 1 : 0; }

/* ---- calls ---- */

extern "C" void tsg_gpu_get_limits(tsg_gpu_limits *out)
{
    out->plan = plan_limits();
    const char tr[2] = {'N', 'T'};
    for (int mi = 0; mi < 2; ++mi)
        for (int pair = 0; pair < 4; ++pair) {
            int64_t *t = out->tc_tile[mi][pair];
            t[0] = t[1] = 0;
            if (tsg::tf32_available())
                tsg::tf32_call_tile(mi ? tsg::MATH_TF32 : tsg::MATH_3XTF32, tr[pair & 1], tr[pair >> 1], &t[0], &t[1]);
        }
    out->devices = usable_slots();
    out->warming = state.warming.load();
    /* at least 1 ms: a warm-up past its expected time is still a wait */
    out->warm_left_s = out->warming ? std::max(1e-3, state.warm_expect_s - (now_s() - state.warm_t0)) : 0.0;
}

extern "C" int tsg_gpu_warm(int spot_math) { return warm_start(spot_math); }

extern "C" void tsg_gpu_warm_wait(double max_s)
{
    const double t0 = now_s();
    while (state.warming.load() && now_s() - t0 < max_s) usleep(200);
}

extern "C" int tsg_gpu_sgemm(const tsg_problem *p, const tsg_gpu_work *work, tsg_done *done, char *msg, size_t len)
{
    return work->how == TSG_GPU_PANELS ? sgemm_panels(p, work, done, msg, len)
                                       : sgemm_one_device(p, work, done, msg, len);
}

extern "C" int tsg_gpu_sgemm_device(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                                    const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                                    float *c, int64_t ldc, void *stream, int math, char *msg, size_t len)
{
    ContextGuard guard;
    const cudaError_t e = cudaSetDevice(state.device);
    if (e != cudaSuccess) return fail(e, "cudaSetDevice", msg, len);
    return sgemm_on_stream(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, (cudaStream_t)stream,
                           math, msg, len);
}

/* ---- pools and exit ---- */

extern "C" void tsg_gpu_release(void)
{
    trim_split_pool();
    release_workspaces();
}

extern "C" void tsg_gpu_pool_sizes(tsg_gpu_pools *out)
{
    out->device_bytes = (double)state.device_held.load();
    out->device_cap = state.device_cap;
    out->pinned_bytes = (double)state.pinned_held.load();
    out->pinned_cap = state.pinned_cap;
    out->workspaces = workspaces_made();
    out->copy_threads = tsg_pool_threads();
    out->devices = state.nslots;
    out->multi_calls = (double)state.multi_calls.load();
    out->handoffs = (double)state.handoffs.load();
    const long long warm_ns = state.warming.load() ? 0 : state.warm_ns.load();
    out->warm_s = warm_ns > 0 ? (double)warm_ns * 1e-9 : 0.0;
    out->warm_bytes = warm_ns > 0 && state.warm_status.load() == TSG_GPU_OK ? (double)((NS + ND) * state.slot_bytes) : 0.0;
}

extern "C" void tsg_gpu_exiting(double wait_s)
{
    state.exiting.store(1);
    const double t0 = now_s();
    while ((state.inflight.load() > 0 || state.warming.load()) && now_s() - t0 < wait_s) usleep(1000);
}

/* ---- the kernel configuration (tests, tuning) ---- */

/* The two describers ask the runtime about kernels (cudaFuncGetAttributes), which binds a context
 * to the calling thread: each runs on tsgemm's device inside a ContextGuard, so that the caller's
 * thread keeps the context it had (none, in a program that does not use CUDA itself; with one,
 * its every later call would be classified as a CUDA caller's: shim/tsg_residency.h). */
extern "C" int tsg_gpu_kernel_info(char *buf, size_t len)
{
    ContextGuard guard;
    if (cudaSetDevice(state.device) != cudaSuccess) (void)cudaGetLastError();
    char k[256], t[160] = "not on this device";
    if (tsg::kernel_describe(0, k, sizeof k) != 0) {
        snprintf(buf, len, "%s", k);
        return TSG_GPU_EFAIL;
    }
    if (tsg::tf32_available() && tsg::tf32_describe(TSG_MATH_3XTF32, t, sizeof t) != 0)
        snprintf(t, sizeof t, "available");
    snprintf(buf, len, "%s (device sm_%d%d); tensor-core family (TSGEMM_MATH=3xtf32, tf32): %s", k,
             state.prop.major, state.prop.minor, t);
    return TSG_GPU_OK;
}

extern "C" int tsg_gpu_set_kernel_config(int config, int64_t splits)
{
    if (config < -1 || config >= tsg::kernel_configs() || splits < 0) return -1;
    state.kernel_config.store(config);
    state.kernel_splits.store(config >= 0 ? splits : 0);
    return 0;
}

extern "C" int tsg_gpu_kernel_plan(char transa, char transb, int64_t m, int64_t n, int64_t k, int *config,
                                   int64_t *splits)
{
    int64_t tiles, blocks;
    device_call_plan(transa, transb, m, n, k, config, splits, &tiles, &blocks);
    return TSG_GPU_OK;
}

extern "C" int tsg_gpu_set_kernel_tail(int64_t blocks)
{
    if (blocks < -1) return -1;
    state.kernel_tail.store(blocks);
    return 0;
}

extern "C" int tsg_gpu_kernel_tail(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t *tiles,
                                   int64_t *blocks)
{
    int config;
    int64_t splits;
    device_call_plan(transa, transb, m, n, k, &config, &splits, tiles, blocks);
    return TSG_GPU_OK;
}

extern "C" int tsg_gpu_kernel_config_info(int config, char *buf, size_t len)
{
    ContextGuard guard; /* as tsg_gpu_kernel_info */
    if (cudaSetDevice(state.device) != cudaSuccess) (void)cudaGetLastError();
    if (tsg::kernel_describe(config, buf, len) != 0) return TSG_GPU_EFAIL;
    return tsg::kernel_configs();
}

#ifdef TSG_FAULT_INJECTION
extern "C" void tsg_gpu_set_fault(const char *spec) { arm_fault(spec); }
#endif
