/*
 * tsg_kernel_configs.h — the table of the FP32 kernel configurations: each named, with its family,
 * its shape (read from the family's configuration type) and the rule's two tuned numbers for it.
 * The configuration numbers of tsg_kernel.h (the TSGEMM_KERNEL_CONFIG test knob, the describe
 * lines, docs/NOTES.md) are the names' values. Host code only (plain C++, no CUDA): the rule
 * (tsg_kernel_plan.cu) and its unit test read it without any device code; the launchers
 * (tsg_kernel.cu and each family's tsg_kernel_<family>_launch.cu) too.
 */
#ifndef TSG_KERNEL_CONFIGS_H
#define TSG_KERNEL_CONFIGS_H

#include <stdint.h>

#include "big/tsg_kernel_big_config.h"
#include "simt/tsg_kernel_simt_config.h"
#include "ws/tsg_kernel_ws_config.h"

namespace tsg {

/* The configurations by name; the values are tsg_kernel.h's configuration numbers. */
enum ConfigId : int {
    SIMT_128x128 = 0,        /* Simt128x128: big grids; its tile is the pipeline's (kernel_tile_m/n) */
    SIMT_128x64 = 1,         /* Simt128x64 */
    SIMT_64x128 = 2,         /* Simt64x128 */
    SIMT_64x64 = 3,          /* Simt64x64 */
    SIMT_64x64_BK16 = 4,     /* Simt64x64Bk16 */
    SIMT_32x32 = 5,          /* Simt32x32 */
    SIMT_128x128_1BLOCK = 6, /* Simt128x128OneBlock */
    BIG_256x128 = 7,         /* Big256x128: large grids */
    BIG_256x64 = 8,          /* Big256x64: tall C, one 64-wide tile across */
    BIG_64x256 = 9,          /* Big64x256: wide C; TT's tile where it models faster */
    WS_256x128 = 10,         /* Ws256x128: 7's tile, warp-specialized (sm_90a) */
    NUM_CONFIGS = 11
};

enum class Family { simt, big, ws };

/* Split-K slices are multiples of KALIGN floats of k (with BK = 16 a slice may end in a half-filled,
 * zeroed step). */
constexpr int KALIGN = 8;
/* The rule's shortest K slice (split_min_k): a SIMT unit is worth a launch's share at 256. A big
 * tile pays its prologue and its 3-stage fill per slice, so the big families split only into
 * slices of 2048 or more and short slices stay on the SIMT family's smaller tiles (512 x 512 x
 * 65536: 16 slices of 4096 on configuration 7 ran at 0.907 of cuBLAS, 32 of 2048 0.899, 33 slices
 * on configuration 0 0.740; 1024^3 in 2 slices of 512 0.560 against 0.820 unsplit on
 * configuration 4: docs/NOTES.md "v0.6"). */
constexpr int64_t SPLIT_MIN_K = 256, BIG_SPLIT_MIN_K = 2048;

/* One configuration: what the rule, the launchers and kernel_describe need of it. */
struct KernelConfig {
    ConfigId id;
    Family family;
    int bm, bn, bk;      /* C tile BM x BN, K step BK */
    int tm, tn;          /* accumulators per thread (lane): TM x TN */
    int threads;         /* per block */
    int stages;          /* shared-memory stages */
    int smem;            /* dynamic shared memory per block, bytes (0: static only) */
    int swz, pf;         /* operands swizzled in shared memory, L2 prefetch bytes (BigConfig::SWZ, PF) */
    int bstep[4];        /* k step of a slice at which B's copies go, NN NT TN TT (BigConfig::BS_*) */
    int akc;             /* A^T in 16-byte copies into a k-contiguous tile (BigConfig::AKC) */
    int producers;       /* producer threads of a warp-specialized block, else 0 */
    double eff;          /* the rule's full-SM rate: the fraction of the FP32 peak on NN 4096^3 */
    int64_t split_min_k; /* the rule's shortest K slice for it (a forced split may be shorter) */
};

/* ceil(a / b) for a >= 0, b > 0: tiles along a dimension, slices of K */
constexpr int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The big family has a stream-K tail (big::TailPlan); the warp-specialized family is sm_90a code,
 * available only where its kernels load. */
constexpr bool has_tail(const KernelConfig &c) { return c.family == Family::big; }
constexpr bool needs_sm90a(const KernelConfig &c) { return c.family == Family::ws; }

/* The table entry of a family's configuration type: its shape and copy options read from the type
 * (TileConfig: two shared-memory buffers, static shared memory; BigConfig; WsSet: its NN configuration's
 * BK, STAGES, SWZ and PF, the largest shared memory of its four), the rule's eff given. */
template <class CF>
constexpr KernelConfig simt_config(ConfigId id, double eff)
{
    return {id, Family::simt, CF::BM, CF::BN, CF::BK, CF::TM, CF::TN, CF::THREADS, 2, 0, 0, 0, {0, 0, 0, 0}, 0,
            0, eff, SPLIT_MIN_K};
}
template <class CF>
constexpr KernelConfig big_config(ConfigId id, double eff)
{
    return {id, Family::big, CF::BM, CF::BN, CF::BK, CF::TM, CF::TN, CF::THREADS, CF::STAGES,
            CF::SMEM_BYTES, CF::SWZ, CF::PF, {CF::BS_NN, CF::BS_NT, CF::BS_TN, CF::BS_TT}, CF::AKC, 0, eff,
            BIG_SPLIT_MIN_K};
}
template <class SET>
constexpr KernelConfig ws_config(ConfigId id, double eff)
{
    return {id, Family::ws, SET::BM, SET::BN, SET::BK, SET::TM, SET::TN, SET::THREADS, SET::STAGES,
            SET::SMEM_BYTES, SET::SWZ, SET::PF, {0, 0, 0, 0}, 0, ws::PRODUCERS, eff, BIG_SPLIT_MIN_K};
}

/*
 * The table, in configuration order. eff: TFLOP/s on NN 4096^3 (every SM full, many waves) over
 * the H200's 66.9 TFLOP/s FP32 peak, measured there: 0-6 docs/NOTES.md "v0.3 kernel
 * configurations" (run 1); 7 46.08 TFLOP/s ("v0.4", run 1); 8 and 9 44.78 and 40.76 ("v0.6", v0.5
 * run 2); 10 has 7's tile and takes 7's rate (the rule puts it in 7's place, kernel_plan).
 */
inline constexpr KernelConfig k_configs[NUM_CONFIGS] = {
    simt_config<Simt128x128>(SIMT_128x128, 0.563),
    simt_config<Simt128x64>(SIMT_128x64, 0.523),
    simt_config<Simt64x128>(SIMT_64x128, 0.504),
    simt_config<Simt64x64>(SIMT_64x64, 0.518),
    simt_config<Simt64x64Bk16>(SIMT_64x64_BK16, 0.455),
    simt_config<Simt32x32>(SIMT_32x32, 0.377),
    simt_config<Simt128x128OneBlock>(SIMT_128x128_1BLOCK, 0.560),
    big_config<Big256x128>(BIG_256x128, 0.689),
    big_config<Big256x64>(BIG_256x64, 0.669),
    big_config<Big64x256>(BIG_64x256, 0.609),
    ws_config<Ws256x128>(WS_256x128, 0.689),
};

/* Resident blocks per SM of configuration c in the rule's occupancy table (tsg_kernel_plan.cu:
 * 1 until kernel_blocks_per_sm or kernel_set_blocks_per_sm sets it). */
int blocks_per_sm(int c);

constexpr bool configs_in_order()
{
    for (int c = 0; c < NUM_CONFIGS; ++c)
        if (k_configs[c].id != c) return false;
    return true;
}
static_assert(configs_in_order(), "k_configs[c] is configuration c");

} /* namespace tsg */

#endif /* TSG_KERNEL_CONFIGS_H */
