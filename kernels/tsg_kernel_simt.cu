/*
 * tsg_kernel_simt.cu — the launchers of the SIMT kernel family (tsg_kernel_simt.cuh, instances in
 * tsg_kernel_simt_cfg*.cu: configurations 0-6) and of the big family (tsg_kernel_big.cuh,
 * tsg_kernel_big_cfg7-9.cu: configurations 7-9, issues 10-11) behind tsg_kernel.h, and the rule that picks
 * a configuration and a split-K per shape. Compiled once; the executor (compiled twice: the library and its
 * fault-injection twin for the tests) only calls these functions.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <cmath>

#include "tsg_kernel.h"
#include "big/tsg_kernel_big.cuh"
#include "simt/tsg_kernel_simt.cuh"
#include "ws/tsg_kernel_ws.cuh"

namespace tsg {

#ifndef TSG_HAVE_WS
/* Built by an nvcc without sm_90a (before 12.0; CMakeLists.txt): configuration 10 has no
 * instances, so its row is never available (kernel_blocks_per_sm) and never launched. */
KernelFn pick_cfg10(bool, bool, bool, bool) { return nullptr; }
#endif
namespace {

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

/* The stream-K tail's fix-up (big::TailPlan): block (chunk, u) takes TAIL_EPT x 256 elements of
 * tail tile u (tile dp_tiles + u of the grid, bm x bn, tile_coords' order): for each, the sum of
 * the partial tiles the tail blocks left in W (slot 2 b + j: tail block b's j-th piece, ld bm)
 * over b in increasing order, then C = alpha * sum + beta * C inside C's m x n window. The order
 * is fixed by the shape and tail.blocks: bit-identical results from run to run. The pieces of the
 * tile are found once per thread, not per element (the first build did it per element, with
 * several 64-bit divisions each: about 0.1 ms at 4096^3, v0.14 run 2). */
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

__global__ void fill_kernel(float *x, int64_t count, uint32_t seed)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = (float)(h & 0xffff) / 32768.0f - 1.0f;
    }
}

unsigned elementwise_blocks(int64_t count)
{
    return (unsigned)std::min<int64_t>((count + 255) / 256, 65536);
}

/* 16-byte loads need a 16-byte aligned base and a leading dimension that keeps every column so */
bool vec_ok(const float *p, int64_t ld) { return ((uintptr_t)p % 16) == 0 && ld % 4 == 0; }

/*
 * One row per configuration: its shape, its instance picker, and `eff`, the fraction of the
 * GPU's FP32 peak (66.9 TFLOP/s) it reaches on NN 4096^3 (every SM full, many waves): the
 * rule's tuned numbers, measured on the H200 (docs/NOTES.md, v0.3 run 1).
 */
struct ConfigRow {
    int bm, bn, bk, tm, tn, threads;
    KernelFn (*pick)(bool, bool, bool, bool);     /* the instances */
    big::TailFn (*tpick)(bool, bool, bool, bool); /* with a stream-K tail (the big family; else null) */
    double eff;
    int stages, smem; /* shared-memory stages; dynamic shared memory per block (bytes, 0: static) */
    int64_t split_min_k; /* the rule's shortest K slice for it (forcing a split works for any) */
    int swz;   /* operands contiguous along k land swizzled in shared memory (BigConfig::SWZ) */
    int pf;    /* L2 prefetch bytes of the 4-byte copies (BigConfig::PF) */
    int bstep[4]; /* k step of a slice at which B's copies are issued, NN NT TN TT (BigConfig::BS_*) */
    int akc;   /* a transposed A in 16-byte copies into a k-contiguous tile (BigConfig::AKC) */
    int sm90a; /* sm_90a code only (the warp-specialized family): available where it loads */
};

constexpr int64_t SPLIT_MIN_K = 256;   /* the SIMT family: the shortest K slice worth a unit of its own */
/* The big family: slices of at least 2048 (v0.5 run 2: 512 x 512 x 65536 on configuration 7 with
 * 16 slices of 4096 at 0.907x cuBLAS, 32 of 2048 0.899, against 0.740 for configuration 0 with
 * 33 slices; 1024^3 with 2 slices of 512 0.560 against 0.820 unsplit on configuration 4): a split
 * big tile pays its prologue and its 3-stage fill per slice, so short slices stay on the SIMT
 * family's smaller tiles. */
constexpr int64_t BIG_SPLIT_MIN_K = 2048;

#define TSG_SIMT_ROW(CF, PICK, EFF)                                                                \
    {CF::BM, CF::BN, CF::BK, CF::TM, CF::TN, CF::THREADS, PICK, nullptr, EFF, 2, 0, SPLIT_MIN_K, 0, 0, {0, 0, 0, 0}, 0, 0}
/* the big family's and the warp-specialized family's rows: TPICK the tail kernels (or nullptr),
 * SM90A whether the instances are sm_90a code */
#define TSG_TILED_ROW(CF, PICK, TPICK, EFF, SM90A)                                                 \
    {CF::BM, CF::BN, CF::BK, CF::TM, CF::TN, CF::THREADS, PICK, TPICK, EFF, CF::STAGES, CF::SMEM_BYTES, BIG_SPLIT_MIN_K, CF::SWZ, CF::PF, \
     {CF::BS_NN, CF::BS_NT, CF::BS_TN, CF::BS_TT}, CF::AKC, SM90A}
#define TSG_BIG_ROW(CF, PICK, EFF) TSG_TILED_ROW(CF, pick_##PICK, pick_tail_##PICK, EFF, 0)
#define TSG_WS_ROW(CF, PICK, EFF) TSG_TILED_ROW(CF, pick_##PICK, nullptr, EFF, 1)
/* The big family (issues 10-11): configuration 7's eff = 46.08 / 66.9 TFLOP/s (NN 4096^3, v0.4
 * run 1); 8 and 9: 44.78 and 40.76 TFLOP/s (NN 4096^3, v0.5 run 2, its candidates 12 and 13). */
const ConfigRow k_configs[] = {
    TSG_SIMT_ROW(Cfg0, pick_cfg0, 0.563), TSG_SIMT_ROW(Cfg1, pick_cfg1, 0.523),
    TSG_SIMT_ROW(Cfg2, pick_cfg2, 0.504), TSG_SIMT_ROW(Cfg3, pick_cfg3, 0.518),
    TSG_SIMT_ROW(Cfg4, pick_cfg4, 0.455), TSG_SIMT_ROW(Cfg5, pick_cfg5, 0.377),
    TSG_SIMT_ROW(Cfg6, pick_cfg6, 0.560),
    TSG_BIG_ROW(Cfg7, cfg7, 0.689), TSG_BIG_ROW(Cfg8, cfg8, 0.669),
    TSG_BIG_ROW(Cfg9, cfg9, 0.609),
    /* the warp-specialized family (tsg_kernel_ws.cuh, sm_90a; no stream-K tail): configuration 7's
     * tile, so its eff is 7's; the rule takes it in 7's place (kernel_plan) */
    TSG_WS_ROW(CfgWs, cfg10, 0.689),
    /* candidates go here, under #ifdef TSG_KERNEL_CANDIDATES (tsg_kernel_big.cuh,
     * tsg_kernel_ws.cuh): the eff of the configuration each varies; the rule never picks one
     * (NADOPTED). None open. */
};
#undef TSG_SIMT_ROW
#undef TSG_BIG_ROW
#undef TSG_WS_ROW
#undef TSG_TILED_ROW
/* the SIMT family's configurations (NCONFIGS), then the big family's 7, 8, 9, the
 * warp-specialized 10 (and candidates) */
constexpr int NALL = (int)(sizeof k_configs / sizeof k_configs[0]);
/* the rule chooses among the adopted configurations only; candidates run when forced */
constexpr int NADOPTED = NCONFIGS + 4;
static_assert(NALL >= NADOPTED, "every configuration has its row");

/* Resident blocks per SM of each configuration (kernel_blocks_per_sm; 1 until measured). */
int g_bps[NALL];
[[maybe_unused]] const bool g_bps_set = [] {
    for (int &b : g_bps) b = 1;
    return true;
}();

/* Whether each configuration can run on this device: a row of sm_90a code only where its kernel
 * loads (kernel_blocks_per_sm: a compute capability 9.0 device and an nvcc that built it), or
 * where the occupancy table given says so (kernel_set_blocks_per_sm); every other row always.
 * g_ws_on: the TSGEMM_TEST_WS knob (kernel_set_ws). */
bool g_avail[NALL];
[[maybe_unused]] const bool g_avail_set = [] {
    for (int c = 0; c < NALL; ++c) g_avail[c] = !k_configs[c].sm90a;
    return true;
}();
bool g_ws_on = true;
constexpr int CFG_WS = NCONFIGS + 3; /* configuration 10 */
static_assert(CFG_WS < NADOPTED, "the warp-specialized configuration is adopted");

/* A block of the big family may take more than 48 KB of dynamic shared memory only once its
 * kernel's limit is raised (per kernel; cheap, and idempotent, so done before every launch and
 * occupancy query of such a kernel). */
cudaError_t prepare(const ConfigRow &r, const void *fn)
{
    if (r.smem <= 48 * 1024) return cudaSuccess;
    return cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, r.smem);
}

constexpr int64_t MAX_SPLITS = 64;
constexpr double GPU_PEAK_SM = 2.0 * 128 * 1.98e9; /* FP32 flop/s of one H200 SM (PERF.md) */
constexpr double LAUNCH_S = 6e-6;      /* a launch's fixed cost on the timeline (512^3: ~6 us) */
constexpr double REDUCE_BPS = 2.5e12;  /* split-K reduction: bytes/s it streams */
constexpr double SPLIT_MARGIN = 1.1;   /* a split must win by 10% (second launch, workspace) */

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* How well `warps` resident warps keep an SM busy: sqrt(warps / W0), at most 1, with W0 = 8 for
 * 8 x 8 register tiles and 16 for 4 x 4 ones (fewer independent FMAs per warp). Fitted to
 * v0.3 run 1: one 128 x 64 block (4 warps) alone on an SM ran at 0.75 of the full-SM rate, two
 * 64 x 64 / 8 x 8 blocks (4 warps) at 0.72, two 32 x 32 / 4 x 4 blocks at 0.54. */
double occupancy_factor(double warps, int tm)
{
    return std::sqrt(std::min(1.0, warps / (tm >= 8 ? 8.0 : 16.0)));
}

/*
 * Modelled time of configuration c with K cut into `splits` slices. Units (tile x slice) are
 * spread evenly over the SMs; an SM runs its ceil(units / sms) units in rounds of at most
 * g_bps[c] resident blocks, at the configuration's full-SM rate (eff) scaled by how much fewer
 * resident warps lose (occupancy_factor, relative to a full SM). A split pays SPLIT_MARGIN, the
 * reduction's traffic ((splits + 1) m n floats) and its launch.
 */
double model_time(int c, int64_t m, int64_t n, int64_t k, int64_t splits, int64_t sms,
                  int64_t *kslice_out, double eff = 0)
{
    const ConfigRow &r = k_configs[c];
    if (eff <= 0) eff = r.eff;
    const int64_t kslice = splits > 1 ? cdiv(cdiv(k, splits), KALIGN) * KALIGN : k;
    const int64_t s = cdiv(k, kslice);
    const int64_t units = cdiv(m, r.bm) * cdiv(n, r.bn) * s;
    const int64_t per_sm = cdiv(units, sms);
    const int64_t resident = std::min<int64_t>(per_sm, g_bps[c]);
    const int64_t rounds = cdiv(per_sm, resident);
    const double warps = r.threads / 32.0;
    const double rate = GPU_PEAK_SM * eff * occupancy_factor(resident * warps, r.tm) /
                        occupancy_factor(g_bps[c] * warps, r.tm);
    double t = (double)rounds * (double)resident * 2.0 * r.bm * r.bn * (double)kslice / rate + LAUNCH_S;
    if (s > 1) t = SPLIT_MARGIN * t + (double)(s + 1) * (double)m * (double)n * 4.0 / REDUCE_BPS + LAUNCH_S;
    if (kslice_out) *kslice_out = kslice;
    return t;
}

/*
 * TT (both operands transposed) on the big family: configuration 9's 64 x 256 tile copies A, the
 * operand TT copies 4 bytes at a time, 64 columns per slice where configuration 7 copies 256.
 * Measured TFLOP/s (v0.8 run 5, kernel alone, mean of TT 4096^3 and 8192^3): configuration 7
 * 47.37 (0.958 / 0.944 of cuBLAS), 9 48.38 (0.979 / 0.964); run 4 saw the same order (0.961 /
 * 0.938 against 0.989 / 0.962). These are their TT efficiencies (of the 66.9 TFLOP/s peak); NN
 * keeps 7 (9: 43.6 TFLOP/s), as do NT and TN (46.5 / 43.0 on 9 against 48.3 / 46.4 on 7).
 */
constexpr double TT_EFF7 = 47.37 / 66.9, TT_EFF9 = 48.38 / 66.9;
/* configuration 10's TT rate: 51.07 TFLOP/s, 1.052 x cuBLAS's at 4096^3 (v0.20 run 2, the median of
 * three passes of configuration 10 forced, its producer on RowLoader; v0.19 run 2, with
 * AsyncLoader's copies: 49.67) */
constexpr double TT_EFF_WS = 51.07 / 66.9;
constexpr int CFG_BIG = NCONFIGS, CFG_WIDE = NCONFIGS + 2; /* configurations 7 and 9 */

} /* namespace */

int kernel_tile_m() { return Cfg0::BM; }
int kernel_tile_n() { return Cfg0::BN; }
int kernel_configs() { return NALL; }

int kernel_blocks_per_sm(int *per_sm)
{
    for (int c = 0; c < NALL; ++c) {
        int b = 0;
        const ConfigRow &r = k_configs[c];
        const void *fn = (const void *)r.pick(false, false, true, true);
        cudaError_t e = fn ? prepare(r, fn) : cudaErrorInvalidDeviceFunction;
        if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, fn, r.threads, r.smem);
        if (r.sm90a) { /* no sm_90a image for this device (or none built): unavailable, not an error */
            g_avail[c] = e == cudaSuccess && b > 0;
            if (!g_avail[c]) {
                (void)cudaGetLastError();
                e = cudaSuccess;
            }
        }
        if (e != cudaSuccess) return (int)e;
        g_bps[c] = std::max(1, b);
    }
    *per_sm = g_bps[0];
    return 0;
}

void kernel_set_blocks_per_sm(const int *per_config, int count)
{
    for (int c = 0; c < NALL && c < count; ++c) {
        g_bps[c] = std::max(1, per_config[c]);
        if (k_configs[c].sm90a) g_avail[c] = per_config[c] > 0;
    }
}

void kernel_set_ws(int on) { g_ws_on = on != 0; }

bool kernel_available(int config) { return config >= 0 && config < NALL && g_avail[config]; }

namespace {

/* A tail block's run must hold at least this many K slices (a shorter one spends its time
 * filling the pipeline and writing its partial tile). */
constexpr int64_t TAIL_MIN_SLICES = 8;
/* The rule takes a tail only where it models at least 5% faster than the same configuration
 * without: big_tail_kernel's K loop is scheduled apart from big_kernel's and ran up to 3% slower
 * per tile (v0.14 runs 1-2), and where the modelled gain was 1.5-3% (4096^3, 8192^3, 16384^3,
 * 6144^3, 10240^3) the measured one was -2% to +1.5%; at 5120^3 (15% modelled) it was 12%. */
constexpr double TAIL_MARGIN = 1.05;

/*
 * Modelled time of configuration c, unsplit, with a stream-K tail (big::TailPlan), or -1 where it
 * cannot have one: not the big family, a grid of less than one round of resident blocks (G = sms
 * x blocks per SM) or a whole number of rounds, runs shorter than TAIL_MIN_SLICES, or a workspace
 * (2 G tiles) past max_ws_floats (so the pipeline's launches, max_ws_floats 0, never get one).
 * The time: whole rounds, then the last round's rem tiles' work spread over all G blocks, at the
 * configuration's rate (eff, 0: its own), plus the pieces' traffic (at most rem + G partial tiles
 * written and read by the fix-up, C's rem tiles read and written) at REDUCE_BPS and its launch.
 * *rem / *g: the tail's tiles and blocks.
 */
double tail_time(int c, int64_t m, int64_t n, int64_t k, int64_t sms, int64_t max_ws_floats, int64_t *rem,
                 int64_t *g, double eff = 0)
{
    const ConfigRow &r = k_configs[c];
    if (!r.tpick) return -1;
    const int64_t tiles = cdiv(m, r.bm) * cdiv(n, r.bn);
    *g = sms * g_bps[c];
    *rem = tiles % *g;
    if (tiles < *g || *rem == 0 || 2 * *g * r.bm * r.bn > max_ws_floats ||
        *rem * cdiv(k, r.bk) < TAIL_MIN_SLICES * *g)
        return -1;
    const double tile_s = 2.0 * r.bm * r.bn * (double)k * g_bps[c] / (GPU_PEAK_SM * (eff > 0 ? eff : r.eff));
    const double rounds = (double)(tiles / *g) + (double)*rem / (double)*g;
    const double traffic = (2.0 * (double)(*rem + *g) + 2.0 * (double)*rem) * r.bm * r.bn * 4.0;
    return rounds * tile_s + LAUNCH_S + traffic / REDUCE_BPS + LAUNCH_S;
}

/* Modelled time of configuration c unsplit, with a tail where the rule takes one (TAIL_MARGIN;
 * tail < 0: never): *rem / *g its tiles and blocks, else 0. */
double unsplit_time(int c, int64_t m, int64_t n, int64_t k, int64_t sms, int64_t max_ws_floats, int64_t tail,
                    int64_t *rem, int64_t *g, double eff = 0)
{
    const double t = model_time(c, m, n, k, 1, sms, nullptr, eff);
    int64_t tr = 0, tg = 0;
    const double tt = tail < 0 ? -1 : tail_time(c, m, n, k, sms, max_ws_floats, &tr, &tg, eff);
    if (tt > 0 && tt * TAIL_MARGIN < t) {
        *rem = tr, *g = tg;
        return tt;
    }
    *rem = *g = 0;
    return t;
}

/* The test knob (tail > 0): the grid's remainder modulo `tail` onto `tail` blocks, whatever the
 * grid, on an unsplit big-family plan with the workspace within max_ws_floats. */
void force_tail(KernelPlan &p, int64_t m, int64_t n, int64_t max_ws_floats, int64_t tail)
{
    const ConfigRow &r = k_configs[p.config];
    p.tail_tiles = p.tail_blocks = 0;
    if (!r.tpick || p.splits != 1 || 2 * tail * r.bm * r.bn > max_ws_floats) return;
    const int64_t rem = cdiv(m, r.bm) * cdiv(n, r.bn) % tail;
    if (rem > 0) p.tail_tiles = rem, p.tail_blocks = tail;
}

} /* namespace */

int64_t kernel_ws_floats(int config, int64_t m, int64_t n, const KernelPlan &p)
{
    if (p.splits > 1) return p.splits * m * n;
    if (p.tail_tiles > 0 && config >= 0 && config < NALL)
        return 2 * p.tail_blocks * (int64_t)k_configs[config].bm * k_configs[config].bn;
    return 0;
}

KernelPlan kernel_plan(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t sms,
                       int64_t max_ws_floats, int config, int64_t splits, int64_t tail)
{
    KernelPlan best = {config >= 0 && config < NALL ? config : 0, 1, k};
    if (m <= 0 || n <= 0 || k <= 0) return best;
    sms = std::max<int64_t>(1, sms);
    /* splits allowed: slices of at least the configuration's split_min_k, a workspace within
     * max_ws_floats */
    const int64_t ws_max = max_ws_floats / std::max<int64_t>(1, m * n);
    const bool forced = config >= 0 && config < NALL;
    /* the rule's tail (0), none (-1 and the test knob's values, applied at the end) */
    const int64_t rule_tail = tail == 0 ? 0 : -1;
    if (forced && splits > 0) {
        const int64_t s = std::min<int64_t>(splits, std::max<int64_t>(1, std::min<int64_t>(cdiv(k, KALIGN), ws_max)));
        int64_t kslice;
        model_time(config, m, n, k, s, sms, &kslice);
        best.splits = cdiv(k, kslice);
        best.kslice = best.splits > 1 ? kslice : k;
        if (best.splits == 1) unsplit_time(config, m, n, k, sms, max_ws_floats, rule_tail, &best.tail_tiles, &best.tail_blocks);
        if (tail > 0) force_tail(best, m, n, max_ws_floats, tail);
        return best;
    }
    double tbest = 0;
    bool have = false;
    for (int c = forced ? config : 0; c < (forced ? config + 1 : NADOPTED); ++c) {
        if (!forced && c == CFG_WS) continue; /* 7's tile: taken in 7's place below */
        const int64_t smax = std::max<int64_t>(
            1, std::min<int64_t>({MAX_SPLITS, k / k_configs[c].split_min_k, ws_max}));
        for (int64_t s = 1; s <= smax; ++s) {
            /* split K only for grids under two waves: past that, wave quantisation costs little
             * and the partials would cost device memory and bandwidth (8192^3 would take 3) */
            const int64_t tiles = cdiv(m, k_configs[c].bm) * cdiv(n, k_configs[c].bn);
            if (s > 1 && tiles >= 2 * sms * g_bps[c]) break;
            int64_t kslice = k, rem = 0, g = 0;
            const double t = s == 1 ? unsplit_time(c, m, n, k, sms, max_ws_floats, rule_tail, &rem, &g)
                                    : model_time(c, m, n, k, s, sms, &kslice);
            if (!have || t < tbest) { /* strict: ties keep the bigger tile and fewer splits */
                have = true;
                tbest = t;
                best.config = c;
                best.splits = cdiv(k, kslice);
                best.kslice = best.splits > 1 ? kslice : k;
                best.tail_tiles = rem, best.tail_blocks = g;
            }
        }
    }
    /* Where the device runs sm_90a code (and TSGEMM_TEST_WS is not 0): the warp-specialized
     * configuration 10 in place of 7 wherever 7 would run unsplit and without a stream-K tail
     * (its tile; faster on every pair, NT by 0.2-1%, NN 2-3%, TN and TT 6-8%: docs/NOTES.md
     * "v0.19", "v0.20"; it has no tail kernel, and
     * where the rule takes a tail, 7's tail gains more). */
    const bool ws = !forced && g_ws_on && g_avail[CFG_WS];
    /* TT: configuration 9 in place of an unsplit 7 when its modelled time at its TT rate is no
     * longer than 7's at 7's (its grid has as few idle SMs; TT_EFF) — or, where 7 would become
     * 10, than 10's at 10's — tails included */
    int64_t r7, g7, r9, g9;
    if (!forced && transa == 'T' && transb == 'T' && best.config == CFG_BIG && best.splits == 1) {
        const bool to_ws = ws && best.tail_tiles == 0;
        const double t9 = unsplit_time(CFG_WIDE, m, n, k, sms, max_ws_floats, rule_tail, &r9, &g9, TT_EFF9);
        const double t7 = to_ws ? unsplit_time(CFG_WS, m, n, k, sms, max_ws_floats, -1, &r7, &g7, TT_EFF_WS)
                                : unsplit_time(CFG_BIG, m, n, k, sms, max_ws_floats, rule_tail, &r7, &g7, TT_EFF7);
        if (t9 <= t7) {
            best = {CFG_WIDE, 1, k};
            best.tail_tiles = r9, best.tail_blocks = g9;
        }
    }
    if (ws && best.config == CFG_BIG && best.splits == 1 && best.tail_tiles == 0) best.config = CFG_WS;
    if (tail > 0) force_tail(best, m, n, max_ws_floats, tail);
    return best;
}

int kernel_sgemm(int config, char transa, char transb, int64_t m, int64_t n, int64_t k,
                 int64_t kslice, int64_t splits, int64_t tail_tiles, int64_t tail_blocks, float alpha,
                 const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                 int64_t ldc, float *W, void *stream)
{
    if (config < 0 || config >= NALL) config = 0;
    if (!g_avail[config]) config = CFG_BIG; /* sm_90a code this device cannot run: 7, the same tile */
    const ConfigRow &r = k_configs[config];
    cudaStream_t s = (cudaStream_t)stream;
    const int64_t tiles = cdiv(m, r.bm) * cdiv(n, r.bn);
    const bool ta = transa == 'T', tb = transb == 'T', va = vec_ok(A, lda), vb = vec_ok(B, ldb);
    if (!r.tpick || splits > 1 || tail_tiles <= 0 || tail_tiles >= tail_blocks || tail_tiles > tiles ||
        tail_tiles > 65535 /* the fix-up's grid.y */)
        tail_tiles = tail_blocks = 0;
    {
        const cudaError_t e = prepare(r, tail_tiles ? (const void *)r.tpick(ta, tb, va, vb)
                                                    : (const void *)r.pick(ta, tb, va, vb));
        if (e != cudaSuccess) return (int)e;
    }
    KernelFn fn = r.pick(ta, tb, va, vb);
    if (splits > 1) {
        const unsigned grid = (unsigned)std::min<int64_t>(tiles * splits, 0x7fffffff);
        fn<<<grid, r.threads, r.smem, s>>>(m, n, k, kslice, splits, 1.0f, A, lda, B, ldb, 0.0f, W, m, m * n);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return (int)e;
        reduce_splits_kernel<<<elementwise_blocks(m * n), 256, 0, s>>>(m, n, splits, W, alpha,
                                                                         beta, C, ldc);
    } else if (tail_tiles > 0) { /* big::TailPlan: one launch, then the fix-up */
        const big::TailPlan tp{tail_tiles, tail_blocks, cdiv(k, r.bk)};
        const unsigned grid = (unsigned)std::min<int64_t>(tiles - tail_tiles + tail_blocks, 0x7fffffff);
        r.tpick(ta, tb, va, vb)<<<grid, r.threads, r.smem, s>>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                                tp, W);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return (int)e;
        const dim3 rg((unsigned)cdiv((int64_t)r.bm * r.bn, TAIL_EPT * 256), (unsigned)tail_tiles);
        tail_reduce_kernel<<<rg, 256, 0, s>>>(m, n, r.bm, r.bn, tiles - tail_tiles, tp, W, alpha, beta, C,
                                              ldc);
    } else {
        const unsigned grid = (unsigned)std::min<int64_t>(tiles, 0x7fffffff);
        fn<<<grid, r.threads, r.smem, s>>>(m, n, k, k, 1, alpha, A, lda, B, ldb, beta, C, ldc, 0);
    }
    return (int)cudaGetLastError();
}

int kernel_scale(int64_t m, int64_t n, float beta, float *C, int64_t ldc, void *stream)
{
    scale_kernel<<<elementwise_blocks(m * n), 256, 0, (cudaStream_t)stream>>>(m, n, beta, C, ldc);
    return (int)cudaGetLastError();
}

int kernel_fill(float *x, int64_t count, uint32_t seed, void *stream)
{
    fill_kernel<<<1024, 256, 0, (cudaStream_t)stream>>>(x, count, seed);
    return (int)cudaGetLastError();
}

int kernel_describe(int config, char *buf, size_t len)
{
    if (config < 0 || config >= NALL) {
        snprintf(buf, len, "no configuration %d (the families have %d)", config, NALL);
        return (int)cudaErrorInvalidValue;
    }
    const ConfigRow &r = k_configs[config];
    if (!g_avail[config]) {
        snprintf(buf, len, "config %d: tile %dx%d, %d threads, warp-specialized (sm_90a code): not on this "
                 "device, runs configuration %d", config, r.bm, r.bn, r.threads, CFG_BIG);
        return 0;
    }
    cudaFuncAttributes attr;
    cudaError_t e = cudaFuncGetAttributes(&attr, (const void *)r.pick(false, false, true, true));
    if (e != cudaSuccess) {
        snprintf(buf, len, "%s", cudaGetErrorString(e));
        return (int)e;
    }
    char more[192] = "";
    if (r.sm90a) snprintf(more, sizeof more, ", warp-specialized (%d producer threads), one WsConfig per pair (the figures: NN's)",
                          ws::PRODUCERS);
    if (r.pf) snprintf(more + strlen(more), sizeof more - strlen(more), ", L2 prefetch %d B", r.pf);
    if (r.akc)
        snprintf(more + strlen(more), sizeof more - strlen(more),
                 ", A^T in 16-byte copies k-contiguous, read %d k at a time", r.akc);
    if (r.bstep[0] || r.bstep[1] || r.bstep[2] || r.bstep[3])
        snprintf(more + strlen(more), sizeof more - strlen(more), ", B copies at step %d/%d/%d/%d (NN/NT/TN/TT)",
                 r.bstep[0], r.bstep[1], r.bstep[2], r.bstep[3]);
    snprintf(buf, len,
             "config %d: tile %dx%dx%d, %d threads, %dx%d per thread, %d-stage smem %d B, %d regs, "
             "%d blocks/SM, binary sm_%d%s%s%s",
             config, r.bm, r.bn, r.bk, r.threads, r.tm, r.tn, r.stages,
             r.smem ? r.smem : (int)attr.sharedSizeBytes, attr.numRegs, g_bps[config], attr.binaryVersion,
             r.swz & 1 ? ", A^T swizzled" : "", r.swz & 2 ? ", B swizzled" : "", more);
    return 0;
}

} /* namespace tsg */
