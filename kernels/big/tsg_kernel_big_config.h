/*
 * tsg_kernel_big_config.h — the big family's configurations (the kernels: tsg_kernel_big.cuh):
 * the template of one and the three the library builds, configurations 7-9 of tsg_kernel.h (the
 * table of all configurations and their numbers: ../tsg_kernel_configs.h). Plain C++: the rule
 * reads the shapes from here without any device code.
 */
#ifndef TSG_KERNEL_BIG_CONFIG_H
#define TSG_KERNEL_BIG_CONFIG_H

#include "../common/tsg_kernel_common.h" /* PAD */

namespace tsg {
namespace big {

/*
 * One configuration of the big family: C tile BM x BN, warp tile WM x WN, lanes LM along m (32/LM
 * along n), K step BK (8, 16 or 32), STAGES shared buffers, MINB resident blocks per SM the
 * register budget is compiled for (1: up to 255 registers per thread).
 * For an operand contiguous along k (A transposed, B not): SWZ (bit 0: A, bit 1: B) lands it
 * swizzled in shared memory; PF: the L2 prefetch of the 4-byte copies (0: none; 128: the whole
 * line, so that its other half is in L2 when the next slice asks for it; 256: two lines).
 * BS_NN, BS_NT, BS_TN, BS_TT: per transpose pair, the k step of a slice at which B's copies (of
 * the slice STAGES - 1 ahead) are issued; A's go at step 0 (0: B's with them).
 * ORD_NN, ORD_NT, ORD_TN, ORD_TT: per transpose pair, the order of the FFMAs within a k step
 * (ffma_ij; the same results in every order).
 * AKC: a transposed A (contiguous along k) whose base and lda allow 16-byte copies goes as 16-byte
 * copies into a k-contiguous shared tile (KLoader) and its fragments are read AKC k at a time
 * (4: LDS.128, 2: LDS.64; 0: off, the 4-byte copies of AsyncLoader).
 */
template <int BM_, int BN_, int WM_, int WN_, int LM_, int BK_, int STAGES_, int MINB_, int SWZ_ = 0,
          int PF_ = 0, int BS_NN_ = 0, int BS_NT_ = 0, int BS_TN_ = 0, int BS_TT_ = 0, int ORD_NN_ = 0,
          int ORD_NT_ = 0, int ORD_TN_ = 0, int ORD_TT_ = 0, int AKC_ = 0>
struct BigConfig {
    static constexpr int BM = BM_, BN = BN_, WM = WM_, WN = WN_, LM = LM_, LN = 32 / LM_;
    static constexpr int BK = BK_, STAGES = STAGES_, MIN_BLOCKS = MINB_;
    static constexpr int SWZ = SWZ_, PF = PF_;
    static constexpr int BS_NN = BS_NN_, BS_NT = BS_NT_, BS_TN = BS_TN_, BS_TT = BS_TT_;
    static constexpr int bstep(bool ta, bool tb) { return ta ? (tb ? BS_TT : BS_TN) : (tb ? BS_NT : BS_NN); }
    static constexpr int ORD_NN = ORD_NN_, ORD_NT = ORD_NT_, ORD_TN = ORD_TN_, ORD_TT = ORD_TT_;
    static constexpr int ord(bool ta, bool tb) { return ta ? (tb ? ORD_TT : ORD_TN) : (tb ? ORD_NT : ORD_NN); }
    static constexpr int AKC = AKC_;
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN, THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int TM = WM / LM, TN = WN / LN;
    static constexpr int SA = BM + PAD, SB = BN + PAD;             /* shared row strides, floats */
    /* A's part of a stage: BK rows of SA, or (AKC) room for KLoader's tile of BM rows of BK */
    static constexpr int A_FLOATS = AKC != 0 && BM * BK + BM > BK * SA ? BM * BK + BM : BK * SA;
    static constexpr int STAGE_FLOATS = A_FLOATS + BK * SB;
    static constexpr int SMEM_BYTES = STAGES * STAGE_FLOATS * 4;   /* dynamic shared memory */
    static_assert(BM % WM == 0 && BN % WN == 0 && 32 % LM == 0, "warps and lanes tile the block");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && WM % (4 * LM) == 0 && WN % (4 * LN) == 0,
                  "lane tiles are made of 4 x 4 sub-tiles");
    static_assert(STAGES >= 2, "at least two stages");
    static_assert(ORD_NN >= 0 && ORD_NN < 16 && ORD_NT >= 0 && ORD_NT < 16 && ORD_TN >= 0 && ORD_TN < 16 &&
                      ORD_TT >= 0 && ORD_TT < 16,
                  "FFMA orders 0-15 (ffma_ij)");
    static_assert(PF == 0 || PF == 128 || PF == 256, "PF: 0, 128 or 256 bytes");
    static_assert((AKC == 0 || AKC == 2 || AKC == 4) && (AKC == 0 || BK % (2 * AKC) == 0),
                  "AKC: 0, 2 or 4 k per fragment read; a slice holds an even number of them");
    static_assert(BS_NN >= 0 && BS_NN < BK - 1 && BS_NT >= 0 && BS_NT < BK - 1 && BS_TN >= 0 &&
                      BS_TN < BK - 1 && BS_TT >= 0 && BS_TT < BK - 1,
                  "B's copies at a k step before the slice's barrier");
};

} /* namespace big */

/*
 * Configuration 7, Big256x128: a 256 x 128 tile, 256 threads (8 warps of 64 x 64, lanes 8 x 4,
 * 8 x 16 accumulators per lane), BK = 16, 3 stages (73.5 KB of dynamic shared memory), one block
 * per SM (255 registers, no spills). B lands swizzled where it is contiguous along k; the 4-byte
 * copies prefetch 256 bytes into L2; B's copies of a slice go at k step 4 (NN, TT) or 3 (NT, TN);
 * FFMA orders 15 (NN), 10 (NT), 13 (TN), 3 (TT). Each parameter is the fastest of the
 * alternatives timed against it on the H200 (docs/NOTES.md: "v0.4" the tile, over 256 x 128 x 8,
 * 4 stages at BK = 8, 128 x 256, 16 x 8 per lane and 128 x 128 at two blocks per SM; "v0.7" the
 * swizzle and the prefetch — swizzling a transposed A too, 8 threads per column of it, BK = 32
 * and copies spread over a slice's k steps all lost; "v0.8", "v0.10" B's step; "v0.15", "v0.16"
 * the orders; "v0.17" 256 bytes of prefetch over 128).
 */
using Big256x128 = big::BigConfig<256, 128, 64, 64, 8, 16, 3, 1, 2, 256, 4, 3, 3, 4, 15, 10, 13, 3>;
/*
 * Configurations 8 and 9, Big256x64 / Big64x256: configuration 7's warp (64 x 64, lanes 8 x 4,
 * 8 x 16 accumulators per lane), BK = 16 and 3 stages in 128-thread blocks of 256 x 64 / 64 x 256
 * (61.5 KB of shared memory, two blocks per SM), for C grids one tile of 64 wide (tall-skinny
 * 65536 x 64, wide 64 x 65536), where configuration 7's 128-wide tile is half empty; 9 is also
 * the rule's TT tile where it models faster (tsg_kernel_plan.cu). B swizzled as in 7; B's copies
 * at step 4 but NT's (at 0); FFMA order 15 for 8's NN and 10 for 9's TT, 0 elsewhere (on
 * 64 x 65536 x 4096 no order gained more than 0.2%; the other pairs were not timed).
 * docs/NOTES.md "v0.6" (the tiles), "v0.7", "v0.8", "v0.16".
 */
using Big256x64 = big::BigConfig<256, 64, 64, 64, 8, 16, 3, 2, 2, 0, 4, 0, 4, 4, 15, 0, 0, 0>;
using Big64x256 = big::BigConfig<64, 256, 64, 64, 8, 16, 3, 2, 2, 0, 4, 0, 4, 4, 0, 0, 0, 10>;

} /* namespace tsg */

#endif /* TSG_KERNEL_BIG_CONFIG_H */
