/*
 * tsg_kernel_ws_config.h — the warp-specialized family's configuration (the kernel:
 * tsg_kernel_ws.cuh): the template of one, the set of one per transpose pair, and the set the
 * library builds, configuration 10 of tsg_kernel.h (the table of all configurations and their
 * numbers: ../tsg_kernel_configs.h). Plain C++: the rule reads the shapes from here without any
 * device code.
 */
#ifndef TSG_KERNEL_WS_CONFIG_H
#define TSG_KERNEL_WS_CONFIG_H

#include "../common/tsg_kernel_common.h" /* PAD */

namespace tsg {
namespace ws {

constexpr int PRODUCERS = 128; /* the producer warpgroup's threads */

/*
 * One configuration: C tile BM x BN, consumer warp tile WM x WN, lanes LM along m, K step BK,
 * STAGES shared buffers, SWZ / PF as BigConfig's (B swizzled when contiguous along k; the 4-byte
 * copies' L2 prefetch), CREG / PREG the consumers' / producer's registers per thread after
 * setmaxnreg (multiples of 8, 24..256), ORD_* the FFMA order per transpose pair (ffma_ij). One
 * block per SM. The producer issues a slice's copies as soon as its stage is empty (no BS_* step
 * as BigConfig's).
 */
template <int BM_, int BN_, int WM_, int WN_, int LM_, int BK_, int STAGES_, int SWZ_, int PF_, int CREG_,
          int PREG_, int ORD_NN_, int ORD_NT_, int ORD_TN_, int ORD_TT_>
struct WsConfig {
    static constexpr int BM = BM_, BN = BN_, WM = WM_, WN = WN_, LM = LM_, LN = 32 / LM_;
    static constexpr int BK = BK_, STAGES = STAGES_, MIN_BLOCKS = 1;
    static constexpr int SWZ = SWZ_, PF = PF_, CREG = CREG_, PREG = PREG_;
    static constexpr int ORD_NN = ORD_NN_, ORD_NT = ORD_NT_, ORD_TN = ORD_TN_, ORD_TT = ORD_TT_;
    static constexpr int ord(bool ta, bool tb) { return ta ? (tb ? ORD_TT : ORD_TN) : (tb ? ORD_NT : ORD_NN); }
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN, CWARPS = WARPS_M * WARPS_N;
    static constexpr int PTHREADS = PRODUCERS;                      /* the producer warpgroup */
    static constexpr int CTHREADS = 32 * CWARPS, THREADS = CTHREADS + PTHREADS;
    static constexpr int TM = WM / LM, TN = WN / LN;
    static constexpr int SA = BM + PAD, SB = BN + PAD;              /* shared row strides, floats */
    static constexpr int A_FLOATS = BK * SA, STAGE_FLOATS = A_FLOATS + BK * SB;
    static constexpr int BAR_OFF = STAGES * STAGE_FLOATS * 4;       /* full[STAGES], empty[STAGES] */
    static constexpr int SMEM_BYTES = BAR_OFF + 2 * STAGES * 8;     /* dynamic shared memory */
    static_assert(BM % WM == 0 && BN % WN == 0 && 32 % LM == 0, "warps and lanes tile the block");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && WM % (4 * LM) == 0 && WN % (4 * LN) == 0,
                  "lane tiles are made of 4 x 4 sub-tiles");
    static_assert(CWARPS % 4 == 0, "the consumers are whole warpgroups (setmaxnreg acts per warpgroup)");
    static_assert(BK == 8 || BK == 16 || BK == 32, "BK: 8, 16 or 32");
    static_assert(STAGES >= 2, "at least two stages");
    static_assert(BAR_OFF % 8 == 0, "mbarriers are 8-byte aligned");
    static_assert(CREG % 8 == 0 && PREG % 8 == 0 && PREG >= 24 && CREG <= 256 &&
                      PTHREADS * PREG + CTHREADS * CREG <= 65536 && 32 * PREG + 32 * (CWARPS / 4) * CREG <= 16384,
                  "setmaxnreg: multiples of 8 that fit the register file and each scheduler's quarter of it");
};

/*
 * A configuration per transpose pair (each a WsConfig of the same tile, warps and threads): the
 * table of configurations (../tsg_kernel_configs.h) has one entry for the set (its BK, STAGES, SWZ
 * and PF are NN's, for the description; its dynamic shared memory the largest of the four, so
 * that every instance gets what it needs).
 */
template <class NN_, class NT_, class TN_, class TT_>
struct WsSet {
    using PNN = NN_; /* the configuration of each pair */
    using PNT = NT_;
    using PTN = TN_;
    using PTT = TT_;
    static constexpr int BM = NN_::BM, BN = NN_::BN, TM = NN_::TM, TN = NN_::TN, THREADS = NN_::THREADS;
    static constexpr int BK = NN_::BK, STAGES = NN_::STAGES, SWZ = NN_::SWZ, PF = NN_::PF;
    static constexpr int max2(int a, int b) { return a > b ? a : b; }
    static constexpr int SMEM_BYTES =
        max2(max2(NN_::SMEM_BYTES, NT_::SMEM_BYTES), max2(TN_::SMEM_BYTES, TT_::SMEM_BYTES));
    template <class X>
    static constexpr bool same_tile()
    {
        return X::BM == BM && X::BN == BN && X::WM == NN_::WM && X::WN == NN_::WN && X::LM == NN_::LM &&
               X::THREADS == THREADS;
    }
    static_assert(same_tile<NT_>() && same_tile<TN_>() && same_tile<TT_>(),
                  "one tile, warp layout and block for all pairs");
};

} /* namespace ws */

/*
 * Configuration 10, Ws256x128: configuration 7's tile (256 x 128, 8 consumer warps of 64 x 64,
 * lanes 8 x 4, 8 x 16 accumulators per lane) with a producer warpgroup (384 threads), consumers at
 * 232 registers and the producer at 40, BK 16 in 6 stages (147 KB), a 256-byte L2 prefetch on the
 * 4-byte copies, RowLoader for an operand contiguous along k. Per pair:
 *  - NN: B swizzled, FFMA order 15;
 *  - NT: as NN, order 10 (BK 32 in 3 stages gained at 8192^3 but fell under configuration 7 at
 *    4096^3);
 *  - TN: neither operand swizzled, order 15 (a swizzled A or B, orders 10 and 13 and AsyncLoader's
 *    copies of A read lower);
 *  - TT: A swizzled too, order 3 (an unswizzled A lost 2-3%).
 * Each is the fastest of the alternatives timed against configuration 7 on the H200
 * (docs/NOTES.md "v0.19", "v0.20"). On a device that cannot run sm_90a code the configuration is
 * unavailable: the rule never takes it and a forced launch runs configuration 7 (tsg_kernel.cu).
 */
using Ws256x128 = ws::WsSet<ws::WsConfig<256, 128, 64, 64, 8, 16, 6, 2, 256, 232, 40, 15, 10, 15, 3>,
                            ws::WsConfig<256, 128, 64, 64, 8, 16, 6, 2, 256, 232, 40, 15, 10, 15, 3>,
                            ws::WsConfig<256, 128, 64, 64, 8, 16, 6, 0, 256, 232, 40, 15, 10, 15, 3>,
                            ws::WsConfig<256, 128, 64, 64, 8, 16, 6, 3, 256, 232, 40, 15, 10, 15, 3>>;

} /* namespace tsg */

#endif /* TSG_KERNEL_WS_CONFIG_H */
