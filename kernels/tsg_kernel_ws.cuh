/*
 * tsg_kernel_ws.cuh — tsgemm's warp-specialized SGEMM kernel family for large C grids (candidate
 * 14, after issue 10's goal of >= 0.95x cuBLAS on every transpose pair): FP32 SIMT, the big
 * family's tile, warp tiles and fragment layout (tsg_kernel_big.cuh), but the global -> shared
 * copies are issued by a warp of their own and the stages are handed over by mbarriers instead of
 * __syncthreads. Same launch signature, split-K semantics and tile order (tile_coords) as the
 * other families, so kernel_plan treats its configurations like any other.
 *
 * Owns: this family's kernel, its producer's loader and the mbarrier helpers, under the kernel
 * contract of DESIGN.md. Must not: know about host memory, CBLAS, or anything but device pointers
 * and the canonical problem. Borrows from tsg_kernel_big.cuh only the cp.async wrappers.
 *
 * Why (the hypothesis to be measured against configuration 7): configuration 7's K-step loop is
 * ~91% FFMA (SASS: ~2206-2262 instructions per 2048 FFMA per warp and slice); the rest is the
 * cp.async loader's address math and LDGSTS, issued by the same warps that do the math, and one
 * __syncthreads per 16-k slice across 8 warps with one block per SM (2 warps per scheduler), where
 * any warp late at the barrier stalls all 8. Here:
 *  - a block has CWARPS = (BM/WM) * (BN/WN) consumer warps (warps 0 .. CWARPS-1, laid out exactly
 *    as big_kernel's warps: lanes an LM x LN grid, TM x TN accumulators of 4 x 4 sub-tiles) plus
 *    one producer warp (warp CWARPS): THREADS = 32 * (CWARPS + 1).
 *  - registers: 9 warps on an SM's 4 schedulers put 3 on one of them, whose quarter of the
 *    register file (16384) then caps every thread at 168 registers (ptxas, __launch_bounds__(288,
 *    1)), not 255 as configuration 7's 8 warps. 128 accumulators leave no room for big_kernel's
 *    two full fragments (2 x 24 floats: 600 bytes of spills), so a consumer keeps one A fragment
 *    (TM floats) and B's in groups of 4, two group buffers: group q + 1 of a step's B fragment is
 *    read while group q's TM x 4 FFMAs run, and the next step's A fragment 4 rows at a time during
 *    the step's last group, as each 4 rows are done (the SASS loop then has 2205 instructions per
 *    2048 FFMA, little register shuffling; configuration 7: 2206-2262).
 *  - the producer walks the same sequence of work units and slices as the consumers; slice g of
 *    the block (g counts across units) goes to stage g % STAGES. For each slice it waits until the
 *    stage is empty, issues its cp.async copies and then cp.async.mbarrier.arrive.noinc on the
 *    stage's "full" barrier (32 arrivals: one per producer lane, each triggered when that lane's
 *    copies have landed). A consumer warp waits on "full" before its first fragment read of a
 *    slice (for all but a unit's first slice: during the previous slice's last k step) and,
 *    after its last one (B's last group of the slice's last k step), __syncwarp()s and arrives
 *    once on "empty" (CWARPS arrivals). Phase parity of use u of a stage (u = g / STAGES): full
 *    completes its u-th phase, so it is waited with parity u & 1; the producer's u-th refill waits
 *    for the (u-1)-th completion of empty, parity (u & 1) ^ 1, and skips the wait for u = 0.
 *  - no __syncthreads after the barriers' initialisation except one at the very end that all
 *    threads reach; in particular none between units, so the producer fills the next unit's
 *    stages while the consumers write C back.
 *  - zero fill as big::AsyncLoader: out-of-range elements are copied with src-size 0 (or a partial
 *    16-byte vector), the source address then being the operand's first element, so nothing
 *    outside the operand is ever addressed; the store to shared memory is never skipped. An
 *    operand contiguous along m / n goes in 16-byte copies when its base and ld are 16-byte
 *    aligned (V = 4), else in 4-byte ones; one contiguous along k in 4-byte copies, BK consecutive
 *    lanes on BK consecutive k of one column (landing transposed in the k-major tile), optionally
 *    swizzled (SWZ) as configuration 7's B: element (mn, kk) at column mn ^ kswz(kk). With one warp
 *    a pass covers only 32 / BK columns (2 at BK = 16), so the XOR's effect on a lane's column
 *    depends on the pass (WsLoader keeps one shared offset per pass residue).
 * Costs this design accepts (to be weighed by the device run): all loader instructions issue from
 * one warp, i.e. on one of the SM's four schedulers, the one that also runs 2 consumer warps
 * (per slice and producer lane, 16-byte aligned operands: NN 32 + 64 copies, NT 32 + 16, TN
 * 128 + 64, TT 128 + 16: the 4-byte copies of a transposed A dominate); the register cap above.
 * Sources of the ideas: the producer/consumer warp specialisation with per-stage full/empty
 * barriers as described in NVIDIA's Hopper GEMM material and the CUTLASS pipeline documentation
 * (the pattern only; no code taken from them); PTX ISA's mbarrier and cp.async.mbarrier.arrive
 * sections for the primitives' semantics.
 */
#ifndef TSG_KERNEL_WS_CUH
#define TSG_KERNEL_WS_CUH

#include <stdint.h>

#include "tsg_kernel_big.cuh" /* big::cp_async, big::smem_addr, big::PAD; KernelFn, tile_coords */

namespace tsg {
namespace ws {

using big::PAD;

/*
 * One configuration: C tile BM x BN, consumer warp tile WM x WN, lanes LM along m, K step BK (8,
 * 16 or 32), STAGES shared buffers, SWZ (bit 0: A, bit 1: B; only for an operand contiguous along
 * k), PF (L2 prefetch bytes of the 4-byte copies: 0 or 128). One block per SM. The BS_* fields
 * (big family: k step of B's copies) exist for the launcher's table and are 0: the producer
 * issues a slice's copies as soon as its stage is empty.
 */
template <int BM_, int BN_, int WM_, int WN_, int LM_, int BK_, int STAGES_, int SWZ_ = 0, int PF_ = 0>
struct WsConfig {
    static constexpr int BM = BM_, BN = BN_, WM = WM_, WN = WN_, LM = LM_, LN = 32 / LM_;
    static constexpr int BK = BK_, STAGES = STAGES_, MIN_BLOCKS = 1;
    static constexpr int SWZ = SWZ_, PF = PF_;
    static constexpr int BS_NN = 0, BS_NT = 0, BS_TN = 0, BS_TT = 0;
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN, CWARPS = WARPS_M * WARPS_N;
    static constexpr int CTHREADS = 32 * CWARPS, THREADS = CTHREADS + 32; /* + the producer warp */
    static constexpr int TM = WM / LM, TN = WN / LN;
    static constexpr int SA = BM + PAD, SB = BN + PAD;             /* shared row strides, floats */
    static constexpr int STAGE_FLOATS = BK * (SA + SB);
    static constexpr int BAR_OFF = STAGES * STAGE_FLOATS * 4;      /* full[STAGES], empty[STAGES] */
    static constexpr int SMEM_BYTES = BAR_OFF + 2 * STAGES * 8;    /* dynamic shared memory */
    static_assert(BM % WM == 0 && BN % WN == 0 && 32 % LM == 0, "warps and lanes tile the block");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && WM % (4 * LM) == 0 && WN % (4 * LN) == 0,
                  "lane tiles are made of 4 x 4 sub-tiles");
    static_assert(BK == 8 || BK == 16 || BK == 32, "BK: 8, 16 or 32");
    static_assert(STAGES >= 2, "at least two stages");
    static_assert(BAR_OFF % 8 == 0, "mbarriers are 8-byte aligned");
    static_assert(PF == 0 || PF == 128, "PF: 0 or 128 bytes");
};

/* ---- mbarriers (sm_80+; the waits differ: try_wait on sm_90+, test_wait before) ---- */

static __device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
#else
    (void)bar, (void)count;
    __trap();
#endif
}

/* makes the initialisations visible to the other threads' barrier operations (with the
 * __syncthreads that follows it; within one CTA the __syncthreads alone suffices on sm_80) */
static __device__ __forceinline__ void mbar_init_fence()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

/* one arrival (release semantics at CTA scope: this thread's earlier shared-memory reads are
 * ordered before it) */
static __device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared.b64 st, [%0];\n}\n" ::"r"(bar) : "memory");
#else
    (void)bar;
    __trap();
#endif
}

/* an arrival triggered once all of this thread's earlier cp.async copies have landed; .noinc: it
 * counts against the barrier's initial count (one per producer lane) */
static __device__ __forceinline__ void mbar_arrive_cp_async(uint32_t bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(bar) : "memory");
#else
    (void)bar;
    __trap();
#endif
}

/* Waits until the phase of parity `parity` has completed (acquire at CTA scope). asm volatile
 * with a memory clobber: no shared-memory read after it is hoisted above it. */
static __device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    uint32_t done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    } while (!done);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    uint32_t done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    } while (!done);
#else
    (void)bar, (void)parity;
    __trap();
#endif
}

/*
 * The producer warp's copies of BK x W slices [k0, k0 + BK) x [mn0, mn0 + W) of op(X) into a
 * k-major shared tile s[kk][mn] (row stride W + PAD), one slice per issue(); `lane` is the
 * producer's lane (0..31). CONTIG_MN: op(X)(mn, kk) = x[mn + kk*ld]; otherwise x[kk + mn*ld].
 *  - CONTIG_MN: a pass is one k row; lane l owns vectors l + 32j (j < CP = W / VW / 32) of it:
 *    BK passes, consecutive lanes on consecutive 4- or 16-byte vectors.
 *  - contiguous along k (VW = 1): lane l owns k = l % BK of columns l / BK + q * CPW (CPW = 32 /
 *    BK columns per pass, W / CPW passes), BK lanes on BK consecutive floats of one column.
 *    SWZ: element (mn, kk) lands at column mn ^ kswz(kk), kswz(kk) = (kk % BK / 8) * (32 / BK) <
 *    4 (configuration 7's B swizzle; at BK = 16 the 32 lanes of a pass then hit 32 banks). The
 *    XOR only touches the low 2 bits of the column, so the column of pass q is
 *    (q - q % R) * CPW + ((q % R) * CPW + l / BK) ^ kswz, R = 4 / CPW passes (1 when CPW >= 4 or
 *    unswizzled): one precomputed shared offset per residue q % R.
 * Elements outside [0, mn_end) x [0, k_end) are zero-filled (src-size 0 or a partial vector; the
 * source address is then x itself).
 */
template <int W, int BK, bool CONTIG_MN, int VW, bool SWZ = false, int PF = 0>
struct WsLoader {
    static_assert(CONTIG_MN || VW == 1, "an operand contiguous along k is copied a float at a time");
    static_assert(VW == 1 || VW == 4, "4- or 16-byte copies");
    static constexpr int SROW = W + PAD;
    static constexpr int CP = CONTIG_MN ? W / VW / 32 : 1;       /* vectors of a row per lane */
    static constexpr int CPW = CONTIG_MN ? 0 : 32 / BK;          /* columns per pass (along k) */
    static constexpr int PASSES = CONTIG_MN ? BK : W / CPW;
    static constexpr int R = (!CONTIG_MN && SWZ && CPW < 4) ? 4 / CPW : 1; /* swizzle residues */
    static_assert(!CONTIG_MN || (W % (32 * VW) == 0 && CP >= 1), "32 lanes cover a row");
    static_assert(CONTIG_MN || (W % CPW == 0 && PASSES % R == 0), "the lanes cover the columns");
    static_assert(!SWZ || !CONTIG_MN, "only an operand contiguous along k is swizzled");
    static constexpr __host__ __device__ int kswz(int kk) { return (kk % BK / 8) * (32 / BK); }

    const float *x;   /* the operand's first element (a valid address for zero-size copies) */
    const float *p;   /* this lane's first element of the current slice */
    int64_t step;     /* address step from one slice to the next */
    int64_t pstep;    /* address step from one pass to the next */
    int64_t k_left;   /* k_end minus this lane's first k in the current slice */
    int mn_lim;       /* valid elements ahead along mn from the lane's first (0..W) */
    uint32_t s_off[R]; /* byte offset of this lane's element of pass q % R (minus the pass's base) */

    __device__ __forceinline__ WsLoader(const float *x_, int64_t ld, int64_t mn0, int64_t mn_end,
                                        int64_t k_end, int lane)
    {
        const int c = CONTIG_MN ? lane * VW : lane / BK; /* first mn offset in the tile */
        const int kk = CONTIG_MN ? 0 : lane % BK;        /* first k in the slice */
        const int64_t mn = mn0 + c;
        x = x_;
        p = CONTIG_MN ? x_ + mn : x_ + mn * ld + kk; /* 64-bit: coordinate times ld */
        step = CONTIG_MN ? (int64_t)BK * ld : (int64_t)BK;
        pstep = CONTIG_MN ? ld : (int64_t)CPW * ld;
        k_left = k_end - kk;
        const int64_t left = mn_end - mn;
        mn_lim = (int)(left < 0 ? 0 : left > W ? W : left);
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const int col = CONTIG_MN ? c : SWZ ? (r * CPW + c) ^ kswz(kk) : r * CPW + c;
            s_off[r] = (uint32_t)((kk * SROW + col) * 4);
        }
    }

    /* Issues this lane's copies of the current slice into the tile at shared address s_tile and
     * advances to the next slice. FULL (block-uniform promise): the slice lies wholly inside the
     * operand, so no element needs a check. */
    template <bool FULL>
    __device__ __forceinline__ void issue(uint32_t s_tile)
    {
        const float *pq = p;
#pragma unroll
        for (int q = 0; q < PASSES; ++q) {
#pragma unroll
            for (int j = 0; j < CP; ++j) {
                int bytes = VW * 4;
                if (FULL)
                    ;
                else if (CONTIG_MN) { /* row k = q; vector j along mn */
                    const int v = mn_lim - j * 32 * VW;
                    bytes = k_left > q ? (v < 0 ? 0 : v > VW ? VW : v) * 4 : 0;
                } else                /* columns first + q*CPW; one element at this lane's k */
                    bytes = (mn_lim > q * CPW && k_left > 0) ? 4 : 0;
                const float *src = FULL || bytes ? pq + j * 32 * VW : x;
                const uint32_t dst = CONTIG_MN ? s_tile + s_off[0] + (q * SROW + j * 32 * VW) * 4
                                               : s_tile + s_off[q % R] + (q - q % R) * CPW * 4;
                big::cp_async<VW * 4, PF>(dst, src, bytes);
            }
            pq += pstep;
        }
        p += step;
        k_left -= BK;
    }
};

/*
 * The kernel: one launch covers all work units (a 1-D grid striding over ceil(m/BM) *
 * ceil(n/BN) tiles times `splits` slices of K; split s of a tile computes the k range
 * [s*kchunk, min(k, (s+1)*kchunk)) into C + s*split_stride). VA / VB: the vector width of A's /
 * B's copies when that operand is contiguous along m / n. Dynamic shared memory: CF::SMEM_BYTES
 * (STAGES stages of As[BK][SA] then Bs[BK][SB], then the 2 * STAGES mbarriers).
 */
template <class CF, bool TRANS_A, bool TRANS_B, int VA, int VB>
__global__ void __launch_bounds__(CF::THREADS, 1)
ws_kernel(int64_t m, int64_t n, int64_t k, int64_t kchunk, int64_t splits, float alpha,
          const float *__restrict__ A, int64_t lda, const float *__restrict__ B, int64_t ldb,
          float beta, float *__restrict__ C, int64_t ldc, int64_t split_stride)
{
    constexpr int BM = CF::BM, BN = CF::BN, BK = CF::BK, TM = CF::TM, TN = CF::TN;
    constexpr int LM = CF::LM, LN = CF::LN, S = CF::STAGES;
    /* A not transposed is contiguous along m; B transposed is contiguous along n. */
    using LoadA = WsLoader<BM, BK, !TRANS_A, TRANS_A ? 1 : VA, TRANS_A && (CF::SWZ & 1), CF::PF>;
    using LoadB = WsLoader<BN, BK, TRANS_B, TRANS_B ? VB : 1, !TRANS_B && (CF::SWZ & 2), CF::PF>;
    /* whether the compute loop undoes a swizzle: that operand is contiguous along k and swizzled */
    constexpr bool SWA = TRANS_A && (CF::SWZ & 1), SWB = !TRANS_B && (CF::SWZ & 2);

    extern __shared__ __align__(16) float smem[];
    const uint32_t s_base = big::smem_addr(smem);
    constexpr uint32_t STAGE_B = CF::STAGE_FLOATS * 4, B_OFF = BK * CF::SA * 4;
    /* full[s] at bar_full + 8s, empty[s] at bar_empty + 8s */
    const uint32_t bar_full = s_base + CF::BAR_OFF, bar_empty = bar_full + 8 * S;

    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    if (t == 0) {
#pragma unroll
        for (int s = 0; s < S; ++s) {
            mbar_init(bar_full + 8 * s, 32);             /* the producer's lanes */
            mbar_init(bar_empty + 8 * s, CF::CWARPS);    /* one lane per consumer warp */
        }
        mbar_init_fence();
    }
    __syncthreads(); /* the only barrier before the roles split: everyone sees initialised mbarriers */

    const int64_t tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int64_t tiles = tiles_m * tiles_n;

    if (warp == CF::CWARPS) {
        /* ---- producer: every slice of every unit of this block, in the consumers' order ---- */
        int stage = 0;
        uint32_t phase = 0; /* parity of the current use of `stage` */
        int primed = 0;     /* stages filled once (no empty wait before the first use) */
        for (int64_t unit = blockIdx.x; unit < tiles * splits; unit += gridDim.x) {
            const int64_t split = unit / tiles;
            int64_t bm, bn;
            tile_coords(unit - split * tiles, tiles_m, tiles_n, &bm, &bn);
            const int64_t m0 = bm * BM, n0 = bn * BN;
            const int64_t kb = split * kchunk;
            const int64_t klen = k - kb < kchunk ? k - kb : kchunk;
            const int64_t ktiles = (klen + BK - 1) / BK;
            LoadA la(A + (TRANS_A ? kb : kb * lda), lda, m0, m, klen, lane);
            LoadB lb(B + (TRANS_B ? kb * ldb : kb), ldb, n0, n, klen, lane);
            /* block-uniform: the tile lies inside op(A) along m / op(B) along n; slices below
             * kfull lie inside along k */
            const bool a_in = m0 + BM <= m, b_in = n0 + BN <= n;
            const int64_t kfull = klen / BK;
            for (int64_t kt = 0; kt < ktiles; ++kt) {
                if (primed == S) mbar_wait(bar_empty + 8 * stage, phase ^ 1); /* use u-1 released */
                else ++primed;
                const uint32_t st = s_base + stage * STAGE_B;
                if (a_in && kt < kfull) la.template issue<true>(st);
                else la.template issue<false>(st);
                if (b_in && kt < kfull) lb.template issue<true>(st + B_OFF);
                else lb.template issue<false>(st + B_OFF);
                mbar_arrive_cp_async(bar_full + 8 * stage);
                if (++stage == S) stage = 0, phase ^= 1;
            }
        }
        big::cp_async_wait<0>(); /* nothing of this lane's in flight when it leaves its loop */
    } else {
        /* ---- consumers: warps 0 .. CWARPS-1, big_kernel's warp and lane layout ---- */
        const int lm = lane % LM, ln = lane / LM;
        const int wm = warp % CF::WARPS_M, wn = warp / CF::WARPS_M;
        const int a_col = wm * CF::WM + 4 * lm, b_col = wn * CF::WN + 4 * ln;
        uint32_t g = 0; /* the block's slice counter: stage g % S, parity (g / S) & 1 */

        /* Fragments, one buffer for A's (TM floats) and two groups of 4 for B's: group q + 1 of
         * B's fragment of a k step is read while group q's TM x 4 FFMAs run (group 0 of the next
         * step during the last group); A's fragment of the next step is read 4 rows at a time
         * during the last group, each as soon as the step's FFMAs are done with those rows. */
        float4 fa[TM / 4], fb[2];
        const float *const fa_base = smem + a_col, *const fb_base = smem + BK * CF::SA + b_col;
        auto lds_a = [&](int h, int st, int kk) {
            fa[h] = *reinterpret_cast<const float4 *>(fa_base + st * CF::STAGE_FLOATS + kk * CF::SA + 4 * LM * h);
        };
        auto lds_b = [&](int buf, int st, int kk, int grp) {
            fb[buf] = *reinterpret_cast<const float4 *>(fb_base + st * CF::STAGE_FLOATS + kk * CF::SB + 4 * LN * grp);
        };
        constexpr int NG = TN / 4; /* B groups per step */
        static_assert(NG % 2 == 0, "B's group buffers alternate the same way in every step");

        for (int64_t unit = blockIdx.x; unit < tiles * splits; unit += gridDim.x) {
            const int64_t split = unit / tiles;
            const int64_t kb = split * kchunk;
            const int64_t klen = k - kb < kchunk ? k - kb : kchunk;
            const int64_t ktiles = (klen + BK - 1) / BK;

            float acc[TM][TN];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

            {
                const int stage = g % S;
                mbar_wait(bar_full + 8 * stage, (g / S) & 1); /* the unit's first slice landed */
#pragma unroll
                for (int h = 0; h < TM / 4; ++h) lds_a(h, stage, 0);
                lds_b(0, stage, 0, 0);
            }
            for (const uint32_t e = g + (uint32_t)ktiles; g != e; ++g) {
                const int stage = g % S;
                const bool more = g + 1 != e;
#pragma unroll
                for (int kk = 0; kk < BK; ++kk) {
                    /* where the next step's fragments come from: this slice's stage, or at its
                     * last step the next slice's */
                    const bool nxt = kk < BK - 1 || more;
                    const int ns = kk < BK - 1 ? stage : (g + 1) % S, nk = (kk + 1) % BK;
                    const float *av = reinterpret_cast<const float *>(fa);
                    const int sa = SWA ? LoadA::kswz(kk) : 0, sb = SWB ? LoadB::kswz(kk) : 0;
#pragma unroll
                    for (int q = 0; q < NG; ++q) {
                        if (kk == BK - 1 && q == NG - 1 && more)
                            mbar_wait(bar_full + 8 * ns, ((g + 1) / S) & 1); /* next slice landed */
                        if (q + 1 < NG) lds_b((q + 1) % 2, stage, kk, q + 1);
                        else if (nxt) lds_b(0, ns, nk, 0);
                        if (kk == BK - 1 && q == NG - 2) {
                            /* that was this warp's last read of the slice's stage: release it
                             * to the producer */
                            __syncwarp();
                            if (lane == 0) mbar_arrive(bar_empty + 8 * stage);
                        }
                        const float *bv = reinterpret_cast<const float *>(&fb[q % 2]);
#pragma unroll
                        for (int h = 0; h < TM / 4; ++h) {
#pragma unroll
                            for (int i = 4 * h; i < 4 * h + 4; ++i)
#pragma unroll
                                for (int j = 0; j < 4; ++j)
                                    acc[i][4 * q + j] = fmaf(av[i ^ sa], bv[j ^ sb], acc[i][4 * q + j]);
                            if (q == NG - 1 && nxt) lds_a(h, ns, nk);
                        }
                    }
                }
            }

            int64_t bm, bn;
            tile_coords(unit - split * tiles, tiles_m, tiles_n, &bm, &bn);
            const int64_t m0 = bm * BM, n0 = bn * BN;
            float *Cs = C + split * split_stride;
            /* Write-back (big_kernel's): only elements inside C's m x n window; beta == 0 never
             * reads C. */
#pragma unroll
            for (int j = 0; j < TN; ++j) {
                const int64_t col = n0 + b_col + 4 * LN * (j / 4) + (j % 4);
                if (col >= n) continue;
                float *cc = Cs + col * ldc;
#pragma unroll
                for (int i = 0; i < TM; ++i) {
                    const int64_t row = m0 + a_col + 4 * LM * (i / 4) + (i % 4);
                    if (row < m) {
                        float *c = cc + row;
                        const float v = alpha * acc[i][j];
                        *c = beta == 0.0f ? v : fmaf(beta, *c, v);
                    }
                }
            }
        }
    }
    /* every thread of the block, both roles, once: no warp leaves while another may still wait on
     * a barrier it arrives on */
    __syncthreads();
}

/* The instance for a transpose pair and the operands' alignment (as big::pick_big: TN one
 * instance, NN two, TT two, NT four). */
template <class CF>
KernelFn pick_ws(bool ta, bool tb, bool va, bool vb)
{
    if (ta && !tb) return ws_kernel<CF, true, false, 1, 1>;
    if (ta) return vb ? ws_kernel<CF, true, true, 1, 4> : ws_kernel<CF, true, true, 1, 1>;
    if (!tb) return va ? ws_kernel<CF, false, false, 4, 1> : ws_kernel<CF, false, false, 1, 1>;
    return va ? (vb ? ws_kernel<CF, false, true, 4, 4> : ws_kernel<CF, false, true, 4, 1>)
              : (vb ? ws_kernel<CF, false, true, 1, 4> : ws_kernel<CF, false, true, 1, 1>);
}

} /* namespace ws */

/*
 * Candidate 14 (built only with -DTSGEMM_KERNEL_CANDIDATES=ON; tsg_kernel_big_cand14.cu):
 * configuration 7's tile (256 x 128, BK = 16, 8 consumer warps of 64 x 64, lanes 8 x 4, 8 x 16
 * accumulators per lane, B swizzled when contiguous along k, 128-byte L2 prefetch on the 4-byte
 * copies) with a producer warp (288 threads) and 4 stages (98 KB + 64 B of dynamic shared memory).
 * Untimed; to be measured against configuration 7 and cuBLAS on the four transpose pairs.
 */
using Cand14 = ws::WsConfig<256, 128, 64, 64, 8, 16, 4, 2, 128>;
KernelFn pick_cand14(bool ta, bool tb, bool va, bool vb);

} /* namespace tsg */

#endif /* TSG_KERNEL_WS_CUH */
