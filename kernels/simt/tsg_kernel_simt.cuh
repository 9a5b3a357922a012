/*
 * tsg_kernel_simt.cuh — tsgemm's tiled SGEMM kernel family (FP32 SIMT, register-tiled,
 * double-buffered shared memory). C = alpha*op(A)*op(B) + beta*C, column-major, any
 * lda/ldb/ldc >= rows.
 *
 * Owns: the kernel contract of docs/DESIGN.md and seeds 01-03. Must not: know about host memory,
 * CBLAS, or anything but device pointers and the canonical problem.
 *
 * One family, several configurations (issue 11): a block of THREADS = (BM/TM) * (BN/TN) threads
 * owns a BM x BN tile of C and walks K in slices of BK = 8; each thread accumulates a TM x TN
 * register tile (TM, TN in {4, 8}) made of 4 x 4 sub-tiles spread 4*TX rows and 4*TY columns
 * apart (TX = BM/TM, TY = BN/TN): rows {4*tx..4*tx+3, 4*TX+4*tx.., ...} with tx = t % TX (the
 * fast thread index runs along m, the contiguous dimension of C, so write-back is coalesced),
 * columns likewise with ty = t / TX. Shared memory holds op(A) as As[k][m] and op(B) as Bs[k][n]
 * (k-major: the inner product reads 16-byte vectors along m and n), two buffers each, rows
 * padded by 4 floats. The configurations: tsg_kernel_simt_config.h.
 * Transposes live in TileLoader only: op(X)(mn, kk) is either x[mn + kk*ld] (contiguous along mn)
 * or x[kk + mn*ld] (contiguous along k); the loader swaps coordinates and lets consecutive threads
 * read the contiguous dimension. The compute loop is the same for all four combinations and for
 * aligned (16-byte vector loads) and unaligned (one float per load) operands.
 */
#ifndef TSG_KERNEL_SIMT_CUH
#define TSG_KERNEL_SIMT_CUH

#include <stdint.h>

#include "../common/tsg_kernel_common.h"  /* KernelFn, PAD */
#include "../common/tsg_tile_coords.cuh" /* tile_coords */
#include "tsg_kernel_simt_config.h"

namespace tsg {

/*
 * Loads BK x W slices [k0, k0+BK) x [mn0, mn0+W) of op(X) into shared memory laid out as
 * s[kk][mn] (row stride W + PAD), one slice after another along k. CONTIG_MN: op(X)(mn, kk) =
 * x[mn + kk*ld] (A not transposed, B transposed); otherwise op(X)(mn, kk) = x[kk + mn*ld]
 * (A transposed, B not transposed) — the transpose is this coordinate swap and nothing else.
 * VW = 4: x is 16-byte aligned and ld % 4 == 0; each thread takes vectors of 4 consecutive
 * elements along the contiguous dimension (one 16-byte load when the vector lies inside the
 * matrix, guarded scalar loads otherwise). VW = 1 (operands without that alignment): one float
 * per load, consecutive threads on consecutive addresses, so every load instruction of a warp
 * uses whole 32-byte sectors (a thread walking 4 consecutive floats would touch each sector four
 * times).
 * Thread t owns vector t % LV of rows t / LV + p * (THREADS / LV), p = 0..PASSES-1, where a
 * "row" runs along the contiguous dimension (LV vectors long). Elements outside
 * [0, mn_end) x [0, k_end) are loaded as 0: the store to shared memory is never skipped, so the
 * K remainder and tiles sticking out of the matrix contribute exact zeros.
 * State per thread: the address of its first vector in the current slice (64-bit arithmetic
 * once, at set-up; then a constant step per slice), the valid extent along the dimension that is
 * the same for all its passes, and the distance to the end along the other one.
 */
template <int W, int BK, int THREADS, bool CONTIG_MN, int VW>
struct TileLoader {
    static constexpr int LC = CONTIG_MN ? W : BK; /* contiguous extent of a slice */
    static constexpr int LO = CONTIG_MN ? BK : W; /* the other extent */
    static constexpr int LV = LC / VW;            /* vectors per row */
    static constexpr int RSTEP = THREADS / LV;    /* rows between a thread's passes */
    static constexpr int PASSES = LO / RSTEP;
    static constexpr int ELEMS = PASSES * VW;     /* floats per thread per slice */
    static constexpr int SROW = W + PAD;
    static_assert(LC % VW == 0 && THREADS % LV == 0 && LO % RSTEP == 0, "loader covers the slice");

    const float *p;
    int64_t step;   /* address step from one k slice to the next */
    int64_t pstep;  /* address step from one pass to the next (PASSES > 1) */
    int64_t k_left; /* k_end minus this thread's first k coordinate in the current slice */
    int mn_lim;     /* how far mn extends past this thread's first mn, clamped (see the set-up) */

    static __device__ __forceinline__ int c_of(int t) { return (t % LV) * VW; }
    static __device__ __forceinline__ int r_of(int t) { return t / LV; }

    __device__ __forceinline__ TileLoader(const float *x, int64_t ld, int64_t mn0, int64_t mn_end,
                                          int64_t k_end)
    {
        const int t = threadIdx.x, c = c_of(t), r = r_of(t);
        const int64_t mn = CONTIG_MN ? mn0 + c : mn0 + r; /* this thread's first mn, k = 0.. */
        const int64_t kk = CONTIG_MN ? r : c;
        p = CONTIG_MN ? x + kk * ld + mn : x + mn * ld + kk; /* 64-bit: coordinate times ld */
        step = CONTIG_MN ? (int64_t)BK * ld : (int64_t)BK;
        pstep = PASSES > 1 ? (int64_t)RSTEP * ld : 0;
        k_left = k_end - kk;
        const int64_t left = mn_end - mn;
        /* CONTIG_MN: valid elements of the vector (0..VW); else valid rows ahead (0..W) */
        mn_lim = CONTIG_MN ? (int)(left < 0 ? 0 : left > VW ? VW : left)
                           : (int)(left < 0 ? 0 : left > W ? W : left);
    }

    /* Reads this thread's elements of the current slice into r and advances to the next slice. */
    __device__ __forceinline__ void fetch(float r[ELEMS])
    {
#pragma unroll
        for (int q = 0; q < PASSES; ++q) {
            /* valid elements of this vector along the contiguous dimension (0..VW) */
            int along;
            if (CONTIG_MN) /* the vector runs along mn from this thread's mn; its row is k */
                along = k_left > (int64_t)q * RSTEP ? mn_lim : 0;
            else           /* the vector runs along k; its row is mn */
                along = mn_lim > q * RSTEP ? (int)(k_left < 0 ? 0 : k_left > VW ? VW : k_left) : 0;
            const float *pq = PASSES > 1 ? p + q * pstep : p;
            if (VW == 4 && along >= 4) {
                const float4 v = __ldg(reinterpret_cast<const float4 *>(pq));
                r[q * VW + 0] = v.x;
                r[q * VW + 1] = v.y;
                r[q * VW + 2] = v.z;
                r[q * VW + 3] = v.w;
            } else {
#pragma unroll
                for (int v = 0; v < VW; ++v) r[q * VW + v] = v < along ? __ldg(pq + v) : 0.0f;
            }
        }
        p += step;
        k_left -= BK;
    }

    static __device__ __forceinline__ void stash(float (*s_tile)[SROW], const float r[ELEMS])
    {
        const int t = threadIdx.x, c = c_of(t), r0 = r_of(t);
#pragma unroll
        for (int q = 0; q < PASSES; ++q) {
            const int o = r0 + q * RSTEP;
            if (CONTIG_MN) { /* the vector runs along mn: row kk = o */
                if (VW == 4)
                    *reinterpret_cast<float4 *>(&s_tile[o][c]) =
                        make_float4(r[q * VW], r[q * VW + 1], r[q * VW + 2], r[q * VW + 3]);
                else
                    s_tile[o][c] = r[q * VW];
            } else { /* the vector runs along k: the coordinate swap */
#pragma unroll
                for (int v = 0; v < VW; ++v) s_tile[c + v][o] = r[q * VW + v];
            }
        }
    }
};

/*
 * One launch covers all work units: a 1-D grid (x has no 65535 limit) striding over
 * ceil(m/BM) * ceil(n/BN) tiles times `splits` slices of K, so no grid axis ever limits m or n.
 * Split-K (splits > 1, for C grids too small to fill the GPU): unit s of a tile computes the
 * k range [s*kchunk, min(k, (s+1)*kchunk)) into C + s*split_stride; the caller then passes
 * alpha = 1, beta = 0 and a workspace as C, and reduce_splits_kernel finishes the job.
 * VA / VB: the vector width of A's / B's loads (4 or 1).
 */
template <class CF, bool TRANS_A, bool TRANS_B, int VA, int VB>
__global__ void __launch_bounds__(CF::THREADS, CF::MIN_BLOCKS)
sgemm_kernel(int64_t m, int64_t n, int64_t k, int64_t kchunk, int64_t splits, float alpha,
             const float *__restrict__ A, int64_t lda, const float *__restrict__ B, int64_t ldb,
             float beta, float *__restrict__ C, int64_t ldc, int64_t split_stride)
{
    constexpr int BM = CF::BM, BN = CF::BN, TM = CF::TM, TN = CF::TN, TX = CF::TX;
    /* A not transposed is contiguous along m; B transposed is contiguous along n. */
    constexpr int BK = CF::BK;
    using LoadA = TileLoader<BM, BK, CF::THREADS, !TRANS_A, VA>;
    using LoadB = TileLoader<BN, BK, CF::THREADS, TRANS_B, VB>;

    __shared__ __align__(16) float As[2][BK][BM + PAD];
    __shared__ __align__(16) float Bs[2][BK][BN + PAD];

    const int t = threadIdx.x;
    const int tx = t % TX, ty = t / TX;
    const int64_t tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int64_t tiles = tiles_m * tiles_n;

    for (int64_t unit = blockIdx.x; unit < tiles * splits; unit += gridDim.x) {
        const int64_t split = unit / tiles;
        int64_t bm, bn;
        tile_coords(unit - split * tiles, tiles_m, tiles_n, &bm, &bn);
        const int64_t m0 = bm * BM, n0 = bn * BN;
        /* this unit's slice of K: op(A) columns / op(B) rows [kb, kb + klen) */
        const int64_t kb = split * kchunk;
        const int64_t klen = k - kb < kchunk ? k - kb : kchunk;
        const int64_t ktiles = (klen + BK - 1) / BK;
        const float *As_src = A + (TRANS_A ? kb : kb * lda);
        const float *Bs_src = B + (TRANS_B ? kb * ldb : kb);
        float *Cs = C + split * split_stride;

        float acc[TM][TN];
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

        LoadA la(As_src, lda, m0, m, klen);
        LoadB lb(Bs_src, ldb, n0, n, klen);
        float ra[LoadA::ELEMS], rb[LoadB::ELEMS];
        la.fetch(ra);
        lb.fetch(rb);
        LoadA::stash(As[0], ra);
        LoadB::stash(Bs[0], rb);
        __syncthreads(); /* barrier 1 for slice 0: its loads complete before anyone reads */

        for (int64_t kt = 0; kt < ktiles; ++kt) {
            const int cur = (int)(kt & 1);
            const bool more = kt + 1 < ktiles; /* the same for every thread of the block */
            if (more) { /* next slice global -> registers, overlapping the math below */
                la.fetch(ra);
                lb.fetch(rb);
            }
#pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
                float4 a4[TM / 4], b4[TN / 4];
#pragma unroll
                for (int g = 0; g < TM / 4; ++g)
                    a4[g] = *reinterpret_cast<const float4 *>(&As[cur][kk][4 * TX * g + 4 * tx]);
#pragma unroll
                for (int g = 0; g < TN / 4; ++g)
                    b4[g] = *reinterpret_cast<const float4 *>(&Bs[cur][kk][4 * CF::TY * g + 4 * ty]);
                const float *av = reinterpret_cast<const float *>(a4);
                const float *bv = reinterpret_cast<const float *>(b4);
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
            }
            if (more) { /* the other buffer: everyone finished reading it before the last barrier */
                LoadA::stash(As[cur ^ 1], ra);
                LoadB::stash(Bs[cur ^ 1], rb);
            }
            /* One barrier per slice plays both roles of seed 01 thanks to the two buffers:
             * barrier 1 for slice kt+1 (its stores complete before it is read) and barrier 2 for
             * slice kt (its reads complete before iteration kt+1 overwrites buffer cur with slice
             * kt+2). Unconditional: every thread reaches it, valid element or not. */
            __syncthreads();
        }

        /* Write-back: only elements inside C's m x n window; beta == 0 never reads C. */
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int64_t col = n0 + 4 * CF::TY * (j / 4) + 4 * ty + (j % 4);
            if (col >= n) continue;
            float *cc = Cs + col * ldc;
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                const int64_t row = m0 + 4 * TX * (i / 4) + 4 * tx + (i % 4);
                if (row < m) {
                    const float v = alpha * acc[i][j];
                    cc[row] = beta == 0.0f ? v : fmaf(beta, cc[row], v);
                }
            }
        }
    }
}

/* The instance for a transpose pair and the operands' vector widths (va/vb: 16-byte loads):
 * instantiates the configuration's 16 kernels, so only its instance file calls it. */
template <class CF>
KernelFn pick_instance(bool ta, bool tb, bool va, bool vb)
{
#define TSG_PICK(TA, TB)                                                                        \
    (va ? (vb ? sgemm_kernel<CF, TA, TB, 4, 4> : sgemm_kernel<CF, TA, TB, 4, 1>)                \
        : (vb ? sgemm_kernel<CF, TA, TB, 1, 4> : sgemm_kernel<CF, TA, TB, 1, 1>))
    if (ta) return tb ? TSG_PICK(true, true) : TSG_PICK(true, false);
    return tb ? TSG_PICK(false, true) : TSG_PICK(false, false);
#undef TSG_PICK
}

/* Instance pickers of the configurations (tsg_kernel_simt_config.h), one file each so that a
 * parallel build compiles them side by side (simt/tsg_kernel_simt_<tile>.cu). */
KernelFn pick_simt_128x128(bool ta, bool tb, bool va, bool vb);
KernelFn pick_simt_128x64(bool ta, bool tb, bool va, bool vb);
KernelFn pick_simt_64x128(bool ta, bool tb, bool va, bool vb);
KernelFn pick_simt_64x64(bool ta, bool tb, bool va, bool vb);
KernelFn pick_simt_64x64_bk16(bool ta, bool tb, bool va, bool vb);
KernelFn pick_simt_32x32(bool ta, bool tb, bool va, bool vb);
KernelFn pick_simt_128x128_1block(bool ta, bool tb, bool va, bool vb);

} /* namespace tsg */

#endif /* TSG_KERNEL_SIMT_CUH */
