/*
 * tsg_kernel_simt_config.h — the SIMT family's configurations (the kernel: tsg_kernel_simt.cuh):
 * the template of one and the seven the library builds, configurations 0-6 of tsg_kernel.h (the
 * table of all configurations and their numbers: ../tsg_kernel_configs.h). Plain C++: the rule
 * reads the shapes from here without any device code.
 */
#ifndef TSG_KERNEL_SIMT_CONFIG_H
#define TSG_KERNEL_SIMT_CONFIG_H

namespace tsg {

/* One configuration of the family: C tile BM x BN, K step BK, register tile TM x TN per thread;
 * MINB_ the resident blocks per SM the registers are compiled for (0: the default below). */
template <int BM_, int BN_, int TM_, int TN_, int BK_ = 8, int MINB_ = 0>
struct TileConfig {
    static constexpr int BM = BM_, BN = BN_, TM = TM_, TN = TN_, BK = BK_;
    static constexpr int TX = BM / TM, TY = BN / TN, THREADS = TX * TY;
    /* resident blocks per SM the register budget is compiled for: 256 threads x 2 blocks = 128
     * registers; smaller blocks get up to 168 (12 warps per SM), since at 128 their 8 x 8
     * instances spilled 60-100 bytes (ptxas -v) */
    static constexpr int MIN_BLOCKS = MINB_ > 0 ? MINB_ : THREADS >= 256 ? 2 : 384 / THREADS;
    static_assert(TM % 4 == 0 && TN % 4 == 0, "register tiles are made of 4 x 4 sub-tiles");
    static_assert(BM % TM == 0 && BN % TN == 0, "the thread grid covers the tile");
};

/* The family's configurations; each has an instance file simt/tsg_kernel_simt_<tile>.cu. */
using Simt128x128 = TileConfig<128, 128, 8, 8>;      /* 256 threads: big grids (the pipeline's tile) */
using Simt128x64 = TileConfig<128, 64, 8, 8>;        /* 128 threads: half the width (tall C, n ~ 64) */
using Simt64x128 = TileConfig<64, 128, 8, 8>;        /* 128 threads: wide C, m ~ 64 */
using Simt64x64 = TileConfig<64, 64, 8, 8>;          /* 64 threads: 4x the tiles of 128 x 128 */
using Simt64x64Bk16 = TileConfig<64, 64, 4, 4, 16>;  /* 256 threads on a 64 x 64 tile (BK = 16 so that
                                                      * every thread loads a whole vector) */
using Simt32x32 = TileConfig<32, 32, 4, 4>;          /* 64 threads: the smallest grids */
using Simt128x128OneBlock = TileConfig<128, 128, 8, 8, 8, 1>; /* 128 x 128 compiled for one block per SM:
                                                               * no register cap of 128 (the two-block
                                                               * build spills 40-56 bytes in 6 of its
                                                               * 16 instances) */

} /* namespace tsg */

#endif /* TSG_KERNEL_SIMT_CONFIG_H */
