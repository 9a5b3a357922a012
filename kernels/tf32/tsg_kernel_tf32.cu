/*
 * tsg_kernel_tf32.cu — the tensor-core family's entry points (tsg_kernel_tf32.h) and its eight
 * instances (3xTF32 / 1xTF32 times the four transpose pairs, tsg_kernel_tf32.cuh). Built for
 * sm_90a only (CMakeLists.txt, tsg_kernels_tf32); tsg_kernel_tf32_stub.cu stands in where the
 * family is not built.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include "tsg_kernel_tf32.cuh"

namespace tsg {

namespace {

using Fn = void (*)(int64_t, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t, float,
                    float *, int64_t);

template <int MATH, int PIPE>
Fn pick(bool ta, bool tb)
{
    if (ta) return tb ? tf32::tf32_kernel<MATH, true, true, PIPE> : tf32::tf32_kernel<MATH, true, false, PIPE>;
    return tb ? tf32::tf32_kernel<MATH, false, true, PIPE> : tf32::tf32_kernel<MATH, false, false, PIPE>;
}

/* the producer's load order per math (tsg_kernel_tf32.cuh, PIPE); variants 1 and 2 the others,
 * in the order of PIPE after the default's (timed beside it by test_tf32_kernel). Order 2 (the next
 * k-tile loaded while this one is stored) was the fastest for both maths on the H100
 * (docs/results/h100-2026-12-05-tf32-run2.txt: 3xTF32 8192^3 NN 76.0 TFLOP/s against 55.1 for
 * order 0 and 65.7 for 1; 1xTF32 110.5 against 63.2 and 68.4) */
constexpr int PIPE_3X = 2, PIPE_1X = 2, VARIANTS = 3;

template <int MATH, int DEF>
Fn pick_variant(bool ta, bool tb, int variant)
{
    switch ((DEF + variant) % 3) {
    case 0: return pick<MATH, 0>(ta, tb);
    case 1: return pick<MATH, 1>(ta, tb);
    default: return pick<MATH, 2>(ta, tb);
    }
}

Fn pick_fn(int math, bool ta, bool tb, int variant = 0)
{
    if (math == MATH_3XTF32) return pick_variant<MATH_3XTF32, PIPE_3X>(ta, tb, variant);
    return pick_variant<MATH_TF32, PIPE_1X>(ta, tb, variant);
}

int smem_of(int math)
{
    return math == MATH_3XTF32 ? tf32::Cfg<MATH_3XTF32>::SMEM_BYTES : tf32::Cfg<MATH_TF32>::SMEM_BYTES;
}

bool pool_fits(int math, int regs)
{
    return math == MATH_3XTF32 ? tf32::Cfg<MATH_3XTF32>::fits(regs) : tf32::Cfg<MATH_TF32>::fits(regs);
}

/* one flag for the process: the family needs compute capability 9.0 and the sm_90a image
 * loading, the same for every Hopper device (a mixed machine: false unless all are) */
int g_state = 0; /* 0 not measured, 1 available, -1 not */

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
    for (int math = MATH_3XTF32; math <= MATH_TF32; ++math)
        for (int p = 0; p < 4 * VARIANTS; ++p) {
            const Fn f = pick_fn(math, p & 1, p & 2, p >> 2);
            cudaFuncAttributes a;
            e = cudaFuncGetAttributes(&a, f);
            if (e == cudaErrorInvalidDeviceFunction || e == cudaErrorNoKernelImageForDevice) {
                (void)cudaGetLastError();
                g_state = -1;
                return 0;
            }
            if (e != cudaSuccess) return (int)e;
            /* setmaxnreg's pool is what the kernel is launched with: a count the roles cannot share
             * out would make a consumer wait forever (tsg_kernel_tf32.cuh, "registers") */
            if (!pool_fits(math, a.numRegs)) {
                g_state = -1;
                return 0;
            }
            e = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_of(math));
            if (e != cudaSuccess) return (int)e;
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

/* tf32_sgemm with another producer load order (variant 1 or 2): the test's A/B, not in the header */
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
    const Fn f = pick_fn(math, ta, tb, variant);
    f<<<(unsigned)grid, tf32::THREADS, smem_of(math), (cudaStream_t)stream>>>(m, n, k, alpha, A, lda, B, ldb,
                                                                              beta, C, ldc);
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
    const bool have = tf32_available() && cudaFuncGetAttributes(&a, pick_fn(math, false, false)) == cudaSuccess;
    const bool x3 = math == MATH_3XTF32;
    return snprintf(buf, len,
                    "%s: wgmma m64n128k8 tf32, tile %dx%dx%d, %d threads (2 consumer warpgroups, 1 producer), "
                    "%d stages, %d B shared, registers %d (consumers %d, producer %d after setmaxnreg), sm_90a%s",
                    x3 ? "3xtf32" : "tf32", tf32::BM, tf32::BN, tf32::BK, tf32::THREADS,
                    x3 ? tf32::Cfg<MATH_3XTF32>::STAGES : tf32::Cfg<MATH_TF32>::STAGES, smem_of(math),
                    have ? a.numRegs : 0, x3 ? tf32::Cfg<MATH_3XTF32>::CREG : tf32::Cfg<MATH_TF32>::CREG,
                    x3 ? tf32::Cfg<MATH_3XTF32>::PREG : tf32::Cfg<MATH_TF32>::PREG,
                    have ? "" : " (not available on this device)");
}

} /* namespace tsg */
