/*
 * tsg_device.cu — the device, the caller's context and CUDA errors. See tsg_device.h.
 */
#include "tsg_device.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <cmath>

#include "tsg_pool.h"
#include "../kernels/tsg_kernel.h"
#include "../kernels/tf32/tsg_kernel_tf32.h"
#include "../src/tsg_multi.h"

namespace tsg {
namespace gpu {

static_assert(TSG_MULTI_FATAL == TSG_GPU_EFATAL, "src/tsg_multi.h's copy of TSG_GPU_EFATAL");
static_assert((int)tsg::MATH_FP32 == (int)TSG_MATH_FP32 && (int)tsg::MATH_3XTF32 == (int)TSG_MATH_3XTF32 &&
                  (int)tsg::MATH_TF32 == (int)TSG_MATH_TF32,
              "kernels/tf32/tsg_kernel_tf32.h's TensorMath and src/tsg_config.h's tsg_math");

namespace {

/* The most workspaces (calls on the GPU at once) a pinned cap buys: 256 x 160 MiB = 40 GiB of
 * pinned slots. Bounds the cap's quotient before it becomes an int, whatever the cap. */
constexpr int MAX_WS = 256;
/* The pinned cap when TSGEMM_PINNED_MEMORY is unset: three workspaces of 160 MiB. */
constexpr double PINNED_DEFAULT = (double)(512u << 20);
/* What State::split_pool keeps mapped between calls. */
constexpr uint64_t SPLIT_POOL_KEEP = (uint64_t)256 << 20;
/*
 * Inside a pipelined call that stages (tsg_pool_burst_begin), idle copy threads and the caller
 * waiting on a copy poll instead of blocking, when the process has a CPU for each copy thread and
 * POLL_SPARE_CPUS more (the caller's and one to spare; tsg_pool_set_poll). A blocked copy thread
 * took 50-130 us to start a queued 1 MiB gather or scatter in a 1024^3 call's steps (v0.9 run 1,
 * v0.10 run 2), which costs more than the copy. v0.11 run 2 (pipe_probe, two rounds in
 * alternating processes, polling against blocking): 768^3 0.395 / 0.367 ms against 0.453 / 0.547,
 * 1024^3 0.452 / 0.485 against 0.516 / 0.573, 512 x 512 x 65536 5.44 / 5.53 against 5.65 / 5.55,
 * 65536 x 64 x 4096 20.4 / 20.8 against 20.8 / 21.0, 2048^3 to 8192^3 inside the noise
 * (docs/NOTES.md "v0.11").
 * They poll for at most POLL_MAX_US after a thread's last copy (then it blocks until the next one
 * is queued): a 1024^3 call takes 0.45 ms, so small calls poll throughout, while a long call that
 * waits on its GPU, or many processes sharing the CPUs each in a call (MPI ranks), do not keep
 * every copy thread spinning. Runs 1-4 of v0.11 measured polling without this bound.
 */
constexpr int POLL_SPARE_CPUS = 2;
constexpr int POLL_MAX_US = 1000;

/* The driver's context calls, from the libcuda the CUDA runtime loaded (not linked). */
void find_context_calls()
{
    void *cu = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (cu) {
        state.ctx_get = (ctx_get_fn)dlsym(cu, "cuCtxGetCurrent");
        state.ctx_set = (ctx_set_fn)dlsym(cu, "cuCtxSetCurrent");
    }
}

/* Makes state.device current, creates its context (now, not inside the first timed call) and
 * reads what the plans need of it. step_s[0..2]: the seconds the context's creation, the FP32
 * kernels' set-up (occupancy) and the tensor-core family's took. */
int open_device(char *info, size_t len, double step_s[3])
{
    cudaError_t e;
    double t = now_s();
    if ((e = cudaSetDevice(state.device)) != cudaSuccess) return fail(e, "cudaSetDevice", info, len);
    if ((e = cudaFree(nullptr)) != cudaSuccess) return fail(e, "cudaFree (context creation)", info, len);
    step_s[0] = now_s() - t, t = now_s();
    if ((e = cudaGetDeviceProperties(&state.prop, state.device)) != cudaSuccess)
        return fail(e, "cudaGetDeviceProperties", info, len);
    int per_sm = 0;
    if ((e = (cudaError_t)tsg::kernel_blocks_per_sm(&per_sm)) != cudaSuccess)
        return fail(e, "occupancy of the kernel configurations", info, len);
    step_s[1] = now_s() - t, t = now_s();
    /* the tensor-core family (issue 36): 0 also when it is not built or not for this device
     * (tsg::tf32_available() then says false and every call runs on the FP32 kernels). A failure
     * of its own set-up leaves it unavailable; it never stops the FP32 path from starting. */
    if (tsg::tf32_init() != 0) (void)cudaGetLastError();
    step_s[2] = now_s() - t;
    state.sms = state.prop.multiProcessorCount;
    return TSG_GPU_OK;
}

/* The pinned slots and workspaces the pinned cap buys, and the device memory cap. */
void set_budgets(const tsg_gpu_config *cfg)
{
    state.pinned_default = !(cfg && cfg->pinned_bytes > 0);
    state.pinned_cap = state.pinned_default ? PINNED_DEFAULT : cfg->pinned_bytes;
    const double per_ws = (double)((NS + ND) * SLOT_MAX);
    state.max_ws = (int)std::min<double>(MAX_WS, std::max(1.0, std::floor(state.pinned_cap / per_ws)));
    state.slot_bytes =
        (size_t)std::min<double>((double)SLOT_MAX, state.pinned_cap / (double)((NS + ND) * state.max_ws));
    state.slot_bytes = std::max(SLOT_MIN, state.slot_bytes & ~(size_t)4095);
    /* a cap above the device's memory buys nothing: the device's memory is the bound */
    const double mem = (double)state.prop.totalGlobalMem;
    state.device_cap = cfg && cfg->device_bytes > 0 ? std::min(cfg->device_bytes, mem) : 0.75 * mem;
}

/* State::split_pool, or nullptr where the driver refuses it. */
void make_split_pool()
{
    cudaMemPoolProps pp;
    memset(&pp, 0, sizeof pp);
    pp.allocType = cudaMemAllocationTypePinned;
    pp.handleTypes = cudaMemHandleTypeNone;
    pp.location.type = cudaMemLocationTypeDevice;
    pp.location.id = state.device;
    uint64_t keep = SPLIT_POOL_KEEP;
    if (cudaMemPoolCreate(&state.split_pool, &pp) != cudaSuccess ||
        cudaMemPoolSetAttribute(state.split_pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) {
        (void)cudaGetLastError();
        state.split_pool = nullptr;
    }
}

/* The copy threads and the tuning knobs; returns whether the copy threads poll inside calls. */
bool set_copy_and_knobs(const tsg_gpu_config *cfg)
{
    const int cpus = tsg_pool_usable_cpus();
    /* 3/4 of the CPUs, at most 12: on the 16-CPU H200 host 12 copy threads beat 8 and 15
     * (docs/NOTES.md, run 2), as docs/PERF.md's memcpy scaling (35 GB/s at 12 threads, 33 at 16) */
    state.copy_threads = cfg && cfg->copy_threads > 0 ? cfg->copy_threads : std::min(12, std::max(2, cpus * 3 / 4));
    if (cfg) {
        state.unit_bytes = cfg->unit_bytes;
        state.block_floats = cfg->block_floats;
        state.chunk_floats = cfg->chunk_floats;
        state.timeline = cfg->timeline;
        state.order = cfg->order;
        state.touch = cfg->touch;
        if (cfg->ramp > 0) state.ramp_steps = cfg->ramp;
        if (cfg->copy_kind) state.gather_copy = state.scatter_copy = cfg->copy_kind;
    }
    const bool poll = (cfg && cfg->poll) || cpus >= state.copy_threads + POLL_SPARE_CPUS;
    tsg_pool_set_poll(poll ? POLL_MAX_US : 0);
    return poll;
}

} /* namespace */

int classify(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return TSG_GPU_OK;
    case cudaErrorMemoryAllocation: return TSG_GPU_ENOMEM;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorStubLibrary:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
        return TSG_GPU_ENODEV;
    /* Sticky errors: the context is unusable until the process ends. */
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorLaunchTimeout:
    case cudaErrorContextIsDestroyed:
    case cudaErrorCudartUnloading:
    case cudaErrorUnknown:
        return TSG_GPU_EFATAL;
    default: return TSG_GPU_EFAIL;
    }
}

int fail(cudaError_t e, const char *what, char *msg, size_t len)
{
    if (msg && len) snprintf(msg, len, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    int st = classify(e);
    if (st != TSG_GPU_EFATAL) (void)cudaGetLastError(); /* clear a non-sticky error */
    return st;
}

double now_s()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int start_device(int device, const tsg_gpu_config *cfg, int *used, char *info, size_t len)
{
    const double t0 = now_s();
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count); /* loads and initialises the driver */
    const double drv_s = now_s() - t0;
    if (e != cudaSuccess) {
        if (e == cudaErrorInsufficientDriver)
            snprintf(info, len, "no CUDA driver, or one older than this CUDA runtime (%s)",
                     cudaGetErrorName(e));
        else
            snprintf(info, len, "%s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
        return classify(e) == TSG_GPU_EFAIL ? TSG_GPU_ENODEV : classify(e);
    }
    if (count == 0) {
        snprintf(info, len, "no CUDA device");
        return TSG_GPU_ENODEV;
    }
    find_context_calls(); /* libcuda is loaded now: cudart loaded it */
    ContextGuard guard;
    state.device = (device >= 0 && device < count) ? device : 0;
    *used = state.device;
    double step_s[3] = {0, 0, 0};
    const int st = open_device(info, len, step_s);
    if (st != TSG_GPU_OK) return st;
    set_budgets(cfg);
    make_split_pool();
    const bool poll = set_copy_and_knobs(cfg);
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    const cudaDeviceProp &pr = state.prop;
    snprintf(info, len,
             "device %d of %d: %s, sm_%d%d, %d SMs, %.1f GiB; driver CUDA %d.%d, runtime %d.%d; "
             "%d copy threads (%s in calls), %d x %.0f MiB pinned slots per call, up to %d calls at once; "
             "started in %.1f ms (driver %.1f, context %.1f, FP32 kernels %.1f, tensor-core family %.1f ms)",
             state.device, count, pr.name, pr.major, pr.minor, pr.multiProcessorCount,
             (double)pr.totalGlobalMem / (1 << 30), drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10,
             state.copy_threads, poll ? "polling" : "blocking", NS + ND, (double)state.slot_bytes / (1 << 20),
             state.max_ws, 1e3 * (now_s() - t0), 1e3 * drv_s, 1e3 * step_s[0], 1e3 * step_s[1], 1e3 * step_s[2]);
    return TSG_GPU_OK;
}

int check_placement(const tsg_problem *p, char *msg, size_t len)
{
    const void *ptrs[3] = {p->a, p->b, p->c};
    const unsigned char where[3] = {p->where_a, p->where_b, p->where_c};
    const char *names[3] = {"A", "B", "C"};
    for (int i = 0; i < 3; ++i) {
        if (where[i] != TSG_DEVICE) continue;
        cudaPointerAttributes at;
        cudaError_t e = cudaPointerGetAttributes(&at, ptrs[i]);
        if (e != cudaSuccess) return fail(e, "cudaPointerGetAttributes", msg, len);
        if (at.type == cudaMemoryTypeDevice && at.device != state.device) {
            snprintf(msg, len, "%s is memory of GPU %d; tsgemm runs on GPU %d (TSGEMM_DEVICE)",
                     names[i], at.device, state.device);
            return TSG_GPU_EPLACE;
        }
    }
    return TSG_GPU_OK;
}

void prefetch_managed(const tsg_problem *p, bool ab, bool c, cudaStream_t s)
{
    if (!state.prop.concurrentManagedAccess) return;
    cudaMemLocation loc;
    loc.type = cudaMemLocationTypeDevice;
    loc.id = state.device;
    int64_t ra, ca, rb, cb;
    tsg_stored_shape_a(p, &ra, &ca);
    tsg_stored_shape_b(p, &rb, &cb);
    if (ab && p->where_a == TSG_MANAGED)
        cudaMemPrefetchAsync(p->a, (size_t)tsg_extent(ra, ca, p->lda) * 4, loc, 0, s);
    if (ab && p->where_b == TSG_MANAGED)
        cudaMemPrefetchAsync(p->b, (size_t)tsg_extent(rb, cb, p->ldb) * 4, loc, 0, s);
    if (c && p->where_c == TSG_MANAGED)
        cudaMemPrefetchAsync(p->c, (size_t)tsg_extent(p->m, p->n, p->ldc) * 4, loc, 0, s);
    (void)cudaGetLastError(); /* a prefetch that is refused only costs speed */
}

cudaError_t launch_product(int math, int config, char ta, char tb, int64_t m, int64_t n, int64_t k,
                           int64_t kslice, int64_t splits, int64_t tail_tiles, int64_t tail_blocks,
                           float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                           float beta, float *C, int64_t ldc, float *W, cudaStream_t s, unsigned *fam)
{
    if (math != TSG_MATH_FP32 && tsg::tf32_takes(math, ta, tb, m, n, k, A, lda, B, ldb, C, ldc)) {
        *fam |= 1u << math;
        /* the family's own split, within the workspace the caller's plan made */
        const int64_t ks = tsg::tf32_call_kslice(math, ta, tb, m, n, k, state.sms, W && splits > 1 ? splits * m * n : 0);
        return (cudaError_t)tsg::tf32_sgemm(math, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, ks, W, s);
    }
    *fam |= 1u << TSG_MATH_FP32;
    return (cudaError_t)tsg::kernel_sgemm(config, ta, tb, m, n, k, kslice, splits, tail_tiles, tail_blocks,
                                          alpha, A, lda, B, ldb, beta, C, ldc, W, s);
}

} /* namespace gpu */
} /* namespace tsg */

/* The driver ABI that shim/tsg_residency.c uses without CUDA headers. */
#include <cuda.h>
static_assert(CU_POINTER_ATTRIBUTE_MEMORY_TYPE == 2 && CU_POINTER_ATTRIBUTE_IS_MANAGED == 8 &&
                  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL == 9 && CU_MEMORYTYPE_HOST == 1 &&
                  CU_MEMORYTYPE_DEVICE == 2 && CU_MEMORYTYPE_UNIFIED == 4,
              "shim/tsg_residency.c's copy of the driver ABI");
