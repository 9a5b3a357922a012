/*
 * tsg_kernel_simt.cu — the launchers of the SIMT kernel family (tsg_kernel_simt.cuh) behind
 * tsg_kernel.h. Compiled once; the executor (compiled twice: the library and its
 * fault-injection twin for the tests) only calls these functions.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include <algorithm>

#include "tsg_kernel.h"
#include "tsg_kernel_simt.cuh"

namespace {

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

/* 16-byte loads need a 16-byte aligned base and a leading dimension that keeps every column so */
bool vec_ok(const float *p, int64_t ld) { return ((uintptr_t)p % 16) == 0 && ld % 4 == 0; }

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

unsigned elementwise_blocks(int64_t count)
{
    return (unsigned)std::min<int64_t>((count + 255) / 256, 65536);
}

} /* namespace */

namespace tsg {

int kernel_tile_m() { return BM; }
int kernel_tile_n() { return BN; }

int kernel_blocks_per_sm(int *per_sm)
{
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        per_sm, sgemm_kernel<false, false, true, true>, THREADS, 0);
}

int kernel_sgemm(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t kslice,
                 int64_t splits, float alpha, const float *A, int64_t lda, const float *B,
                 int64_t ldb, float beta, float *C, int64_t ldc, float *W, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    const int64_t tiles = ((m + BM - 1) / BM) * ((n + BN - 1) / BN);
    KernelFn fn = pick_kernel(transa == 'T', transb == 'T', vec_ok(A, lda), vec_ok(B, ldb));
    if (splits > 1) {
        const unsigned grid = (unsigned)std::min<int64_t>(tiles * splits, 0x7fffffff);
        fn<<<grid, THREADS, 0, s>>>(m, n, k, kslice, splits, 1.0f, A, lda, B, ldb, 0.0f, W, m, m * n);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return (int)e;
        reduce_splits_kernel<<<elementwise_blocks(m * n), 256, 0, s>>>(m, n, splits, W, alpha,
                                                                         beta, C, ldc);
    } else {
        const unsigned grid = (unsigned)std::min<int64_t>(tiles, 0x7fffffff);
        fn<<<grid, THREADS, 0, s>>>(m, n, k, k, 1, alpha, A, lda, B, ldb, beta, C, ldc, 0);
    }
    return (int)cudaGetLastError();
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

int kernel_describe(char *buf, size_t len)
{
    cudaFuncAttributes attr;
    cudaError_t e = cudaFuncGetAttributes(&attr, sgemm_kernel<false, false, true, true>);
    if (e != cudaSuccess) {
        snprintf(buf, len, "%s", cudaGetErrorString(e));
        return (int)e;
    }
    snprintf(buf, len,
             "tile %dx%dx%d, %d threads, 8x8 per thread, 2-stage smem %d B, %d regs, binary sm_%d",
             BM, BN, BK, THREADS, (int)attr.sharedSizeBytes, attr.numRegs, attr.binaryVersion);
    return 0;
}

} /* namespace tsg */
