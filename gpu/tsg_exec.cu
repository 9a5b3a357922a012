/*
 * tsg_exec.cu — the GPU executor behind tsg_gpu.h: device start-up, pooled workspaces, the
 * transfer pipeline for calls from host memory, in-place calls on CUDA memory, rate measurement.
 *
 * Owns: every CUDA runtime call of the library (the kernels' launches go through tsg_kernel.h).
 * Every CUDA error becomes a status; nothing here prints, reads the environment or knows about
 * BLAS interfaces. Compiled twice: into libtsgemm, and with TSG_FAULT_INJECTION into the
 * tests' twin library tsgemm_fi, whose stages can be made to fail on purpose.
 *
 * One call from host memory (the plan of src/tsg_plan.h; ../shared/DESIGN.md "Calls from host
 * memory") is three overlapped streams of work driven by the calling thread:
 *   upload   units (column ranges of the pieces of A, B, and of C's blocks when beta != 0, at most
 *            a pinned slot each): pageable ones are gathered by the copy threads (tsg_pool.h)
 *            into a ring of NS pinned slots and DMA'd on s_up; pinned ones are DMA'd directly;
 *            device and managed operands are used in place.
 *   compute  a launch per piece (C block, K chunk) on s_comp, or on s_comp and s_comp2 by
 *            block (Pipeline::comp), once the piece's units are up.
 *   download each C block, once its last chunk ran, in units through ND pinned slots on s_down;
 *            the copy threads scatter each landed unit into the caller's C.
 * The calling thread never idles while work is ready: it issues DMAs for gathered units, fills
 * the ring, launches, services downloads, and when nothing is ready it helps with the gather it
 * waits for. C is written only by scatters of completed device work, in order, so after a
 * failure *done (a prefix of blocks and columns) is exactly what the caller's C holds as final.
 */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <new>
#include <vector>

#include "tsg_copy.h"
#include "tsg_gpu.h"
#include "../kernels/tsg_kernel.h"
#include "tsg_pool.h"
#include "tsg_state.h"
#include "../kernels/tf32/tsg_kernel_tf32.h"
#include "../src/tsg_config.h"
#include "../src/tsg_multi.h"

namespace tsg {
namespace gpu {

/* ------------------------------------------------------------------ configuration */

/* The most workspaces (calls on the GPU at once) a pinned cap buys: 256 x 160 MiB = 40 GiB of
 * pinned slots. Bounds the cap's quotient before it becomes an int, whatever the cap. */
constexpr int MAX_WS = 256;
constexpr size_t UNIT_MIN = (size_t)256 << 10;
/* Inside a pipelined call that stages (tsg_pool_burst_begin), idle copy threads and the caller
 * waiting on a copy poll instead of blocking, when the process has a CPU for each copy thread
 * and POLL_SPARE_CPUS more (the caller's and one to spare; tsg_pool_set_poll). A blocked copy
 * thread took 50-130 us
 * to start a queued 1 MiB gather or scatter in a 1024^3 call's steps (v0.9 run 1, v0.10 run 2),
 * which costs more than the copy. v0.11 run 2 (pipe_probe, two rounds in alternating processes,
 * polling against blocking): 768^3 0.395 / 0.367 ms against 0.453 / 0.547, 1024^3 0.452 / 0.485
 * against 0.516 / 0.573, 512 x 512 x 65536 5.44 / 5.53 against 5.65 / 5.55, 65536 x 64 x 4096
 * 20.4 / 20.8 against 20.8 / 21.0, 2048^3 to 8192^3 inside the noise (docs/NOTES.md "v0.11").
 * ... for at most this long after a thread's last copy (then it blocks until the next one is
 * queued): a 1024^3 call takes 0.45 ms, so small calls poll throughout, while a long call that
 * waits on its GPU, or many processes sharing the CPUs each in a call (MPI ranks), do not keep
 * every copy thread spinning. Runs 1-4 of v0.11 measured polling without this bound. */
constexpr int POLL_MAX_US = 1000;
constexpr int POLL_SPARE_CPUS = 2;

constexpr uint64_t SPLIT_POOL_KEEP = (uint64_t)256 << 20; /* State::split_pool keeps this mapped */
/* The gathers of a call that uploads at most this many bytes of A and B use non-temporal stores,
 * larger ones memcpy (the rule before v0.9). Measured in alternating processes (docs/NOTES.md
 * "v0.9", runs 2 and 4): with memcpy a small call's slots keep their lines dirty in the CPU's
 * caches and its 1 MiB uploads ran at 20-22 GB/s; non-temporal gathers took 1024^3 (8 MiB up)
 * from 0.86 / 0.95 to 0.48 / 0.54 ms and 2048^3 (32 MiB) from 1.78 / 1.74 to 1.46 / 1.47, left
 * 4096^3 (128 MiB) and 8192^3 unchanged, and lost on the streaming uploads: 512 x 512 x 65536
 * (256 MiB) 5.99 / 6.22 -> 6.29 / 7.93, 65536 x 64 x 4096 (1 GiB) 21.3 / 21.3 -> 27.0 / 30.2.
 * Up to NT_GATHER_REUSED_MAX_BYTES they are non-temporal too when C is not fresh (the call does
 * not first-touch it): v0.10 run 2's tsgemm-bench (C reused), two rounds in alternating
 * processes, took the 128 MiB calls 4096^3 NN / NT / TN and 4095^3 from 5.03-5.68 ms with memcpy
 * to 4.57-5.50 with non-temporal gathers (14 of 16 pairs of medians faster), while numpy's
 * 4096 x 4091 x 4103 a @ b (134 MiB up, a new C every call) went the other way in the same run
 * (fastest call 6.70 / 7.47 ms with memcpy, 9.19 / 7.98 non-temporal; a.T @ b and the others
 * alike). Why a fresh C (whose first touch runs on the copy threads beside the gathers) turns the
 * comparison around is not known. */
constexpr double NT_GATHER_MAX_BYTES = 64.0 * (1 << 20);
constexpr double NT_GATHER_REUSED_MAX_BYTES = 160.0 * (1 << 20);

/* t_rates_memcpy (gpu/tsg_state.h): set on the thread that measures the rates (tsg_gpu_measure)
 * while it does: its upload calls (64 and 256 MiB of A) both gather with memcpy, the path of large
 * uploads, so that the slope between them is one kind's sustained rate (with the 64-160 MiB rule
 * below the 64 MiB call went non-temporal and v0.10 run 5's slope read 44.8 GB/s where run 1's,
 * both memcpy, read 45.6). */

/* The gathers' copy for problem p; fresh_c: the call first-touches C (a new C, numpy's case). */
int gather_kind(const tsg_problem *p, bool fresh_c)
{
    if (state.gather_copy) return state.gather_copy;
    if (t_rates_memcpy) return TSG_COPY_MEMCPY;
    const double up = 4.0 * ((double)p->m * (double)p->k + (double)p->k * (double)p->n);
    if (up <= NT_GATHER_MAX_BYTES) return TSG_COPY_STREAM;
    return up <= NT_GATHER_REUSED_MAX_BYTES && !fresh_c ? TSG_COPY_STREAM : TSG_COPY_MEMCPY;
}
static_assert(TSG_MULTI_FATAL == TSG_GPU_EFATAL, "src/tsg_multi.h's copy of TSG_GPU_EFATAL");

/* ------------------------------------------------------------------ errors */

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

static_assert((int)tsg::MATH_FP32 == (int)TSG_MATH_FP32 && (int)tsg::MATH_3XTF32 == (int)TSG_MATH_3XTF32 &&
                  (int)tsg::MATH_TF32 == (int)TSG_MATH_TF32,
              "kernels/tf32/tsg_kernel_tf32.h's TensorMath and src/tsg_config.h's tsg_math");

/*
 * One product launch of a call (issue 36): on the tensor-core family when the call's math asks
 * for it and the family takes this launch as given (tsg::tf32_takes: the family present on this
 * device, the operands' alignment), else on the FP32 family with the FP32 plan the caller made
 * (config, kslice, splits, tail, workspace W). Same stream, same C semantics (C = alpha*op(A)op(B)
 * + beta*C, beta == 0 never reads C), so a pipeline's K chunks (beta, then 1) and a device call
 * accumulate alike; the family takes no workspace, so W, the split and the tail are the FP32
 * kernels' only. *fam receives the family's bit (1u << math, src/tsg_plan.h tsg_done.families).
 * Returns the launch's cudaError_t.
 */
cudaError_t launch_product(int math, int config, char ta, char tb, int64_t m, int64_t n, int64_t k,
                           int64_t kslice, int64_t splits, int64_t tail_tiles, int64_t tail_blocks,
                           float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                           float beta, float *C, int64_t ldc, float *W, cudaStream_t s, unsigned *fam)
{
    if (math != TSG_MATH_FP32 && tsg::tf32_takes(math, ta, tb, m, n, k, A, lda, B, ldb, C, ldc)) {
        *fam |= 1u << math;
        return (cudaError_t)tsg::tf32_sgemm(math, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, s);
    }
    *fam |= 1u << TSG_MATH_FP32;
    return (cudaError_t)tsg::kernel_sgemm(config, ta, tb, m, n, k, kslice, splits, tail_tiles, tail_blocks,
                                          alpha, A, lda, B, ldb, beta, C, ldc, W, s);
}

int fail(cudaError_t e, const char *what, char *msg, size_t len)
{
    if (msg && len) snprintf(msg, len, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    int st = classify(e);
    if (st != TSG_GPU_EFATAL) (void)cudaGetLastError(); /* clear a non-sticky error */
    return st;
}

/* ------------------------------------------------------------------ fault injection (tests) */

enum Stage { ST_ALLOC, ST_PINNED, ST_UPLOAD, ST_KERNEL, ST_DOWNLOAD, ST_SYNC, ST_COUNT };

#ifdef TSG_FAULT_INJECTION
const char *const stage_names[ST_COUNT] = {"alloc", "pinned", "upload", "kernel", "download", "sync"};

/* The error a stage reports when the test hook fires. */
cudaError_t injected(Stage s)
{
    const int want = state.fault_stage.load(std::memory_order_relaxed);
    if (want == -2 || (want >= 0 && want != (int)s)) return cudaSuccess;
    const int slot = state.fault_slot.load(std::memory_order_relaxed);
    if (slot >= 0 && slot != t_slot) return cudaSuccess;
    const long long c = ++state.fault_count, n = state.fault_n.load();
    const bool fire = state.fault_every.load() ? (n > 0 && c % n == 0) : c == n;
    if (!fire) return cudaSuccess;
    return (s == ST_ALLOC || s == ST_PINNED) ? cudaErrorMemoryAllocation : cudaErrorInvalidValue;
}
#else
inline cudaError_t injected(Stage) { return cudaSuccess; }
#endif

/* Runs `call` unless the stage's test hook fires; either way returns its error. */
#define TSG_STAGE(stage, call) (injected(stage) != cudaSuccess ? injected_error(stage) : (call))
inline cudaError_t injected_error(Stage s)
{
    return (s == ST_ALLOC || s == ST_PINNED) ? cudaErrorMemoryAllocation : cudaErrorInvalidValue;
}

/* ------------------------------------------------------------------ workspaces */

struct Workspace {
    /* s_comp2: the second compute stream of a pipelined call (Pipeline::comp); calls on device
     * data and the rate measurement use s_comp only */
    cudaStream_t s_up = nullptr, s_comp = nullptr, s_comp2 = nullptr, s_down = nullptr;
    cudaEvent_t ev_up[NS] = {}, ev_dn[ND] = {}, ev_block[NB] = {}, ev_launch[RING] = {};
    cudaEvent_t ev_ready = nullptr, ev_cfree[2] = {}, ev_join = nullptr;
    float *arena = nullptr; /* device memory of the call: pieces, C blocks, split-K partials */
    size_t arena_cap = 0;
    float *pinned = nullptr; /* NS upload slots then ND download slots */
    size_t slot_bytes = 0;
    int device = 0; /* the CUDA device its streams, events and arena belong to */
    Workspace *next = nullptr;
};


void free_arena(Workspace *w)
{
    if (w->arena) {
        cudaFree(w->arena);
        state.device_held -= (long long)w->arena_cap;
    }
    w->arena = nullptr;
    w->arena_cap = 0;
}

void free_pinned(Workspace *w)
{
    if (w->pinned) {
        cudaFreeHost(w->pinned);
        state.pinned_held -= (long long)((NS + ND) * w->slot_bytes);
    }
    w->pinned = nullptr;
    w->slot_bytes = 0;
}

void destroy(Workspace *w)
{
    free_arena(w);
    free_pinned(w);
    for (auto &e : w->ev_up) if (e) cudaEventDestroy(e);
    for (auto &e : w->ev_dn) if (e) cudaEventDestroy(e);
    for (auto &e : w->ev_block) if (e) cudaEventDestroy(e);
    for (auto &e : w->ev_launch) if (e) cudaEventDestroy(e);
    for (auto &e : w->ev_cfree) if (e) cudaEventDestroy(e);
    if (w->ev_ready) cudaEventDestroy(w->ev_ready);
    if (w->ev_join) cudaEventDestroy(w->ev_join);
    if (w->s_up) cudaStreamDestroy(w->s_up);
    if (w->s_comp) cudaStreamDestroy(w->s_comp);
    if (w->s_comp2) cudaStreamDestroy(w->s_comp2);
    if (w->s_down) cudaStreamDestroy(w->s_down);
    delete w;
}

cudaError_t make_events(Workspace *w)
{
    cudaError_t e = cudaSuccess;
    auto mk = [&](cudaEvent_t *ev) {
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(ev, cudaEventDisableTiming);
    };
    for (auto &ev : w->ev_up) mk(&ev);
    for (auto &ev : w->ev_dn) mk(&ev);
    for (auto &ev : w->ev_block) mk(&ev);
    for (auto &ev : w->ev_launch) mk(&ev);
    for (auto &ev : w->ev_cfree) mk(&ev);
    mk(&w->ev_ready);
    mk(&w->ev_join);
    return e;
}

/* Under state.pool_lock, after workspaces came back: with several device slots waiters want one or
 * several workspaces (reserve_ws), so all of them look again — a signal could wake only one that
 * still cannot proceed while another that could sleeps on. */
void wake_waiters()
{
    if (state.nslots > 1) pthread_cond_broadcast(&state.pool_cv);
    else pthread_cond_signal(&state.pool_cv);
}

/* Reserves n of the state.max_ws workspaces (the pinned budget) for the caller; more callers wait, so
 * concurrent calls queue for the GPU instead of each pinning memory. A call over several devices
 * reserves its workspaces at once, so two such calls never hold part of them each. */
void reserve_ws(int n)
{
    pthread_mutex_lock(&state.pool_lock);
    while (state.ws_out + n > state.max_ws) pthread_cond_wait(&state.pool_cv, &state.pool_lock);
    state.ws_out += n;
    pthread_mutex_unlock(&state.pool_lock);
}

/* Takes one reserved workspace of CUDA device `device` (the current device): a pooled one, or a
 * new one — first destroying a pooled one of another device when the budget is all made. On
 * failure the reservation is returned. */
int take_ws(int device, Workspace **out, char *msg, size_t len)
{
    Workspace *w = nullptr, *evict = nullptr;
    pthread_mutex_lock(&state.pool_lock);
    for (Workspace **pp = &state.free_list; *pp; pp = &(*pp)->next)
        if ((*pp)->device == device) {
            w = *pp;
            *pp = w->next;
            break;
        }
    if (!w && state.free_list && state.ws_made >= state.max_ws) { /* its budget is ours */
        evict = state.free_list;
        state.free_list = evict->next;
        state.ws_made--;
    }
    pthread_mutex_unlock(&state.pool_lock);
    if (evict) {
        cudaSetDevice(evict->device);
        destroy(evict);
        cudaSetDevice(device);
        (void)cudaGetLastError();
    }
    if (!w) {
        w = new (std::nothrow) Workspace;
        cudaError_t e = w ? cudaSuccess : cudaErrorMemoryAllocation;
        if (w) w->device = device;
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&w->s_up, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&w->s_comp, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&w->s_comp2, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&w->s_down, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = make_events(w);
        if (e != cudaSuccess) {
            if (w) destroy(w);
            pthread_mutex_lock(&state.pool_lock);
            state.ws_out--;
            wake_waiters();
            pthread_mutex_unlock(&state.pool_lock);
            return fail(e, "cudaStreamCreate", msg, len);
        }
        pthread_mutex_lock(&state.pool_lock);
        state.ws_made++;
        pthread_mutex_unlock(&state.pool_lock);
    }
    *out = w;
    return TSG_GPU_OK;
}

/* A workspace of tsgemm's device (the current one) for one call. */
int acquire(Workspace **out, char *msg, size_t len)
{
    reserve_ws(1);
    return take_ws(state.device, out, msg, len);
}

void give_back(Workspace *w, int status)
{
    pthread_mutex_lock(&state.pool_lock);
    state.ws_out--;
    if (status == TSG_GPU_EFATAL) { /* nothing in a poisoned context is worth keeping */
        state.ws_made--;
        wake_waiters();
        pthread_mutex_unlock(&state.pool_lock);
        return;
    }
    if (status == TSG_GPU_ENOMEM) free_arena(w), free_pinned(w);
    w->next = state.free_list;
    state.free_list = w;
    wake_waiters();
    pthread_mutex_unlock(&state.pool_lock);
}

/* Grows the workspace's device arena to at least `bytes` (2 MiB granularity). */
int ensure_arena(Workspace *w, size_t bytes, char *msg, size_t len)
{
    if (w->arena_cap >= bytes) return TSG_GPU_OK;
    free_arena(w);
    size_t want = (bytes + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
    const cudaError_t e = TSG_STAGE(ST_ALLOC, cudaMalloc((void **)&w->arena, want));
    if (e != cudaSuccess) return fail(e, "cudaMalloc (device arena)", msg, len);
    w->arena_cap = want;
    state.device_held += (long long)want;
    return TSG_GPU_OK;
}

int ensure_pinned(Workspace *w, char *msg, size_t len)
{
    if (w->pinned && w->slot_bytes == state.slot_bytes) return TSG_GPU_OK;
    free_pinned(w);
    const cudaError_t e = TSG_STAGE(ST_PINNED, cudaMallocHost((void **)&w->pinned, (NS + ND) * state.slot_bytes));
    if (e != cudaSuccess) return fail(e, "cudaMallocHost (pinned slots)", msg, len);
    w->slot_bytes = state.slot_bytes;
    state.pinned_held += (long long)((NS + ND) * state.slot_bytes);
    return TSG_GPU_OK;
}

float *up_slot(Workspace *w, int i) { return w->pinned + (size_t)i * (w->slot_bytes / 4); }
float *dn_slot(Workspace *w, int i) { return w->pinned + (size_t)(NS + i) * (w->slot_bytes / 4); }

/* The device memory budget of one call: the cap shared by the workspaces that may exist. */
double call_budget() { return state.device_cap / (double)state.max_ws; }

/* ------------------------------------------------------------------ copy jobs */

/* A rectangle of floats: cols columns of `rows` floats, `ld` apart. Copied by parts: column
 * ranges, or, for fewer columns than parts, row ranges of each column (rsplit per column). */
struct Copy {
    const float *src;
    int64_t sld;
    float *dst;
    int64_t dld;
    int64_t rows, cols;
    int rsplit = 1;
    int kind = TSG_COPY_MEMCPY; /* tsg_copy_floats's kind (kernels/tsg_copy.h) */
    float beta = 0.0f;          /* TSG_COPY_AXPBY: dst = beta * dst + src */
};

void copy_part(void *ctx, int part, int nparts)
{
    const Copy *c = (const Copy *)ctx;
    if (c->sld == c->rows && c->dld == c->rows) { /* both packed: one flat range */
        const int64_t total = c->rows * c->cols;
        const int64_t a = total * part / nparts, b = total * (part + 1) / nparts;
        tsg_copy_floats(c->dst + a, c->src + a, b - a, c->kind, c->beta);
    } else if (c->rsplit > 1) { /* a row range of one column */
        const int64_t j = part / c->rsplit, r = part % c->rsplit;
        const int64_t i0 = c->rows * r / c->rsplit, i1 = c->rows * (r + 1) / c->rsplit;
        tsg_copy_floats(c->dst + j * c->dld + i0, c->src + j * c->sld + i0, i1 - i0, c->kind, c->beta);
    } else {
        const int64_t j0 = c->cols * part / nparts, j1 = c->cols * (part + 1) / nparts;
        for (int64_t j = j0; j < j1; ++j)
            tsg_copy_floats(c->dst + j * c->dld, c->src + j * c->sld, c->rows, c->kind, c->beta);
    }
    tsg_copy_fence(c->kind); /* the stores are visible before the job counts as done */
}

/* Parts of about 128 KiB or more, at most one per copy thread plus the waiting thread. */
int copy_parts(Copy &c)
{
    const double bytes = 4.0 * (double)c.rows * (double)c.cols;
    int parts = std::max(1, (int)std::min<double>((double)(state.copy_threads + 1), std::ceil(bytes / (128 << 10))));
    c.rsplit = 1;
    if (c.sld == c.rows && c.dld == c.rows) return parts;
    if (parts > c.cols) {
        c.rsplit = (int)((parts + c.cols - 1) / c.cols);
        return (int)(c.cols * c.rsplit);
    }
    return parts;
}

/* First touch of a caller's fresh C, so the scatters do not fault page by page (numpy writes
 * every result into new memory). MADV_POPULATE_WRITE (Linux 5.14) maps the pages writable
 * without changing their contents; older kernels get an atomic add of 0 per page. Parts start
 * on 2 MiB boundaries so that a huge page is never populated by two threads. */
struct Touch {
    char *lo, *hi; /* page-aligned range covering C's extent */
    float *c_lo, *c_hi;
};

void touch_part(void *ctx, int part, int nparts)
{
    const Touch *t = (const Touch *)ctx;
    const long page = sysconf(_SC_PAGESIZE);
    const int64_t pages = (t->hi - t->lo) / page;
    const int64_t group = std::max<int64_t>(1, ((int64_t)2 << 20) / page); /* pages per 2 MiB */
    auto edge = [&](int64_t p) { /* page index of part p's start, on a 2 MiB boundary */
        const int64_t e = pages * p / nparts;
        if (p == 0 || p == nparts) return e;
        const int64_t first = ((((uintptr_t)t->lo / page) + group - 1) / group) * group - (int64_t)((uintptr_t)t->lo / page);
        return std::min(pages, e <= first ? first : first + (e - first + group / 2) / group * group);
    };
    char *a = t->lo + edge(part) * page, *b = t->lo + edge(part + 1) * page;
    if (b <= a) return;
#ifdef MADV_POPULATE_WRITE
    if (madvise(a, (size_t)(b - a), MADV_POPULATE_WRITE) == 0) return;
#endif
    for (char *q = a; q < b; q += page) { /* only words inside C's extent */
        float *f = (float *)q < t->c_lo ? t->c_lo : (float *)q;
        if (f < t->c_hi) __atomic_fetch_add((int *)f, 0, __ATOMIC_RELAXED);
    }
}

/* 1 when the first and last pages of [p, p + bytes) are already mapped in (mincore). */
bool resident(const void *p, size_t bytes)
{
    const long page = sysconf(_SC_PAGESIZE);
    unsigned char v = 0;
    char *first = (char *)((uintptr_t)p & ~(uintptr_t)(page - 1));
    char *last = (char *)(((uintptr_t)p + bytes - 1) & ~(uintptr_t)(page - 1));
    if (mincore(first, (size_t)page, &v) != 0 || !(v & 1)) return false;
    if (mincore(last, (size_t)page, &v) != 0 || !(v & 1)) return false;
    return true;
}

/* ------------------------------------------------------------------ the pipeline */

enum Mode { M_NONE, M_STAGE, M_DIRECT, M_INPLACE };

/* TSGEMM_TEST_TIMELINE (tuning runs): where a pipelined call's time goes. GPU times come from
 * timing events on the three streams, measured from an event recorded on the upload stream at
 * the start of the call; host times from the monotonic clock. Off: nothing is created or read. */
enum { TL_T0, TL_KSTART, TL_UPDONE, TL_KDONE, TL_DNDONE, TL_COUNT };
/* TSGEMM_TEST_TIMELINE=2: the first TD steps of each kind, host times (s from h0) and GPU events.
 * Upload unit u: gather submitted, DMA issued, DMA done; launch: issued, done; download unit d:
 * D2H issued, D2H done, scatter submitted (the host saw the D2H done), scatter seen done. */
constexpr int TD = 160;
enum { TE_UP, TE_K, TE_DN, TE_KINDS };
struct Steps {
    double h[TE_KINDS][TD][3];          /* host times of each step (-1: none) */
    cudaEvent_t dev[TE_KINDS][TD] = {}; /* recorded when the step's GPU work is done */
    bool dev_rec[TE_KINDS][TD] = {};
};
struct Timeline {
    bool on = false;
    cudaEvent_t ev[TL_COUNT] = {};
    bool recorded[TL_COUNT] = {};
    double h0 = 0, first_launch = 0, uploads_issued = 0, end = 0; /* host s from h0 */
    double gather = 0, dma = 0, down = 0; /* host s blocked: gathers, DMA slots, downloads */
    /* level 2 only: on the heap, so that a call's Pipeline (on the caller's stack) stays small */
    std::unique_ptr<Steps> steps;

    void host(int kind, int64_t i, int which, double t)
    {
        if (steps && i >= 0 && i < TD) steps->h[kind][i][which] = t - h0;
    }
    void gpu(int kind, int64_t i, cudaStream_t s)
    {
        if (steps && i >= 0 && i < TD && steps->dev[kind][i] &&
            cudaEventRecord(steps->dev[kind][i], s) == cudaSuccess)
            steps->dev_rec[kind][i] = true;
    }
};

double now_s();

/* One upload unit: a column range of a piece or of a C block. */
struct Unit {
    int64_t piece;   /* the launch that needs it */
    Mode mode;       /* M_STAGE (gather + DMA) or M_DIRECT (2-D DMA from pinned memory) */
    Copy host;       /* user memory -> slot (stage) or -> device (direct: dst is device) */
    float *dev;      /* device destination of the unit (first column)                   */
    int64_t dld;     /* device leading dimension                                        */
    int ring;        /* bounded mode: ring entry the unit fills (-1: resident)          */
    int64_t cblock;  /* C upload of this block (bounded mode hazard), or -1             */
};

struct Pipeline {
    const tsg_problem *p;
    tsg_plan pl;
    Workspace *w;
    Mode ma, mb, mcu, mcd; /* A, B, C up, C down */
    bool host_beta = false; /* the scatters apply beta (C does not go up; choose_modes) */
    float dev_beta = 0.0f;  /* the beta of each block's first launch: p->beta, or 0 with host_beta */
    char *msg;
    size_t len;
    int status = TSG_GPU_OK;
    /* device layout (floats from the arena start) */
    std::vector<int64_t> offA, offB, offC; /* resident: per (i, c), (j, c), block */
    int64_t ringA = 0, ringB = 0, ringStride = 0, cbuf[2] = {0, 0}, offW = 0;
    int64_t unit_bytes = 0;
    /* upload state */
    Unit ring_units[NS];
    Copy ring_copy[NS];
    tsg_job ring_job[NS];
    bool ring_staged[NS] = {};
    int64_t u_submit = 0, u_issue = 0, next_launch = 0, pieces = 0;
    /* generator cursor: piece, part (0 C, 1 A, 2 B), column */
    int64_t g_piece = 0, g_col = 0;
    int64_t rounds = 0; /* piece order: leading chunk-major rounds (src/tsg_plan.h tsg_plan_rounds) */
    int g_part = 0;
    bool g_done = false;
    /* download state */
    struct Dn {
        int64_t q, c0, cols;
        Copy copy;
        tsg_job job;
    } dn[ND];
    int64_t d_issue = 0, d_submit = 0, d_done = 0;
    int64_t dq = 0, dcol = 0;            /* next download unit's block and column */
    int64_t blocks_launched = 0, blocks_issued_down = 0;
    struct { int64_t blocks, cols; } done{}; /* the final prefix (tsg_done's, without its parts) */
    bool touch_started = false;
    tsg_job touch_job;
    Touch touch{}; /* lo == nullptr: no first touch */
    std::vector<tsg_job *> pending; /* jobs to wait for on the way out */
    Timeline tl;
    int ncomp = 1; /* compute streams of the call (run_pipeline: 2 when C has several blocks) */
    unsigned fam = 0; /* kernel families launched (tsg_done.families) */
    int gather_kind = TSG_COPY_MEMCPY; /* the gathers' copy (gather_kind(), sgemm_pipeline) */

    /* The compute stream of C's block q: with two, even blocks on s_comp and odd ones on s_comp2,
     * so a block's chunks stay in order on one stream (the same sums, bit for bit) while the next
     * block's launch fills the SMs that this one's last wave leaves idle. Every resource two
     * launches could share is ordered by an event whatever the stream: pieces and ring entries
     * (ev_ready, ev_launch), C's buffers (ev_cfree, ev_block); split-K's one workspace is not,
     * so a call that splits keeps one stream. */
    cudaStream_t comp(int64_t q) const { return ncomp == 2 && (q & 1) ? w->s_comp2 : w->s_comp; }

    void mark(int which, cudaStream_t s)
    {
        if (tl.on && tl.ev[which] && cudaEventRecord(tl.ev[which], s) == cudaSuccess) tl.recorded[which] = true;
    }

    int64_t rows(int64_t i) const { return tsg_plan_rows(&pl, p->m, i); }
    int64_t cols(int64_t j) const { return tsg_plan_cols(&pl, p->n, j); }
    int64_t klen(int64_t c) const { return tsg_plan_klen(&pl, p->k, c); }
    float *dev(int64_t off) const { return w->arena + off; }

    int err(cudaError_t e, const char *what)
    {
        if (status == TSG_GPU_OK) status = fail(e, what, msg, len);
        return status;
    }
};

/* Stored shape of A's piece (i, c) and of B's piece (j, c), and the user pointer of its corner. */
void a_piece(const Pipeline &P, int64_t i, int64_t c, int64_t *sr, int64_t *sc, const float **src)
{
    const tsg_problem *p = P.p;
    const int64_t r0 = i * P.pl.bm, k0 = c * P.pl.kc;
    if (p->transa == 'N') *sr = P.rows(i), *sc = P.klen(c), *src = p->a + r0 + k0 * p->lda;
    else *sr = P.klen(c), *sc = P.rows(i), *src = p->a + k0 + r0 * p->lda;
}

void b_piece(const Pipeline &P, int64_t j, int64_t c, int64_t *sr, int64_t *sc, const float **src)
{
    const tsg_problem *p = P.p;
    const int64_t c0 = j * P.pl.bn, k0 = c * P.pl.kc;
    if (p->transb == 'N') *sr = P.klen(c), *sc = P.cols(j), *src = p->b + k0 + c0 * p->ldb;
    else *sr = P.cols(j), *sc = P.klen(c), *src = p->b + c0 + k0 * p->ldb;
}

/* Device pointer and ld of A's / B's piece for launch `piece`, and of C's block q. */
void a_dev(const Pipeline &P, int64_t piece, int64_t i, int64_t c, const float **ptr, int64_t *ld)
{
    int64_t sr, sc;
    const float *src;
    a_piece(P, i, c, &sr, &sc, &src);
    if (P.ma == M_INPLACE) { *ptr = src; *ld = P.p->lda; return; }
    *ld = tsg_dev_ld(sr);
    *ptr = P.pl.resident ? P.dev(P.offA[i * P.pl.nk + c]) : P.dev(P.ringA + (piece % RING) * P.ringStride);
}

void b_dev(const Pipeline &P, int64_t piece, int64_t j, int64_t c, const float **ptr, int64_t *ld)
{
    int64_t sr, sc;
    const float *src;
    b_piece(P, j, c, &sr, &sc, &src);
    if (P.mb == M_INPLACE) { *ptr = src; *ld = P.p->ldb; return; }
    *ld = tsg_dev_ld(sr);
    *ptr = P.pl.resident ? P.dev(P.offB[j * P.pl.nk + c]) : P.dev(P.ringB + (piece % RING) * P.ringStride);
}

void c_dev(const Pipeline &P, int64_t q, float **ptr, int64_t *ld)
{
    const int64_t i = q / P.pl.gn, j = q % P.pl.gn;
    if (P.mcd == M_INPLACE) {
        *ptr = P.p->c + i * P.pl.bm + j * P.pl.bn * P.p->ldc;
        *ld = P.p->ldc;
        return;
    }
    *ld = tsg_dev_ld(P.rows(i));
    *ptr = P.pl.resident ? P.dev(P.offC[q]) : P.dev(P.cbuf[q % 2]);
}

/* Lays the call's device memory out in the arena; returns the floats needed. */
int64_t layout(Pipeline &P)
{
    const tsg_plan &pl = P.pl;
    int64_t off = 0;
    auto take = [&](int64_t floats) {
        int64_t at = off;
        off += (floats + 63) & ~(int64_t)63; /* 256-byte aligned pieces */
        return at;
    };
    int64_t sr, sc;
    const float *src;
    if (pl.resident) {
        if (P.ma == M_STAGE || P.ma == M_DIRECT)
            for (int64_t i = 0; i < pl.gm; ++i)
                for (int64_t c = 0; c < pl.nk; ++c) {
                    a_piece(P, i, c, &sr, &sc, &src);
                    P.offA.push_back(take(tsg_dev_ld(sr) * sc));
                }
        if (P.mb == M_STAGE || P.mb == M_DIRECT)
            for (int64_t j = 0; j < pl.gn; ++j)
                for (int64_t c = 0; c < pl.nk; ++c) {
                    b_piece(P, j, c, &sr, &sc, &src);
                    P.offB.push_back(take(tsg_dev_ld(sr) * sc));
                }
        if (P.mcd != M_INPLACE)
            for (int64_t q = 0; q < pl.gm * pl.gn; ++q)
                P.offC.push_back(take(tsg_dev_ld(P.rows(q / pl.gn)) * P.cols(q % pl.gn)));
    } else {
        const int64_t amax = P.p->transa == 'N' ? tsg_dev_ld(pl.bm) * pl.kc : tsg_dev_ld(pl.kc) * pl.bm;
        const int64_t bmax = P.p->transb == 'N' ? tsg_dev_ld(pl.kc) * pl.bn : tsg_dev_ld(pl.bn) * pl.kc;
        P.ringStride = ((amax + 63) & ~(int64_t)63) + ((bmax + 63) & ~(int64_t)63);
        P.ringA = take(RING * P.ringStride);
        P.ringB = P.ringA + ((amax + 63) & ~(int64_t)63);
        if (P.mcd != M_INPLACE) {
            P.cbuf[0] = take(tsg_dev_ld(pl.bm) * pl.bn);
            P.cbuf[1] = take(tsg_dev_ld(pl.bm) * pl.bn);
        }
    }
    if (pl.splits > 1) P.offW = take(pl.splits * pl.bm * pl.bn);
    return off;
}

/* Next upload unit in piece order (C block up, then A's piece, then B's piece), or false. */
bool gen_next(Pipeline &P, Unit *u)
{
    const tsg_plan &pl = P.pl;
    while (!P.g_done) {
        if (P.g_piece >= P.pieces) { P.g_done = true; break; }
        const int64_t piece = P.g_piece;
        int64_t q, c;
        tsg_plan_piece(&P.pl, P.rounds, piece, &q, &c);
        const int64_t i = q / pl.gn, j = q % pl.gn;
        Mode mode = M_NONE;
        int64_t sr = 0, sc = 0, ld = 0;
        const float *src = nullptr;
        float *dst = nullptr;
        int64_t dld = 0, cblock = -1;
        if (P.g_part == 0) { /* C's block, before its first chunk */
            if (c == 0 && (P.mcu == M_STAGE || P.mcu == M_DIRECT)) {
                mode = P.mcu;
                sr = P.rows(i), sc = P.cols(j), ld = P.p->ldc;
                src = P.p->c + i * pl.bm + j * pl.bn * P.p->ldc;
                c_dev(P, q, &dst, &dld);
                cblock = q;
            }
        } else if (P.g_part == 1) {
            if ((P.ma == M_STAGE || P.ma == M_DIRECT) && (!pl.resident || j == 0)) {
                mode = P.ma;
                a_piece(P, i, c, &sr, &sc, &src);
                ld = P.p->lda;
                const float *d;
                a_dev(P, piece, i, c, &d, &dld);
                dst = (float *)d;
            }
        } else {
            if ((P.mb == M_STAGE || P.mb == M_DIRECT) && (!pl.resident || i == 0)) {
                mode = P.mb;
                b_piece(P, j, c, &sr, &sc, &src);
                ld = P.p->ldb;
                const float *d;
                b_dev(P, piece, j, c, &d, &dld);
                dst = (float *)d;
            }
        }
        if (mode == M_NONE || P.g_col >= sc) { /* next part / piece */
            P.g_col = 0;
            if (++P.g_part == 3) P.g_part = 0, P.g_piece++;
            continue;
        }
        /* a column range of at most one unit; the call's first units ramp up (RAMP_STEPS) */
        const int64_t ub = P.u_submit < state.ramp_steps
                               ? std::min(P.unit_bytes, std::max<int64_t>((int64_t)UNIT_MIN, P.unit_bytes >> (state.ramp_steps - P.u_submit)))
                               : P.unit_bytes; /* never above the unit: it is at most a pinned slot */
        const int64_t per = mode == M_DIRECT ? sc : std::max<int64_t>(1, ub / (4 * tsg_dev_ld(sr)));
        const int64_t c0 = P.g_col, n = std::min(per, sc - c0);
        u->piece = piece;
        u->mode = mode;
        u->host = Copy{src + c0 * ld, ld, nullptr, tsg_dev_ld(sr), sr, n, 1, P.gather_kind};
        u->dev = dst + c0 * dld;
        u->dld = dld;
        u->ring = (pl.resident || P.g_part == 0) ? -1 : (int)(piece % RING);
        u->cblock = cblock;
        P.g_col += n;
        return true;
    }
    return false;
}

/* Piece of the next unit not yet issued, or `pieces` when none is left. */
int64_t next_unit_piece(Pipeline &P)
{
    if (P.u_issue < P.u_submit) return P.ring_units[P.u_issue % NS].piece;
    if (P.g_done) return P.pieces;
    /* the generator's cursor: pieces before it have all their units issued */
    return P.g_piece;
}

/* ---- downloads ---- */

int64_t total_blocks(const Pipeline &P) { return P.pl.gm * P.pl.gn; }

void account(Pipeline &P, int64_t q, int64_t c_end)
{
    if (c_end >= P.cols(q % P.pl.gn)) P.done.blocks = q + 1, P.done.cols = 0;
    else P.done.blocks = q, P.done.cols = c_end;
}

/* Issues the D2H of the next download unit (a column range of the oldest launched block whose
 * download is not yet issued) into a free slot; direct mode: the whole block into the caller's
 * pinned C. Returns false when nothing could be issued. */
bool issue_download(Pipeline &P)
{
    Workspace *w = P.w;
    if (P.dq >= P.blocks_launched || P.d_issue - P.d_done >= ND) return false;
    const int64_t q = P.dq, i = q / P.pl.gn, j = q % P.pl.gn, bc = P.cols(j);
    float *src;
    int64_t dld;
    c_dev(P, q, &src, &dld);
    float *user = P.p->c + i * P.pl.bm + j * P.pl.bn * P.p->ldc;
    const int slot = (int)(P.d_issue % ND);
    /* the last block comes down in quarter units: its scatter overlaps its own D2H instead of
     * following all of it (the call's tail; docs/NOTES.md "v0.3"); at least 1 MiB (v0.4: a
     * 1024^3 call's 4 MiB came down in 16 units of 256 KiB and took 0.4 ms, each unit's handoffs
     * costing more than its bytes) */
    const int64_t quarter = std::max<int64_t>(P.unit_bytes / 4, std::min<int64_t>(P.unit_bytes, (int64_t)1 << 20));
    const int64_t unit = q == total_blocks(P) - 1 ? quarter : P.unit_bytes;
    const int64_t n = P.mcd == M_DIRECT ? bc
                                         : std::min(std::max<int64_t>(1, unit / (4 * dld)),
                                                    bc - P.dcol);
    cudaError_t e = cudaSuccess;
    if (P.dcol == 0) e = cudaStreamWaitEvent(w->s_down, w->ev_block[q % NB], 0);
    if (e == cudaSuccess) {
        if (P.mcd == M_DIRECT)
            e = TSG_STAGE(ST_DOWNLOAD, cudaMemcpy2DAsync(user, P.p->ldc * 4, src, dld * 4,
                                                         P.rows(i) * 4, bc, cudaMemcpyDeviceToHost,
                                                         w->s_down));
        else if (dld == P.rows(i)) /* contiguous columns: one plain copy */
            e = TSG_STAGE(ST_DOWNLOAD, cudaMemcpyAsync(dn_slot(w, slot), src + P.dcol * dld,
                                                       (size_t)(n * dld * 4),
                                                       cudaMemcpyDeviceToHost, w->s_down));
        else /* padded device C: only the block's rows (the padding was never written) */
            e = TSG_STAGE(ST_DOWNLOAD,
                          cudaMemcpy2DAsync(dn_slot(w, slot), dld * 4, src + P.dcol * dld,
                                            dld * 4, P.rows(i) * 4, n, cudaMemcpyDeviceToHost,
                                            w->s_down));
    }
    if (e == cudaSuccess) e = cudaEventRecord(w->ev_dn[slot], w->s_down);
    if (e != cudaSuccess) {
        P.err(e, "download (D2H)");
        return false;
    }
    if (P.tl.steps) P.tl.host(TE_DN, P.d_issue, 1, now_s()), P.tl.gpu(TE_DN, P.d_issue, w->s_down);
    Pipeline::Dn &d = P.dn[slot];
    d.q = q, d.c0 = P.dcol, d.cols = n;
    if (P.mcd == M_STAGE)
        d.copy = Copy{dn_slot(w, slot), dld, user + P.dcol * P.p->ldc, P.p->ldc, P.rows(i), n, 1,
                      P.host_beta ? TSG_COPY_AXPBY : state.scatter_copy, P.p->beta};
    P.d_issue++;
    P.dcol += n;
    if (P.dcol >= bc) { /* the block's last unit */
        P.dcol = 0;
        P.blocks_issued_down = ++P.dq;
        if (P.dq == total_blocks(P)) P.mark(TL_DNDONE, w->s_down);
        if (!P.pl.resident) { /* bounded mode: its C buffer is free once this D2H is done */
            e = cudaEventRecord(w->ev_cfree[q % 2], w->s_down);
            if (e != cudaSuccess) P.err(e, "download (event)");
        }
    }
    return true;
}

/* A landed unit goes to the copy threads (direct mode: it is already in place). */
void land(Pipeline &P)
{
    Pipeline::Dn &d = P.dn[P.d_submit % ND];
    if (P.mcd == M_STAGE) tsg_pool_submit(&d.job, copy_part, &d.copy, copy_parts(d.copy));
    if (P.tl.steps) P.tl.host(TE_DN, P.d_submit, 0, now_s());
    P.d_submit++;
}

/* A finished unit: the caller's C holds it. */
bool finished(Pipeline &P)
{
    Pipeline::Dn &d = P.dn[P.d_done % ND];
    return P.mcd != M_STAGE || tsg_pool_done(&d.job);
}

void retire(Pipeline &P)
{
    Pipeline::Dn &d = P.dn[P.d_done % ND];
    account(P, d.q, d.c0 + d.cols);
    if (P.tl.steps) P.tl.host(TE_DN, P.d_done, 2, now_s());
    P.d_done++;
}

/* The download side: moves whatever can move without waiting; with `blocking`, when nothing
 * could, waits for the oldest outstanding step (a D2H to land, then a scatter to finish).
 * Returns true when something moved. */
bool service_downloads(Pipeline &P, bool blocking)
{
    if (P.mcd != M_STAGE && P.mcd != M_DIRECT) return false;
    Workspace *w = P.w;
    bool moved = false;
    for (bool step = true; step && P.status == TSG_GPU_OK;) {
        step = false;
        while (P.d_done < P.d_submit && finished(P)) retire(P), step = true;
        while (P.d_submit < P.d_issue && P.status == TSG_GPU_OK) {
            cudaError_t e = TSG_STAGE(ST_SYNC, cudaEventQuery(w->ev_dn[P.d_submit % ND]));
            if (e == cudaErrorNotReady) break;
            if (e != cudaSuccess) { P.err(e, "download (sync)"); break; }
            land(P);
            step = true;
        }
        while (P.status == TSG_GPU_OK && issue_download(P)) step = true;
        moved = moved || step;
    }
    if (!blocking || moved || P.status != TSG_GPU_OK) return moved;
    if (P.d_submit < P.d_issue) {
        cudaError_t e = TSG_STAGE(ST_SYNC, cudaEventSynchronize(w->ev_dn[P.d_submit % ND]));
        if (e != cudaSuccess) {
            P.err(e, "download (sync)");
            return false;
        }
        land(P);
        return true;
    }
    if (P.d_done < P.d_submit) {
        if (P.mcd == M_STAGE) tsg_pool_wait(&P.dn[P.d_done % ND].job);
        retire(P);
        return true;
    }
    return false;
}

/* Blocks until downloads have been issued for every unit of blocks < q_limit. */
bool downloads_issued_through(Pipeline &P, int64_t q_limit)
{
    if (P.mcd != M_STAGE && P.mcd != M_DIRECT) return true;
    while (P.blocks_issued_down < q_limit && P.status == TSG_GPU_OK)
        if (!service_downloads(P, true) && P.status == TSG_GPU_OK) {
            snprintf(P.msg, P.len, "downloads stalled before block %lld (internal error)",
                     (long long)q_limit);
            P.status = TSG_GPU_EFAIL;
        }
    return P.status == TSG_GPU_OK;
}

/* ---- launches ---- */

int launch_piece(Pipeline &P, int64_t piece)
{
    const tsg_plan &pl = P.pl;
    Workspace *w = P.w;
    int64_t q, c;
    tsg_plan_piece(&P.pl, P.rounds, piece, &q, &c);
    const int64_t i = q / pl.gn, j = q % pl.gn;
    const float *A, *B;
    float *C;
    int64_t lda, ldb, ldc;
    a_dev(P, piece, i, c, &A, &lda);
    b_dev(P, piece, j, c, &B, &ldb);
    c_dev(P, q, &C, &ldc);
    cudaError_t e = cudaSuccess;
    const cudaStream_t cs = P.comp(q);
    if (c == 0 && !pl.resident && q >= 2 && P.mcd != M_INPLACE) { /* C buffer reuse */
        if (!downloads_issued_through(P, q - 1)) return P.status;
        e = cudaStreamWaitEvent(cs, w->ev_cfree[q % 2], 0);
    }
    const int64_t kl = P.klen(c);
    const int64_t splits = (kl + pl.split_kc - 1) / pl.split_kc;
    if (piece == 0 && e == cudaSuccess) {
        P.mark(TL_KSTART, cs);
        if (P.tl.on) P.tl.first_launch = now_s() - P.tl.h0;
    }
    /* The pipeline plans its blocks and splits for configuration 0's tile (plan_limits); a launch
     * the plan does not split takes the family's rule for its shape (a 1024 x 2048 block is
     * 128 tiles of configuration 0, half a wave), a split one stays on configuration 0 for the
     * workspace the plan sized. A shape's choice is fixed, so results do not depend on load. */
    int kcfg = state.kernel_config.load(std::memory_order_relaxed);
    if (kcfg < 0)
        kcfg = splits > 1 ? 0 : tsg::kernel_plan(P.p->transa, P.p->transb, P.rows(i), P.cols(j), kl, state.sms, 0, -1, 0).config;
    if (e == cudaSuccess)
        e = TSG_STAGE(ST_KERNEL, launch_product(P.p->math, kcfg, P.p->transa, P.p->transb, P.rows(i), P.cols(j), kl,
                                                pl.split_kc, splits, 0, 0, P.p->alpha, A, lda, B, ldb,
                                                c == 0 ? P.dev_beta : 1.0f, C, ldc,
                                                splits > 1 ? P.dev(P.offW) : nullptr, cs, &P.fam));
    if (e == cudaSuccess && P.tl.steps) P.tl.host(TE_K, piece, 1, now_s()), P.tl.gpu(TE_K, piece, cs);
    if (e == cudaSuccess && !pl.resident) e = cudaEventRecord(w->ev_launch[piece % RING], cs);
    if (e == cudaSuccess && piece == P.pieces - 1) {
        if (P.tl.on && P.ncomp == 2) { /* the timeline's "kernels done": both streams' */
            const cudaStream_t other = cs == w->s_comp ? w->s_comp2 : w->s_comp;
            if (cudaEventRecord(w->ev_join, other) == cudaSuccess) (void)cudaStreamWaitEvent(cs, w->ev_join, 0);
            (void)cudaGetLastError();
        }
        P.mark(TL_KDONE, cs);
    }
    if (e == cudaSuccess && c == pl.nk - 1) {
        /* the block is computed: its event slot must have been consumed by downloads */
        if (q >= NB && !downloads_issued_through(P, q - NB + 1)) return P.status;
        e = cudaEventRecord(w->ev_block[q % NB], cs);
        if (e == cudaSuccess) P.blocks_launched = q + 1;
    }
    if (e != cudaSuccess) return P.err(e, "kernel launch");
    return TSG_GPU_OK;
}

/* Launches every piece before `limit` (their units are all issued on s_up). */
int launch_ready(Pipeline &P, int64_t limit)
{
    if (P.next_launch >= limit) return TSG_GPU_OK;
    Workspace *w = P.w;
    cudaError_t e = cudaEventRecord(w->ev_ready, w->s_up);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(w->s_comp, w->ev_ready, 0);
    if (e == cudaSuccess && P.ncomp == 2) e = cudaStreamWaitEvent(w->s_comp2, w->ev_ready, 0);
    if (e != cudaSuccess) return P.err(e, "launch ordering");
    while (P.next_launch < limit && P.status == TSG_GPU_OK) {
        launch_piece(P, P.next_launch++);
        if (!P.touch_started && P.status == TSG_GPU_OK) { /* C's first touch after the first launch */
            P.touch_started = true;
            if (P.touch.lo) {
                tsg_pool_submit(&P.touch_job, touch_part, &P.touch,
                                state.touch > 0 ? state.touch : std::max(1, std::min(state.copy_threads, 16)));
                P.pending.push_back(&P.touch_job);
            }
        }
    }
    return P.status;
}

/* ---- uploads ---- */

/* Issues the DMA of the oldest gathered unit. */
int issue_unit(Pipeline &P)
{
    Workspace *w = P.w;
    const int e_idx = (int)(P.u_issue % NS);
    const Unit &u = P.ring_units[e_idx];
    /* every earlier piece has all its units up: launch them first (bounded mode's ring entries
     * and C buffers are reused only after the launches that read them are recorded) */
    if (launch_ready(P, u.piece) != TSG_GPU_OK) return P.status;
    cudaError_t e = cudaSuccess;
    if (u.ring >= 0 && u.piece >= RING) /* bounded mode: the ring entry's last reader is done */
        e = cudaStreamWaitEvent(w->s_up, w->ev_launch[u.ring], 0);
    if (e == cudaSuccess && u.cblock >= 2 && !P.pl.resident) { /* C buffer's last download */
        if (!downloads_issued_through(P, u.cblock - 1)) return P.status;
        e = cudaStreamWaitEvent(w->s_up, w->ev_cfree[u.cblock % 2], 0);
    }
    if (e == cudaSuccess) {
        if (u.mode == M_STAGE)
            e = TSG_STAGE(ST_UPLOAD, cudaMemcpyAsync(u.dev, up_slot(w, e_idx),
                                                     (size_t)(u.host.cols * u.dld * 4),
                                                     cudaMemcpyHostToDevice, w->s_up));
        else
            e = TSG_STAGE(ST_UPLOAD, cudaMemcpy2DAsync(u.dev, u.dld * 4, u.host.src, u.host.sld * 4,
                                                       u.host.rows * 4, u.host.cols,
                                                       cudaMemcpyHostToDevice, w->s_up));
    }
    if (e == cudaSuccess) e = cudaEventRecord(w->ev_up[e_idx], w->s_up);
    if (e != cudaSuccess) return P.err(e, "upload (H2D)");
    if (P.tl.steps) P.tl.host(TE_UP, P.u_issue, 1, now_s()), P.tl.gpu(TE_UP, P.u_issue, w->s_up);
    P.u_issue++;
    return TSG_GPU_OK;
}

/* Puts the next unit into the ring (gather submitted) if its entry is free. blocking: wait for
 * the entry's previous DMA. Returns true when a unit was added. */
bool refill(Pipeline &P, bool blocking)
{
    if (P.g_done || P.u_submit >= P.u_issue + NS) return false;
    Workspace *w = P.w;
    const int e_idx = (int)(P.u_submit % NS);
    if (P.u_submit >= NS && P.ring_staged[e_idx]) { /* the slot's last DMA must be done */
        cudaError_t e = TSG_STAGE(ST_SYNC, blocking ? cudaEventSynchronize(w->ev_up[e_idx])
                                                    : cudaEventQuery(w->ev_up[e_idx]));
        if (e == cudaErrorNotReady) return false;
        if (e != cudaSuccess) { P.err(e, "upload (sync)"); return false; }
    }
    Unit u;
    if (!gen_next(P, &u)) return false;
    if (P.tl.steps) P.tl.host(TE_UP, P.u_submit, 0, now_s());
    P.ring_units[e_idx] = u;
    P.ring_staged[e_idx] = u.mode == M_STAGE;
    if (u.mode == M_STAGE) {
        P.ring_copy[e_idx] = u.host;
        P.ring_copy[e_idx].dst = up_slot(w, e_idx);
        tsg_pool_submit(&P.ring_job[e_idx], copy_part, &P.ring_copy[e_idx], copy_parts(P.ring_copy[e_idx]));
    }
    P.u_submit++;
    return true;
}

bool unit_ready(Pipeline &P)
{
    if (P.u_issue >= P.u_submit) return false;
    const int e_idx = (int)(P.u_issue % NS);
    return P.ring_units[e_idx].mode != M_STAGE || tsg_pool_done(&P.ring_job[e_idx]);
}

/* Waits for every copy job of the call (gathers, scatters, the first touch). */
void drain_jobs(Pipeline &P)
{
    for (int64_t u = P.u_issue; u < P.u_submit; ++u)
        if (P.ring_units[u % NS].mode == M_STAGE) tsg_pool_wait(&P.ring_job[u % NS]);
    if (P.mcd == M_STAGE)
        for (int64_t d = P.d_done; d < P.d_submit; ++d) tsg_pool_wait(&P.dn[d % ND].job);
    for (tsg_job *j : P.pending) tsg_pool_wait(j);
}

int run_pipeline(Pipeline &P)
{
    Workspace *w = P.w;
    const tsg_plan &pl = P.pl;
    P.pieces = pl.gm * pl.gn * pl.nk;
    P.rounds = tsg_plan_rounds(&pl, P.dev_beta, state.order);
    P.ncomp = pl.splits <= 1 && total_blocks(P) > 1 ? 2 : 1;
    P.mark(TL_T0, w->s_up);
    while (P.status == TSG_GPU_OK) {
        if (state.exiting.load(std::memory_order_relaxed)) {
            snprintf(P.msg, P.len, "the process is exiting");
            P.status = TSG_GPU_EFAIL;
            break;
        }
        bool moved = false;
        while (P.status == TSG_GPU_OK && unit_ready(P)) { /* DMAs back to back */
            issue_unit(P);
            moved = true;
        }
        if (P.status != TSG_GPU_OK) break;
        launch_ready(P, next_unit_piece(P));
        while (P.status == TSG_GPU_OK && refill(P, false)) moved = true;
        if (service_downloads(P, false)) moved = true;
        if (P.status != TSG_GPU_OK) break;
        if (P.u_issue == P.u_submit && P.g_done) break; /* every unit is up */
        if (moved) continue;
        const double t0 = P.tl.on ? now_s() : 0;
        if (P.u_issue < P.u_submit) { /* help gather the unit the DMA engine needs next */
            tsg_pool_wait(&P.ring_job[P.u_issue % NS]);
            if (P.tl.on) P.tl.gather += now_s() - t0;
        } else {
            refill(P, true); /* the ring is full of DMAs in flight: wait for the oldest */
            if (P.tl.on) P.tl.dma += now_s() - t0;
        }
    }
    if (P.status == TSG_GPU_OK) {
        P.mark(TL_UPDONE, w->s_up);
        if (P.tl.on) P.tl.uploads_issued = now_s() - P.tl.h0;
    }
    if (P.status == TSG_GPU_OK) launch_ready(P, P.pieces);
    /* the rest of C comes down */
    while (P.status == TSG_GPU_OK && (P.mcd == M_STAGE || P.mcd == M_DIRECT) &&
           P.done.blocks < total_blocks(P)) {
        if (state.exiting.load(std::memory_order_relaxed)) {
            snprintf(P.msg, P.len, "the process is exiting");
            P.status = TSG_GPU_EFAIL;
            break;
        }
        const double t0 = P.tl.on ? now_s() : 0;
        const bool moved = service_downloads(P, true);
        if (P.tl.on) P.tl.down += now_s() - t0;
        if (!moved && P.status == TSG_GPU_OK) {
            snprintf(P.msg, P.len, "download stalled at block %lld of %lld (internal error)",
                     (long long)P.done.blocks, (long long)total_blocks(P));
            P.status = TSG_GPU_EFAIL;
        }
    }
    if (P.status == TSG_GPU_OK && P.mcd == M_INPLACE) {
        cudaError_t e = TSG_STAGE(ST_SYNC, cudaStreamSynchronize(w->s_comp));
        if (e == cudaSuccess) e = TSG_STAGE(ST_SYNC, cudaStreamSynchronize(w->s_comp2));
        if (e != cudaSuccess) P.err(e, "kernel (sync)");
    }
    /* On the way out, success or not: no copy thread and no DMA touches the call's memory any
     * more when we return (the slots go back to the pool, the caller's C is final or original). */
    drain_jobs(P);
    /* every scatter submitted has now landed in the caller's C: count it (a prefix, in order) */
    while (P.d_done < P.d_submit) retire(P);
    if (P.status != TSG_GPU_OK) {
        cudaStreamSynchronize(w->s_up);
        cudaStreamSynchronize(w->s_comp);
        cudaStreamSynchronize(w->s_comp2);
        cudaStreamSynchronize(w->s_down);
        if (P.status != TSG_GPU_EFATAL) (void)cudaGetLastError();
    }
    return P.status;
}

/* How each operand moves (tsg_gpu.h): pageable -> staged, pinned -> direct DMA, managed and
 * device -> in place; C comes down in place only when it cannot be half-written on failure
 * with a value the CPU retry would read (device memory, or managed with beta = 0).
 * beta != 0 with C in host memory (pageable or pinned): C does not go up. The kernels compute
 * alpha*op(A)*op(B) (beta = 0) and the scatters write fmaf(beta, C, that) into the caller's C,
 * the write-back's own operation; each byte of C then crosses PCIe once instead of twice (4096^3:
 * 64 MiB less up, docs/NOTES.md "v0.8"). A block is final when its scatter is done, as with beta =
 * 0, and C's other blocks still hold the caller's values, so the done contract is unchanged.
 * The sum order differs from the kernels' beta when K has several chunks (fmaf(beta, C, P0 + P1
 * + ...) against ((beta*C + P0) + P1) + ...): both are fixed functions of the shape, so results
 * stay bit-identical from run to run. Managed C keeps the earlier path (C staged up, the kernels
 * apply beta): the scatters were not measured on managed C. */
void choose_modes(const tsg_problem *p, Pipeline &P)
{
    auto mode_of = [](unsigned char where) {
        return where == TSG_PINNED ? M_DIRECT : where == TSG_HOST ? M_STAGE : M_INPLACE;
    };
    P.ma = mode_of(p->where_a);
    P.mb = mode_of(p->where_b);
    const bool beta = p->beta != 0.0f;
    P.host_beta = beta && (p->where_c == TSG_HOST || p->where_c == TSG_PINNED);
    P.dev_beta = P.host_beta ? 0.0f : p->beta;
    const bool up = beta && !P.host_beta; /* C goes up: the kernels apply beta */
    switch (p->where_c) {
    case TSG_DEVICE: P.mcu = M_NONE, P.mcd = M_INPLACE; break;
    case TSG_MANAGED: /* in place only when a half-written C cannot mislead a retry */
        if (beta) P.mcu = M_STAGE, P.mcd = M_STAGE;
        else P.mcu = M_NONE, P.mcd = M_INPLACE;
        break;
    case TSG_PINNED: P.mcu = up ? M_DIRECT : M_NONE, P.mcd = beta ? M_STAGE : M_DIRECT; break;
    default: P.mcu = up ? M_STAGE : M_NONE, P.mcd = M_STAGE; break;
    }
}

/* The TSGEMM_TEST_TIMELINE line of a finished call (stderr), then its events are destroyed. */
void print_timeline(Pipeline &P, int status)
{
    Timeline &t = P.tl;
    t.end = now_s() - t.h0;
    float ms[TL_COUNT] = {};
    for (int i = 1; i < TL_COUNT; ++i)
        if (status != TSG_GPU_OK || !t.recorded[TL_T0] || !t.recorded[i] ||
            cudaEventSynchronize(t.ev[i]) != cudaSuccess ||
            cudaEventElapsedTime(&ms[i], t.ev[TL_T0], t.ev[i]) != cudaSuccess)
            ms[i] = -1;
    (void)cudaGetLastError();
    const tsg_plan &pl = P.pl;
    fprintf(stderr,
            "tsgemm timeline: %lldx%lldx%lld blocks %lldx%lld (%lldx%lld) kc %lld (%lld) splits %lld "
            "%s %s (%lld of %lld rounds chunk-major) | gpu ms: kernels start %.3f, uploads done %.3f, kernels done %.3f, downloads done "
            "%.3f | host ms: first launch %.3f, uploads issued %.3f, end %.3f | host blocked ms: "
            "gathers %.3f, dma slots %.3f, downloads %.3f\n",
            (long long)P.p->m, (long long)P.p->n, (long long)P.p->k, (long long)pl.bm,
            (long long)pl.bn, (long long)pl.gm, (long long)pl.gn, (long long)pl.kc, (long long)pl.nk,
            (long long)pl.splits, pl.resident ? "resident" : "bounded",
            P.rounds == pl.nk ? "chunk-major" : P.rounds ? "rounds" : "block-major",
            (long long)P.rounds, (long long)pl.nk, ms[TL_KSTART], ms[TL_UPDONE],
            ms[TL_KDONE], ms[TL_DNDONE], t.first_launch * 1e3, t.uploads_issued * 1e3, t.end * 1e3,
            t.gather * 1e3, t.dma * 1e3, t.down * 1e3);
    if (Steps *st = t.steps.get()) {
        /* one line per kind: host times and the GPU's done time, ms from the call's start (the
         * GPU's from TL_T0, recorded on s_up as the call began) */
        static const char *const name[TE_KINDS] = {"upload units (gather submitted / DMA issued / DMA done)",
                                                   "launches (issued / done)",
                                                   "download units (D2H issued / D2H done / scatter submitted / scatter done)"};
        for (int kind = 0; kind < TE_KINDS; ++kind) {
            fprintf(stderr, "  %s:", name[kind]);
            for (int i = 0; i < TD; ++i) {
                float g = -1;
                if (status == TSG_GPU_OK && st->dev_rec[kind][i] && t.recorded[TL_T0] &&
                    (cudaEventSynchronize(st->dev[kind][i]) != cudaSuccess ||
                     cudaEventElapsedTime(&g, t.ev[TL_T0], st->dev[kind][i]) != cudaSuccess))
                    g = -1;
                const double *hs = st->h[kind][i];
                if (hs[0] < 0 && hs[1] < 0 && !st->dev_rec[kind][i]) continue;
                if (kind == TE_UP) fprintf(stderr, " %.3f/%.3f/%.3f", hs[0] * 1e3, hs[1] * 1e3, g);
                else if (kind == TE_K) fprintf(stderr, " %.3f/%.3f", hs[1] * 1e3, g);
                else fprintf(stderr, " %.3f/%.3f/%.3f/%.3f", hs[1] * 1e3, g, hs[0] * 1e3, hs[2] * 1e3);
            }
            fputc('\n', stderr);
        }
        (void)cudaGetLastError();
        for (auto &kind : st->dev)
            for (auto &ev : kind)
                if (ev) cudaEventDestroy(ev), ev = nullptr;
        t.steps.reset();
    }
    for (auto &ev : t.ev)
        if (ev) cudaEventDestroy(ev), ev = nullptr;
}

tsg_plan_limits plan_limits()
{
    tsg_plan_limits lim;
    lim.device_bytes = call_budget();
    lim.tile_m = tsg::kernel_tile_m();
    lim.tile_n = tsg::kernel_tile_n();
    lim.slots = state.sms;
    lim.split_min_k = SPLIT_MIN_K;
    lim.max_rows = (int64_t)(state.slot_bytes / 4);
    lim.block_area = (int64_t)state.block_floats;
    lim.first_floats = (int64_t)state.chunk_floats;
    return lim;
}

int sgemm_pipeline(Workspace *w, const tsg_problem *p, tsg_done *done, char *msg, size_t len)
{
    Pipeline P;
    P.p = p;
    P.w = w;
    P.msg = msg;
    P.len = len;
    choose_modes(p, P);
    const bool staged = P.ma == M_STAGE || P.mb == M_STAGE || P.mcu == M_STAGE || P.mcd == M_STAGE;
    struct Burst { /* the copy threads stay awake for the whole call (POLL_SPARE_CPUS) */
        bool on;
        explicit Burst(bool b) : on(b) { if (on) tsg_pool_burst_begin(); }
        ~Burst() { if (on) tsg_pool_burst_end(); }
    } burst(staged);
    tsg_plan_limits lim = plan_limits();
    if (tsg_plan_make(p, &lim, &P.pl) != 0) {
        snprintf(msg, len, "the problem does not fit in the device memory budget (%.3g MiB)",
                 lim.device_bytes / (1 << 20));
        return TSG_GPU_ENOMEM;
    }
    done->bm = P.pl.bm;
    done->bn = P.pl.bn;
    done->blocks = done->cols = 0;
    int st = ensure_arena(w, (size_t)layout(P) * 4, msg, len);
    if (st != TSG_GPU_OK) return st;
    if (staged && (st = ensure_pinned(w, msg, len)) != TSG_GPU_OK) return st;
    /* units: about 1/16 of what crosses, within [256 KiB, one slot] */
    double bytes = 4.0 * ((double)p->m * (double)p->k + (double)p->k * (double)p->n +
                          2.0 * (double)p->m * (double)p->n);
    P.unit_bytes = (int64_t)std::max<double>((double)UNIT_MIN, std::min<double>((double)w->slot_bytes, bytes / 16));
    if (state.unit_bytes > 0 && w->slot_bytes)
        P.unit_bytes = (int64_t)std::min<double>((double)w->slot_bytes, std::max<double>(4096.0, state.unit_bytes));
    if (w->slot_bytes && P.unit_bytes > (int64_t)w->slot_bytes) P.unit_bytes = (int64_t)w->slot_bytes;
    /* managed operands: move them to the GPU ahead of the first launch */
    if (state.prop.concurrentManagedAccess) {
        cudaMemLocation loc;
        loc.type = cudaMemLocationTypeDevice;
        loc.id = state.device;
        int64_t ra, ca, rb, cb;
        tsg_stored_shape_a(p, &ra, &ca);
        tsg_stored_shape_b(p, &rb, &cb);
        if (p->where_a == TSG_MANAGED)
            cudaMemPrefetchAsync(p->a, (size_t)tsg_extent(ra, ca, p->lda) * 4, loc, 0, w->s_comp);
        if (p->where_b == TSG_MANAGED)
            cudaMemPrefetchAsync(p->b, (size_t)tsg_extent(rb, cb, p->ldb) * 4, loc, 0, w->s_comp);
        if (p->where_c == TSG_MANAGED && P.mcd == M_INPLACE)
            cudaMemPrefetchAsync(p->c, (size_t)tsg_extent(p->m, p->n, p->ldc) * 4, loc, 0, w->s_comp);
        (void)cudaGetLastError(); /* a prefetch that is refused only costs speed */
    }
    /* first touch of a fresh pageable C (beta = 0: the call writes every element) */
    if (P.mcd == M_STAGE && p->where_c == TSG_HOST && p->beta == 0.0f && state.touch >= 0) {
        const size_t cbytes = (size_t)tsg_extent(p->m, p->n, p->ldc) * 4;
        if (!resident(p->c, cbytes)) {
            const long page = sysconf(_SC_PAGESIZE);
            P.touch.c_lo = p->c;
            P.touch.c_hi = p->c + tsg_extent(p->m, p->n, p->ldc);
            P.touch.lo = (char *)((uintptr_t)p->c & ~(uintptr_t)(page - 1));
            P.touch.hi = (char *)(((uintptr_t)p->c + cbytes + page - 1) & ~(uintptr_t)(page - 1));
#ifdef MADV_HUGEPAGE
            /* The call writes every float of C's extent, so backing its whole 2 MiB pieces with
             * huge pages costs no memory and saves 511 of every 512 faults (numpy advises its own
             * large arrays the same way). Only the 2 MiB ranges wholly inside the extent, so no
             * byte outside C changes its backing; a refusal only costs speed. */
            const uintptr_t h = (uintptr_t)2 << 20;
            const uintptr_t hlo = ((uintptr_t)p->c + h - 1) & ~(h - 1), hhi = ((uintptr_t)p->c + cbytes) & ~(h - 1);
            if (state.touch != -2 && hhi > hlo) (void)madvise((void *)hlo, hhi - hlo, MADV_HUGEPAGE);
#endif
        }
    }
    P.gather_kind = gather_kind(p, P.touch.lo != nullptr);
    if (state.timeline) {
        P.tl.on = true;
        for (auto &ev : P.tl.ev)
            if (cudaEventCreate(&ev) != cudaSuccess) ev = nullptr;
        if (state.timeline >= 2) P.tl.steps.reset(new (std::nothrow) Steps); /* none: no steps */
        if (P.tl.steps) {
            for (auto &kind : P.tl.steps->h)
                for (auto &step : kind) step[0] = step[1] = step[2] = -1;
            for (auto &kind : P.tl.steps->dev)
                for (auto &ev : kind)
                    if (cudaEventCreate(&ev) != cudaSuccess) ev = nullptr;
        }
        (void)cudaGetLastError();
        P.tl.h0 = now_s();
    }
    st = run_pipeline(P);
    done->families = P.fam;
    if (P.tl.on) print_timeline(P, st);
    if (st == TSG_GPU_OK) done->blocks = total_blocks(P), done->cols = 0;
    else if (P.mcd == M_STAGE || P.mcd == M_DIRECT)
        done->blocks = P.done.blocks, done->cols = P.done.cols, done->bm = P.pl.bm, done->bn = P.pl.bn;
    /* in place: nothing of the host's C was written by us; a retry redoes everything */
    return st;
}

/* ------------------------------------------------------------------ in-place calls */

/* Configuration, split-K and stream-K tail of a single launch on device data (the pipeline plans
 * its own, without a tail); ws: the workspace it needs, in floats (tsg::kernel_ws_floats). */
struct SplitPlan {
    tsg::KernelPlan kp;
    int64_t ws;
};

SplitPlan plan_split(char ta, char tb, int64_t m, int64_t n, int64_t k)
{
    /* the partials may take 1 GiB of device memory at most */
    const tsg::KernelPlan kp = tsg::kernel_plan(ta, tb, m, n, k, state.sms, ((int64_t)1 << 30) / (int64_t)sizeof(float),
                                                state.kernel_config.load(std::memory_order_relaxed),
                                                state.kernel_splits.load(std::memory_order_relaxed),
                                                state.kernel_tail.load(std::memory_order_relaxed));
    return SplitPlan{kp, tsg::kernel_ws_floats(kp.config, m, n, kp)};
}

/* An unsplit plan without a tail on configuration `config`: the plan of a call that launches no
 * product (m, n or k zero, alpha zero; config 0), or a plan whose workspace could not be had. */
SplitPlan plain_plan(int config, int64_t k)
{
    tsg::KernelPlan kp;
    kp.config = config, kp.splits = 1, kp.kslice = k;
    return SplitPlan{kp, 0};
}

/* Enqueues the whole product on device-accessible operands (any sizes, scalar rules too). */
int launch_in_place(int math, char ta, char tb, int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                    int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                    cudaStream_t s, float *W, SplitPlan sp, unsigned *fam, char *msg, size_t len)
{
    if (m == 0 || n == 0) return TSG_GPU_OK;
    if (k == 0 || alpha == 0.0f) {
        if (beta == 1.0f) return TSG_GPU_OK;
        const cudaError_t e = TSG_STAGE(ST_KERNEL, (cudaError_t)tsg::kernel_scale(m, n, beta, C, ldc, s));
        return e == cudaSuccess ? TSG_GPU_OK : fail(e, "kernel launch (beta * C)", msg, len);
    }
    const cudaError_t e = TSG_STAGE(ST_KERNEL, launch_product(math, sp.kp.config, ta, tb, m, n, k, sp.kp.kslice,
                                                              sp.kp.splits, sp.kp.tail_tiles, sp.kp.tail_blocks,
                                                              alpha, A, lda, B, ldb, beta, C, ldc, W, s, fam));
    return e == cudaSuccess ? TSG_GPU_OK : fail(e, "kernel launch", msg, len);
}

int sgemm_in_place(Workspace *w, const tsg_problem *p, tsg_done *done, char *msg, size_t len)
{
    SplitPlan sp = (p->k > 0 && p->alpha != 0.0f) ? plan_split(p->transa, p->transb, p->m, p->n, p->k) : plain_plan(0, p->k);
    float *W = nullptr;
    if (sp.ws > 0) {
        if (ensure_arena(w, (size_t)sp.ws * 4, msg, len) == TSG_GPU_OK) {
            W = w->arena;
        } else {
            (void)cudaGetLastError();
            sp = plain_plan(sp.kp.config, p->k);
        }
    }
    if (state.prop.concurrentManagedAccess) {
        cudaMemLocation loc;
        loc.type = cudaMemLocationTypeDevice;
        loc.id = state.device;
        int64_t ra, ca, rb, cb;
        tsg_stored_shape_a(p, &ra, &ca);
        tsg_stored_shape_b(p, &rb, &cb);
        if (p->where_a == TSG_MANAGED && p->k > 0 && p->alpha != 0.0f)
            cudaMemPrefetchAsync(p->a, (size_t)tsg_extent(ra, ca, p->lda) * 4, loc, 0, w->s_comp);
        if (p->where_b == TSG_MANAGED && p->k > 0 && p->alpha != 0.0f)
            cudaMemPrefetchAsync(p->b, (size_t)tsg_extent(rb, cb, p->ldb) * 4, loc, 0, w->s_comp);
        if (p->where_c == TSG_MANAGED)
            cudaMemPrefetchAsync(p->c, (size_t)tsg_extent(p->m, p->n, p->ldc) * 4, loc, 0, w->s_comp);
        (void)cudaGetLastError();
    }
    int st = launch_in_place(p->math, p->transa, p->transb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b,
                             p->ldb, p->beta, p->c, p->ldc, w->s_comp, W, sp, &done->families, msg, len);
    if (st != TSG_GPU_OK) return st;
    const cudaError_t e = TSG_STAGE(ST_SYNC, cudaStreamSynchronize(w->s_comp));
    return e == cudaSuccess ? TSG_GPU_OK : fail(e, "kernel (sync)", msg, len);
}

/* Device operands must live on our GPU. */
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

/* The caller's thread: current context saved at entry, restored at exit. */
struct ContextGuard {
    void *saved = nullptr;
    bool have = false;
    ContextGuard() { have = state.ctx_get && state.ctx_get(&saved) == 0; }
    ~ContextGuard()
    {
        if (have && state.ctx_set) state.ctx_set(saved);
    }
};

double now_s()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


/* ------------------------------------------------------------------ several devices */

/*
 * One call over several device slots (src/tsg_multi.h): the panels of a round run at once, one
 * host thread per slot (the calling thread takes the first), each with a workspace of its own
 * device — its own streams, pinned slots and arena — through sgemm_pipeline, unchanged: a panel
 * is a one-device call on a window of C. The copy-thread pool is shared. A slot that got several
 * tasks (round 2) runs them one after the other on one workspace, so a round never needs more
 * workspaces than slots, and never more than it reserved.
 */
struct SlotGroup {
    int slot = 0;
    int n = 0;
    std::atomic<unsigned> *fam = nullptr; /* the call's kernel families (tsg_done.families) */
    tsg_multi_task *task[3 * TSG_MAX_DEVICES] = {};
};

void run_group(SlotGroup *g)
{
    t_slot = g->slot;
    const int dev = state.slot_dev[g->slot];
    char msg[160] = "";
    Workspace *w = nullptr;
    cudaError_t e = cudaSetDevice(dev);
    int st = e == cudaSuccess ? take_ws(dev, &w, msg, sizeof msg) : fail(e, "cudaSetDevice", msg, sizeof msg);
    if (e != cudaSuccess) { /* take_ws was not reached: give its reservation back */
        pthread_mutex_lock(&state.pool_lock);
        state.ws_out--;
        wake_waiters();
        pthread_mutex_unlock(&state.pool_lock);
    }
    int worst = st;
    for (int i = 0; i < g->n; ++i) {
        tsg_multi_task *t = g->task[i];
        if (st == TSG_GPU_OK && !state.slot_dead[g->slot].load()) {
            t->done.families = 0;
            t->status = sgemm_pipeline(w, &t->p, &t->done, t->msg, sizeof t->msg);
            if (g->fam) g->fam->fetch_or(t->done.families);
            if (t->status != TSG_GPU_OK && t->status != TSG_GPU_EFATAL) {
                cudaStreamSynchronize(w->s_comp); /* leave no work queued on the reused streams */
                cudaStreamSynchronize(w->s_comp2);
                (void)cudaGetLastError();
            }
            if (t->status == TSG_GPU_EFATAL) { /* this device is poisoned: no slot of it again */
                for (int s = 0; s < state.nslots; ++s)
                    if (state.slot_dev[s] == dev) state.slot_dead[s].store(true);
                st = TSG_GPU_EFATAL;
            }
            if (t->status != TSG_GPU_OK && worst != TSG_GPU_EFATAL) worst = t->status;
        } else { /* nothing done in this window */
            t->status = st != TSG_GPU_OK ? st : TSG_GPU_EFATAL;
            t->done.bm = t->p.m, t->done.bn = t->p.n, t->done.blocks = t->done.cols = 0;
            t->done.nparts = 0;
            snprintf(t->msg, sizeof t->msg, "%s", st != TSG_GPU_OK && msg[0] ? msg : "device disabled");
        }
    }
    if (w) give_back(w, worst);
    t_slot = -1;
}

void *group_thread(void *arg)
{
    run_group((SlotGroup *)arg);
    return nullptr;
}

/* tsg_multi_round_fn: every slot's tasks at once. */
void run_round(void *ctx, tsg_multi_task *tasks, int count)
{
    SlotGroup groups[TSG_MAX_DEVICES];
    for (auto &g : groups) g.fam = (std::atomic<unsigned> *)ctx;
    int ng = 0;
    for (int i = 0; i < count; ++i) {
        int g = 0;
        while (g < ng && groups[g].slot != tasks[i].slot) ++g;
        if (g == ng) groups[ng++].slot = tasks[i].slot;
        groups[g].task[groups[g].n++] = &tasks[i];
    }
    reserve_ws(ng);
    pthread_t th[TSG_MAX_DEVICES];
    bool started[TSG_MAX_DEVICES] = {};
    for (int g = 1; g < ng; ++g) started[g] = tsg_pool_spawn(&th[g], nullptr, group_thread, &groups[g]) == 0;
    run_group(&groups[0]);
    for (int g = 1; g < ng; ++g) {
        if (started[g]) pthread_join(th[g], nullptr);
        else run_group(&groups[g]); /* no thread: one after the other, still right */
    }
}

/* A call the panels may take: a real product with every operand in host memory (device and
 * managed operands live on one GPU and are computed in place there). */
bool multi_eligible(const tsg_problem *p)
{
    auto host = [](unsigned char w) { return w == TSG_HOST || w == TSG_PINNED; };
    return p->k > 0 && p->alpha != 0.0f && host(p->where_a) && host(p->where_b) && host(p->where_c);
}

} /* namespace gpu */
} /* namespace tsg */

using namespace tsg::gpu;

/* ------------------------------------------------------------------ tsg_gpu.h */

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
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
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
    /* libcuda is loaded now (cudart loaded it): the context calls of the driver */
    void *cu = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (cu) {
        state.ctx_get = (ctx_get_fn)dlsym(cu, "cuCtxGetCurrent");
        state.ctx_set = (ctx_set_fn)dlsym(cu, "cuCtxSetCurrent");
    }
    ContextGuard guard;
    state.device = (device >= 0 && device < count) ? device : 0;
    *used = state.device;
    if ((e = cudaSetDevice(state.device)) != cudaSuccess) return fail(e, "cudaSetDevice", info, len);
    if ((e = cudaFree(nullptr)) != cudaSuccess) /* the context now, not inside the first timed call */
        return fail(e, "cudaFree (context creation)", info, len);
    if ((e = cudaGetDeviceProperties(&state.prop, state.device)) != cudaSuccess)
        return fail(e, "cudaGetDeviceProperties", info, len);
    int per_sm = 0;
    if ((e = (cudaError_t)tsg::kernel_blocks_per_sm(&per_sm)) != cudaSuccess)
        return fail(e, "occupancy of the kernel configurations", info, len);
    /* the tensor-core family (issue 36): 0 also when it is not built or not for this device
     * (tsg::tf32_available() then says false and every call runs on the FP32 kernels). A failure
     * of its own set-up leaves it unavailable; it never stops the FP32 path from starting. */
    if (tsg::tf32_init() != 0) (void)cudaGetLastError();
    state.sms = state.prop.multiProcessorCount;
    /* budgets: pinned slots and workspaces, device memory */
    state.pinned_cap = cfg && cfg->pinned_bytes > 0 ? cfg->pinned_bytes : (double)(512u << 20);
    state.pinned_default = !(cfg && cfg->pinned_bytes > 0);
    const double per_ws = (double)((NS + ND) * SLOT_MAX);
    state.max_ws = (int)std::min<double>(MAX_WS, std::max(1.0, std::floor(state.pinned_cap / per_ws)));
    state.slot_bytes = (size_t)std::min<double>((double)SLOT_MAX, state.pinned_cap / (double)((NS + ND) * state.max_ws));
    state.slot_bytes = std::max(SLOT_MIN, state.slot_bytes & ~(size_t)4095);
    /* a cap above the device's memory buys nothing: the device's memory is the bound */
    state.device_cap = cfg && cfg->device_bytes > 0 ? std::min(cfg->device_bytes, (double)state.prop.totalGlobalMem)
                                                : 0.75 * (double)state.prop.totalGlobalMem;
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
    const int cpus = tsg_pool_usable_cpus();
    /* 3/4 of the CPUs, at most 12: on the 16-CPU H200 host 12 copy threads beat 8 and 15
     * (docs/NOTES.md, run 2), as PERF.md's memcpy scaling (35 GB/s at 12 threads, 33 at 16) */
    state.copy_threads = cfg && cfg->copy_threads > 0 ? cfg->copy_threads : std::min(12, std::max(2, cpus * 3 / 4));
    state.unit_bytes = cfg ? cfg->unit_bytes : 0;
    state.block_floats = cfg ? cfg->block_floats : 0;
    state.timeline = cfg ? cfg->timeline : 0;
    state.ramp_steps = cfg && cfg->ramp > 0 ? cfg->ramp : RAMP_STEPS;
    state.order = cfg ? cfg->order : 0;
    state.touch = cfg ? cfg->touch : 0;
    const bool poll = (cfg && cfg->poll) || cpus >= state.copy_threads + POLL_SPARE_CPUS;
    tsg_pool_set_poll(poll ? POLL_MAX_US : 0);
    state.chunk_floats = cfg ? cfg->chunk_floats : 0;
    if (cfg && cfg->copy_kind) state.gather_copy = state.scatter_copy = cfg->copy_kind;
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    snprintf(info, len,
             "device %d of %d: %s, sm_%d%d, %d SMs, %.1f GiB; driver CUDA %d.%d, runtime %d.%d; "
             "%d copy threads (%s in calls), %d x %.0f MiB pinned slots per call, up to %d calls at once",
             state.device, count, state.prop.name, state.prop.major, state.prop.minor, state.prop.multiProcessorCount,
             (double)state.prop.totalGlobalMem / (1 << 30), drv / 1000, drv % 1000 / 10, rt / 1000,
             rt % 1000 / 10, state.copy_threads, poll ? "polling" : "blocking", NS + ND, (double)state.slot_bytes / (1 << 20), state.max_ws);
    return TSG_GPU_OK;
}

extern "C" int tsg_gpu_uuid(char *buf, size_t len)
{
    size_t pos = 0;
    for (int i = 0; i < 16 && pos + 3 <= len; ++i)
        pos += snprintf(buf + pos, len - pos, "%02x", (unsigned char)state.prop.uuid.bytes[i]);
    return TSG_GPU_OK;
}

extern "C" int tsg_gpu_sgemm(const tsg_problem *p, tsg_done *done, char *msg, size_t len)
{
    done->bm = done->bn = 1;
    done->blocks = done->cols = 0;
    done->nparts = 0;
    done->families = 0;
    ContextGuard guard;
    cudaError_t e = cudaSetDevice(state.device);
    if (e != cudaSuccess) return fail(e, "cudaSetDevice", msg, len);
    int st = check_placement(p, msg, len);
    if (st != TSG_GPU_OK) return st;
    const bool in_place = p->where_a >= TSG_MANAGED && p->where_b >= TSG_MANAGED &&
                          (p->where_c == TSG_DEVICE || (p->where_c == TSG_MANAGED && p->beta == 0.0f));
    const bool scalar_only = p->k == 0 || p->alpha == 0.0f;
    if (!in_place && !scalar_only) tsg_pool_start(state.copy_threads); /* once; blocked when idle */
    state.inflight++;
    Workspace *w;
    st = acquire(&w, msg, len);
    if (st == TSG_GPU_OK) {
        st = (in_place || scalar_only) ? sgemm_in_place(w, p, done, msg, len) : sgemm_pipeline(w, p, done, msg, len);
        if (st != TSG_GPU_OK && st != TSG_GPU_EFATAL) {
            cudaStreamSynchronize(w->s_comp); /* leave no work queued on the reused streams */
            cudaStreamSynchronize(w->s_comp2);
            (void)cudaGetLastError();
        }
        give_back(w, st);
    }
    state.inflight--;
    return st;
}

extern "C" int tsg_gpu_set_devices(const int *ordinals, int n, int *slots, char *info, size_t len)
{
    ContextGuard guard;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    (void)cudaGetLastError();
    int ns = 1;
    size_t pos = 0;
    if (info && len) info[0] = '\0';
    auto note = [&](const char *fmt, int a) {
        if (info && pos < len) {
            int w = snprintf(info + pos, len - pos, fmt, a);
            if (w > 0) pos += (size_t)w;
        }
    };
    for (int i = 1; i < n && ns < TSG_MAX_DEVICES; ++i) {
        const int d = ordinals[i];
        cudaDeviceProp prop;
        if (d < 0 || d >= count) {
            note("device %d does not exist; ", d);
            continue;
        }
        if (d != state.device) {
            if (cudaGetDeviceProperties(&prop, d) != cudaSuccess ||
                prop.multiProcessorCount != state.prop.multiProcessorCount || prop.major != state.prop.major ||
                prop.minor != state.prop.minor || strcmp(prop.name, state.prop.name) != 0) {
                (void)cudaGetLastError();
                note("device %d is not of the first device's kind; ", d);
                continue;
            }
            if (cudaSetDevice(d) == cudaSuccess && cudaFree(nullptr) == cudaSuccess &&
                tsg::tf32_init() != 0) /* the family's attributes are per device; see above */
                (void)cudaGetLastError();
            if (cudaSetDevice(d) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
                (void)cudaGetLastError();
                note("device %d cannot start; ", d);
                continue;
            }
        }
        state.slot_dev[ns++] = d;
    }
    state.slot_dev[0] = state.device;
    for (int s = 0; s < TSG_MAX_DEVICES; ++s) state.slot_dead[s].store(false);
    /* the default pinned cap holds a workspace for every slot (512 MiB holds 3 of 160 MiB); a
     * cap the user set is kept, and then bounds how many slots one call uses (tsg_gpu_sgemm_split) */
    if (state.pinned_default && ns > state.max_ws) {
        state.max_ws = ns;
        state.pinned_cap = (double)ns * (double)((NS + ND) * state.slot_bytes);
    }
    state.nslots = ns;
    *slots = ns;
    return TSG_GPU_OK;
}

extern "C" int tsg_gpu_sgemm_split(const tsg_problem *p, const tsg_rates *r, tsg_done *done,
                                   char *msg, size_t len)
{
    if (state.nslots <= 1 || !multi_eligible(p)) return tsg_gpu_sgemm(p, done, msg, len);
    int live[TSG_MAX_DEVICES], nl = 0;
    for (int s = 0; s < state.nslots; ++s)
        if (!state.slot_dead[s].load()) live[nl++] = s;
    const tsg_multi_limits lim = {tsg::kernel_tile_m(), tsg::kernel_tile_n()};
    const int d = tsg_multi_devices(p, std::min(nl, state.max_ws), r, &lim, nullptr);
    if (d <= 1) return tsg_gpu_sgemm(p, done, msg, len); /* one device: exactly the one-GPU call */
    tsg_multi_split split;
    if (tsg_multi_split_make(p, d, nullptr, &lim, &split) <= 1) return tsg_gpu_sgemm(p, done, msg, len);
    for (int i = 0; i < split.count; ++i) split.panel[i].slot = live[i];
    done->bm = done->bn = 1;
    done->blocks = done->cols = 0;
    done->nparts = 0;
    tsg_multi_task *tasks = (tsg_multi_task *)malloc(sizeof(tsg_multi_task) * 3 * TSG_MAX_DEVICES);
    if (!tasks) {
        snprintf(msg, len, "host allocation failed");
        return TSG_GPU_ENOMEM;
    }
    ContextGuard guard;
    tsg_pool_start(state.copy_threads);
    state.inflight++;
    tsg_multi_stats st;
    std::atomic<unsigned> fam{0};
    const int rc = tsg_multi_run(p, &split, run_round, &fam, tasks, done, &st, msg, len);
    done->families = fam.load();
    state.inflight--;
    free(tasks);
    state.multi_calls++;
    state.handoffs += st.failed;
    return rc;
}

extern "C" int tsg_gpu_sgemm_device(char transa, char transb, int64_t m, int64_t n, int64_t k,
                                    float alpha, const float *a, int64_t lda, const float *b,
                                    int64_t ldb, float beta, float *c, int64_t ldc, void *stream,
                                    int math, char *msg, size_t len)
{
    ContextGuard guard;
    cudaError_t e = cudaSetDevice(state.device);
    if (e != cudaSuccess) return fail(e, "cudaSetDevice", msg, len);
    cudaStream_t s = (cudaStream_t)stream;
    SplitPlan sp = (m > 0 && n > 0 && k > 0 && alpha != 0.0f) ? plan_split(transa, transb, m, n, k) : plain_plan(0, k);
    float *W = nullptr;
    /* stream-ordered allocation: the partials live exactly as long as the caller's stream needs */
    if (sp.ws > 0 &&
        (state.split_pool ? cudaMallocFromPoolAsync((void **)&W, (size_t)sp.ws * sizeof(float), state.split_pool, s)
                      : cudaMallocAsync((void **)&W, (size_t)sp.ws * sizeof(float), s)) != cudaSuccess) {
        (void)cudaGetLastError();
        sp = plain_plan(sp.kp.config, k);
        W = nullptr;
    }
    unsigned fam = 0;
    int st = launch_in_place(math, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, s, W, sp,
                             &fam, msg, len);
    if (W) cudaFreeAsync(W, s);
    return st;
}

extern "C" int tsg_gpu_measure(int math, tsg_gpu_rates *out, char *msg, size_t len)
{
    /* The pipeline's own rates: real calls from populated pageable memory (as a caller's
     * operands are), each dominated by one term:
     *   upload   8192 x 8 x 2048 and 8192 x 8 x 8192: A is 64 and 256 MiB up, B and C tiny;
     *            the rate is the slope between the two (the sustained rate; one call's time
     *            over its bytes read 29-33 GB/s where 1 GiB moved at 48-50, docs/NOTES.md v0.4);
     *   download 4096 x 4096 x 8 and 8192 x 8192 x 8: C is 64 and 256 MiB down; likewise;
     *   call     TSG_GPU_FIT_N^3 (256^3) calls, the mean less the slowest, and the best of a few
     *            64^3 calls: the shim fits the model's fixed cost to the first
     *            (tsg_fit_gpu_latency) and never below the second (before v0.12 the executor
     *            took a 512^3 call less its bytes, and the model counted that call's kernel
     *            again: docs/NOTES.md "v0.12");
     *   kernel   NN 2048^3 on device buffers with the configuration the per-shape rule picks for
     *            it (one wave of tiles on an H200; configuration 7 since v0.4, where the rates
     *            up to cache v9 timed configuration 0: 38 TFLOP/s, 17% under what large calls
     *            run at); with math != fp32 the launch the call's math gets (launch_product: the
     *            tensor-core family where it takes the shape), as do all the calls above
     *            (tsg_problem.math), so each math's rates are its own (cached per math by the
     *            shim). */
    ContextGuard guard;
    const cudaError_t e = cudaSetDevice(state.device);
    if (e != cudaSuccess) return fail(e, "cudaSetDevice", msg, len);
    tsg_pool_start(state.copy_threads);
    const size_t small_floats = (size_t)1 << 20; /* B and C of the upload call, A and B of the
                                                    download call, the latency call's operands */
    const size_t floats = (size_t)8192 * 8192 + small_floats; /* the big operand: A up, C down */
    void *map = mmap(nullptr, floats * 4, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (map == MAP_FAILED) {
        snprintf(msg, len, "host allocation failed");
        return TSG_GPU_ENOMEM;
    }
    float *host = (float *)map;
    for (size_t i = 0; i < floats; i += 1024) host[i] = (float)(i % 7) * 0.25f; /* never zeros */
    float *big = host, *small = host + (size_t)8192 * 8192;
    Workspace *w = nullptr;
    int st = TSG_GPU_OK;
    enum { FIT_CALLS = 7 };
    double t_up[2] = {1e30, 1e30}, t_down[2] = {1e30, 1e30}, fit[FIT_CALLS], lat64 = 1e30;
    float best_kernel = 1e30f;
    tsg_done done;
    auto host_call = [&](int64_t m, int64_t n, int64_t k, const float *A, const float *B, float *C) {
        tsg_problem p = {'N', 'N', m, n, k, 1.0f, 0.0f, A, m, B, k, C, m, TSG_HOST, TSG_HOST, TSG_HOST,
                         (unsigned char)math};
        return sgemm_pipeline(w, &p, &done, msg, len);
    };
    cudaEvent_t t0 = nullptr, t1 = nullptr;
    st = acquire(&w, msg, len);
    if (st == TSG_GPU_OK) {
        st = [&]() -> int {
            int s;
            /* the upload calls gather with memcpy (gather_kind), whatever way they end */
            auto upload_call = [&](int64_t k) {
                t_rates_memcpy = true;
                const int s = host_call(8192, 8, k, big, small, small + 8192 * 8);
                t_rates_memcpy = false;
                return s;
            };
            /* r = 0 warms up (allocations, threads, page tables); the best of four calls of each
             * size (v0.10: of two; a slope between two close times is sensitive to either) */
            for (int r = 0; r < 5; ++r) {
                for (int z = 0; z < 2; ++z) {
                    const int64_t big_side = z ? 8192 : 2048, c_side = z ? 8192 : 4096;
                    double s0 = now_s();
                    if ((s = upload_call(big_side))) return s;
                    if (r) t_up[z] = std::min(t_up[z], now_s() - s0);
                    s0 = now_s();
                    if ((s = host_call(c_side, c_side, 8, small, small + 8192 * 8, big))) return s;
                    if (r) t_down[z] = std::min(t_down[z], now_s() - s0);
                }
            }
            /* the fixed cost's calls: the rule's gathers, as callers get them; A, B, C of the
             * TSG_GPU_FIT_N^3 call in the small buffer (3 x 256 KiB) */
            const int64_t F = TSG_GPU_FIT_N;
            static_assert(3 * TSG_GPU_FIT_N * TSG_GPU_FIT_N <= (1 << 20), "fits the small buffer");
            for (int r = 0; r < FIT_CALLS + 1; ++r) { /* r = 0 warms up */
                double s0 = now_s();
                if ((s = host_call(64, 64, 64, small, small + 4096, small + 8192))) return s;
                lat64 = std::min(lat64, now_s() - s0);
                s0 = now_s();
                if ((s = host_call(F, F, F, small, small + F * F, small + 2 * F * F))) return s;
                if (r) fit[r - 1] = now_s() - s0;
            }
            /* kernel: NN 2048^3 on hashed data in the arena */
            const int64_t N = 2048;
            const int kcfg = tsg::kernel_plan('N', 'N', N, N, N, state.sms, 0, -1, 0).config;
            if ((s = ensure_arena(w, (size_t)3 * N * N * 4, msg, len))) return s;
            float *dA = w->arena, *dB = dA + N * N, *dC = dB + N * N;
            cudaError_t e;
            if ((e = (cudaError_t)tsg::kernel_fill(dA, N * N, 1u, w->s_comp)) != cudaSuccess ||
                (e = (cudaError_t)tsg::kernel_fill(dB, N * N, 2u, w->s_comp)) != cudaSuccess)
                return fail(e, "kernel_fill", msg, len);
            if ((e = cudaEventCreate(&t0)) != cudaSuccess || (e = cudaEventCreate(&t1)) != cudaSuccess)
                return fail(e, "cudaEventCreate", msg, len);
            for (int r = 0; r < 4; ++r) {
                unsigned fam = 0;
                float ms;
                if ((e = cudaEventRecord(t0, w->s_comp)) != cudaSuccess ||
                    (e = launch_product(math, kcfg, 'N', 'N', N, N, N, N, 1, 0, 0, 1.0f, dA, N, dB, N, 0.0f,
                                        dC, N, nullptr, w->s_comp, &fam)) != cudaSuccess ||
                    (e = cudaEventRecord(t1, w->s_comp)) != cudaSuccess ||
                    (e = cudaEventSynchronize(t1)) != cudaSuccess ||
                    (e = cudaEventElapsedTime(&ms, t0, t1)) != cudaSuccess)
                    return fail(e, "timed kernel launch", msg, len);
                if (r > 0) best_kernel = std::min(best_kernel, ms); /* r = 0 is the warm-up */
            }
            return TSG_GPU_OK;
        }();
        if (t0) cudaEventDestroy(t0);
        if (t1) cudaEventDestroy(t1);
        if (st == TSG_GPU_OK) free_arena(w); /* the measurement's sizes are not the caller's */
        give_back(w, st);
    }
    munmap(map, floats * 4);
    if (st != TSG_GPU_OK) return st;
    const double mib192 = (double)(256 - 64) * (1 << 20);
    /* the slope, but never above 1.5x the large call's own average (timing noise between two
     * close times must not invent a rate) */
    const double mib256 = (double)256 * (1 << 20);
    out->h2d_bps = std::min(1.5 * mib256 / t_up[1], mib192 / std::max(1e-9, t_up[1] - t_up[0]));
    out->d2h_bps = std::min(1.5 * mib256 / t_down[1], mib192 / std::max(1e-9, t_down[1] - t_down[0]));
    out->call_s = tsg_mean_less_slowest(fit, FIT_CALLS);
    out->floor_s = lat64;
    /* full-wave rate (see tsg_estimate_gpu_s): waves * slots tiles' worth of work per time; one
     * block per SM is the model's wave (a grid of <= 132 tiles runs each block about as fast as
     * a full SM allows: 1024^3, 64 tiles: 0.12 ms; 4096^3, 8 waves of 132: 3.6 ms) */
    const double slots = (double)state.sms, tm = tsg::kernel_tile_m(), tn = tsg::kernel_tile_n();
    const double tiles = std::ceil(2048.0 / tm) * std::ceil(2048.0 / tn);
    out->gpu_flops = std::ceil(tiles / slots) * slots * 2.0 * tm * tn * 2048.0 / (best_kernel * 1e-3);
    out->tile_m = tm;
    out->tile_n = tn;
    out->slots = slots;
    out->split_min_k = SPLIT_MIN_K;
    out->device_bytes = call_budget();
    out->copy_threads = state.copy_threads;
    return TSG_GPU_OK;
}

extern "C" void tsg_gpu_release(void)
{
    if (state.split_pool) { /* what no call holds now goes back to the driver */
        ContextGuard guard;
        if (cudaSetDevice(state.device) == cudaSuccess) cudaMemPoolTrimTo(state.split_pool, 0);
        (void)cudaGetLastError();
    }
    pthread_mutex_lock(&state.pool_lock);
    Workspace *w = state.free_list;
    state.free_list = nullptr;
    pthread_mutex_unlock(&state.pool_lock);
    if (!w) return;
    ContextGuard guard;
    while (w) {
        Workspace *next = w->next;
        cudaSetDevice(w->device);
        pthread_mutex_lock(&state.pool_lock);
        state.ws_made--;
        pthread_mutex_unlock(&state.pool_lock);
        destroy(w);
        w = next;
    }
}

extern "C" void tsg_gpu_pool_sizes(tsg_gpu_pools *out)
{
    out->device_bytes = (double)state.device_held.load();
    out->device_cap = state.device_cap;
    out->pinned_bytes = (double)state.pinned_held.load();
    out->pinned_cap = state.pinned_cap;
    pthread_mutex_lock(&state.pool_lock);
    out->workspaces = state.ws_made;
    pthread_mutex_unlock(&state.pool_lock);
    out->copy_threads = tsg_pool_threads();
    out->devices = state.nslots;
    out->multi_calls = (double)state.multi_calls.load();
    out->handoffs = (double)state.handoffs.load();
}

extern "C" void tsg_gpu_exiting(double wait_s)
{
    state.exiting.store(1);
    const double t0 = now_s();
    while (state.inflight.load() > 0 && now_s() - t0 < wait_s) usleep(1000);
}

extern "C" int tsg_gpu_kernel_info(char *buf, size_t len)
{
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

extern "C" int tsg_gpu_tf32_available(void) { return tsg::tf32_available() ? 1 : 0; }

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
    const SplitPlan sp = plan_split(transa, transb, m, n, k);
    *config = sp.kp.config;
    *splits = sp.kp.splits;
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
    const SplitPlan sp = plan_split(transa, transb, m, n, k);
    *tiles = sp.kp.tail_tiles;
    *blocks = sp.kp.tail_blocks;
    return TSG_GPU_OK;
}

extern "C" int tsg_gpu_kernel_config_info(int config, char *buf, size_t len)
{
    if (tsg::kernel_describe(config, buf, len) != 0) return TSG_GPU_EFAIL;
    return tsg::kernel_configs();
}

#ifdef TSG_FAULT_INJECTION
extern "C" void tsg_gpu_set_fault(const char *spec)
{
    state.fault_stage = -2;
    state.fault_count = 0;
    state.fault_slot = -1;
    if (!spec || !*spec) return;
    char name[32] = "", body[64];
    long long n = 0;
    char every[16] = "";
    snprintf(body, sizeof body, "%s", spec);
    int slot = -1;
    if (char *at = strchr(body, '@')) { /* STAGE:N[:every]@SLOT */
        if (sscanf(at + 1, "%d", &slot) != 1 || slot < 0) return;
        *at = '\0';
    }
    if (sscanf(body, "%31[a-z]:%lld:%15s", name, &n, every) < 2 || n <= 0) return;
    state.fault_slot = slot;
    int stage = -2;
    if (!strcmp(name, "any")) stage = -1;
    for (int i = 0; i < ST_COUNT; ++i)
        if (!strcmp(name, stage_names[i])) stage = i;
    state.fault_n = n;
    state.fault_every = !strcmp(every, "every");
    state.fault_stage = stage;
}
#endif

/* The driver ABI that shim/tsg_residency.c uses without CUDA headers. */
#include <cuda.h>
static_assert(CU_POINTER_ATTRIBUTE_MEMORY_TYPE == 2 && CU_POINTER_ATTRIBUTE_IS_MANAGED == 8 &&
                  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL == 9 && CU_MEMORYTYPE_HOST == 1 &&
                  CU_MEMORYTYPE_DEVICE == 2 && CU_MEMORYTYPE_UNIFIED == 4,
              "shim/tsg_residency.c's copy of the driver ABI");
