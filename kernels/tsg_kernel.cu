/*
 * tsg_kernel.cu — the face of the FP32 kernels behind tsg_kernel.h: which family's launcher runs a
 * configuration (the table: tsg_kernel_configs.h; the launchers: simt/, big/, ws/
 * tsg_kernel_<family>_launch.cu), the occupancy measurement the rule (tsg_kernel_plan.cu) reads,
 * the launch steps every family shares (the grid, split-K and its fixed-order reduction), the
 * beta-only scale, the fill of the rate measurement and the description of a configuration.
 * Compiled once; the executor (compiled twice: the library and its fault-injection twin for the
 * tests) only calls tsg_kernel.h's functions.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>

#include "tsg_kernel.h"
#include "tsg_kernel_configs.h"
#include "tsg_kernel_launch.h"
#include "common/tsg_reduce_splits.cuh"

namespace tsg {

namespace {

/* C = beta*C over the m x n window (alpha = 0 or k = 0); beta = 0 writes zeros without reading. */
__global__ void scale_kernel(int64_t m, int64_t n, float beta, float *__restrict__ C, int64_t ldc)
{
    const int64_t total = m * n;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x) {
        float *p = C + (i / m) * ldc + (i % m);
        *p = beta == 0.0f ? 0.0f : beta * *p;
    }
}

__global__ void fill_kernel(float *x, int64_t count, uint32_t seed)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = (float)(h & 0xffff) / 32768.0f - 1.0f;
    }
}

const FamilyLauncher &launcher_of(const KernelConfig &c)
{
    switch (c.family) {
    case Family::big: return big_launcher;
    case Family::ws: return ws_launcher;
    default: return simt_launcher;
    }
}

/* configuration c's kernel for NN with aligned operands: the one whose occupancy and attributes
 * stand for the configuration's */
const void *nn_instance(const KernelConfig &c)
{
    return (const void *)launcher_of(c).instance(c.id, false, false, true, true);
}

} /* namespace */

cudaError_t prepare(const KernelConfig &c, const void *fn)
{
    if (c.smem <= 48 * 1024) return cudaSuccess;
    return cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, c.smem);
}

cudaError_t launch_units(KernelFn fn, const KernelConfig &c, const Gemm &g, cudaStream_t s)
{
    cudaError_t e = prepare(c, (const void *)fn);
    if (e != cudaSuccess) return e;
    const int64_t tiles = cdiv(g.m, c.bm) * cdiv(g.n, c.bn);
    if (g.splits > 1) {
        const unsigned grid = (unsigned)std::min<int64_t>(tiles * g.splits, 0x7fffffff);
        fn<<<grid, c.threads, c.smem, s>>>(g.m, g.n, g.k, g.kslice, g.splits, 1.0f, g.A, g.lda, g.B, g.ldb, 0.0f,
                                           g.W, g.m, g.m * g.n);
        e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        return reduce_splits(g.m, g.n, g.splits, g.W, g.alpha, g.beta, g.C, g.ldc, s);
    } else {
        const unsigned grid = (unsigned)std::min<int64_t>(tiles, 0x7fffffff);
        fn<<<grid, c.threads, c.smem, s>>>(g.m, g.n, g.k, g.k, 1, g.alpha, g.A, g.lda, g.B, g.ldb, g.beta, g.C,
                                           g.ldc, 0);
    }
    return cudaGetLastError();
}

int kernel_tile_m() { return k_configs[SIMT_128x128].bm; }
int kernel_tile_n() { return k_configs[SIMT_128x128].bn; }

int kernel_blocks_per_sm(int *per_sm)
{
    int per[NUM_CONFIGS];
    for (int c = 0; c < NUM_CONFIGS; ++c) {
        int b = 0;
        const KernelConfig &r = k_configs[c];
        const void *fn = nn_instance(r);
        cudaError_t e = fn ? prepare(r, fn) : cudaErrorInvalidDeviceFunction;
        if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, fn, r.threads, r.smem);
        if (needs_sm90a(r) && (e != cudaSuccess || b <= 0)) {
            /* no sm_90a image for this device (or none built): unavailable (0), not an error */
            (void)cudaGetLastError();
            e = cudaSuccess;
            b = 0;
        }
        if (e != cudaSuccess) {
            kernel_set_blocks_per_sm(per, c); /* the configurations measured before this one */
            return (int)e;
        }
        per[c] = b;
    }
    kernel_set_blocks_per_sm(per, NUM_CONFIGS);
    *per_sm = std::max(1, per[0]);
    return 0;
}

int kernel_sgemm(int config, char transa, char transb, int64_t m, int64_t n, int64_t k,
                 int64_t kslice, int64_t splits, int64_t tail_tiles, int64_t tail_blocks, float alpha,
                 const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                 int64_t ldc, float *W, void *stream)
{
    if (config < 0 || config >= NUM_CONFIGS) config = 0;
    if (!kernel_available(config)) config = BIG_256x128; /* sm_90a code this device cannot run: 7, the same tile */
    const KernelConfig &c = k_configs[config];
    const Gemm g = {transa == 'T', transb == 'T', kernel_vec_ok(A, lda), kernel_vec_ok(B, ldb),
                    m, n, k, kslice, splits, tail_tiles, tail_blocks, alpha, A, lda, B, ldb, beta, C, ldc, W};
    return (int)launcher_of(c).sgemm(c, g, (cudaStream_t)stream);
}

int kernel_scale(int64_t m, int64_t n, float beta, float *C, int64_t ldc, void *stream)
{
    scale_kernel<<<elementwise_blocks(m * n), 256, 0, (cudaStream_t)stream>>>(m, n, beta, C, ldc);
    return (int)cudaGetLastError();
}

int kernel_fill(float *x, int64_t count, uint32_t seed, void *stream)
{
    fill_kernel<<<1024, 256, 0, (cudaStream_t)stream>>>(x, count, seed);
    return (int)cudaGetLastError();
}

int kernel_describe(int config, char *buf, size_t len)
{
    if (config < 0 || config >= NUM_CONFIGS) {
        snprintf(buf, len, "no configuration %d (the families have %d)", config, NUM_CONFIGS);
        return (int)cudaErrorInvalidValue;
    }
    const KernelConfig &r = k_configs[config];
    if (!kernel_available(config)) {
        snprintf(buf, len, "config %d: tile %dx%d, %d threads, warp-specialized (sm_90a code): not on this "
                 "device, runs configuration %d", config, r.bm, r.bn, r.threads, (int)BIG_256x128);
        return 0;
    }
    cudaFuncAttributes attr;
    cudaError_t e = cudaFuncGetAttributes(&attr, nn_instance(r));
    if (e != cudaSuccess) {
        snprintf(buf, len, "%s", cudaGetErrorString(e));
        return (int)e;
    }
    char more[192] = "";
    if (r.producers)
        snprintf(more, sizeof more, ", warp-specialized (%d producer threads), one WsConfig per pair (the figures: NN's)",
                 r.producers);
    if (r.pf) snprintf(more + strlen(more), sizeof more - strlen(more), ", L2 prefetch %d B", r.pf);
    if (r.akc)
        snprintf(more + strlen(more), sizeof more - strlen(more),
                 ", A^T in 16-byte copies k-contiguous, read %d k at a time", r.akc);
    if (r.bstep[0] || r.bstep[1] || r.bstep[2] || r.bstep[3])
        snprintf(more + strlen(more), sizeof more - strlen(more), ", B copies at step %d/%d/%d/%d (NN/NT/TN/TT)",
                 r.bstep[0], r.bstep[1], r.bstep[2], r.bstep[3]);
    snprintf(buf, len,
             "config %d: tile %dx%dx%d, %d threads, %dx%d per thread, %d-stage smem %d B, %d regs, "
             "%d blocks/SM, binary sm_%d%s%s%s",
             config, r.bm, r.bn, r.bk, r.threads, r.tm, r.tn, r.stages,
             r.smem ? r.smem : (int)attr.sharedSizeBytes, attr.numRegs, blocks_per_sm(config),
             attr.binaryVersion, r.swz & 1 ? ", A^T swizzled" : "", r.swz & 2 ? ", B swizzled" : "", more);
    return 0;
}

} /* namespace tsg */
