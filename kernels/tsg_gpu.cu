/*
 * tsg_gpu.cu — the GPU executor behind tsg_gpu.h: device start-up, pooled per-call workspaces
 * (stream + device buffers + pinned staging), transfers, kernel launch, rate measurement.
 *
 * Owns: every CUDA call of the library. Every CUDA error becomes a status (tsg_gpu.h); nothing
 * here prints, reads the environment or knows about BLAS interfaces.
 *
 * One call from host memory:
 *   upload   A and B at their extents (cols-1)*ld + rows (never ld*cols, which runs past the
 *            caller's allocation), keeping the caller's leading dimensions, so the kernel reads
 *            op(A)/op(B) through lda/ldb; C's m x n window only when beta != 0 (2-D copy).
 *   compute  one launch of the tiled kernel on the workspace's stream.
 *   download C's window in column panels through two pinned staging buffers: panel i+1 crosses
 *            PCIe while panel i is copied into the caller's C. The caller's C is written only
 *            from panels whose copy completed, so on failure the columns not yet written are
 *            still the caller's originals (*done_cols tells the CPU retry where to start).
 * The executor is shaped for the transfer pipeline to come: uploads and the kernel can be split
 * into the same panels on the same stream without changing the interface.
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <sys/mman.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <cmath>

#include "tsg_gpu.h"
#include "tsg_kernel.cuh"

namespace {

int g_device = 0;
cudaDeviceProp g_prop;
int64_t g_slots = 1; /* thread blocks of the sgemm kernel resident at once on the device */

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

int fail(cudaError_t e, const char *what, char *msg, size_t len)
{
    if (msg && len) snprintf(msg, len, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    int st = classify(e);
    if (st != TSG_GPU_EFATAL) (void)cudaGetLastError(); /* clear a non-sticky error */
    return st;
}

#define TSG_TRY(call)                                                                           \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess) return fail(e_, #call, msg, len);                                \
    } while (0)

/* ------------------------------------------------------------------ workspaces */

/* Pinned staging per buffer: 16 MiB, or one column of C when that is larger. Two per workspace. */
constexpr size_t STAGE_BYTES = (size_t)16 << 20;

struct Workspace {
    cudaStream_t stream = nullptr;
    cudaEvent_t ev[2] = {nullptr, nullptr};
    float *dA = nullptr, *dB = nullptr, *dC = nullptr, *dW = nullptr; /* dW: split-K partials */
    size_t capA = 0, capB = 0, capC = 0, capW = 0;
    float *stage[2] = {nullptr, nullptr};
    size_t cap_stage = 0;
    Workspace *next = nullptr;
};

pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
Workspace *g_free_list = nullptr;

void free_buffers(Workspace *w)
{
    cudaFree(w->dA);
    cudaFree(w->dB);
    cudaFree(w->dC);
    cudaFree(w->dW);
    cudaFreeHost(w->stage[0]);
    cudaFreeHost(w->stage[1]);
    w->dA = w->dB = w->dC = w->dW = nullptr;
    w->stage[0] = w->stage[1] = nullptr;
    w->capA = w->capB = w->capC = w->capW = w->cap_stage = 0;
}

void destroy(Workspace *w)
{
    free_buffers(w);
    if (w->ev[0]) cudaEventDestroy(w->ev[0]);
    if (w->ev[1]) cudaEventDestroy(w->ev[1]);
    if (w->stream) cudaStreamDestroy(w->stream);
    delete w;
}

int acquire(Workspace **out, char *msg, size_t len)
{
    pthread_mutex_lock(&g_pool_lock);
    Workspace *w = g_free_list;
    if (w) g_free_list = w->next;
    pthread_mutex_unlock(&g_pool_lock);
    if (!w) {
        w = new (std::nothrow) Workspace;
        if (!w) {
            snprintf(msg, len, "host allocation failed");
            return TSG_GPU_ENOMEM;
        }
        cudaError_t e = cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&w->ev[0], cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&w->ev[1], cudaEventDisableTiming);
        if (e != cudaSuccess) {
            destroy(w);
            return fail(e, "cudaStreamCreate", msg, len);
        }
    }
    *out = w;
    return TSG_GPU_OK;
}

void give_back(Workspace *w, int status)
{
    if (status == TSG_GPU_EFATAL) return; /* nothing in a poisoned context is worth keeping */
    if (status == TSG_GPU_ENOMEM) free_buffers(w);
    pthread_mutex_lock(&g_pool_lock);
    w->next = g_free_list;
    g_free_list = w;
    pthread_mutex_unlock(&g_pool_lock);
}

/* Grows a device buffer to at least `bytes` (2 MiB granularity, old contents dropped). */
int ensure_device(float **buf, size_t *cap, size_t bytes, char *msg, size_t len)
{
    if (*cap >= bytes) return TSG_GPU_OK;
    cudaFree(*buf);
    *buf = nullptr;
    *cap = 0;
    size_t want = (bytes + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
    TSG_TRY(cudaMalloc((void **)buf, want));
    *cap = want;
    return TSG_GPU_OK;
}

int ensure_stage(Workspace *w, size_t bytes, char *msg, size_t len)
{
    if (w->cap_stage >= bytes) return TSG_GPU_OK;
    cudaFreeHost(w->stage[0]);
    cudaFreeHost(w->stage[1]);
    w->stage[0] = w->stage[1] = nullptr;
    w->cap_stage = 0;
    TSG_TRY(cudaMallocHost((void **)&w->stage[0], bytes));
    TSG_TRY(cudaMallocHost((void **)&w->stage[1], bytes));
    w->cap_stage = bytes;
    return TSG_GPU_OK;
}

/* ------------------------------------------------------------------ kernel launch */

using KernelFn = void (*)(int64_t, int64_t, int64_t, int64_t, int64_t, float, const float *,
                          int64_t, const float *, int64_t, float, float *, int64_t, int64_t);

template <bool TA, bool TB>
KernelFn pick_vec(bool va, bool vb)
{
    if (va) return vb ? tsg::sgemm_kernel<TA, TB, true, true> : tsg::sgemm_kernel<TA, TB, true, false>;
    return vb ? tsg::sgemm_kernel<TA, TB, false, true> : tsg::sgemm_kernel<TA, TB, false, false>;
}

KernelFn pick_kernel(bool ta, bool tb, bool va, bool vb)
{
    if (ta) return tb ? pick_vec<true, true>(va, vb) : pick_vec<true, false>(va, vb);
    return tb ? pick_vec<false, true>(va, vb) : pick_vec<false, false>(va, vb);
}

bool vec_ok(const float *p, int64_t ld) { return ((uintptr_t)p % 16) == 0 && ld % 4 == 0; }

/*
 * Split-K plan. A C grid of fewer tiles than half the resident slots leaves SMs idle for the whole
 * K loop (512 x 512 x 65536 fills 16 of 264 slots on an H200); splitting K into `splits` slices
 * of at least SPLIT_MIN_K gives every slot work, at the price of a workspace of splits*m*n floats
 * (capped at SPLIT_MAX_BYTES) and one reduction pass.
 */
constexpr int64_t SPLIT_MIN_K = 256;
constexpr size_t SPLIT_MAX_BYTES = (size_t)1 << 30;

struct SplitPlan {
    int64_t splits, kchunk;
};

SplitPlan plan_split(int64_t m, int64_t n, int64_t k)
{
    const int64_t tiles = ((m + tsg::BM - 1) / tsg::BM) * ((n + tsg::BN - 1) / tsg::BN);
    SplitPlan one = {1, k};
    if (tiles * 2 > g_slots || k < 2 * SPLIT_MIN_K) return one;
    int64_t s = std::min(g_slots / tiles, k / SPLIT_MIN_K);
    s = std::min<int64_t>(s, (int64_t)(SPLIT_MAX_BYTES / ((size_t)m * n * sizeof(float))));
    if (s < 2) return one;
    int64_t kchunk = (k + s - 1) / s;
    kchunk = (kchunk + tsg::BK - 1) / tsg::BK * tsg::BK; /* keeps 16-byte alignment of slices */
    SplitPlan p = {(k + kchunk - 1) / kchunk, kchunk};
    return p.splits > 1 ? p : one;
}

/*
 * Enqueues C = alpha*op(A)*op(B) + beta*C on device pointers; any legal sizes. With
 * plan.splits > 1, W must hold plan.splits * m * n floats.
 */
int launch(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
           const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
           int64_t ldc, SplitPlan plan, float *W, cudaStream_t stream, char *msg, size_t len)
{
    if (m == 0 || n == 0) return TSG_GPU_OK;
    if (k == 0 || alpha == 0.0f) {
        if (beta == 1.0f) return TSG_GPU_OK;
        const int64_t blocks = std::min<int64_t>((m * n + 255) / 256, 65536);
        tsg::scale_kernel<<<(unsigned)blocks, 256, 0, stream>>>(m, n, beta, C, ldc);
        TSG_TRY(cudaGetLastError());
        return TSG_GPU_OK;
    }
    const int64_t tiles = ((m + tsg::BM - 1) / tsg::BM) * ((n + tsg::BN - 1) / tsg::BN);
    const unsigned grid = (unsigned)std::min<int64_t>(tiles * plan.splits, 0x7fffffff);
    KernelFn fn = pick_kernel(transa == 'T', transb == 'T', vec_ok(A, lda), vec_ok(B, ldb));
    if (plan.splits > 1) {
        fn<<<grid, tsg::THREADS, 0, stream>>>(m, n, k, plan.kchunk, plan.splits, 1.0f, A, lda, B,
                                              ldb, 0.0f, W, m, m * n);
        TSG_TRY(cudaGetLastError());
        const int64_t blocks = std::min<int64_t>((m * n + 255) / 256, 65536);
        tsg::reduce_splits_kernel<<<(unsigned)blocks, 256, 0, stream>>>(m, n, plan.splits, W,
                                                                          alpha, beta, C, ldc);
    } else {
        fn<<<grid, tsg::THREADS, 0, stream>>>(m, n, k, k, 1, alpha, A, lda, B, ldb, beta, C, ldc, 0);
    }
    TSG_TRY(cudaGetLastError());
    return TSG_GPU_OK;
}

int64_t extent(int64_t rows, int64_t cols, int64_t ld)
{
    return (rows <= 0 || cols <= 0) ? 0 : (cols - 1) * ld + rows;
}

/* Copies C's m x n window (device, ld = m) into the caller's C (ld = ldc) through the pinned
 * staging buffers, one column panel at a time; *done = columns of C already final. */
int download(Workspace *w, const float *dC, int64_t m, int64_t n, float *c, int64_t ldc,
             int64_t *done, char *msg, size_t len)
{
    const size_t col_bytes = (size_t)m * sizeof(float);
    int st = ensure_stage(w, std::max(STAGE_BYTES, col_bytes), msg, len);
    if (st != TSG_GPU_OK) return st;
    const int64_t per = std::max<int64_t>(1, (int64_t)(w->cap_stage / col_bytes));
    const int64_t panels = (n + per - 1) / per;
    for (int64_t i = 0; i <= panels; ++i) {
        if (i < panels) { /* enqueue panel i */
            const int64_t j0 = i * per, cols = std::min(per, n - j0);
            TSG_TRY(cudaMemcpyAsync(w->stage[i % 2], dC + j0 * m, col_bytes * cols,
                                    cudaMemcpyDeviceToHost, w->stream));
            TSG_TRY(cudaEventRecord(w->ev[i % 2], w->stream));
        }
        if (i > 0) { /* panel i-1 has landed (or failed): copy it out */
            const int64_t p = i - 1, j0 = p * per, cols = std::min(per, n - j0);
            TSG_TRY(cudaEventSynchronize(w->ev[p % 2]));
            const float *src = w->stage[p % 2];
            for (int64_t j = 0; j < cols; ++j)
                memcpy(c + (j0 + j) * ldc, src + j * m, col_bytes);
            *done = j0 + cols;
        }
    }
    return TSG_GPU_OK;
}

int sgemm_host(Workspace *w, char transa, char transb, int64_t m, int64_t n, int64_t k,
               float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
               float *c, int64_t ldc, int64_t *done, char *msg, size_t len)
{
    const int64_t ea = transa == 'N' ? extent(m, k, lda) : extent(k, m, lda);
    const int64_t eb = transb == 'N' ? extent(k, n, ldb) : extent(n, k, ldb);
    int st;
    if ((st = ensure_device(&w->dA, &w->capA, ea * sizeof(float), msg, len))) return st;
    if ((st = ensure_device(&w->dB, &w->capB, eb * sizeof(float), msg, len))) return st;
    if ((st = ensure_device(&w->dC, &w->capC, m * n * sizeof(float), msg, len))) return st;
    SplitPlan plan = plan_split(m, n, k);
    if (plan.splits > 1 &&
        ensure_device(&w->dW, &w->capW, plan.splits * m * n * sizeof(float), msg, len) != TSG_GPU_OK) {
        (void)cudaGetLastError();
        plan = SplitPlan{1, k}; /* no room for partials: one slice */
    }
    TSG_TRY(cudaMemcpyAsync(w->dA, a, ea * sizeof(float), cudaMemcpyHostToDevice, w->stream));
    TSG_TRY(cudaMemcpyAsync(w->dB, b, eb * sizeof(float), cudaMemcpyHostToDevice, w->stream));
    if (beta != 0.0f)
        TSG_TRY(cudaMemcpy2DAsync(w->dC, m * sizeof(float), c, ldc * sizeof(float),
                                  m * sizeof(float), n, cudaMemcpyHostToDevice, w->stream));
    if ((st = launch(transa, transb, m, n, k, alpha, w->dA, lda, w->dB, ldb, beta, w->dC, m, plan,
                     w->dW, w->stream, msg, len)))
        return st;
    return download(w, w->dC, m, n, c, ldc, done, msg, len);
}

double now_s()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

__global__ void fill_kernel(float *x, int64_t count, uint32_t seed)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = (float)(h & 0xffff) / 32768.0f - 1.0f; /* uniform-ish in [-1, 1): never time zeros */
    }
}

} /* namespace */

/* ------------------------------------------------------------------ tsg_gpu.h */

extern "C" int tsg_gpu_init(int device, int *used, char *info, size_t len)
{
    char *msg = info;
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
    g_device = (device >= 0 && device < count) ? device : 0;
    *used = g_device;
    TSG_TRY(cudaSetDevice(g_device));
    TSG_TRY(cudaFree(nullptr)); /* creates the context now, not inside the first timed call */
    TSG_TRY(cudaGetDeviceProperties(&g_prop, g_device));
    int per_sm = 0;
    TSG_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, tsg::sgemm_kernel<false, false, true, true>, tsg::THREADS, 0));
    g_slots = (int64_t)std::max(1, per_sm) * g_prop.multiProcessorCount;
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    snprintf(info, len,
             "device %d of %d: %s, sm_%d%d, %d SMs, %.1f GiB; driver CUDA %d.%d, runtime %d.%d",
             g_device, count, g_prop.name, g_prop.major, g_prop.minor, g_prop.multiProcessorCount,
             (double)g_prop.totalGlobalMem / (1 << 30), drv / 1000, drv % 1000 / 10, rt / 1000,
             rt % 1000 / 10);
    return TSG_GPU_OK;
}

extern "C" int tsg_gpu_uuid(char *buf, size_t len)
{
    size_t pos = 0;
    for (int i = 0; i < 16 && pos + 3 <= len; ++i)
        pos += snprintf(buf + pos, len - pos, "%02x", (unsigned char)g_prop.uuid.bytes[i]);
    return TSG_GPU_OK;
}

extern "C" int tsg_gpu_sgemm_host(char transa, char transb, int64_t m, int64_t n, int64_t k,
                                  float alpha, const float *a, int64_t lda, const float *b,
                                  int64_t ldb, float beta, float *c, int64_t ldc,
                                  int64_t *done_cols, char *msg, size_t len)
{
    *done_cols = 0;
    cudaError_t e = cudaSetDevice(g_device); /* the current device is per host thread */
    if (e != cudaSuccess) return fail(e, "cudaSetDevice", msg, len);
    Workspace *w;
    int st = acquire(&w, msg, len);
    if (st != TSG_GPU_OK) return st;
    st = sgemm_host(w, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, done_cols,
                    msg, len);
    if (st != TSG_GPU_OK && st != TSG_GPU_EFATAL) /* leave no work queued on a reused stream */
        cudaStreamSynchronize(w->stream), (void)cudaGetLastError();
    give_back(w, st);
    return st;
}

extern "C" int tsg_gpu_sgemm_device(char transa, char transb, int64_t m, int64_t n, int64_t k,
                                    float alpha, const float *a, int64_t lda, const float *b,
                                    int64_t ldb, float beta, float *c, int64_t ldc, void *stream,
                                    char *msg, size_t len)
{
    cudaError_t e = cudaSetDevice(g_device);
    if (e != cudaSuccess) return fail(e, "cudaSetDevice", msg, len);
    cudaStream_t s = (cudaStream_t)stream;
    SplitPlan plan = (m > 0 && n > 0 && k > 0 && alpha != 0.0f) ? plan_split(m, n, k) : SplitPlan{1, k};
    float *W = nullptr;
    /* stream-ordered allocation: the partials live exactly as long as the caller's stream needs */
    if (plan.splits > 1 &&
        cudaMallocAsync((void **)&W, plan.splits * m * n * sizeof(float), s) != cudaSuccess) {
        (void)cudaGetLastError();
        plan = SplitPlan{1, k};
        W = nullptr;
    }
    int st = launch(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, plan, W, s, msg, len);
    if (W) cudaFreeAsync(W, s);
    return st;
}

extern "C" int tsg_gpu_measure(tsg_gpu_rates *out, char *msg, size_t len)
{
    /* kernel: NN 2048^3. Transfers: 32 MiB, beyond the host's caches — a 4 MiB copy runs from
     * cache and made a 256 MB download of C look 60% faster than it is (8192 x 8192 x 256 went to
     * the GPU and lost to OpenBLAS; docs/NOTES.md). */
    const int64_t N = 2048, XFER = 2896; /* 2896^2 floats = 32 MiB */
    const size_t bytes = (size_t)N * N * sizeof(float), xbytes = (size_t)XFER * XFER * sizeof(float);
    TSG_TRY(cudaSetDevice(g_device));
    Workspace *w;
    int st = acquire(&w, msg, len);
    if (st != TSG_GPU_OK) return st;
    /* MAP_POPULATE: the pages exist (as a caller's operands do) without a fault per page */
    void *map = mmap(nullptr, xbytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    float *host = map == MAP_FAILED ? nullptr : (float *)map;
    cudaEvent_t t0 = nullptr, t1 = nullptr;
    int64_t done = 0;
    double best_h2d = 1e30, best_d2h = 1e30, lat[5];
    float best_kernel = 1e30f;
    auto run = [&]() -> int {
        if (!host) {
            snprintf(msg, len, "host allocation failed");
            return TSG_GPU_ENOMEM;
        }
        int s;
        if ((s = ensure_device(&w->dA, &w->capA, xbytes, msg, len))) return s;
        if ((s = ensure_device(&w->dB, &w->capB, bytes, msg, len))) return s;
        if ((s = ensure_device(&w->dC, &w->capC, xbytes, msg, len))) return s;
        TSG_TRY(cudaEventCreate(&t0));
        TSG_TRY(cudaEventCreate(&t1));
        /* kernel: NN 2048^3 on hashed data (one wave of tiles on an H200) */
        fill_kernel<<<1024, 256, 0, w->stream>>>(w->dA, N * N, 1u);
        fill_kernel<<<1024, 256, 0, w->stream>>>(w->dB, N * N, 2u);
        TSG_TRY(cudaGetLastError());
        for (int r = 0; r < 4; ++r) {
            TSG_TRY(cudaEventRecord(t0, w->stream));
            if ((s = launch('N', 'N', N, N, N, 1.0f, w->dA, N, w->dB, N, 0.0f, w->dC, N,
                            SplitPlan{1, N}, nullptr, w->stream, msg, len)))
                return s;
            TSG_TRY(cudaEventRecord(t1, w->stream));
            TSG_TRY(cudaEventSynchronize(t1));
            float ms;
            TSG_TRY(cudaEventElapsedTime(&ms, t0, t1));
            if (r > 0) best_kernel = std::min(best_kernel, ms); /* r = 0 is the warm-up */
        }
        /* upload as sgemm_host does it (pageable cudaMemcpyAsync), download through staging;
         * a 4 MiB round first (staging allocation, driver warm-up), then 64 MiB timed */
        for (int r = 0; r < 2; ++r) {
            const int64_t x = r ? XFER : 1024;
            double s0 = now_s();
            TSG_TRY(cudaMemcpyAsync(w->dA, host, x * x * sizeof(float), cudaMemcpyHostToDevice,
                                    w->stream));
            TSG_TRY(cudaStreamSynchronize(w->stream));
            best_h2d = now_s() - s0;
            s0 = now_s();
            if ((s = download(w, w->dC, x, x, host, x, &done, msg, len))) return s;
            best_d2h = now_s() - s0;
        }
        /* latency: a whole small host call */
        for (int r = 0; r < 5; ++r) {
            double s0 = now_s();
            if ((s = sgemm_host(w, 'N', 'N', 64, 64, 64, 1.0f, host, 64, host + 4096, 64, 0.0f,
                                host + 8192, 64, &done, msg, len)))
                return s;
            lat[r] = now_s() - s0;
        }
        return TSG_GPU_OK;
    };
    st = run();
    if (t0) cudaEventDestroy(t0);
    if (t1) cudaEventDestroy(t1);
    if (host) munmap(host, xbytes);
    if (st == TSG_GPU_OK) {
        std::sort(lat, lat + 5);
        out->h2d_bps = xbytes / best_h2d;
        out->d2h_bps = xbytes / best_d2h;
        /* full-wave rate (see tsg_estimate_gpu_s): waves * slots tiles' worth of work per time.
         * The model's wave is one block per SM: measured on the H200, a grid of <= 132 tiles runs
         * each block about as fast as a full SM allows (1024^3, 64 tiles: 0.12 ms; 4096^3, 8
         * waves of 132: 3.6 ms), so counting the two resident blocks per SM as two slots would
         * charge small grids twice their time. */
        const double slots = (double)g_prop.multiProcessorCount;
        const double tiles = (double)((N + tsg::BM - 1) / tsg::BM) * ((N + tsg::BN - 1) / tsg::BN);
        const double waves = std::ceil(tiles / slots);
        out->gpu_flops = waves * slots * 2.0 * tsg::BM * tsg::BN * N / (best_kernel * 1e-3);
        out->tile_m = tsg::BM;
        out->tile_n = tsg::BN;
        out->slots = slots;
        out->split_min_k = SPLIT_MIN_K;
        out->gpu_latency_s = lat[2];
        /* the device buffers sized for the measurement are dropped: calls size their own */
        free_buffers(w);
    }
    give_back(w, st);
    return st;
}

extern "C" void tsg_gpu_release(void)
{
    pthread_mutex_lock(&g_pool_lock);
    Workspace *w = g_free_list;
    g_free_list = nullptr;
    pthread_mutex_unlock(&g_pool_lock);
    if (w) cudaSetDevice(g_device);
    while (w) {
        Workspace *next = w->next;
        destroy(w);
        w = next;
    }
}

extern "C" int tsg_gpu_kernel_info(char *buf, size_t len)
{
    cudaFuncAttributes attr;
    cudaError_t e = cudaFuncGetAttributes(&attr, tsg::sgemm_kernel<false, false, true, true>);
    if (e != cudaSuccess) {
        snprintf(buf, len, "%s", cudaGetErrorString(e));
        return TSG_GPU_EFAIL;
    }
    snprintf(buf, len,
             "tile %dx%dx%d, %d threads, 8x8 per thread, 2-stage smem %d B, %d regs, binary "
             "sm_%d (device sm_%d%d)",
             tsg::BM, tsg::BN, tsg::BK, tsg::THREADS, (int)attr.sharedSizeBytes, attr.numRegs,
             attr.binaryVersion, g_prop.major, g_prop.minor);
    return TSG_GPU_OK;
}

extern "C" int tsg_gpu_device_count(int *count)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n); /* initialises the driver, creates no context */
    *count = e == cudaSuccess ? n : 0;
    if (e != cudaSuccess) return classify(e) == TSG_GPU_EFAIL ? TSG_GPU_ENODEV : classify(e);
    return n > 0 ? TSG_GPU_OK : TSG_GPU_ENODEV;
}
