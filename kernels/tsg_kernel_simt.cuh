/*
 * tsg_kernel_simt.cuh — tsgemm's tiled SGEMM kernel (FP32 SIMT, register-tiled, double-buffered
 * shared memory). C = alpha*op(A)*op(B) + beta*C, column-major, any lda/ldb/ldc >= rows.
 *
 * Owns: the kernel contract of DESIGN.md and seeds 01-03. Must not: know about host memory,
 * CBLAS, or anything but device pointers and the canonical problem.
 *
 * Shape of the work (the "technique ladder" of PERF.md, steps 2-3):
 *   - a block of 256 threads owns a BM x BN = 128 x 128 tile of C and walks K in slices of BK = 8;
 *   - each thread accumulates an 8 x 8 register tile: rows {4*tm..4*tm+3, 64+4*tm..64+4*tm+3},
 *     columns {4*tn..+3, 64+4*tn..+3} with tm = t % 16 (the fast index runs along m, the
 *     contiguous dimension of C, so write-back is coalesced), tn = t / 16;
 *   - shared memory holds op(A) as As[k][m] and op(B) as Bs[k][n] (k-major: the inner product
 *     reads 16-byte vectors along m and n), two buffers each, rows padded by 4 floats.
 * Transposes live in TileLoader only: op(X)(mn, kk) is either x[mn + kk*ld] (contiguous along mn)
 * or x[kk + mn*ld] (contiguous along k); the loader swaps coordinates and lets consecutive threads
 * read the contiguous dimension. The compute loop is the same for all four combinations.
 */
#ifndef TSG_KERNEL_SIMT_CUH
#define TSG_KERNEL_SIMT_CUH

#include <stdint.h>

namespace tsg {

constexpr int BM = 128, BN = 128, BK = 8, THREADS = 256;
constexpr int PAD = 4; /* keeps 16-byte alignment of rows; spreads the transposed stores */
constexpr int SROW = BM + PAD; /* BM == BN: one row stride for both tiles */
constexpr int GROUP_M = 8;     /* tiles of C visited in column groups of 8 for L2 reuse */

static_assert(BM == BN, "one smem row stride serves both tiles");
static_assert(BM * BK == 4 * THREADS, "each thread loads 4 elements of each tile");

/*
 * Loads BK x 128 slices [k0, k0+BK) x [mn0, mn0+128) of op(X) into shared memory laid out as
 * s[kk][mn], one slice after another along k. CONTIG_MN: op(X)(mn, kk) = x[mn + kk*ld] (A not
 * transposed, B transposed); otherwise op(X)(mn, kk) = x[kk + mn*ld] (A transposed, B not
 * transposed) — the transpose is this coordinate swap and nothing else.
 * Each thread takes 4 consecutive elements along the contiguous dimension, so consecutive
 * threads read consecutive addresses (coalesced) whichever dimension that is. Elements outside
 * [0, mn_end) x [0, k_end) are loaded as 0: the store to shared memory is never skipped, so the
 * K remainder and tiles sticking out of the matrix contribute exact zeros.
 * VEC: x is 16-byte aligned and ld % 4 == 0, so a 4-element group fully inside the matrix is one
 * 16-byte load; groups that stick out use guarded scalar loads.
 * State per thread: the address of its group in the current slice (64-bit arithmetic once, at
 * set-up; then a constant step per slice), how many of its 4 mn (CONTIG_MN) or the validity of
 * its mn row (!CONTIG_MN), and how far k extends past its first k.
 */
template <bool CONTIG_MN, bool VEC>
struct TileLoader {
    const float *p;
    int64_t step;    /* address step from one k slice to the next */
    int64_t k_left;  /* k_end minus this thread's first k coordinate in the current slice */
    int mn_valid;    /* CONTIG_MN: valid elements of the group along mn (0..4); else 0 or 4 */

    static __device__ __forceinline__ int c_of(int t) { return CONTIG_MN ? (t % 32) * 4 : (t % 2) * 4; }
    static __device__ __forceinline__ int s_of(int t) { return CONTIG_MN ? t / 32 : t / 2; }

    __device__ __forceinline__ TileLoader(const float *x, int64_t ld, int64_t mn0, int64_t mn_end,
                                          int64_t k_end)
    {
        const int t = threadIdx.x, c = c_of(t), s = s_of(t);
        const int64_t mn = CONTIG_MN ? mn0 + c : mn0 + s; /* this thread's first mn, k = 0.. */
        const int64_t kk = CONTIG_MN ? s : c;
        p = CONTIG_MN ? x + kk * ld + mn : x + mn * ld + kk; /* 64-bit: coordinate times ld */
        step = CONTIG_MN ? (int64_t)BK * ld : (int64_t)BK;
        k_left = k_end - kk;
        const int64_t left = mn_end - mn;
        mn_valid = CONTIG_MN ? (int)(left < 0 ? 0 : left > 4 ? 4 : left) : (left > 0 ? 4 : 0);
    }

    /* Reads this thread's group of the current slice into r and advances to the next slice. */
    __device__ __forceinline__ void fetch(float r[4])
    {
        /* valid elements of the group: along mn (CONTIG_MN) or along k */
        const int64_t along = CONTIG_MN ? (k_left > 0 ? mn_valid : 0)
                                        : (mn_valid ? (k_left < 0 ? 0 : k_left) : 0);
        if (VEC && along >= 4) {
            const float4 v = __ldg(reinterpret_cast<const float4 *>(p));
            r[0] = v.x;
            r[1] = v.y;
            r[2] = v.z;
            r[3] = v.w;
        } else {
#pragma unroll
            for (int v = 0; v < 4; ++v) r[v] = v < along ? __ldg(p + v) : 0.0f;
        }
        p += step;
        k_left -= BK;
    }

    static __device__ __forceinline__ void stash(float (*s_tile)[SROW], const float r[4])
    {
        const int t = threadIdx.x, c = c_of(t), s = s_of(t);
        if (CONTIG_MN) { /* the group runs along mn: one 16-byte store into row kk = s */
            *reinterpret_cast<float4 *>(&s_tile[s][c]) = make_float4(r[0], r[1], r[2], r[3]);
        } else {         /* the group runs along k: the coordinate swap, 4 scalar stores */
#pragma unroll
            for (int v = 0; v < 4; ++v) s_tile[c + v][s] = r[v];
        }
    }
};

/* Maps a linear tile index to (tile row, tile column), grouped so that consecutive blocks share
 * panels of A and B in L2. */
static __device__ __forceinline__ void tile_coords(int64_t tile, int64_t tiles_m, int64_t tiles_n,
                                                   int64_t *tm, int64_t *tn)
{
    const int64_t per_group = (int64_t)GROUP_M * tiles_n;
    const int64_t group = tile / per_group;
    const int64_t first_m = group * GROUP_M;
    const int64_t rows = tiles_m - first_m < GROUP_M ? tiles_m - first_m : GROUP_M;
    const int64_t in_group = tile - group * per_group;
    *tm = first_m + in_group % rows;
    *tn = in_group / rows;
}

/*
 * One launch covers all work units: a 1-D grid (x has no 65535 limit) striding over
 * ceil(m/BM) * ceil(n/BN) tiles times `splits` slices of K, so no grid axis ever limits m or n.
 * Split-K (splits > 1, for C grids too small to fill the GPU): unit s of a tile computes the
 * k range [s*kchunk, min(k, (s+1)*kchunk)) into C + s*split_stride; the caller then passes
 * alpha = 1, beta = 0 and a workspace as C, and reduce_splits_kernel finishes the job.
 */
template <bool TRANS_A, bool TRANS_B, bool VEC_A, bool VEC_B>
__global__ void __launch_bounds__(THREADS, 2)
sgemm_kernel(int64_t m, int64_t n, int64_t k, int64_t kchunk, int64_t splits, float alpha,
             const float *__restrict__ A, int64_t lda, const float *__restrict__ B, int64_t ldb,
             float beta, float *__restrict__ C, int64_t ldc, int64_t split_stride)
{
    /* A not transposed is contiguous along m; B transposed is contiguous along n. */
    using LoadA = TileLoader<!TRANS_A, VEC_A>;
    using LoadB = TileLoader<TRANS_B, VEC_B>;

    __shared__ __align__(16) float As[2][BK][SROW];
    __shared__ __align__(16) float Bs[2][BK][SROW];

    const int t = threadIdx.x;
    const int tm = t % 16, tn = t / 16;
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

        float acc[8][8];
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

        LoadA la(As_src, lda, m0, m, klen);
        LoadB lb(Bs_src, ldb, n0, n, klen);
        float ra[4], rb[4];
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
                const float4 a0 = *reinterpret_cast<const float4 *>(&As[cur][kk][4 * tm]);
                const float4 a1 = *reinterpret_cast<const float4 *>(&As[cur][kk][64 + 4 * tm]);
                const float4 b0 = *reinterpret_cast<const float4 *>(&Bs[cur][kk][4 * tn]);
                const float4 b1 = *reinterpret_cast<const float4 *>(&Bs[cur][kk][64 + 4 * tn]);
                const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
                const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
                for (int i = 0; i < 8; ++i)
#pragma unroll
                    for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
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
        for (int j = 0; j < 8; ++j) {
            const int64_t col = n0 + (j < 4 ? 4 * tn + j : 64 + 4 * tn + (j - 4));
            if (col >= n) continue;
            float *cc = Cs + col * ldc;
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                const int64_t row = m0 + (i < 4 ? 4 * tm + i : 64 + 4 * tm + (i - 4));
                if (row < m) {
                    const float v = alpha * acc[i][j];
                    cc[row] = beta == 0.0f ? v : fmaf(beta, cc[row], v);
                }
            }
        }
    }
}

/* C = alpha * sum over s of W[s] + beta * C, summing the splits in a fixed order (bit-identical
 * results from run to run); W[s] is m x n with ld m at W + s*m*n. beta = 0 never reads C. */
__global__ void reduce_splits_kernel(int64_t m, int64_t n, int64_t splits,
                                     const float *__restrict__ W, float alpha, float beta,
                                     float *__restrict__ C, int64_t ldc)
{
    const int64_t total = m * n;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x) {
        float acc = 0.0f;
        for (int64_t s = 0; s < splits; ++s) acc += W[s * total + i];
        float *p = C + (i / m) * ldc + (i % m);
        const float v = alpha * acc;
        *p = beta == 0.0f ? v : fmaf(beta, *p, v);
    }
}

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

} /* namespace tsg */

#endif /* TSG_KERNEL_SIMT_CUH */
