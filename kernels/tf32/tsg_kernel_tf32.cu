/*
 * tsg_kernel_tf32.cu — the tensor-core family's entry points (tsg_kernel_tf32.h) and its
 * instances (3xTF32 / 1xTF32 times the four transpose pairs times the variants below,
 * tsg_kernel_tf32.cuh). Built for
 * sm_90a only (CMakeLists.txt, tsg_kernels_tf32); tsg_kernel_tf32_stub.cu stands in where the
 * family is not built.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include <mutex>

#include "tsg_kernel_tf32.cuh"

namespace tsg {

namespace {

using Fn = void (*)(int64_t, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t, float,
                    float *, int64_t);

/* one instance set of a math: the four transpose pairs of (PIPE, NPW) with what a launch needs */
struct Variant {
    Fn fn[4]; /* index ta + 2 tb */
    int pipe, npw, areg, threads, smem, stages, creg, preg;
    bool (*fits)(int);
};

template <int MATH, int PIPE, int NPW, int AREG = 0>
Variant variant()
{
    using CF = tf32::Cfg<MATH, NPW, PIPE, AREG>;
    return Variant{{tf32::tf32_kernel<MATH, false, false, PIPE, NPW, 0, AREG>,
                    tf32::tf32_kernel<MATH, true, false, PIPE, NPW, 0, AREG>,
                    tf32::tf32_kernel<MATH, false, true, PIPE, NPW, 0, AREG>,
                    tf32::tf32_kernel<MATH, true, true, PIPE, NPW, 0, AREG>},
                   PIPE,
                   NPW,
                   AREG,
                   CF::THREADS,
                   CF::SMEM_BYTES,
                   CF::STAGES,
                   CF::CREG,
                   CF::PREG,
                   CF::fits};
}

/* The variants of each math, the default first; the others are timed beside it by
 * test_tf32_kernel and must give the same bits (they change the producer's work split and load
 * order, never the arithmetic). PIPE is the producer's load order, NPW its warpgroups
 * (tsg_kernel_tf32.cuh). The default, order 3 with two producer warpgroups (two k-tiles of loads
 * in flight), against order 2 with one (the default until then) on the H100
 * (docs/results/h100-2026-12-06-tf32-run1.txt, TFLOP/s): 3xTF32 8192^3 NN 77.2 vs 73.8, TN 87.1
 * vs 80.7, 16384^3 NN 78.0 vs 70.5, 4096^3 NT 74.1 vs 61.8; 1xTF32 8192^3 NN 135.7 vs 105.2.
 * Order 2 with two warpgroups ties it for 3xTF32 (8192^3 NN 80.2, TN 83.2) and loses for 1xTF32
 * (122.2); order 1 with two is the slowest. */
constexpr int VARIANTS = 6;

template <int MATH>
const Variant &variant_of(int v)
{
    static const Variant vs[VARIANTS] = {variant<MATH, 3, 2>(),    variant<MATH, 2, 1>(),   variant<MATH, 2, 2>(),
                                         variant<MATH, 1, 2>(),    variant<MATH, 2, 1, 1>(), variant<MATH, 2, 2, 1>()};
    return vs[v];
}

const Variant &pick(int math, int v)
{
    return math == MATH_3XTF32 ? variant_of<MATH_3XTF32>(v) : variant_of<MATH_TF32>(v);
}

/* one flag for the process: the family needs compute capability 9.0 and the sm_90a image
 * loading, the same for every Hopper device (a mixed machine: false unless all are) */
int g_state = 0; /* 0 not measured, 1 available, -1 not */
/* per math (3xTF32, 1xTF32) and variant: its register split fits the count ptxas gave it (the
 * default's decides g_state; another variant that does not fit is refused by tf32_sgemm_variant) */
bool g_fits[2][VARIANTS];

/* Variant v of `math` on the current device: its four instances load (cudaFuncGetAttributes), their
 * register split fits the count ptxas gave them (g_fits) and their shared memory is allowed.
 * Returns 0, -1 when the family's code is not there for this device, or a cudaError_t. */
int set_up(int math, int v)
{
    const Variant &vt = pick(math, v);
    bool fits = true;
    for (int p = 0; p < 4; ++p) {
        cudaFuncAttributes a;
        cudaError_t e = cudaFuncGetAttributes(&a, vt.fn[p]);
        if (e == cudaErrorInvalidDeviceFunction || e == cudaErrorNoKernelImageForDevice) {
            (void)cudaGetLastError();
            return -1;
        }
        if (e != cudaSuccess) return (int)e;
        /* setmaxnreg's pool is what the kernel is launched with: a count the roles cannot share
         * out would make a consumer wait forever (tsg_kernel_tf32.cuh, "registers") */
        if (!vt.fits(a.numRegs)) {
            fits = false;
            continue;
        }
        e = cudaFuncSetAttribute(vt.fn[p], cudaFuncAttributeMaxDynamicSharedMemorySize, vt.smem);
        if (e != cudaSuccess) return (int)e;
    }
    g_fits[math - MATH_3XTF32][v] = fits;
    return 0;
}

/* a test variant set up once, on first use; whether it runs (g_fits) */
bool ensure_variant(int math, int v)
{
    static std::once_flag once[2][VARIANTS];
    const int mi = math - MATH_3XTF32;
    if (g_state != 1 || mi < 0 || mi > 1 || v < 0 || v >= VARIANTS) return false;
    if (v > 0) std::call_once(once[mi][v], [&] { (void)set_up(math, v); });
    return g_fits[mi][v];
}

} /* namespace */

bool tf32_available() { return g_state == 1; }

int tf32_init()
{
    int dev = 0, major = 0, minor = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return (int)e;
    if ((e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess) return (int)e;
    if ((e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev)) != cudaSuccess) return (int)e;
    if (major != 9 || minor != 0) {
        g_state = -1;
        return 0;
    }
    /* the defaults only: the other variants are the test's, set up when it first asks for them
     * (ensure_variant), not in every process's start */
    for (int math = MATH_3XTF32; math <= MATH_TF32; ++math) {
        const int r = set_up(math, 0);
        if (r > 0) return r;
        if (r < 0 || !g_fits[math - MATH_3XTF32][0]) {
            g_state = -1;
            return 0;
        }
    }
    if (g_state == 0) g_state = 1;
    return 0;
}

bool tf32_takes(int math, char transa, char transb, int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                const float *B, int64_t ldb, const float *C, int64_t ldc)
{
    (void)C, (void)ldc;
    if (math != MATH_3XTF32 && math != MATH_TF32) return false;
    if (!tf32_available()) return false;
    const bool ta = transa == 'T' || transa == 't', tb = transb == 'T' || transb == 't';
    if (!ta && !(transa == 'N' || transa == 'n')) return false;
    if (!tb && !(transb == 'N' || transb == 'n')) return false;
    if (m < 1 || n < 1 || k < 1) return false;
    /* 16-byte loads: aligned bases, leading dimensions multiples of 4 floats */
    if (((uintptr_t)A & 15) || ((uintptr_t)B & 15) || (lda & 3) || (ldb & 3)) return false;
    return true;
}

/* how many variants each math has (the test's A/B, not in the header) */
int tf32_variants() { return VARIANTS; }

/* variant v's description, e.g. "pipe 2, 1 producer warpgroup" */
int tf32_variant_name(int math, int v, char *buf, size_t len)
{
    if (v < 0 || v >= VARIANTS) return snprintf(buf, len, "no variant %d", v);
    const Variant &vt = pick(math, v);
    return snprintf(buf, len, "pipe %d, %d producer warpgroup%s%s%s", vt.pipe, vt.npw, vt.npw > 1 ? "s" : "",
                    vt.areg ? ", op(A) by cp.async, split by the consumers" : "",
                    tf32_available() && !ensure_variant(math, v) ? " (not set up: refused)" : "");
}

/* tf32_sgemm with variant v of the family (0 the default, up to tf32_variants() - 1): the test's
 * A/B, not in the header */
int tf32_sgemm_variant(int variant, int math, char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                       const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                       void *stream)
{
    const bool ta = transa == 'T' || transa == 't', tb = transb == 'T' || transb == 't';
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) return (int)e;
    const int64_t tiles = ((m + tf32::BM - 1) / tf32::BM) * ((n + tf32::BN - 1) / tf32::BN);
    const int64_t grid = tiles < sms ? tiles : sms;
    if (variant < 0 || variant >= VARIANTS) return (int)cudaErrorInvalidValue;
    if ((math != MATH_3XTF32 && math != MATH_TF32) || !ensure_variant(math, variant))
        return (int)cudaErrorNotSupported;
    const Variant &vt = pick(math, variant);
    vt.fn[ta + 2 * tb]<<<(unsigned)grid, vt.threads, vt.smem, (cudaStream_t)stream>>>(m, n, k, alpha, A, lda, B,
                                                                                      ldb, beta, C, ldc);
    return (int)cudaGetLastError();
}

int tf32_sgemm(int math, char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha, const float *A,
               int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc, void *stream)
{
    return tf32_sgemm_variant(0, math, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

int tf32_describe(int math, char *buf, size_t len)
{
    if (math != MATH_3XTF32 && math != MATH_TF32) return snprintf(buf, len, "tf32: math %d is not the family's", math);
    cudaFuncAttributes a = {};
    const Variant &vt = pick(math, 0);
    const bool have = tf32_available() && cudaFuncGetAttributes(&a, vt.fn[0]) == cudaSuccess;
    const bool x3 = math == MATH_3XTF32;
    return snprintf(buf, len,
                    "%s: wgmma m64n128k8 tf32, tile %dx%dx%d, %d threads (2 consumer warpgroups, %d producer), "
                    "producer order %d, %d stages, %d B shared, registers %d (consumers %d, producers %d after "
                    "setmaxnreg), sm_90a%s",
                    x3 ? "3xtf32" : "tf32", tf32::BM, tf32::BN, tf32::BK, vt.threads, vt.npw, vt.pipe, vt.stages,
                    vt.smem, have ? a.numRegs : 0, vt.creg, vt.preg, have ? "" : " (not available on this device)");
}

} /* namespace tsg */
