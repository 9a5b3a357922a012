/*
 * tsg_cost.c — the cost model. See tsg_cost.h.
 */
#include "tsg_cost.h"

#include <math.h>
#include <stdlib.h>

#include "tsg_rates.h"

/* Bytes the pipeline moves: host operands only — A and B as the rows x cols the copy threads
 * gather into the slots (never the gaps between columns of a leading dimension larger than the
 * rows: spotrf's 64-row B of ldb 8192 spans 128x the bytes it moves), C down. Device and
 * managed operands count as used in place (a managed C with beta != 0 is in fact staged both
 * ways; the model has always left that out). A host or pinned C never goes up: with beta != 0 the
 * copy threads apply beta while scattering C (gpu/tsg_pipeline.cu choose_modes, v0.8), a
 * host-memory pass the model leaves out (the scatter reads C beside the slot it already
 * streams). */
static int moves(unsigned char where) { return where == TSG_HOST || where == TSG_PINNED; }

static void transfer_bytes(const tsg_problem *p, double *in, double *out)
{
    int64_t ra, ca, rb, cb;
    tsg_stored_shape_a(p, &ra, &ca);
    tsg_stored_shape_b(p, &rb, &cb);
    double c_bytes = moves(p->where_c) ? 4.0 * (double)p->m * (double)p->n : 0.0;
    *in = (moves(p->where_a) ? 4.0 * (double)ra * (double)ca : 0.0) +
          (moves(p->where_b) ? 4.0 * (double)rb * (double)cb : 0.0);
    *out = c_bytes;
}

tsg_gpu_kernel tsg_gpu_kernel_of(const tsg_problem *p, const tsg_rates *r)
{
    tsg_gpu_kernel k = {r->gpu_flops, r->gpu_tile_m, r->gpu_tile_n};
    const int pair = tsg_problem_pair(p);
    if (pair == 0) return k;
    if (r->gpu_pair_flops[pair - 1] != 0) k.flops = r->gpu_pair_flops[pair - 1];
    if (r->gpu_pair_tile_m[pair - 1] != 0) k.tile_m = r->gpu_pair_tile_m[pair - 1];
    if (r->gpu_pair_tile_n[pair - 1] != 0) k.tile_n = r->gpu_pair_tile_n[pair - 1];
    return k;
}

/* Seconds of the kernels of a plan: each launch (block, chunk) runs ceil(units / slots) waves of
 * kernel kn's tiles at its rate. */
static double kernel_s(const tsg_problem *p, const tsg_plan *pl, const tsg_rates *r, const tsg_gpu_kernel *kn)
{
    const double per_k = 2.0 * kn->tile_m * kn->tile_n * r->gpu_slots / kn->flops;
    double t = 0;
    for (int64_t i = 0; i < pl->gm; ++i) {
        const double tm = ceil((double)tsg_plan_rows(pl, p->m, i) / kn->tile_m);
        for (int64_t j = 0; j < pl->gn; ++j) {
            const double tiles = tm * ceil((double)tsg_plan_cols(pl, p->n, j) / kn->tile_n);
            for (int64_t c = 0; c < pl->nk; ++c) {
                const double kl = (double)tsg_plan_klen(pl, p->k, c);
                const double slices = ceil(kl / (double)pl->split_kc);
                /* one wave of slices takes the time of one slice's k at the full-wave rate */
                t += ceil(tiles * slices / r->gpu_slots) * per_k * (kl / slices) + TSG_GPU_LAUNCH_S;
            }
        }
    }
    return t;
}

double tsg_estimate_gpu_s(const tsg_problem *p, const tsg_rates *r)
{
    /* every divisor and every value cast below is within its physical bounds (tsg_rates.h);
     * rates that are not cannot price a GPU call: it never looks faster */
    if (tsg_rates_gpu_check(r, 0) >= 0) return INFINITY;
    double in, out;
    transfer_bytes(p, &in, &out);
    /* the call's pair's kernel: the executor plans it with that tile too (call_limits) */
    const tsg_gpu_kernel kn = tsg_gpu_kernel_of(p, r);
    if (!(kn.tile_m >= 1 && kn.tile_n >= 1 && r->gpu_slots >= 1)) /* no shape info */
        return r->gpu_latency_s + in / r->h2d_bps + out / r->d2h_bps + tsg_flops(p) / kn.flops;
    tsg_plan_limits lim = {r->gpu_device_bytes > 0 ? r->gpu_device_bytes : 1e300,
                           (int64_t)kn.tile_m, (int64_t)kn.tile_n, (int64_t)r->gpu_slots,
                           (int64_t)r->gpu_split_min_k, 0, 0, 0};
    tsg_plan pl;
    if (tsg_plan_make(p, &lim, &pl) != 0) return INFINITY;
    /* A and B as the plan moves them: once when resident, once per block they meet otherwise */
    const double a_in = moves(p->where_a) ? 4.0 * (double)p->m * (double)p->k : 0.0;
    const double b_in = moves(p->where_b) ? 4.0 * (double)p->n * (double)p->k : 0.0;
    if (!pl.resident) in += a_in * (double)(pl.gn - 1) + b_in * (double)(pl.gm - 1);
    const double up = in / r->h2d_bps, down = out / r->d2h_bps;
    const double kernel = kernel_s(p, &pl, r, &kn);
    /* the first piece must be up before the first launch, the last block down after the last */
    const double first_in = (moves(p->where_a) ? 4.0 * (double)pl.bm * (double)pl.kc : 0.0) +
                            (moves(p->where_b) ? 4.0 * (double)pl.bn * (double)pl.kc : 0.0);
    const double first = (first_in < in ? first_in : in) / r->h2d_bps;
    const double last = down / (double)(pl.gm * pl.gn);
    const double touch = tsg_first_touch_s(p, r);
    double body = up + touch > kernel ? up + touch : kernel;
    if (down > body) body = down;
    return r->gpu_latency_s + first + body + last;
}

double tsg_first_touch_s(const tsg_problem *p, const tsg_rates *r)
{
    if (!p->fresh_c || p->where_c != TSG_HOST || p->beta != 0.0f || p->m <= 0 || p->n <= 0)
        return 0.0;
    if (!(r->cpu_touch_bps >= 1e6 && r->cpu_touch_bps <= 1e13)) return 0.0; /* 0: not measured */
    return 4.0 * (double)tsg_extent(p->m, p->n, p->ldc) / r->cpu_touch_bps;
}

static double cpu_curve_s(double f, const tsg_rates *r);

/* The thinness factor of one dimension d (m or n) whose thin call took thin_s (TSG_CPU_THIN). */
static double thin_factor(int64_t d, double thin_s, const tsg_rates *r)
{
    if (!(thin_s > 0) || d >= TSG_CPU_WIDE) return 1.0;
    const double f = 2.0 * TSG_CPU_THIN * (double)TSG_CPU_THIN_LONG * (double)TSG_CPU_THIN_LONG;
    const double at_thin = thin_s / cpu_curve_s(f, r);
    if (!(at_thin > 1.0)) return 1.0; /* never cheaper than a square call */
    if (d <= TSG_CPU_THIN) return at_thin;
    /* geometric between TSG_CPU_THIN (at_thin) and TSG_CPU_WIDE (1) */
    const double x = log2((double)TSG_CPU_WIDE / (double)d) / log2((double)TSG_CPU_WIDE / TSG_CPU_THIN);
    return pow(at_thin, x);
}

double tsg_estimate_cpu_s(const tsg_problem *p, const tsg_rates *r)
{
    if (!tsg_rates_cpu_ok(r)) return INFINITY; /* cpu_flops is a divisor below */
    const double f = tsg_flops(p);
    double thin = 1.0;
    /* m and n each count as thin against the larger of the other two sizes (tsg_cost.h
     * TSG_CPU_THIN), in calls of at least TSG_CPU_SMALL_N^3's flops */
    if (f >= 2.0 * TSG_CPU_SMALL_N * TSG_CPU_SMALL_N * TSG_CPU_SMALL_N) {
        if (p->n >= TSG_CPU_WIDE || p->k >= TSG_CPU_WIDE) thin *= thin_factor(p->m, r->cpu_thin_m_s, r);
        if (p->m >= TSG_CPU_WIDE || p->k >= TSG_CPU_WIDE) thin *= thin_factor(p->n, r->cpu_thin_n_s, r);
    }
    return cpu_curve_s(f, r) * thin + tsg_first_touch_s(p, r);
}

/* the square calls' curve: seconds of a call of f flops (tsg_estimate_cpu_s's doc) */
static double cpu_curve_s(double f, const tsg_rates *r)
{
    if (!(r->cpu_mid_s > 0)) return r->cpu_latency_s + f / r->cpu_flops;
    /* the measured points, smallest first; a point slower than the next counts as the next */
    double x[4], y[4];
    int n = 0;
    x[n] = 0, y[n++] = r->cpu_latency_s;
    if (r->cpu_small_s > 0)
        x[n] = 2.0 * TSG_CPU_SMALL_N * TSG_CPU_SMALL_N * TSG_CPU_SMALL_N, y[n++] = r->cpu_small_s;
    x[n] = 2.0 * TSG_CPU_MID_N * TSG_CPU_MID_N * TSG_CPU_MID_N, y[n++] = r->cpu_mid_s;
    x[n] = 2.0 * TSG_CPU_BIG_N * TSG_CPU_BIG_N * TSG_CPU_BIG_N, y[n] = x[n] / r->cpu_flops;
    if (f >= x[n]) return f / r->cpu_flops;
    for (int i = n - 1; i >= 1; --i)
        if (y[i] > y[i + 1]) y[i] = y[i + 1];
    int i = 0;
    while (f >= x[i + 1]) ++i;
    return y[i] + (f - x[i]) * (y[i + 1] - y[i]) / (x[i + 1] - x[i]);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double tsg_mean_less_slowest(double *t, int n)
{
    if (n < 2) return n == 1 ? t[0] : 0.0;
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    double sum = 0;
    for (int i = 0; i + 1 < n; ++i) sum += t[i];
    return sum / (n - 1);
}

double tsg_fit_gpu_latency(const tsg_rates *r, int64_t n, double call_s, double floor_s)
{
    tsg_problem p = {'N', 'N', n, n, n, 1.0f, 0.0f, NULL, n, NULL, n, NULL, n,
                     TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    tsg_rates z = *r;
    z.gpu_latency_s = 0;
    const double rest = tsg_estimate_gpu_s(&p, &z);
    const double fit = isfinite(rest) ? call_s - rest : floor_s;
    return fit > floor_s ? fit : floor_s;
}
