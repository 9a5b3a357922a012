/*
 * tsg_kernel_ws.cuh — tsgemm's warp-specialized SGEMM kernel family for Hopper (issue 10): FP32
 * SIMT, the big family's tile, warp tiles, fragment layout and FFMA orders (../big/),
 * but every global -> shared copy is issued by a producer warpgroup and the stages are handed over
 * by mbarriers instead of __syncthreads; `setmaxnreg` moves the producer's registers to the
 * consumers. Needs sm_90a (setmaxnreg): its instance files are compiled for that target only
 * (CMakeLists.txt) and the launcher offers it on a compute capability 9.0 device only.
 * Same launch signature, split-K semantics and tile order (tile_coords) as the other families.
 *
 * Owns: this family's kernel and its loader RowLoader, under the kernel contract of docs/DESIGN.md.
 * Must not: know about host memory, CBLAS, or anything but device pointers and the canonical
 * problem. Uses from ../common/ the cp.async wrappers, AsyncLoader (for operands contiguous along
 * m / n), the mbarrier and setmaxnreg wrappers, ffma_ij and write_tile; its own RowLoader copies
 * an operand contiguous along k (the transposing copies, zero fill and swizzle as AsyncLoader's,
 * a cheaper thread mapping). The configuration: tsg_kernel_ws_config.h.
 *
 * Why (docs/NOTES.md "v0.19"): configuration 7's 8 warps issue their own copies (TN: 24 LDGSTS.32
 * per thread and slice, with their address arithmetic; NN 12, NT 6) and meet at one __syncthreads
 * per 16-k slice; ncu put TN's extra stalls on those copies — write-after-read on the registers
 * of queued LDGSTS and the LSU queue ("v0.18"). A warp-specialized kernel with one producer warp
 * (288 threads) lost 20-25% because 9 warps cap every thread at 168 registers (a scheduler's
 * quarter of the register file holds 3 warps), which left no room for two fragment buffers
 * ("v0.13"). Here, with sm_90a:
 *  - THREADS = CTHREADS + 128: warps 0 .. CWARPS-1 (two warpgroups at CWARPS = 8) are the
 *    consumers, laid out exactly as big_kernel's warps; the last warpgroup (4 warps, one per
 *    scheduler) is the producer. __launch_bounds__(THREADS, 1) caps every thread at 168
 *    registers at entry; the producer then gives registers back (setmaxnreg.dec to PREG) and the
 *    consumers take them (setmaxnreg.inc to CREG): 128 PREG + CTHREADS CREG <= 65536, and per
 *    scheduler 32 PREG + 64 CREG <= 16384 (CREG 232, PREG 40: 16128).
 *  - the producer walks the consumers' sequence of work units and slices; slice g of the block
 *    (g counts across units) goes to stage g mod STAGES. Per slice each producer thread waits
 *    until the stage is empty, issues its copies (AsyncLoader or RowLoader over 128
 *    threads) and cp.async.mbarrier.arrive.noinc on the stage's
 *    "full" barrier (128 arrivals, each when that thread's copies have landed).
 *  - a consumer thread waits on "full" before its first fragment read of a slice (during the
 *    previous slice's last k step, as big_kernel's barrier), and arrives on "empty" at the
 *    slice's last k step, when its last read of the stage (the fragments of that step, loaded
 *    one step earlier) is behind it (CTHREADS arrivals: every consumer thread, so that no read
 *    reaches the producer's writes through a warp barrier only).
 *  - phase parity of use u of a stage: "full" completes its u-th phase, waited with parity u & 1;
 *    the producer's u-th fill waits for the (u-1)-th completion of "empty", parity (u & 1) ^ 1,
 *    which for u = 0 a fresh barrier reports complete at once (PTX ISA, mbarrier.try_wait: the
 *    phase before the current one counts as completed).
 *  - no __syncthreads after the barriers' initialisation but one at the very end that every
 *    thread reaches; none between units, so the producer fills the next unit's stages while the
 *    consumers write C back.
 *  - zero fill, the transposes and the swizzles are AsyncLoader's (../common/tsg_cp_async.cuh; RowLoader
 *    keeps them): out-of-range elements are copied with src-size 0 (or a partial 16-byte vector)
 *    from the operand's first element; the store to shared memory is never skipped.
 * Sources of the ideas: producer / consumer warp specialisation with per-stage full / empty
 * barriers and register reallocation between warpgroups as described in NVIDIA's Hopper tuning
 * guide and the CUTLASS pipeline documentation (the pattern only; no code taken from them); the
 * PTX ISA's mbarrier, cp.async.mbarrier.arrive and setmaxnreg sections for the primitives.
 */
#ifndef TSG_KERNEL_WS_CUH
#define TSG_KERNEL_WS_CUH

#include <stdint.h>

#include <type_traits>

#include "../common/tsg_cp_async.cuh"    /* cp_async, AsyncLoader, smem_addr */
#include "../common/tsg_kernel_common.h"  /* KernelFn, PAD */
#include "../common/tsg_mbarrier.cuh"    /* mbar_*, regs_inc / regs_dec */
#include "../common/tsg_tile_coords.cuh" /* tile_coords */
#include "../common/tsg_warp_tile.cuh"   /* ffma_ij, write_tile */
#include "tsg_kernel_ws_config.h"

namespace tsg {
namespace ws {

/* Work unit `unit` of the grid, as in every family: tile unit mod tiles (tile_coords' order) over
 * K range split = unit / tiles, [kb, kb + klen). The producer's decoding; the consumers decode
 * the tile only after their K loop, so that nothing of it stays live through the loop. */
struct Unit {
    int64_t m0, n0, kb, klen;
};
template <int BM, int BN>
static __device__ __forceinline__ Unit unit_of(int64_t unit, int64_t tiles, int64_t tiles_m, int64_t tiles_n,
                                               int64_t k, int64_t kchunk)
{
    const int64_t split = unit / tiles;
    int64_t bm, bn;
    tile_coords(unit - split * tiles, tiles_m, tiles_n, &bm, &bn);
    const int64_t kb = split * kchunk;
    return Unit{bm * BM, bn * BN, kb, k - kb < kchunk ? k - kb : kchunk};
}

/*
 * Copies BK x W slices [k0, k0 + BK) x [mn0, mn0 + W) of an operand contiguous along k
 * (op(X)(mn, kk) = x[kk + mn*ld]; any base, any ld) into the tile AsyncLoader<W, BK, 128, false,
 * 1, SWZ, PF> writes — row kk of W + PAD floats, element mn at column mn, or mn ^ kswz(kk) when
 * swizzled — with the same 4-byte cp.async copies and the same zero fill (src-size 0 from x for
 * an element past mn_end or k_end), by the producer warpgroup's 128 threads in another mapping:
 * lane l of producer warp w copies k = l % 4 + 4 j (j < BK / 4) of rows r0 + 32 q (q < W / 32),
 * r0 = 4 w + (l / 4) % 4 + 16 (l / 16).
 *  - instructions: a thread's copies of one pass are one row pointer plus compile-time offsets
 *    (4 j floats in global memory, 4 j rows in shared), one 64-bit add per pass. AsyncLoader's
 *    mapping (16 lanes on one row's 16 k, 2 rows per warp) moves to a new row, ld away, with every
 *    copy, whose 64-bit address took ptxas 4-6 instructions: the TN producer issued 323
 *    instructions per slice and warp on its FULL path, NN's 146, NT's 86 (docs/NOTES.md "v0.20"),
 *    issue slots its scheduler's two consumer warps (2183 each) share with it.
 *  - banks: one copy instruction's 32 stores fall in k rows kq = 0..3 (+ 4 j; a row is W + 4
 *    floats, 4 banks on mod 32 when W % 32 == 0) at columns 4 w + {0..3, 16..19} (+ 32 q), the
 *    swizzle permuting within aligned groups of 4: bank 4 kq + column mod 32 takes each of the 32
 *    values once, no conflict (AsyncLoader's mapping: 2-way unless swizzled).
 *  - global memory: an instruction reads 16 contiguous bytes of each of 8 rows; the instruction
 *    of j ^ 1 reads the other half of those 32-byte sectors (through L1: 4-byte copies are .ca).
 */
template <int W, int BK, bool SWZ, int PF>
struct RowLoader {
    static constexpr int KQ = 4;               /* lanes along k */
    static constexpr int RSTEP = PRODUCERS / KQ; /* rows per pass: 32 */
    static constexpr int PASSES = W / RSTEP, KSTEPS = BK / KQ;
    static constexpr int SROW = W + PAD;
    static_assert(PRODUCERS == 128 && W % RSTEP == 0 && BK % KQ == 0 && SROW % 32 == 4,
                  "four warps of 8 rows x 4 k; the bank argument needs rows 4 banks apart");
    /* the column swizzle of row kk, AsyncLoader::kswz's (the consumers undo it through LoadX::kswz;
     * ws_kernel checks that the two agree) */
    static constexpr __host__ __device__ int kswz(int kk) { return SWZ ? (kk % BK / 8) * (32 / BK) : 0; }

    const float *x;  /* the operand's first element (a valid address for zero-size copies) */
    const float *p;  /* this thread's first element of the current slice (k = kq, row r0) */
    int64_t pstep;   /* address step from one pass to the next: RSTEP rows, ld apart */
    int64_t k_left;  /* k_end minus this thread's first k (kq) in the current slice */
    int mn_lim;      /* valid rows from r0 (0..W) */
    int r0;          /* this thread's first row of the tile */
    uint32_t s_off;  /* byte offset of row kq in a stage's tile */

    __device__ __forceinline__ RowLoader(const float *x_, int64_t ld, int64_t mn0, int64_t mn_end, int64_t k_end,
                                         int t)
    {
        const int w = t / 32, l = t % 32, kq = l % KQ;
        r0 = 4 * w + (l / 4) % 4 + 16 * (l / 16);
        x = x_;
        p = x_ + (mn0 + r0) * ld + kq; /* 64-bit: row times ld */
        pstep = (int64_t)RSTEP * ld;
        k_left = k_end - kq;
        const int64_t left = mn_end - (mn0 + r0);
        mn_lim = (int)(left < 0 ? 0 : left > W ? W : left);
        s_off = (uint32_t)(kq * SROW) * 4;
    }

    /* As AsyncLoader::issue: this thread's copies of the current slice into the tile at shared
     * address s_tile, then the next slice; FULL: the block-uniform promise that no element of
     * the slice lies outside the operand. */
    template <bool FULL>
    __device__ __forceinline__ void issue(uint32_t s_tile)
    {
        const float *r = p;
#pragma unroll
        for (int q = 0; q < PASSES; ++q) {
#pragma unroll
            for (int j = 0; j < KSTEPS; ++j) {
                /* k = kq + 4 j: kswz depends on k / 8 only, the same for every kq < 4 */
                const uint32_t col = (uint32_t)((r0 ^ kswz(4 * j)) + q * RSTEP);
                const bool ok = FULL || (mn_lim > q * RSTEP && k_left > 4 * j);
                cp_async<4, PF>(s_tile + s_off + (4 * j * SROW + col) * 4, ok ? r + 4 * j : x, ok ? 4 : 0);
            }
            r += pstep;
        }
        p += BK;
        k_left -= BK;
    }
};

/* whether loaders X and Y swizzle every row of a slice alike */
template <class X, class Y, int BK>
constexpr bool same_swizzle()
{
    for (int kk = 0; kk < BK; ++kk)
        if (X::kswz(kk) != Y::kswz(kk)) return false;
    return true;
}

/*
 * The kernel: one launch covers all work units (a 1-D grid striding over ceil(m/BM) *
 * ceil(n/BN) tiles times `splits` slices of K; split s of a tile computes the k range
 * [s*kchunk, min(k, (s+1)*kchunk)) into C + s*split_stride; the caller then passes alpha = 1,
 * beta = 0 and a workspace as C). VA / VB: the vector width of A's / B's copies when that operand
 * is contiguous along m / n (4: 16-byte aligned base and ld % 4 == 0; 1: any). Dynamic shared
 * memory: CF::SMEM_BYTES (STAGES stages of As[BK][SA] then Bs[BK][SB], then 2 STAGES mbarriers).
 */
template <class CF, bool TRANS_A, bool TRANS_B, int VA, int VB>
__global__ void __launch_bounds__(CF::THREADS, 1)
ws_kernel(int64_t m, int64_t n, int64_t k, int64_t kchunk, int64_t splits, float alpha,
          const float *__restrict__ A, int64_t lda, const float *__restrict__ B, int64_t ldb,
          float beta, float *__restrict__ C, int64_t ldc, int64_t split_stride)
{
    constexpr int BM = CF::BM, BN = CF::BN, BK = CF::BK, TM = CF::TM, TN = CF::TN;
    constexpr int LM = CF::LM, LN = CF::LN, S = CF::STAGES, P = CF::PTHREADS;
    /* A not transposed is contiguous along m; B transposed is contiguous along n: AsyncLoader's
     * copies. An operand contiguous along k: RowLoader's. */
    using LoadA = std::conditional_t<TRANS_A, RowLoader<BM, BK, (CF::SWZ & 1) != 0, CF::PF>,
                                     AsyncLoader<BM, BK, P, true, VA, false, CF::PF>>;
    using LoadB = std::conditional_t<TRANS_B, AsyncLoader<BN, BK, P, true, VB, false, CF::PF>,
                                     RowLoader<BN, BK, (CF::SWZ & 2) != 0, CF::PF>>;
    /* whether the compute loop undoes a swizzle: that operand is contiguous along k and swizzled */
    constexpr bool SWA = TRANS_A && (CF::SWZ & 1), SWB = !TRANS_B && (CF::SWZ & 2);
    static_assert(!SWA || same_swizzle<LoadA, AsyncLoader<BM, BK, P, false, 1, true, CF::PF>, BK>(),
                  "both loaders swizzle alike");
    static_assert(!SWB || same_swizzle<LoadB, AsyncLoader<BN, BK, P, false, 1, true, CF::PF>, BK>(),
                  "both loaders swizzle alike");
    constexpr int ORD = CF::ord(TRANS_A, TRANS_B);
    static_assert(ffma_order_is_permutation<ORD, TM, TN>(), "the FFMA order covers the lane tile once");
    (void)LN;

    extern __shared__ __align__(16) float smem[];
    const uint32_t s_base = smem_addr(smem);
    constexpr uint32_t STAGE_B = CF::STAGE_FLOATS * 4, B_OFF = CF::A_FLOATS * 4;
    /* full[s] at bar_full + 8 s, empty[s] at bar_empty + 8 s */
    const uint32_t bar_full = s_base + CF::BAR_OFF, bar_empty = bar_full + 8 * S;

    const int t = threadIdx.x;
    if (t == 0) {
#pragma unroll
        for (int s = 0; s < S; ++s) {
            mbar_init(bar_full + 8 * s, P);              /* one arrival per producer thread */
            mbar_init(bar_empty + 8 * s, CF::CTHREADS);  /* one per consumer thread */
        }
        mbar_init_fence();
    }
    __syncthreads(); /* the only barrier before the roles split: everyone sees initialised mbarriers */

    const int64_t tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int64_t tiles = tiles_m * tiles_n;

    if (t >= CF::CTHREADS) {
        /* ---- producer: every slice of every unit of this block, in the consumers' order ---- */
        regs_dec<CF::PREG>();
        const int pt = t - CF::CTHREADS;
        int ws = 0;         /* the stage written next */
        uint32_t wph = 0;   /* parity of this use of stage ws (its fill count mod 2) */
        for (int64_t unit = blockIdx.x; unit < tiles * splits; unit += gridDim.x) {
            const Unit u = unit_of<BM, BN>(unit, tiles, tiles_m, tiles_n, k, kchunk);
            const int64_t m0 = u.m0, n0 = u.n0, kb = u.kb, klen = u.klen;
            const int64_t ktiles = (klen + BK - 1) / BK;
            LoadA la(A + (TRANS_A ? kb : kb * lda), lda, m0, m, klen, pt);
            LoadB lb(B + (TRANS_B ? kb * ldb : kb), ldb, n0, n, klen, pt);
            /* block-uniform: the tile lies inside op(A) along m / op(B) along n; slices below
             * kfull lie inside along k */
            const bool a_in = m0 + BM <= m, b_in = n0 + BN <= n;
            const int64_t kfull = klen / BK;
            for (int64_t kt = 0; kt < ktiles; ++kt) {
                mbar_wait(bar_empty + 8 * ws, wph ^ 1); /* the consumers released use u - 1 */
                const uint32_t st = s_base + ws * STAGE_B;
                if (a_in && kt < kfull) la.template issue<true>(st);
                else la.template issue<false>(st);
                if (b_in && kt < kfull) lb.template issue<true>(st + B_OFF);
                else lb.template issue<false>(st + B_OFF);
                mbar_arrive_cp_async(bar_full + 8 * ws);
                if (++ws == S) ws = 0, wph ^= 1;
            }
        }
        cp_async_wait<0>(); /* nothing of this thread's in flight when it leaves its loop */
    } else {
        /* ---- consumers: big_kernel's warp and lane layout and K loop ---- */
        regs_inc<CF::CREG>();
        const int lane = t % 32, warp = t / 32;
        const int lm = lane % LM, ln = lane / LM;
        const int wm = warp % CF::WARPS_M, wn = warp / CF::WARPS_M;
        const int a_col = wm * CF::WM + 4 * lm, b_col = wn * CF::WN + 4 * ln;
        int rs = 0;        /* the stage read now */
        uint32_t rph = 0;  /* parity of this use of stage rs */

        float4 fa[2][TM / 4], fb[2][TN / 4];
        auto load_frag = [&](int buf, int stage, int kk) {
            const float *sa = smem + stage * CF::STAGE_FLOATS + kk * CF::SA + a_col;
            const float *sb = smem + stage * CF::STAGE_FLOATS + CF::A_FLOATS + kk * CF::SB + b_col;
#pragma unroll
            for (int g = 0; g < TM / 4; ++g) fa[buf][g] = *reinterpret_cast<const float4 *>(sa + 4 * LM * g);
#pragma unroll
            for (int g = 0; g < TN / 4; ++g) fb[buf][g] = *reinterpret_cast<const float4 *>(sb + 4 * LN * g);
        };

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

            if (ktiles > 0) {
                mbar_wait(bar_full + 8 * rs, rph); /* the unit's first slice has landed */
                load_frag(0, rs, 0);
            }
            for (int64_t kt = 0; kt < ktiles; ++kt) {
                const bool more = kt + 1 < ktiles;
                const int ns = rs + 1 == S ? 0 : rs + 1;
                const uint32_t nph = ns == 0 ? rph ^ 1 : rph;
#pragma unroll
                for (int kk = 0; kk < BK; ++kk) {
                    if (kk == BK - 1) {
                        /* the fragments of this last step were read one step ago: the stage
                         * goes back to the producer; the next slice's must have landed */
                        mbar_arrive(bar_empty + 8 * rs);
                        if (more) mbar_wait(bar_full + 8 * ns, nph);
                    }
                    if (kk < BK - 1) load_frag((kk + 1) % 2, rs, kk + 1);
                    else if (more) load_frag(0, ns, 0);
                    const float *av = reinterpret_cast<const float *>(fa[kk % 2]);
                    const float *bv = reinterpret_cast<const float *>(fb[kk % 2]);
                    /* a swizzled row holds column c of an aligned group of 4 in component
                     * c ^ kswz(kk): a compile-time choice of register */
                    const int sa = SWA ? LoadA::kswz(kk) : 0, sb = SWB ? LoadB::kswz(kk) : 0;
#pragma unroll
                    for (int x = 0; x < TM * TN; ++x) {
                        const int i = ffma_ij<ORD, TM, TN>(x, true), j = ffma_ij<ORD, TM, TN>(x, false);
                        acc[i][j] = fmaf(av[i ^ sa], bv[j ^ sb], acc[i][j]);
                    }
                }
                rs = ns, rph = nph;
            }

            int64_t bm, bn;
            tile_coords(unit - split * tiles, tiles_m, tiles_n, &bm, &bn);
            write_tile<CF>(acc, C + split * split_stride, ldc, m, n, bm * BM, bn * BN, a_col, b_col, alpha,
                                beta);
        }
    }
    /* every thread of the block, both roles, once: no warp leaves while another may still wait on
     * a barrier it arrives on */
    __syncthreads();
}

/* The instance for a transpose pair and the operands' alignment (as big::pick_big: TN one
 * instance, NN two, TT two, NT four). */
template <class SET>
KernelFn pick_ws(bool ta, bool tb, bool va, bool vb)
{
    using NN = typename SET::PNN;
    using NT = typename SET::PNT;
    using TN = typename SET::PTN;
    using TT = typename SET::PTT;
    if (ta && !tb) return ws_kernel<TN, true, false, 1, 1>;
    if (ta) return vb ? ws_kernel<TT, true, true, 1, 4> : ws_kernel<TT, true, true, 1, 1>;
    if (!tb) return va ? ws_kernel<NN, false, false, 4, 1> : ws_kernel<NN, false, false, 1, 1>;
    return va ? (vb ? ws_kernel<NT, false, true, 4, 4> : ws_kernel<NT, false, true, 4, 1>)
              : (vb ? ws_kernel<NT, false, true, 1, 4> : ws_kernel<NT, false, true, 1, 1>);
}

} /* namespace ws */

/* The instance picker of configuration 10 (tsg_kernel_ws_config.h), in its own file built for
 * sm_90a only (ws/tsg_kernel_ws_256x128.cu). */
KernelFn pick_ws_256x128(bool ta, bool tb, bool va, bool vb);

} /* namespace tsg */

#endif /* TSG_KERNEL_WS_CUH */
