/*
 * tsg_kernel_big.cuh — tsgemm's SGEMM kernel family for large C grids (issue 10): FP32 SIMT,
 * warp-tiled, a multi-stage cp.async pipeline. C = alpha*op(A)*op(B) + beta*C, column-major, any
 * lda/ldb/ldc >= rows; the same launch signature, split-K and tile order as the SIMT family
 * (../common/tsg_kernel_common.h, tile_coords), so the per-shape rule (kernel_plan) treats its
 * configurations like any other. The configurations: tsg_kernel_big_config.h.
 *
 * Owns: this family's kernels (big_kernel; big_tail_kernel, the same tiles with a stream-K tail,
 * TailPlan) and their loaders, under the kernel contract of docs/DESIGN.md. Must not:
 * know about host memory, CBLAS, or anything but device pointers and the canonical problem.
 *
 * Why a family of its own rather than the SIMT family's main loop (docs/NOTES.md "v0.4"): the SIMT
 * family stages every K slice through registers (LDG, then STS after the math), gives a warp 16
 * distinct rows of A per LDS.128 (two shared-memory wavefronts) and, at 8 x 8 per thread, spends
 * one LDS.128 per 16 FFMA. Here:
 *  - a block of THREADS = 32 * (BM/WM) * (BN/WN) threads owns a BM x BN tile of C; each warp owns
 *    a contiguous WM x WN sub-tile; its lanes form an LM x LN grid (lane % LM along m) and each
 *    lane accumulates a TM x TN register tile (TM = WM/LM, TN = WN/LN) made of 4 x 4 sub-tiles
 *    spread 4*LM rows and 4*LN columns apart. At 256 x 128 / 64 x 64 warps / 8 x 4 lanes a lane
 *    holds 8 x 16 = 128 accumulators; one k step reads 2 + 4 LDS.128 for 128 FFMA, and every
 *    LDS.128 of a warp touches 8 (A) or 4 (B) distinct 16-byte vectors of one 128-byte row
 *    segment: one wavefront, the rest broadcast.
 *  - global -> shared goes by cp.async (no register staging) into STAGES buffers of BK = 8, 16
 *    or 32 k rows; the tile for slice kt + STAGES - 1 is issued while slice kt is computed, one
 *    barrier per slice. Out-of-range elements are copied with src-size 0: cp.async's zero fill
 *    is the contract's "out-of-range elements land in shared memory as 0.0" (the store is never
 *    skipped). An operand contiguous along m / n (A not transposed, B transposed) goes as 16-byte
 *    copies when its base and ld are 16-byte aligned (VW = 4), else as 4-byte copies with
 *    consecutive threads on consecutive addresses (VW = 1); an operand contiguous along k goes as
 *    4-byte copies, BK consecutive threads on BK consecutive k of one column (64 bytes at
 *    BK = 16), each landing transposed in the k-major shared tile: the transpose is the loader's
 *    coordinate swap, plus, where the configuration swizzles that operand (SWZ), a permutation
 *    inside groups of 4 columns that the compute loop undoes in its register indices. (A
 *    configuration with BigConfig::AKC copies an aligned transposed A 16 bytes at a time into a
 *    k-contiguous tile instead (KLoader); no adopted configuration does: it lost on register
 *    banks, docs/NOTES.md "v0.17".)
 *  - the next k step's A and B fragments are read from shared memory while the current one's
 *    FFMAs run (two register fragments).
 * Shared tiles: As[stage][k][BM + PAD], Bs[stage][k][BN + PAD], k-major; PAD = 4 floats keeps
 * rows 16-byte aligned. Rows are then 4 (mod 32) floats apart, so a warp's 4-byte copies of 8
 * consecutive k of 4 columns (BK = 8) cover 32 banks, but at BK = 16 (16 k of 2 columns) k and
 * k + 8 share a bank: two wavefronts per copy unless the operand is swizzled (AsyncLoader). The
 * adopted configurations swizzle B only; a transposed A keeps the 2-way conflict, because every
 * way of removing it measured slower (docs/NOTES.md "v0.7").
 * Sources of the shape choices: docs/PERF.md's technique ladder (warp tiling, multistage cp.async with
 * zero fill); issue 10's note that cuBLAS's FP32 kernel on Hopper is a 256 x 128 x 8, 3-stage
 * sm80 kernel; the CUTLASS SIMT warp/lane decomposition idea (lanes as an 8 x 4 grid inside a
 * warp tile). No code taken from them.
 */
#ifndef TSG_KERNEL_BIG_CUH
#define TSG_KERNEL_BIG_CUH

#include <stdint.h>

#include <type_traits>

#include "../common/tsg_cp_async.cuh"    /* cp_async, AsyncLoader, smem_addr */
#include "../common/tsg_kernel_common.h"  /* KernelFn, PAD */
#include "../common/tsg_tile_coords.cuh" /* tile_coords */
#include "../common/tsg_warp_tile.cuh"   /* ffma_ij, write_tile */
#include "tsg_kernel_big_config.h"

namespace tsg {
namespace big {

/*
 * Copies BK x W slices [k0, k0 + BK) x [mn0, mn0 + W) of an operand contiguous along k
 * (op(X)(mn, kk) = x[kk + mn*ld]; x 16-byte aligned and ld % 4 == 0) as 16-byte copies into a
 * k-contiguous shared tile: row mn (BK floats) at float offset row(mn) = mn BK + 4 (mn / 4),
 * i.e. 16 bytes of padding after every 4 rows (TILE_FLOATS in all). The padding is there for
 * the readers: a warp's LDS.128 of one group of 4 k reads rows a_col + c (lanes lm = 0..7 at
 * rows 4 lm apart, LM <= 8); 4 rows are 16 BK bytes, a multiple of 128 (all 32 banks), so
 * without padding the 8 lanes' 16 bytes would share 4 banks (8 wavefronts); with it lane lm's
 * are lm 16-byte slots further on: 8 distinct slots, one wavefront. Every offset a lane reads is
 * its a_col's plus a compile-time constant (no swizzle to undo). The copies: thread t owns chunk
 * t mod V (V = BK / 4 chunks per row) of rows t / V + q RSTEP (q < PASSES); 8 consecutive
 * threads own 128 contiguous bytes (32 / BK whole rows of one group of 4), so a quarter warp's
 * 16-byte stores hit 8 distinct slots too. The tile is the transposed A of a TN or TT product
 * (BigConfig::AKC): the alternative to AsyncLoader's 4-byte copies that land it transposed. Zero
 * fill as AsyncLoader's: rows past mn_end with src-size 0, a chunk that k_end cuts with src-size
 * 4 * (valid k); the source address of a zero-size copy is x. The bank argument holds for
 * LDS.64 reads of 2 k as well: lane lm's 8 bytes lie 2 lm 8-byte slots on.
 */
template <int W, int BK, int THREADS>
struct KLoader {
    static constexpr int V = BK / 4;           /* chunks per row */
    static constexpr int RSTEP = THREADS / V;  /* rows between a thread's passes */
    static constexpr int PASSES = W / RSTEP;
    static constexpr int TILE_FLOATS = W * BK + W;
    static_assert(BK % 4 == 0 && THREADS % V == 0 && W % RSTEP == 0 && PASSES >= 1 && W % 4 == 0,
                  "the threads cover the slice");
    static_assert((V == 2 || V == 4 || V == 8) && RSTEP % 4 == 0,
                  "8 threads own whole rows of one group of 4; a pass moves by whole groups");
    static constexpr __host__ __device__ int row(int mn) { return mn * BK + 4 * (mn / 4); }

    const float *x;  /* the operand's first element (a valid address for zero-size copies) */
    const float *p;  /* this thread's first chunk of the current slice */
    int64_t pstep;   /* address step from one pass to the next: RSTEP rows, ld apart */
    int64_t k_left;  /* k_end minus this thread's first k in the current slice */
    int mn_lim;      /* valid rows from this thread's first (0..W) */
    uint32_t s_off;  /* byte offset of this thread's first chunk in a stage's tile */

    __device__ __forceinline__ KLoader(const float *x_, int64_t ld, int64_t mn0, int64_t mn_end, int64_t k_end)
    {
        const int t = threadIdx.x, v = t % V, r = t / V;
        x = x_;
        p = x_ + (mn0 + r) * ld + 4 * v; /* 64-bit: row times ld */
        pstep = (int64_t)RSTEP * ld;
        k_left = k_end - 4 * v;
        const int64_t left = mn_end - (mn0 + r);
        mn_lim = (int)(left < 0 ? 0 : left > W ? W : left);
        s_off = (uint32_t)(row(r) + 4 * v) * 4;
    }

    /* As AsyncLoader::issue: this thread's copies of the current slice into the tile at shared
     * address s_tile, then the next slice; FULL: the block-uniform promise that no element of the
     * slice lies outside the operand. */
    template <bool FULL>
    __device__ __forceinline__ void issue(uint32_t s_tile)
    {
#pragma unroll
        for (int q = 0; q < PASSES; ++q) {
            int bytes = 16;
            if (!FULL) bytes = mn_lim > q * RSTEP ? (k_left <= 0 ? 0 : k_left >= 4 ? 16 : (int)k_left * 4) : 0;
            const float *src = FULL || bytes ? p + q * pstep : x;
            cp_async<16>(s_tile + s_off + row(q * RSTEP) * 4, src, bytes); /* row(r + q RSTEP) = row(r) + row(q RSTEP) */
        }
        p += BK;
        k_left -= BK;
    }
};

/*
 * The stream-K tail (docs/NOTES.md "v0.14"). A grid of T tiles on G resident blocks runs in
 * ceil(T / G) rounds; when T is not a multiple of G the last round keeps rem = T mod G blocks
 * busy and G - rem idle for a whole tile's time (4096^3 on configuration 7: 512 tiles, 132
 * blocks, 116 busy in the fourth round). With a tail, one launch of big_tail_kernel runs the
 * first T - rem tiles (whole rounds) data-parallel on T - rem blocks, and the last rem tiles on
 * G more blocks: their K slices (KT = ceil(k / BK) per tile, I = rem * KT in all) cut into G
 * equal runs of consecutive slices, block b taking slices [start(b), start(b + 1)),
 * start(b) = floor(b I / G), across a tile boundary where its run crosses one. Since rem < G, a
 * run is shorter than a tile and touches at most two tiles: its j-th piece (j = 0, 1) goes as a
 * partial BM x BN tile (column-major, ld BM) to slot 2 b + j of a workspace; tail_reduce_kernel
 * (tsg_kernel_big_launch.cu) then sums, for each tail tile, its pieces in the order of b (fixed:
 * the result is a function of the shape and G only) and applies alpha and beta. The idea is
 * stream-K's (Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense
 * Matrix-Matrix Multiplication on the GPU", PPoPP 2023; its "data-parallel + one stream-K wave"
 * hybrid), with a separate fixed-order reduction in place of the paper's in-kernel fix-up, so
 * that results stay bit-identical from run to run. The rule (kernel_plan, tsg_kernel_plan.cu)
 * takes a tail only where it models at least 5% faster: not at 4096^3, 8192^3 or 16384^3 (3%,
 * 3%, 1.5% modelled; -2% to +1.5% measured), but at 5120^3 (8 of 800 tiles in a seventh round:
 * +12%) and at mid sizes such as 2304^3-3072^3 (+16-30%).
 */
struct TailPlan {
    int64_t tiles;  /* rem: the last tiles of the grid, shared by the tail blocks (0: no tail) */
    int64_t blocks; /* G: tail blocks (> tiles) */
    int64_t kt;     /* K slices per tile: ceil(k / BK) */
    __host__ __device__ int64_t slices() const { return tiles * kt; }
    /* first slice of tail block b (b = blocks: the end) */
    __host__ __device__ int64_t start(int64_t b) const { return b * slices() / blocks; }
    /* the tail block whose run holds slice x (0 <= x < slices()): the largest b with start(b) <= x */
    __host__ __device__ int64_t block_of(int64_t x) const { return ((x + 1) * blocks - 1) / slices(); }
};

/*
 * The product of one tile over one range of K: acc (this lane's TM x TN accumulators, set here) =
 * op(A)(m0 .. m0 + BM, 0 .. klen) op(B)(0 .. klen, n0 .. n0 + BN), with A and B already at the
 * range's first k and rows / columns past m / n and k past klen read as zeros. Every thread of
 * the block calls it with the same tile (its barriers); on return no copy is in flight and every
 * thread may still read shared memory, so a caller that runs another tile first synchronises.
 */
template <class CF, bool TRANS_A, bool TRANS_B, int VA, int VB>
static __device__ __forceinline__ void tile_product(float (&acc)[CF::TM][CF::TN], float *smem,
                                                    const float *__restrict__ A, int64_t lda,
                                                    const float *__restrict__ B, int64_t ldb, int64_t m,
                                                    int64_t n, int64_t m0, int64_t n0, int64_t klen)
{
    constexpr int BM = CF::BM, BN = CF::BN, BK = CF::BK, TM = CF::TM, TN = CF::TN;
    constexpr int LM = CF::LM, LN = CF::LN, S = CF::STAGES;
    /* A not transposed is contiguous along m; B transposed is contiguous along n. AK: A
     * transposed in 16-byte copies into a k-contiguous tile (BigConfig::AKC; VA = 4 only for such
     * a configuration's transposed A), read AG = AKC k at a time. */
    constexpr bool AK = TRANS_A && CF::AKC != 0 && VA == 4;
    constexpr int AG = AK ? CF::AKC : 1;
    using LoadA = std::conditional_t<
        AK, KLoader<BM, BK, CF::THREADS>,
        AsyncLoader<BM, BK, CF::THREADS, !TRANS_A, TRANS_A ? 1 : VA, (CF::SWZ & 1) != 0, CF::PF>>;
    using LoadB = AsyncLoader<BN, BK, CF::THREADS, TRANS_B, TRANS_B ? VB : 1, (CF::SWZ & 2) != 0, CF::PF>;
    if constexpr (AK) static_assert(LoadA::TILE_FLOATS <= CF::A_FLOATS, "the k-contiguous A tile fits A's part of a stage");
    /* whether the compute loop undoes a swizzle: that operand is contiguous along k and swizzled */
    constexpr bool SWA = TRANS_A && (CF::SWZ & 1) && !AK, SWB = !TRANS_B && (CF::SWZ & 2);
    /* the k step of a slice at which B's copies are issued (A's: step 0) */
    constexpr int BSTEP = CF::bstep(TRANS_A, TRANS_B);
    /* the order of the FFMAs within a k step (ffma_ij) */
    constexpr int ORD = CF::ord(TRANS_A, TRANS_B);
    static_assert(ffma_order_is_permutation<ORD, TM, TN>(), "the FFMA order covers the lane tile once");

    /* stage s: A tile at smem + s*STAGE_FLOATS (BK rows of SA), B tile right after it */
    const uint32_t s_base = smem_addr(smem);
    constexpr uint32_t STAGE_B = CF::STAGE_FLOATS * 4, B_OFF = CF::A_FLOATS * 4;
    (void)BM, (void)BN, (void)TM, (void)TN;
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int lm = lane % LM, ln = lane / LM;
    const int wm = warp % CF::WARPS_M, wn = warp / CF::WARPS_M;
    /* this lane's first element in a k row of the A / B tile (written out in each kernel and in
     * tile_product: the same lines as one shared helper changed ptxas's schedule of every K loop,
     * 15 of TN's fragment loads 6 instructions from their FFMAs: docs/NOTES.md "v0.14") */
    const int a_col = wm * CF::WM + 4 * lm, b_col = wn * CF::WN + 4 * ln;

    const int64_t ktiles = (klen + BK - 1) / BK;
    LoadA la(A, lda, m0, m, klen);
    LoadB lb(B, ldb, n0, n, klen);
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    /* Block-uniform: the tile lies inside op(A) along m / op(B) along n, and slices below
     * kfull lie inside along k; only then may a slice skip the per-element checks. */
    const bool a_in = m0 + BM <= m, b_in = n0 + BN <= n;
    const int64_t kfull = klen / BK;
    auto issue_a = [&](int64_t slice, uint32_t stage_addr) {
        if (a_in && slice < kfull) la.template issue<true>(stage_addr);
        else la.template issue<false>(stage_addr);
    };
    auto issue_b = [&](int64_t slice, uint32_t stage_addr) {
        if (b_in && slice < kfull) lb.template issue<true>(stage_addr + B_OFF);
        else lb.template issue<false>(stage_addr + B_OFF);
    };
    /* prologue: slices 0 .. S-2 in flight, one commit group each (empty past the end) */
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
        if (s < ktiles) issue_a(s, s_base + s * STAGE_B), issue_b(s, s_base + s * STAGE_B);
        cp_async_commit();
    }
    cp_async_wait<S - 2>(); /* this thread's copies of slice 0 have landed */
    __syncthreads();        /* ... and everyone's */

    float4 fa[2][TM / 4], fb[2][TN / 4];
    int rs = 0, ws = S - 1; /* stage read now, stage written next */
    auto load_frag = [&](int buf, int stage, int kk) {
        const float *sa = smem + stage * CF::STAGE_FLOATS + kk * CF::SA + a_col;
        const float *sb = smem + stage * CF::STAGE_FLOATS + CF::A_FLOATS + kk * CF::SB + b_col;
        if constexpr (!AK) {
#pragma unroll
            for (int g = 0; g < TM / 4; ++g) fa[buf][g] = *reinterpret_cast<const float4 *>(sa + 4 * LM * g);
        }
#pragma unroll
        for (int g = 0; g < TN / 4; ++g) fb[buf][g] = *reinterpret_cast<const float4 *>(sb + 4 * LN * g);
    };
    /* AK: row i of this lane's A fragment (the lane tile's row i) for AG k, group kq of a slice
     * (k = AG kq .. AG kq + AG - 1): one LDS.128 (AG = 4) or LDS.64 (AG = 2) per row; two buffers,
     * the group of k steps AG kq.. in buffer kq % 2 (BK / AG is even). Row a_col + r' lies at
     * KLoader::row(a_col) + row(r') when r' % 4 == 0: a compile-time offset from the lane's first
     * row. */
    using AV = std::conditional_t<AG == 4, float4, std::conditional_t<AG == 2, float2, float>>;
    AV a4[2][AK ? TM : 1];
    auto load_a4 = [&](int buf, int stage, int kq) {
        if constexpr (AK) {
            const float *sa = smem + stage * CF::STAGE_FLOATS + LoadA::row(a_col) + AG * kq;
#pragma unroll
            for (int i = 0; i < TM; ++i)
                a4[buf][i] = *reinterpret_cast<const AV *>(sa + LoadA::row(4 * LM * (i / 4)) + (i % 4) * BK);
        }
    };
    load_frag(0, 0, 0);
    load_a4(0, 0, 0);

    for (int64_t kt = 0; kt < ktiles; ++kt) {
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            if (kk == BK - 1) {
                /* slice kt+1 has landed (S-2 groups may still fly) and every thread has read
                 * its last fragment of slice kt-1: one barrier per slice. Every thread
                 * reaches it: the trip count is the block's. */
                cp_async_wait<S - 2>();
                __syncthreads();
                rs = rs + 1 == S ? 0 : rs + 1;
            }
            /* next step's fragments (the first of slice kt+1 at the last step) */
            if (kk < BK - 1 || kt + 1 < ktiles) load_frag((kk + 1) % 2, rs, (kk + 1) % BK);
            /* AK: the next group's A at a group's last step (the next slice's first at BK - 1) */
            if (AK && kk % AG == AG - 1 && (kk < BK - 1 || kt + 1 < ktiles))
                load_a4((kk / AG + 1) % 2, rs, (kk + 1) % BK / AG);
            /* slice kt+S-1 into the stage read in iteration kt-1: all its reads happened
             * before the barrier at the end of iteration kt-1. A's copies at step 0, B's at
             * step BSTEP; the slice's commit group closes after both. */
            if (kk == 0 && kt + S - 1 < ktiles) issue_a(kt + S - 1, s_base + ws * STAGE_B);
            if (kk == BSTEP) {
                if (kt + S - 1 < ktiles) issue_b(kt + S - 1, s_base + ws * STAGE_B);
                cp_async_commit();
                ws = ws + 1 == S ? 0 : ws + 1;
            }
            const float *bv = reinterpret_cast<const float *>(fb[kk % 2]);
            if constexpr (AK) { /* A's value of row i at this k: component kk % AG of a4[..][i] */
                const float *av = reinterpret_cast<const float *>(a4[kk / AG % 2]);
                const int sb = SWB ? LoadB::kswz(kk) : 0;
#pragma unroll
                for (int x = 0; x < TM * TN; ++x) {
                    const int i = ffma_ij<ORD, TM, TN>(x, true), j = ffma_ij<ORD, TM, TN>(x, false);
                    acc[i][j] = fmaf(av[AG * i + kk % AG], bv[j ^ sb], acc[i][j]);
                }
            } else {
                const float *av = reinterpret_cast<const float *>(fa[kk % 2]);
                /* a swizzled row holds column c of an aligned group of 4 in component
                 * c ^ kswz(kk): a compile-time choice of register */
                const int sa = SWA ? LoadA::kswz(kk) : 0, sb = SWB ? LoadB::kswz(kk) : 0;
                if constexpr (ORD == 0) {
#pragma unroll
                    for (int i = 0; i < TM; ++i)
#pragma unroll
                        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(av[i ^ sa], bv[j ^ sb], acc[i][j]);
                } else {
#pragma unroll
                    for (int x = 0; x < TM * TN; ++x) {
                        const int i = ffma_ij<ORD, TM, TN>(x, true), j = ffma_ij<ORD, TM, TN>(x, false);
                        acc[i][j] = fmaf(av[i ^ sa], bv[j ^ sb], acc[i][j]);
                    }
                }
            }
        }
    }
    cp_async_wait<0>(); /* only empty groups remain; leaves nothing in flight for the next unit */
}

/*
 * The kernel. One launch covers all work units: a 1-D grid striding over ceil(m/BM) * ceil(n/BN)
 * tiles times `splits` slices of K (as the SIMT family: split s of a tile computes the k range
 * [s*kchunk, min(k, (s+1)*kchunk)) into C + s*split_stride; the caller then passes alpha = 1,
 * beta = 0 and a workspace as C). VA / VB: the vector width of A's / B's copies when that operand
 * is contiguous along m / n (4: 16-byte aligned base and ld % 4 == 0; 1: any). Dynamic shared
 * memory: CF::SMEM_BYTES (the launcher raises the block's limit past 48 KB where needed).
 * ptxas's schedule of the K loop moves with small changes around it (a loop bound passed as one
 * more parameter put NT's fragment loads 6 instructions before their FFMAs: docs/NOTES.md
 * "v0.14"), so the stream-K tail lives in a kernel of its own (big_tail_kernel) rather than in
 * this one; scripts/sass-loops.py compares the K loops of two builds.
 */
template <class CF, bool TRANS_A, bool TRANS_B, int VA, int VB>
__global__ void __launch_bounds__(CF::THREADS, CF::MIN_BLOCKS)
big_kernel(int64_t m, int64_t n, int64_t k, int64_t kchunk, int64_t splits, float alpha,
           const float *__restrict__ A, int64_t lda, const float *__restrict__ B, int64_t ldb,
           float beta, float *__restrict__ C, int64_t ldc, int64_t split_stride)
{
    constexpr int BM = CF::BM, BN = CF::BN, TM = CF::TM, TN = CF::TN, LM = CF::LM;
    extern __shared__ __align__(16) float smem[];
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int lm = lane % LM, ln = lane / LM;
    const int wm = warp % CF::WARPS_M, wn = warp / CF::WARPS_M;
    /* this lane's first element in a k row of the A / B tile (written out in each kernel and in
     * tile_product: the same lines as one shared helper changed ptxas's schedule of every K loop,
     * 15 of TN's fragment loads 6 instructions from their FFMAs: docs/NOTES.md "v0.14") */
    const int a_col = wm * CF::WM + 4 * lm, b_col = wn * CF::WN + 4 * ln;

    const int64_t tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int64_t tiles = tiles_m * tiles_n;

    for (int64_t unit = blockIdx.x; unit < tiles * splits; unit += gridDim.x) {
        const int64_t split = unit / tiles;
        int64_t bm, bn;
        tile_coords(unit - split * tiles, tiles_m, tiles_n, &bm, &bn);
        const int64_t m0 = bm * BM, n0 = bn * BN;
        const int64_t kb = split * kchunk;
        const int64_t klen = k - kb < kchunk ? k - kb : kchunk;
        float *Cs = C + split * split_stride;

        float acc[TM][TN];
        tile_product<CF, TRANS_A, TRANS_B, VA, VB>(acc, smem, A + (TRANS_A ? kb : kb * lda), lda,
                                                   B + (TRANS_B ? kb * ldb : kb), ldb, m, n, m0, n0, klen);
        write_tile<CF>(acc, Cs, ldc, m, n, m0, n0, a_col, b_col, alpha, beta);
        /* the next unit's prologue overwrites stages 0..S-2: no thread may still read them */
        __syncthreads();
    }
}

/*
 * A grid with a stream-K tail (TailPlan) in one launch: its first gridDim.x - tail.blocks blocks
 * ("data-parallel") stride over the first tiles - tail.tiles tiles as big_kernel does (unsplit:
 * C = alpha op(A) op(B) + beta C); its last tail.blocks blocks take the tail's runs of slices,
 * piece by piece (at most two per run: a run is shorter than a tile), each a whole partial BM x BN
 * tile of op(A) op(B) (no alpha, no beta; rows and columns past C's window hold zeros) into slot 2
 * b + j of W (ld BM), which tail_reduce_kernel then sums. The tail's tiles are the last tail.tiles
 * of the grid, in tile_coords' order. Same loaders, tile and dynamic shared memory as big_kernel.
 */
template <class CF, bool TRANS_A, bool TRANS_B, int VA, int VB>
__global__ void __launch_bounds__(CF::THREADS, CF::MIN_BLOCKS)
big_tail_kernel(int64_t m, int64_t n, int64_t k, float alpha, const float *__restrict__ A, int64_t lda,
                const float *__restrict__ B, int64_t ldb, float beta, float *__restrict__ C, int64_t ldc,
                TailPlan tail, float *__restrict__ W)
{
    constexpr int BM = CF::BM, BN = CF::BN, BK = CF::BK, TM = CF::TM, TN = CF::TN, LM = CF::LM, LN = CF::LN;
    extern __shared__ __align__(16) float smem[];
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int lm = lane % LM, ln = lane / LM;
    const int wm = warp % CF::WARPS_M, wn = warp / CF::WARPS_M;
    /* this lane's first element in a k row of the A / B tile (written out in each kernel and in
     * tile_product: the same lines as one shared helper changed ptxas's schedule of every K loop,
     * 15 of TN's fragment loads 6 instructions from their FFMAs: docs/NOTES.md "v0.14") */
    const int a_col = wm * CF::WM + 4 * lm, b_col = wn * CF::WN + 4 * ln;

    const int64_t tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int64_t dp_tiles = tiles_m * tiles_n - tail.tiles, dp_grid = (int64_t)gridDim.x - tail.blocks;
    const bool in_tail = (int64_t)blockIdx.x >= dp_grid;
    const int64_t tb = (int64_t)blockIdx.x - dp_grid; /* the tail block's number (in_tail) */

    /* A work item from its number cur: data-parallel, tile cur; tail, the piece of this block's
     * run that begins at slice cur (its first piece when cur is the run's start, else its second),
     * i.e. slices [s0, s1) of tail tile u. */
    struct Item {
        int64_t tile, s0, s1, next;
    };
    auto decode = [&](int64_t cur) {
        if (!in_tail) return Item{cur, 0, tail.kt, cur + dp_grid};
        const int64_t end = tail.start(tb + 1), u = cur / tail.kt, s0 = cur - u * tail.kt;
        const int64_t s1 = tail.kt - s0 < end - cur ? tail.kt : s0 + (end - cur);
        return Item{dp_tiles + u, s0, s1, cur + (s1 - s0)};
    };
    for (int64_t cur = in_tail ? tail.start(tb) : (int64_t)blockIdx.x;
         cur < (in_tail ? tail.start(tb + 1) : dp_tiles);) {
        float acc[TM][TN];
        {
            const Item it = decode(cur);
            int64_t bm, bn;
            tile_coords(it.tile, tiles_m, tiles_n, &bm, &bn);
            const int64_t kb = it.s0 * BK, klen = (it.s1 * BK < k ? it.s1 * BK : k) - kb;
            tile_product<CF, TRANS_A, TRANS_B, VA, VB>(acc, smem, A + (TRANS_A ? kb : kb * lda), lda,
                                                       B + (TRANS_B ? kb * ldb : kb), ldb, m, n, bm * BM,
                                                       bn * BN, klen);
        }
        /* Only cur lives across the K loop: the item is decoded again (opaquely, so that the
         * compiler does not keep the first decoding live instead). Keeping an item's pointer,
         * scalars and bounds live through the loop cost about 6% (the scheduler, at 255
         * registers, put fragment loads 6-17 instructions before their FFMAs: docs/NOTES.md
         * "v0.14"). */
        asm volatile("" : "+l"(cur));
        const Item it = decode(cur);
        int64_t bm, bn;
        tile_coords(it.tile, tiles_m, tiles_n, &bm, &bn);
        const int64_t m0 = bm * BM, n0 = bn * BN;
        if (!in_tail) {
            write_tile<CF>(acc, C, ldc, m, n, m0, n0, a_col, b_col, alpha, beta);
        } else { /* the whole partial tile */
            float *P = W + (2 * tb + (cur == tail.start(tb) ? 0 : 1)) * (int64_t)(BM * BN);
#pragma unroll
            for (int j = 0; j < TN; ++j) {
                float *pc = P + (b_col + 4 * LN * (j / 4) + (j % 4)) * BM;
#pragma unroll
                for (int i = 0; i < TM; ++i) pc[a_col + 4 * LM * (i / 4) + (i % 4)] = acc[i][j];
            }
        }
        cur = it.next;
        /* the next item's prologue overwrites stages 0..S-2: no thread may still read them */
        __syncthreads();
    }
}

/* big_tail_kernel's launch signature (big_kernel's is the SIMT family's KernelFn). */
using TailFn = void (*)(int64_t, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t,
                        float, float *, int64_t, TailPlan, float *);

/* The instance for a transpose pair and the operands' alignment (va/vb: 16-byte copies possible).
 * Alignment only matters for an operand copied in vectors (contiguous along m / n, or A
 * transposed in a configuration with AKC), so TN has one instance (AKC: two), NN two, TT two
 * (AKC: four), NT four. */
#define TSG_BIG_PICK(K)                                                                            \
    if (ta && !tb) {                                                                               \
        if constexpr (CF::AKC != 0)                                                                \
            if (va) return K<CF, true, false, 4, 1>;                                               \
        return K<CF, true, false, 1, 1>;                                                           \
    }                                                                                              \
    if (ta) {                                                                                      \
        if constexpr (CF::AKC != 0)                                                                \
            if (va) return vb ? K<CF, true, true, 4, 4> : K<CF, true, true, 4, 1>;                 \
        return vb ? K<CF, true, true, 1, 4> : K<CF, true, true, 1, 1>;                             \
    }                                                                                              \
    if (!tb) return va ? K<CF, false, false, 4, 1> : K<CF, false, false, 1, 1>;                    \
    return va ? (vb ? K<CF, false, true, 4, 4> : K<CF, false, true, 4, 1>)                         \
              : (vb ? K<CF, false, true, 1, 4> : K<CF, false, true, 1, 1>);
template <class CF>
KernelFn pick_big(bool ta, bool tb, bool va, bool vb)
{
    TSG_BIG_PICK(big_kernel)
}
template <class CF>
TailFn pick_tail(bool ta, bool tb, bool va, bool vb)
{
    TSG_BIG_PICK(big_tail_kernel)
}
#undef TSG_BIG_PICK

} /* namespace big */

/* Instance pickers of the configurations (tsg_kernel_big_config.h), one file each so that a
 * parallel build compiles them side by side (big/tsg_kernel_big_<tile>.cu): big_kernel's
 * instances and big_tail_kernel's. */
KernelFn pick_big_256x128(bool ta, bool tb, bool va, bool vb);
big::TailFn pick_tail_big_256x128(bool ta, bool tb, bool va, bool vb);
KernelFn pick_big_256x64(bool ta, bool tb, bool va, bool vb);
big::TailFn pick_tail_big_256x64(bool ta, bool tb, bool va, bool vb);
KernelFn pick_big_64x256(bool ta, bool tb, bool va, bool vb);
big::TailFn pick_tail_big_64x256(bool ta, bool tb, bool va, bool vb);

} /* namespace tsg */

#endif /* TSG_KERNEL_BIG_CUH */
