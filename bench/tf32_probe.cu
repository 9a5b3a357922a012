/*
 * tf32_probe.cu — where the tensor-core family's time goes (issue 36), by leaving a stage out:
 * each instance below (NN; 3xTF32's default in NT and TN too, and TT direct, rows named so)
 * whole, with DIAG 1 (the consumers alone: no loads, no split, no barrier waits) and with DIAG 2 (the producer alone: loads, split, stores, barriers, no wgmma): 3xTF32's
 * and 1xTF32's NN defaults (kernels/tf32/tsg_kernel_tf32.cu's variant 0: op(B) through the
 * producer's registers; 1xTF32's two items ahead, OPT_B2, against its variant 7 without) against
 * variants 4 and 5 (OPT_BCP: op(B) by cp.async, split by the
 * producer one or two items behind its copies), 3xTF32's variant 9 (the waits' suspend-time hint,
 * OPT_SLEEP), 3xTF32's variant 11 (OPT_B2: op(B) two items ahead; NN and NT) and
 * 1xTF32's variant 8 (OPT_BRAW: op(B) raw by cp.async). The DIAG instances compute
 * garbage: timing only, never a result. Device data, square, median of 10 (cudaEvents) after two
 * warm-up launches; TFLOP/s counted as 2 n^3.
 *
 *   tf32_probe [--pad P] [N ...]   (default 4096 8192; leading dimensions n + P, P a multiple of 4,
 *                                  default 0); exit 77 without an sm_90 device
 *
 * Built with the family (bench/CMakeLists.txt, sm_90a), not installed. The method is the device
 * notes' "time variants that leave one stage out, and take differences" (no hardware counters
 * on every machine).
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "tsg_kernel_tf32.cuh"

namespace {

using tsg::tf32::Cfg;
using tsg::tf32::tf32_kernel;

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* the operands' and C's leading dimension is n + g_pad (--pad: a stride that is not a power of two) */
int64_t g_pad = 0;

__global__ void fill(float *x, int64_t count, uint32_t seed)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
        x[i] = (float)(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
}

/* median ms of one NN launch of instance fn at n^3, or -1 when its registers cannot be shared
 * out as the kernel's setmaxnreg split needs (a launch would hang) */
template <int MATH, int DIAG, int OPT, int PIPE_, int NPW_, bool TA = false, bool TB = false>
double time_one(int64_t n, const float *A, const float *B, float *C, int sms)
{
    using CF = Cfg<MATH, NPW_, PIPE_, OPT & tsg::tf32::OPT_CFG>;
    auto fn = tf32_kernel<MATH, TA, TB, PIPE_, NPW_, DIAG, OPT>;
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, fn));
    if (!CF::fits(a.numRegs)) return -1;
    CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, CF::SMEM_BYTES));
    const int64_t tiles = ((n + 127) / 128) * ((n + 127) / 128);
    const unsigned grid = (unsigned)std::min<int64_t>(tiles, sms);
    const int64_t ld = n + g_pad;
    auto launch = [&] { fn<<<grid, CF::THREADS, CF::SMEM_BYTES>>>(n, n, n, 1.0f, A, ld, B, ld, 0.0f, C, ld, n, 0); };
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    launch(), launch();
    CK(cudaDeviceSynchronize());
    std::vector<float> ts;
    for (int r = 0; r < 10; ++r) {
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        ts.push_back(ms);
    }
    CK(cudaGetLastError());
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    std::sort(ts.begin(), ts.end());
    return ts[ts.size() / 2];
}

void row(const char *what, int64_t n, double ms, double base)
{
    const double tf = 2.0 * n * (double)n * n / (ms * 1e-3) / 1e12;
    if (ms < 0) printf("  %-44s %6lld   refused (registers)\n", what, (long long)n);
    else printf("  %-44s %6lld %9.3f ms %7.1f TFLOP/s %6.2fx\n", what, (long long)n, ms, tf, base / ms);
}

/* One configuration's three rows: the whole kernel, its consumers alone (DIAG 1) and its producer
 * alone (DIAG 2), each against the whole kernel's time; `name` prefixes the rows. */
template <int MATH, int OPT, int P, int W, bool TA = false, bool TB = false>
void trio(const char *name, int64_t n, const float *A, const float *B, float *C, int sms)
{
    char what[3][64];
    snprintf(what[0], sizeof what[0], "%s whole kernel", name);
    snprintf(what[1], sizeof what[1], "%s consumers alone (DIAG 1)", name);
    snprintf(what[2], sizeof what[2], "%s producer alone (DIAG 2)", name);
    const double whole = time_one<MATH, 0, OPT, P, W, TA, TB>(n, A, B, C, sms);
    row(what[0], n, whole, whole);
    row(what[1], n, time_one<MATH, 1, OPT, P, W, TA, TB>(n, A, B, C, sms), whole);
    row(what[2], n, time_one<MATH, 2, OPT, P, W, TA, TB>(n, A, B, C, sms), whole);
}

} /* namespace */

int main(int argc, char **argv)
{
    int dev = 0, major = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess || major != 9) {
        printf("SKIP: no sm_90 device\n");
        return 77;
    }
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    std::vector<int64_t> ns;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--pad") && i + 1 < argc) g_pad = atoll(argv[++i]);
        else ns.push_back(atoll(argv[i]));
    }
    if (g_pad < 0 || g_pad % 4) {
        fprintf(stderr, "--pad: a multiple of 4 (the family's 16-byte loads), >= 0\n");
        return 2;
    }
    if (ns.empty()) ns = {4096, 8192};
    const int64_t nmax = *std::max_element(ns.begin(), ns.end());
    float *A, *B, *C;
    const int64_t elems = nmax * (nmax + g_pad);
    CK(cudaMalloc(&A, elems * 4));
    CK(cudaMalloc(&B, elems * 4));
    CK(cudaMalloc(&C, elems * 4));
    fill<<<1024, 256>>>(A, elems, 1);
    fill<<<1024, 256>>>(B, elems, 2);
    CK(cudaDeviceSynchronize());
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    printf("tf32_probe on %s (%d SMs): NN unless named, device data, ld = n + %lld, median of 10; x: speed against the "
           "whole kernel\n",
           prop.name, sms, (long long)g_pad);
    /* the NN instances of tsg_kernel_tf32.cu's variants: the defaults (AREG | TBLK, order 2; one
     * producer warpgroup for 3xTF32; two for 1xTF32, with OPT_B2), 1xTF32's variant 7 (its default
     * without OPT_B2), 3xTF32's variants 9 (OPT_SLEEP) and 11 (OPT_B2), variants 4 and 5 (OPT_BCP,
     * OPT_BCP2; one producer warpgroup), 1xTF32's variant 8 (OPT_BRAW) */
    constexpr int AB = tsg::tf32::OPT_AREG | tsg::tf32::OPT_TBLK, ABC = AB | tsg::tf32::OPT_BCP;
    constexpr int ABC2 = ABC | tsg::tf32::OPT_BCP2, ABR = AB | tsg::tf32::OPT_BRAW;
    constexpr int ABS = AB | tsg::tf32::OPT_SLEEP;
    for (int64_t n : ns) {
        trio<tsg::MATH_3XTF32, AB, 2, 1>("3xTF32 v0", n, A, B, C, sms);
        trio<tsg::MATH_3XTF32, AB, 2, 1, false, true>("3xTF32 v0 NT", n, A, B, C, sms);
        trio<tsg::MATH_3XTF32, AB, 2, 1, true, false>("3xTF32 v0 TN", n, A, B, C, sms);
        /* TT direct, through the 4 x 4 blocks: variant 6's (the default runs TT as C^T through the
         * NN instance, whose trio is the first row's up to the write-back's addresses) */
        trio<tsg::MATH_3XTF32, AB, 2, 1, true, true>("3xTF32 v6 TT (direct)", n, A, B, C, sms);
        trio<tsg::MATH_3XTF32, AB | tsg::tf32::OPT_B2, 2, 1>("3xTF32 v11 (B2)", n, A, B, C, sms);
        trio<tsg::MATH_3XTF32, AB | tsg::tf32::OPT_B2, 2, 1, false, true>("3xTF32 v11 (B2) NT", n, A, B, C, sms);
        trio<tsg::MATH_3XTF32, ABS, 2, 1>("3xTF32 v9 (wait hint)", n, A, B, C, sms);
        trio<tsg::MATH_3XTF32, ABC, 2, 1>("3xTF32 v4 (BCP)", n, A, B, C, sms);
        trio<tsg::MATH_3XTF32, ABC2, 2, 1>("3xTF32 v5 (BCP2)", n, A, B, C, sms);
        trio<tsg::MATH_TF32, AB | tsg::tf32::OPT_B2, 2, 2>("1xTF32 v11 (B2)", n, A, B, C, sms);
        trio<tsg::MATH_TF32, AB, 2, 2>("1xTF32 v7 (no B2)", n, A, B, C, sms);
        trio<tsg::MATH_TF32, ABC, 2, 1>("1xTF32 v4 (BCP)", n, A, B, C, sms);
        trio<tsg::MATH_TF32, ABC2, 2, 1>("1xTF32 v5 (BCP2)", n, A, B, C, sms);
        trio<tsg::MATH_TF32, ABR, 2, 2>("1xTF32 v8 (BRAW)", n, A, B, C, sms);
    }
    cudaFree(A), cudaFree(B), cudaFree(C);
    return 0;
}
