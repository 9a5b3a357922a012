/*
 * bench_cuda.c — the CUDA side of the bench, loaded at run time: cudart (device facts, buffers,
 * copies, streams, events) and cuBLAS (the reference GPU SGEMM), found by dlopen so that the
 * installed bench starts on machines without CUDA and reports those columns as absent with the
 * reason.
 *
 * Owns: the few CUDA types and enum values the bench needs, declared here from the CUDA 13
 * headers (cuda_runtime_api.h, driver_types.h, cublas_api.h, library_types.h) instead of
 * included; the cuBLAS handle, one stream, two events and the per-shape device buffers.
 * Must not: link cudart or cuBLAS at build time, or time anything but the regions documented in
 * bench.h.
 *
 * Three CUDA runtimes share the device here (ours dlopen'd, tsgemm's static one, cuBLAS's own);
 * all of them use the device's primary context, so pointers and streams are interchangeable.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "tsgemm.h"

/* ------------------------------------------------------------------ declared CUDA ABI */

typedef int cudaError_t;                          /* enum cudaError                    */
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct cublasContext *cublasHandle_t;
typedef int cublasStatus_t;                       /* enum cublasStatus_t               */

enum { cudaSuccess = 0, cudaErrorStubLibrary = 34, cudaErrorInsufficientDriver = 35,
       cudaErrorNoDevice = 100 };
enum { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3 };
enum { cudaDevAttrClockRate = 13, cudaDevAttrMultiProcessorCount = 16,
       cudaDevAttrComputeCapabilityMajor = 75, cudaDevAttrComputeCapabilityMinor = 76 };
enum { CUBLAS_STATUS_SUCCESS = 0 };
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };        /* cublasOperation_t                 */
enum { CUBLAS_DEFAULT_MATH = 0 };                 /* cublasMath_t: FP32, no TF32       */
enum { CUDA_R_32F = 0 };                          /* cudaDataType_t (library_types.h)  */
enum { CUBLAS_COMPUTE_32F_FAST_TF32 = 77 };       /* cublasComputeType_t               */
enum { CUBLAS_GEMM_DEFAULT = -1 };                /* cublasGemmAlgo_t                  */
enum { MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2 }; /* libraryPropertyType */

static struct {
    void *rt, *blas;
    cudaError_t (*GetDeviceCount)(int *);
    cudaError_t (*SetDevice)(int);
    cudaError_t (*GetDeviceProperties)(void *prop, int device);
    cudaError_t (*DeviceGetAttribute)(int *value, int attr, int device);
    cudaError_t (*DriverGetVersion)(int *);
    cudaError_t (*RuntimeGetVersion)(int *);
    cudaError_t (*MemGetInfo)(size_t *free_b, size_t *total_b);
    const char *(*GetErrorName)(cudaError_t);
    const char *(*GetErrorString)(cudaError_t);
    cudaError_t (*Malloc)(void **, size_t);
    cudaError_t (*Free)(void *);
    cudaError_t (*Memcpy)(void *, const void *, size_t, int kind);
    cudaError_t (*MemcpyAsync)(void *, const void *, size_t, int kind, cudaStream_t);
    cudaError_t (*Memset)(void *, int, size_t);
    cudaError_t (*MemsetAsync)(void *, int, size_t, cudaStream_t);
    cudaError_t (*DeviceSynchronize)(void);
    cudaError_t (*StreamCreate)(cudaStream_t *);
    cudaError_t (*StreamDestroy)(cudaStream_t);
    cudaError_t (*EventCreate)(cudaEvent_t *);
    cudaError_t (*EventDestroy)(cudaEvent_t);
    cudaError_t (*EventRecord)(cudaEvent_t, cudaStream_t);
    cudaError_t (*EventSynchronize)(cudaEvent_t);
    cudaError_t (*EventElapsedTime)(float *ms, cudaEvent_t start, cudaEvent_t end);
    cudaError_t (*GetLastError)(void);

    cublasStatus_t (*Create)(cublasHandle_t *);                     /* cublasCreate_v2     */
    cublasStatus_t (*Destroy)(cublasHandle_t);                      /* cublasDestroy_v2    */
    cublasStatus_t (*SetStream)(cublasHandle_t, cudaStream_t);      /* cublasSetStream_v2  */
    cublasStatus_t (*SetMathMode)(cublasHandle_t, int);             /* cublasSetMathMode   */
    cublasStatus_t (*GetVersion)(cublasHandle_t, int *);            /* cublasGetVersion_v2 */
    cublasStatus_t (*GetProperty)(int type, int *value);            /* cublasGetProperty   */
    const char *(*GetStatusString)(cublasStatus_t);
    cublasStatus_t (*Sgemm)(cublasHandle_t, int transa, int transb, int m, int n, int k,
                            const float *alpha, const float *A, int lda, const float *B, int ldb,
                            const float *beta, float *C, int ldc); /* cublasSgemm_v2     */
    /* cublasGemmEx (optional: the FAST_TF32 column of --math) */
    cublasStatus_t (*GemmEx)(cublasHandle_t, int transa, int transb, int m, int n, int k,
                             const void *alpha, const void *A, int Atype, int lda, const void *B,
                             int Btype, int ldb, const void *beta, void *C, int Ctype, int ldc,
                             int computeType, int algo);
    int fast_tf32; /* bench_cuda_set_fast_tf32 */

    int device_ok, cublas_ok;
    cublasHandle_t handle;
    cudaStream_t stream;
    cudaEvent_t ev0, ev1;
    float *dA, *dB, *dC, *dC0; /* user's A and B, canonical C, beta != 0: C's input */
} cu;

/* ------------------------------------------------------------------ loading */

void *bench_cuda_dlopen(const char *stem, char *path, size_t len, char *err, size_t elen)
{
    static const char *const suffix[] = {".so.13", ".so.12", ".so"};
    const char *dirs[] = {NULL, getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    if (err && elen) err[0] = '\0';
    for (size_t d = 0; d < sizeof dirs / sizeof *dirs; ++d) {
        if (d > 0 && (!dirs[d] || !*dirs[d])) continue;
        for (size_t s = 0; s < sizeof suffix / sizeof *suffix; ++s) {
            char name[512];
            if (d == 0) snprintf(name, sizeof name, "%s%s", stem, suffix[s]);
            else snprintf(name, sizeof name, "%s/lib64/%s%s", dirs[d], stem, suffix[s]);
            void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
            if (!h) {
                /* Keep the first error that is not "no such file": a library that exists but
                 * does not load (missing dependency, wrong architecture) must say so. */
                const char *e = dlerror();
                if (err && elen && !err[0] && e && !strstr(e, "No such file"))
                    snprintf(err, elen, "%s", e);
                continue;
            }
            struct link_map *lm = NULL;
            snprintf(path, len, "%s",
                     dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name[0] ? lm->l_name
                                                                                 : name);
            return h;
        }
    }
    return NULL;
}

#define SYM(lib, field, name)                                                                     \
    do {                                                                                          \
        *(void **)&cu.field = dlsym(lib, name);                                                   \
        if (!cu.field && !missing) missing = name;                                                \
    } while (0)

static const char *err_name(cudaError_t e)
{
    return cu.GetErrorName ? cu.GetErrorName(e) : "?";
}

static const char *blas_status(cublasStatus_t s)
{
    static char buf[32];
    if (cu.GetStatusString) return cu.GetStatusString(s);
    snprintf(buf, sizeof buf, "status %d", s);
    return buf;
}

static void init_cudart(int device, bench_cuda_info *info)
{
    char err[200];
    cu.rt = bench_cuda_dlopen("libcudart", info->cudart_path, sizeof info->cudart_path, err,
                              sizeof err);
    if (!cu.rt) {
        if (err[0]) snprintf(info->why, sizeof info->why, "n/a: cannot load libcudart: %s", err);
        else snprintf(info->why, sizeof info->why, "n/a: libcudart.so not found");
        return;
    }
    info->have_cudart = 1;
    const char *missing = NULL;
    SYM(cu.rt, GetDeviceCount, "cudaGetDeviceCount");
    SYM(cu.rt, SetDevice, "cudaSetDevice");
    SYM(cu.rt, GetDeviceProperties, "cudaGetDeviceProperties");
    SYM(cu.rt, DeviceGetAttribute, "cudaDeviceGetAttribute");
    SYM(cu.rt, DriverGetVersion, "cudaDriverGetVersion");
    SYM(cu.rt, RuntimeGetVersion, "cudaRuntimeGetVersion");
    SYM(cu.rt, MemGetInfo, "cudaMemGetInfo");
    SYM(cu.rt, GetErrorName, "cudaGetErrorName");
    SYM(cu.rt, GetErrorString, "cudaGetErrorString");
    SYM(cu.rt, Malloc, "cudaMalloc");
    SYM(cu.rt, Free, "cudaFree");
    SYM(cu.rt, Memcpy, "cudaMemcpy");
    SYM(cu.rt, MemcpyAsync, "cudaMemcpyAsync");
    SYM(cu.rt, Memset, "cudaMemset");
    SYM(cu.rt, MemsetAsync, "cudaMemsetAsync");
    SYM(cu.rt, DeviceSynchronize, "cudaDeviceSynchronize");
    SYM(cu.rt, StreamCreate, "cudaStreamCreate");
    SYM(cu.rt, StreamDestroy, "cudaStreamDestroy");
    SYM(cu.rt, EventCreate, "cudaEventCreate");
    SYM(cu.rt, EventDestroy, "cudaEventDestroy");
    SYM(cu.rt, EventRecord, "cudaEventRecord");
    SYM(cu.rt, EventSynchronize, "cudaEventSynchronize");
    SYM(cu.rt, EventElapsedTime, "cudaEventElapsedTime");
    SYM(cu.rt, GetLastError, "cudaGetLastError");
    if (missing) {
        snprintf(info->why, sizeof info->why, "n/a: %.180s lacks %s", info->cudart_path, missing);
        return;
    }
    cu.RuntimeGetVersion(&info->runtime_version);
    cu.DriverGetVersion(&info->driver_version); /* 0 when no driver is installed */
    int count = 0;
    cudaError_t e = cu.GetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        if (info->driver_version == 0 || e == cudaErrorStubLibrary)
            snprintf(info->why, sizeof info->why, "n/a: no CUDA driver (cudaGetDeviceCount: %s)",
                     err_name(e));
        else if (e == cudaErrorInsufficientDriver)
            snprintf(info->why, sizeof info->why,
                     "n/a: CUDA driver %d.%d older than runtime %d.%d (%s)",
                     info->driver_version / 1000, info->driver_version % 1000 / 10,
                     info->runtime_version / 1000, info->runtime_version % 1000 / 10, err_name(e));
        else if (e == cudaErrorNoDevice || count == 0)
            snprintf(info->why, sizeof info->why, "n/a: no CUDA device");
        else
            snprintf(info->why, sizeof info->why, "n/a: CUDA unusable (cudaGetDeviceCount: %s)",
                     err_name(e));
        return;
    }
    if (device < 0 || device >= count) {
        snprintf(info->why, sizeof info->why, "n/a: CUDA device %d does not exist (%d found)",
                 device, count);
        return;
    }
    if ((e = cu.SetDevice(device)) != cudaSuccess) {
        snprintf(info->why, sizeof info->why, "n/a: cudaSetDevice(%d): %s", device, err_name(e));
        return;
    }
    /* cudaDeviceProp's layout changes between CUDA versions; only its first field, char
     * name[256], is read, and the buffer is far larger than any version's struct. */
    static _Alignas(64) unsigned char prop[16384];
    if (cu.GetDeviceProperties(prop, device) == cudaSuccess) {
        memcpy(info->name, prop, sizeof info->name);
        info->name[sizeof info->name - 1] = '\0';
    } else {
        snprintf(info->name, sizeof info->name, "(name unknown)");
    }
    cu.DeviceGetAttribute(&info->cc_major, cudaDevAttrComputeCapabilityMajor, device);
    cu.DeviceGetAttribute(&info->cc_minor, cudaDevAttrComputeCapabilityMinor, device);
    cu.DeviceGetAttribute(&info->sms, cudaDevAttrMultiProcessorCount, device);
    int khz = 0;
    if (cu.DeviceGetAttribute(&khz, cudaDevAttrClockRate, device) == cudaSuccess)
        info->clock_mhz = khz / 1000;
    size_t fr = 0, total = 0;
    if (cu.MemGetInfo(&fr, &total) == cudaSuccess) info->mem_gib = (double)total / 1073741824.0;
    if ((e = cu.StreamCreate(&cu.stream)) != cudaSuccess ||
        (e = cu.EventCreate(&cu.ev0)) != cudaSuccess ||
        (e = cu.EventCreate(&cu.ev1)) != cudaSuccess) {
        snprintf(info->why, sizeof info->why, "failed: stream/event creation: %s", err_name(e));
        return;
    }
    info->device_ok = cu.device_ok = 1;
}

static void init_cublas(bench_cuda_info *info)
{
    char err[200];
    cu.blas = bench_cuda_dlopen("libcublas", info->cublas_path, sizeof info->cublas_path, err,
                                sizeof err);
    if (!cu.blas) {
        if (err[0])
            snprintf(info->cublas_why, sizeof info->cublas_why, "n/a: cannot load libcublas: %s",
                     err);
        else
            snprintf(info->cublas_why, sizeof info->cublas_why, "n/a: libcublas.so not found");
        return;
    }
    info->have_cublas = 1;
    const char *missing = NULL;
    SYM(cu.blas, Create, "cublasCreate_v2");
    SYM(cu.blas, Destroy, "cublasDestroy_v2");
    SYM(cu.blas, SetStream, "cublasSetStream_v2");
    SYM(cu.blas, SetMathMode, "cublasSetMathMode");
    SYM(cu.blas, GetVersion, "cublasGetVersion_v2");
    SYM(cu.blas, GetProperty, "cublasGetProperty");
    SYM(cu.blas, GetStatusString, "cublasGetStatusString");
    SYM(cu.blas, Sgemm, "cublasSgemm_v2");
    *(void **)&cu.GemmEx = dlsym(cu.blas, "cublasGemmEx"); /* optional */
    if (missing) {
        snprintf(info->cublas_why, sizeof info->cublas_why, "n/a: %.180s lacks %s",
                 info->cublas_path, missing);
        return;
    }
    int maj = 0, min = 0, pat = 0; /* needs no GPU: shown even where none works */
    if (cu.GetProperty(MAJOR_VERSION, &maj) == CUBLAS_STATUS_SUCCESS &&
        cu.GetProperty(MINOR_VERSION, &min) == CUBLAS_STATUS_SUCCESS &&
        cu.GetProperty(PATCH_LEVEL, &pat) == CUBLAS_STATUS_SUCCESS)
        info->cublas_version = maj * 10000 + min * 100 + pat;
    if (!cu.device_ok) {
        snprintf(info->cublas_why, sizeof info->cublas_why, "%s", info->why);
        return;
    }
    cublasStatus_t s = cu.Create(&cu.handle);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(info->cublas_why, sizeof info->cublas_why, "failed: cublasCreate_v2: %s",
                 blas_status(s));
        cu.handle = NULL;
        return;
    }
    cu.SetMathMode(cu.handle, CUBLAS_DEFAULT_MATH); /* FP32 SGEMM, never TF32 */
    int v = 0;
    if (cu.GetVersion(cu.handle, &v) == CUBLAS_STATUS_SUCCESS) info->cublas_version = v;
    cu.cublas_ok = 1;
}

void bench_cuda_init(int device, int with_cublas, bench_cuda_info *info)
{
    memset(info, 0, sizeof *info);
    info->device = device;
    init_cudart(device, info);
    if (with_cublas) init_cublas(info);
    else snprintf(info->cublas_why, sizeof info->cublas_why, "n/a: not loaded");
}

void bench_cuda_shutdown(void)
{
    bench_cuda_shape_end();
    if (cu.handle) cu.Destroy(cu.handle);
    if (cu.ev0) cu.EventDestroy(cu.ev0);
    if (cu.ev1) cu.EventDestroy(cu.ev1);
    if (cu.stream) cu.StreamDestroy(cu.stream);
    cu.handle = NULL;
    cu.ev0 = cu.ev1 = NULL;
    cu.stream = NULL;
    cu.device_ok = cu.cublas_ok = 0;
}

/* ------------------------------------------------------------------ per-shape buffers */

int bench_cuda_shape_begin(const bench_data *d, char *why, size_t len)
{
    bench_cuda_shape_end();
    if (!cu.device_ok) {
        snprintf(why, len, "n/a: no usable CUDA device");
        return -1;
    }
    struct { float **p; size_t n; } want[] = {
        {&cu.dA, d->na}, {&cu.dB, d->nb}, {&cu.dC, d->nc}, {&cu.dC0, d->C0 ? d->nc : 0}};
    for (size_t i = 0; i < sizeof want / sizeof *want; ++i) {
        if (!want[i].n) continue;
        cudaError_t e = cu.Malloc((void **)want[i].p, want[i].n * sizeof(float));
        if (e != cudaSuccess) {
            *want[i].p = NULL;
            snprintf(why, len, "failed: cudaMalloc(%.0f MiB): %s",
                     (double)want[i].n * 4.0 / 1048576.0, err_name(e));
            cu.GetLastError();
            bench_cuda_shape_end();
            return -1;
        }
    }
    return 0;
}

void bench_cuda_shape_end(void)
{
    float **bufs[] = {&cu.dA, &cu.dB, &cu.dC, &cu.dC0};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i) {
        if (*bufs[i] && cu.Free) cu.Free(*bufs[i]);
        *bufs[i] = NULL;
    }
}

/* ------------------------------------------------------------------ timed work */

#define CUDA_TRY(call, what)                                                                      \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            snprintf(why, len, "failed: %s: %s", what, err_name(e_));                             \
            cu.GetLastError();                                                                    \
            return -1;                                                                            \
        }                                                                                         \
    } while (0)

static int op(char t) { return t == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T; }

/* Canonical device operands: for row-major shapes the user's B plays A. */
static const float *dev_a(const bench_data *d) { return d->cm.swap ? cu.dB : cu.dA; }
static const float *dev_b(const bench_data *d) { return d->cm.swap ? cu.dA : cu.dB; }

int bench_cuda_cublas_copies(bench_data *d, double *seconds, char *why, size_t len)
{
    if (!cu.cublas_ok || !cu.dA) {
        snprintf(why, len, "n/a: cuBLAS unusable");
        return -1;
    }
    const bench_cm *cm = &d->cm;
    /* Untimed: poison the device C (a stale right answer must not pass), use the legacy
     * default stream, with which plain cudaMemcpy serialises. */
    CUDA_TRY(cu.Memset(cu.dC, 0xFF, d->nc * sizeof(float)), "cudaMemset");
    CUDA_TRY(cu.DeviceSynchronize(), "cudaDeviceSynchronize");
    cu.SetStream(cu.handle, NULL);

    double t0 = bench_now();
    CUDA_TRY(cu.Memcpy(cu.dA, d->A, d->na * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy A");
    CUDA_TRY(cu.Memcpy(cu.dB, d->B, d->nb * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy B");
    if (d->beta != 0.0f)
        CUDA_TRY(cu.Memcpy(cu.dC, d->C, d->nc * sizeof(float), cudaMemcpyHostToDevice),
                 "cudaMemcpy C");
    cublasStatus_t s = cu.Sgemm(cu.handle, op(cm->ta), op(cm->tb), cm->m, cm->n, cm->k, &d->alpha,
                                dev_a(d), cm->lda, dev_b(d), cm->ldb, &d->beta, cu.dC, cm->ldc);
    if (s != CUBLAS_STATUS_SUCCESS) {
        snprintf(why, len, "failed: cublasSgemm_v2: %s", blas_status(s));
        return -1;
    }
    CUDA_TRY(cu.Memcpy(d->C, cu.dC, d->nc * sizeof(float), cudaMemcpyDeviceToHost),
             "cudaMemcpy C back");
    *seconds = bench_now() - t0;
    return 0;
}

int bench_cuda_set_fast_tf32(int on, char *why, size_t len)
{
    if (on && (!cu.cublas_ok || !cu.GemmEx)) {
        snprintf(why, len, "n/a: %s", cu.cublas_ok ? "cuBLAS lacks cublasGemmEx" : "cuBLAS unusable");
        return -1;
    }
    cu.fast_tf32 = on != 0;
    return 0;
}

int bench_cuda_kernel(int impl, bench_data *d, int warmup, int reps, double *ms, char *why,
                      size_t len)
{
    if (!cu.device_ok || !cu.dA) {
        snprintf(why, len, "n/a: no usable CUDA device");
        return -1;
    }
    if (impl == BI_CUBLAS_KERNEL && !cu.cublas_ok) {
        snprintf(why, len, "n/a: cuBLAS unusable");
        return -1;
    }
    const bench_cm *cm = &d->cm;
    size_t cbytes = d->nc * sizeof(float);
    CUDA_TRY(cu.Memcpy(cu.dA, d->A, d->na * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy A");
    CUDA_TRY(cu.Memcpy(cu.dB, d->B, d->nb * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy B");
    if (d->C0)
        CUDA_TRY(cu.Memcpy(cu.dC0, d->C0, cbytes, cudaMemcpyHostToDevice), "cudaMemcpy C0");
    if (impl == BI_CUBLAS_KERNEL) cu.SetStream(cu.handle, cu.stream);
    for (int it = 0; it < warmup + reps; ++it) {
        /* Outside the events: a NaN C (beta = 0) or C's input restored (beta != 0). */
        if (d->C0)
            CUDA_TRY(cu.MemcpyAsync(cu.dC, cu.dC0, cbytes, cudaMemcpyDeviceToDevice, cu.stream),
                     "cudaMemcpyAsync C0");
        else
            CUDA_TRY(cu.MemsetAsync(cu.dC, 0xFF, cbytes, cu.stream), "cudaMemsetAsync");
        CUDA_TRY(cu.EventRecord(cu.ev0, cu.stream), "cudaEventRecord");
        if (impl == BI_TSGEMM_KERNEL) {
            int rc = tsgemm_sgemm_device(cm->ta, cm->tb, cm->m, cm->n, cm->k, d->alpha, dev_a(d),
                                         cm->lda, dev_b(d), cm->ldb, d->beta, cu.dC, cm->ldc,
                                         (void *)cu.stream);
            if (rc != 0) {
                snprintf(why, len, "failed: tsgemm_sgemm_device returned %d", rc);
                return -1;
            }
        } else {
            cublasStatus_t s =
                cu.fast_tf32
                    ? cu.GemmEx(cu.handle, op(cm->ta), op(cm->tb), cm->m, cm->n, cm->k, &d->alpha,
                                dev_a(d), CUDA_R_32F, cm->lda, dev_b(d), CUDA_R_32F, cm->ldb, &d->beta,
                                cu.dC, CUDA_R_32F, cm->ldc, CUBLAS_COMPUTE_32F_FAST_TF32,
                                CUBLAS_GEMM_DEFAULT)
                    : cu.Sgemm(cu.handle, op(cm->ta), op(cm->tb), cm->m, cm->n, cm->k, &d->alpha,
                               dev_a(d), cm->lda, dev_b(d), cm->ldb, &d->beta, cu.dC, cm->ldc);
            if (s != CUBLAS_STATUS_SUCCESS) {
                snprintf(why, len, "failed: %s: %s", cu.fast_tf32 ? "cublasGemmEx" : "cublasSgemm_v2",
                         blas_status(s));
                return -1;
            }
        }
        CUDA_TRY(cu.EventRecord(cu.ev1, cu.stream), "cudaEventRecord");
        CUDA_TRY(cu.EventSynchronize(cu.ev1), "cudaEventSynchronize");
        float t = 0;
        CUDA_TRY(cu.EventElapsedTime(&t, cu.ev0, cu.ev1), "cudaEventElapsedTime");
        if (it >= warmup) ms[it - warmup] = t;
    }
    CUDA_TRY(cu.Memcpy(d->C, cu.dC, cbytes, cudaMemcpyDeviceToHost), "cudaMemcpy C back");
    CUDA_TRY(cu.GetLastError(), "kernel");
    return 0;
}
