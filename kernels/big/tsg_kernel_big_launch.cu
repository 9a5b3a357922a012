/*
 * tsg_kernel_big_launch.cu — the big family's launcher (tsg_kernel_launch.h): configurations 7-9
 * (tsg_kernel_big_config.h) by name to their instance pickers (one file each); an unsplit launch
 * with a stream-K tail (big::TailPlan) as big_tail_kernel's grid followed by the tail's fix-up
 * (tail_reduce_kernel), every other launch by the shared steps of tsg_kernel.cu.
 */
#include <algorithm>

#include "../tsg_kernel_launch.h"
#include "tsg_kernel_big.cuh"

namespace tsg {

namespace {

/* The stream-K tail's fix-up (big::TailPlan): block (chunk, u) takes TAIL_EPT x 256 elements of
 * tail tile u (tile dp_tiles + u of the grid, bm x bn, tile_coords' order): for each, the sum of
 * the partial tiles the tail blocks left in W (slot 2 b + j: tail block b's j-th piece, ld bm)
 * over b in increasing order, then C = alpha * sum + beta * C inside C's m x n window. The order
 * is fixed by the shape and tail.blocks: bit-identical results from run to run. The pieces of the
 * tile are found once per thread, not per element (per element, with several 64-bit divisions
 * each, the fix-up took about 0.1 ms at 4096^3: docs/NOTES.md "v0.14"). */
constexpr int TAIL_EPT = 16;
__global__ void tail_reduce_kernel(int64_t m, int64_t n, int bm, int bn, int64_t dp_tiles,
                                   big::TailPlan tail, const float *__restrict__ W, float alpha,
                                   float beta, float *__restrict__ C, int64_t ldc)
{
    const int per_tile = bm * bn;
    const int64_t u = blockIdx.y;
    int64_t tm, tn;
    tile_coords(dp_tiles + u, (m + bm - 1) / bm, (n + bn - 1) / bn, &tm, &tn);
    const int e0 = blockIdx.x * TAIL_EPT * blockDim.x + threadIdx.x;
    float acc[TAIL_EPT];
#pragma unroll
    for (int j = 0; j < TAIL_EPT; ++j) acc[j] = 0.0f;
    const int64_t x0 = u * tail.kt, x1 = x0 + tail.kt; /* the tile's slices */
    for (int64_t b = tail.block_of(x0), s = tail.start(b); b < tail.blocks && s < x1; ++b) {
        const int64_t s_next = tail.start(b + 1);
        if (s != s_next) { /* an empty run (fewer slices than blocks) left nothing */
            /* the tile is b's second piece when b's run began in the tile before */
            const float *w = W + (2 * b + (s < x0 ? 1 : 0)) * (int64_t)per_tile;
#pragma unroll
            for (int j = 0; j < TAIL_EPT; ++j) {
                const int e = e0 + j * blockDim.x;
                if (e < per_tile) acc[j] += w[e];
            }
        }
        s = s_next;
    }
#pragma unroll
    for (int j = 0; j < TAIL_EPT; ++j) {
        const int e = e0 + j * blockDim.x;
        const int64_t row = tm * bm + e % bm, col = tn * bn + e / bm;
        if (e >= per_tile || row >= m || col >= n) continue;
        float *p = C + col * ldc + row;
        const float v = alpha * acc[j];
        *p = beta == 0.0f ? v : fmaf(beta, *p, v);
    }
}

KernelFn instance(int config, bool ta, bool tb, bool va, bool vb)
{
    switch (config) {
    case BIG_256x128: return pick_big_256x128(ta, tb, va, vb);
    case BIG_256x64: return pick_big_256x64(ta, tb, va, vb);
    case BIG_64x256: return pick_big_64x256(ta, tb, va, vb);
    default: return nullptr;
    }
}

big::TailFn tail_instance(int config, bool ta, bool tb, bool va, bool vb)
{
    switch (config) {
    case BIG_256x128: return pick_tail_big_256x128(ta, tb, va, vb);
    case BIG_256x64: return pick_tail_big_256x64(ta, tb, va, vb);
    case BIG_64x256: return pick_tail_big_64x256(ta, tb, va, vb);
    default: return nullptr;
    }
}

/* A plan's tail is taken only as tsg_kernel.h allows it (unsplit, fewer tail tiles than tail
 * blocks, at most the grid's tiles) and within the fix-up's grid.y (65535 tiles); otherwise the
 * launch runs without one. */
cudaError_t sgemm(const KernelConfig &c, const Gemm &g, cudaStream_t s)
{
    const int64_t tiles = cdiv(g.m, c.bm) * cdiv(g.n, c.bn);
    if (g.splits > 1 || g.tail_tiles <= 0 || g.tail_tiles >= g.tail_blocks || g.tail_tiles > tiles ||
        g.tail_tiles > 65535)
        return launch_units(instance(c.id, g.ta, g.tb, g.va, g.vb), c, g, s);
    const big::TailFn fn = tail_instance(c.id, g.ta, g.tb, g.va, g.vb);
    cudaError_t e = prepare(c, (const void *)fn);
    if (e != cudaSuccess) return e;
    /* one launch: the first tiles - tail_tiles tiles data-parallel, then tail_blocks blocks over
     * the rest; then the fix-up */
    const big::TailPlan tp{g.tail_tiles, g.tail_blocks, cdiv(g.k, c.bk)};
    const unsigned grid = (unsigned)std::min<int64_t>(tiles - g.tail_tiles + g.tail_blocks, 0x7fffffff);
    fn<<<grid, c.threads, c.smem, s>>>(g.m, g.n, g.k, g.alpha, g.A, g.lda, g.B, g.ldb, g.beta, g.C, g.ldc, tp, g.W);
    e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    const dim3 rg((unsigned)cdiv((int64_t)c.bm * c.bn, TAIL_EPT * 256), (unsigned)g.tail_tiles);
    tail_reduce_kernel<<<rg, 256, 0, s>>>(g.m, g.n, c.bm, c.bn, tiles - g.tail_tiles, tp, g.W, g.alpha, g.beta, g.C,
                                          g.ldc);
    return cudaGetLastError();
}

} /* namespace */

const FamilyLauncher big_launcher = {instance, sgemm};

} /* namespace tsg */
