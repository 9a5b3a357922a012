/*
 * tsg_kernel_plan.cu — the rule (tsg_kernel.h, kernel_plan): which configuration of the table
 * (tsg_kernel_configs.h) and which split of K serve a shape, from a model of each configuration's
 * time; and the occupancy table it reads (resident blocks per SM of each configuration, whether it
 * runs on this device), which kernel_blocks_per_sm measures (tsg_kernel.cu) and the unit test sets.
 * Host code only, no CUDA call: a pure function of its arguments and of that table, so a shape
 * gets the same plan, and bit-identical results, in every run (tests/unit/test_kernel_plan.cu).
 */
#include <algorithm>
#include <cmath>

#include "tsg_kernel.h"
#include "tsg_kernel_configs.h"

namespace tsg {

namespace {

/* Resident blocks per SM of each configuration (kernel_set_blocks_per_sm; 1 until measured). */
int g_bps[NUM_CONFIGS];
[[maybe_unused]] const bool g_bps_set = [] {
    for (int &b : g_bps) b = 1;
    return true;
}();

/* Whether each configuration can run on this device: one of sm_90a code only where its kernel
 * loads (kernel_blocks_per_sm: a compute capability 9.0 device and an nvcc that built it), or
 * where the occupancy table given says so (kernel_set_blocks_per_sm); every other one always. */
bool g_avail[NUM_CONFIGS];
[[maybe_unused]] const bool g_avail_set = [] {
    for (int c = 0; c < NUM_CONFIGS; ++c) g_avail[c] = !needs_sm90a(k_configs[c]);
    return true;
}();

constexpr int64_t MAX_SPLITS = 64;
constexpr double GPU_PEAK_SM = 2.0 * 128 * 1.98e9; /* FP32 flop/s of one H200 SM (docs/PERF.md) */
constexpr double LAUNCH_S = 6e-6;      /* a launch's fixed cost on the timeline (512^3: ~6 us) */
constexpr double REDUCE_BPS = 2.5e12;  /* split-K reduction: bytes/s it streams */
constexpr double SPLIT_MARGIN = 1.1;   /* a split must win by 10% (second launch, workspace) */

/* How well `warps` resident warps keep an SM busy: sqrt(warps / W0), at most 1, with W0 = 8 for
 * 8 x 8 register tiles and 16 for 4 x 4 ones (fewer independent FMAs per warp). Fitted to the H200
 * (docs/NOTES.md "v0.3 kernel configurations", run 1): one 128 x 64 block (4 warps) alone on an SM
 * ran at 0.75 of the full-SM rate, two 64 x 64 / 8 x 8 blocks (4 warps) at 0.72, two 32 x 32 /
 * 4 x 4 blocks at 0.54. */
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
    const KernelConfig &r = k_configs[c];
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
 * Their TT rates, in TFLOP/s over the 66.9 TFLOP/s peak: 7 47.37, 9 48.38 (the kernel alone, the
 * mean of TT 4096^3 and 8192^3 in v0.8 run 5; docs/NOTES.md "v0.9"). NN keeps 7 (9: 43.6
 * TFLOP/s), as do NT and TN (46.5 / 43.0 on 9 against 48.3 / 46.4 on 7).
 */
constexpr double TT_EFF7 = 47.37 / 66.9, TT_EFF9 = 48.38 / 66.9;
/* configuration 10's TT rate: 51.07 TFLOP/s, 1.052 x cuBLAS's at 4096^3 (the median of three passes
 * of configuration 10 forced; docs/NOTES.md "v0.20", run 2) */
constexpr double TT_EFF_WS = 51.07 / 66.9;

/* A tail block's run must hold at least this many K slices (a shorter one spends its time
 * filling the pipeline and writing its partial tile). */
constexpr int64_t TAIL_MIN_SLICES = 8;
/* The rule takes a tail only where it models at least 5% faster than the same configuration
 * without: big_tail_kernel's K loop is scheduled apart from big_kernel's and ran up to 3% slower
 * per tile, and where the modelled gain was 1.5-3% (4096^3, 8192^3, 16384^3, 6144^3, 10240^3) the
 * measured one was -2% to +1.5%; at 5120^3 (15% modelled) it was 12% (docs/NOTES.md "v0.14"). */
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
    const KernelConfig &r = k_configs[c];
    if (!has_tail(r)) return -1;
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
    const KernelConfig &r = k_configs[p.config];
    p.tail_tiles = p.tail_blocks = 0;
    if (!has_tail(r) || p.splits != 1 || 2 * tail * r.bm * r.bn > max_ws_floats) return;
    const int64_t rem = cdiv(m, r.bm) * cdiv(n, r.bn) % tail;
    if (rem > 0) p.tail_tiles = rem, p.tail_blocks = tail;
}

} /* namespace */

int kernel_configs() { return NUM_CONFIGS; }

void kernel_set_blocks_per_sm(const int *per_config, int count)
{
    for (int c = 0; c < NUM_CONFIGS && c < count; ++c) {
        g_bps[c] = std::max(1, per_config[c]);
        if (needs_sm90a(k_configs[c])) g_avail[c] = per_config[c] > 0;
    }
}

int blocks_per_sm(int c) { return g_bps[c]; }

bool kernel_available(int config) { return config >= 0 && config < NUM_CONFIGS && g_avail[config]; }

int64_t kernel_ws_floats(int config, int64_t m, int64_t n, const KernelPlan &p)
{
    if (p.splits > 1) return p.splits * m * n;
    if (p.tail_tiles > 0 && config >= 0 && config < NUM_CONFIGS)
        return 2 * p.tail_blocks * (int64_t)k_configs[config].bm * k_configs[config].bn;
    return 0;
}

KernelPlan kernel_plan(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t sms,
                       int64_t max_ws_floats, int config, int64_t splits, int64_t tail, bool va, bool vb)
{
    KernelPlan best = {config >= 0 && config < NUM_CONFIGS ? config : 0, 1, k};
    if (m <= 0 || n <= 0 || k <= 0) return best;
    sms = std::max<int64_t>(1, sms);
    /* splits allowed: slices of at least the configuration's split_min_k, a workspace within
     * max_ws_floats */
    const int64_t ws_max = max_ws_floats / std::max<int64_t>(1, m * n);
    const bool forced = config >= 0 && config < NUM_CONFIGS;
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
    for (int c = forced ? config : 0; c < (forced ? config + 1 : NUM_CONFIGS); ++c) {
        if (!forced && c == WS_256x128) continue; /* 7's tile: taken in 7's place below */
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
    /* Where the device runs sm_90a code: the warp-specialized configuration 10 in place of 7
     * wherever 7 would run unsplit and without a stream-K tail (its tile; faster on every pair,
     * NT by 0.2-1%, NN 2-3%, TN and TT 6-8%: docs/NOTES.md "v0.19", "v0.20"; it has no tail
     * kernel, and where the rule takes a tail, 7's tail gains more); not where an m- or
     * n-contiguous operand is unaligned (tsg_kernel.h). */
    const bool ws = !forced && g_avail[WS_256x128] && !(transa == 'N' && !va) && !(transb == 'T' && !vb);
    /* TT: configuration 9 in place of an unsplit 7 when its modelled time at its TT rate is no
     * longer than 7's at 7's (its grid has as few idle SMs; TT_EFF) — or, where 7 would become
     * 10, than 10's at 10's — tails included */
    int64_t r7, g7, r9, g9;
    if (!forced && transa == 'T' && transb == 'T' && best.config == BIG_256x128 && best.splits == 1) {
        const bool to_ws = ws && best.tail_tiles == 0;
        const double t9 = unsplit_time(BIG_64x256, m, n, k, sms, max_ws_floats, rule_tail, &r9, &g9, TT_EFF9);
        const double t7 = to_ws ? unsplit_time(WS_256x128, m, n, k, sms, max_ws_floats, -1, &r7, &g7, TT_EFF_WS)
                                : unsplit_time(BIG_256x128, m, n, k, sms, max_ws_floats, rule_tail, &r7, &g7, TT_EFF7);
        if (t9 <= t7) {
            best = {BIG_64x256, 1, k};
            best.tail_tiles = r9, best.tail_blocks = g9;
        }
    }
    if (ws && best.config == BIG_256x128 && best.splits == 1 && best.tail_tiles == 0) best.config = WS_256x128;
    if (tail > 0) force_tail(best, m, n, max_ws_floats, tail);
    return best;
}

} /* namespace tsg */
