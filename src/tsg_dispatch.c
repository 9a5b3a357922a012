/*
 * tsg_dispatch.c — the cost model, the decision and the attempt order. See tsg_dispatch.h.
 */
#include "tsg_dispatch.h"

#include <math.h>
#include <string.h>

const char *tsg_why_text(tsg_why why)
{
    static const char *const text[TSG_WHY_COUNT] = {
        "TSGEMM_MODE=cpu", "TSGEMM_MODE=gpu", "tiny", "no usable GPU",
        "below TSGEMM_GPU_THRESHOLD", "at/above TSGEMM_GPU_THRESHOLD",
        "model: CPU faster", "model: GPU faster"};
    return (why >= 0 && why < TSG_WHY_COUNT) ? text[why] : "?";
}

/* Bytes the executor moves: A and B at their extents, C down always and up only when beta != 0. */
static void transfer_bytes(const tsg_problem *p, double *in, double *out)
{
    int64_t ra, ca, rb, cb;
    tsg_stored_shape_a(p, &ra, &ca);
    tsg_stored_shape_b(p, &rb, &cb);
    double c_bytes = 4.0 * (double)p->m * (double)p->n;
    *in = 4.0 * ((double)tsg_extent(ra, ca, p->lda) + (double)tsg_extent(rb, cb, p->ldb)) +
          (p->beta != 0.0f ? c_bytes : 0.0);
    *out = c_bytes;
}

double tsg_estimate_gpu_s(const tsg_problem *p, const tsg_rates *r)
{
    double in, out;
    transfer_bytes(p, &in, &out);
    double kernel = tsg_flops(p) / r->gpu_flops;
    if (r->gpu_tile_m >= 1 && r->gpu_tile_n >= 1 && r->gpu_slots >= 1) {
        double tiles = ceil((double)p->m / r->gpu_tile_m) * ceil((double)p->n / r->gpu_tile_n);
        double splits = 1;
        if (r->gpu_split_min_k >= 1 && 2 * tiles <= r->gpu_slots)
            splits = fmax(1, fmin(floor(r->gpu_slots / tiles), floor((double)p->k / r->gpu_split_min_k)));
        double waves = ceil(tiles * splits / r->gpu_slots);
        kernel = waves * r->gpu_slots * 2.0 * r->gpu_tile_m * r->gpu_tile_n *
                 ceil((double)p->k / splits) / r->gpu_flops;
    }
    return r->gpu_latency_s + in / r->h2d_bps + out / r->d2h_bps + kernel;
}

double tsg_estimate_cpu_s(const tsg_problem *p, const tsg_rates *r)
{
    return r->cpu_latency_s + tsg_flops(p) / r->cpu_flops;
}

static int rates_usable(const tsg_rates *r)
{
    return r && r->h2d_bps > 0 && r->d2h_bps > 0 && r->gpu_flops > 0 && r->cpu_flops > 0 &&
           r->gpu_latency_s >= 0 && r->cpu_latency_s >= 0;
}

int tsg_may_want_gpu(const tsg_problem *p, const tsg_policy *cfg)
{
    if (cfg->mode == TSG_MODE_CPU) return 0;
    if (cfg->mode == TSG_MODE_GPU) return 1;
    if (cfg->threshold > 0) {
        double t = cfg->threshold;
        return (double)p->m * (double)p->n * (double)p->k >= t * t * t;
    }
    return tsg_flops(p) >= TSG_GPU_FLOOR_FLOPS;
}

int tsg_wants_gpu(const tsg_problem *p, const tsg_policy *cfg, int gpu_usable,
                  const tsg_rates *r, tsg_why *why)
{
    if (cfg->mode == TSG_MODE_CPU) {
        *why = TSG_WHY_MODE_CPU;
        return 0;
    }
    if (!gpu_usable) {
        *why = TSG_WHY_NO_GPU;
        return 0;
    }
    if (cfg->mode == TSG_MODE_GPU) {
        *why = TSG_WHY_MODE_GPU;
        return 1;
    }
    if (cfg->threshold > 0) {
        double t = cfg->threshold;
        int gpu = (double)p->m * (double)p->n * (double)p->k >= t * t * t;
        *why = gpu ? TSG_WHY_THRESHOLD_GPU : TSG_WHY_THRESHOLD_CPU;
        return gpu;
    }
    if (tsg_flops(p) < TSG_GPU_FLOOR_FLOPS) {
        *why = TSG_WHY_TINY;
        return 0;
    }
    if (!rates_usable(r)) { /* a GPU with no rates cannot be judged: stay on the safe side */
        *why = TSG_WHY_MODEL_CPU;
        return 0;
    }
    int gpu = tsg_estimate_gpu_s(p, r) < TSG_GPU_MARGIN * tsg_estimate_cpu_s(p, r);
    *why = gpu ? TSG_WHY_MODEL_GPU : TSG_WHY_MODEL_CPU;
    return gpu;
}

void tsg_run(const tsg_problem *p, const tsg_policy *cfg, const tsg_backends *be, tsg_report *rep)
{
    /* not memset: msg is 256 bytes, more than a tiny call's whole budget */
    rep->path = TSG_PATH_NONE;
    rep->why = TSG_WHY_TINY;
    rep->gpu_status = 0;
    rep->gpu_done_cols = 0;
    rep->msg[0] = '\0';
    rep->rule = tsg_apply_scalar_rules(p);
    if (rep->rule != TSG_RULE_COMPUTE) {
        rep->path = TSG_PATH_NONE;
        return;
    }
    tsg_rates rates;
    memset(&rates, 0, sizeof rates);
    int usable = 0;
    if (tsg_may_want_gpu(p, cfg) && be->gpu_ready) usable = be->gpu_ready(be->ctx, &rates);
    if (!tsg_wants_gpu(p, cfg, usable, usable ? &rates : NULL, &rep->why)) {
        /* TSG_WHY_TINY also covers "not worth asking for a GPU at all" */
        if (!usable && rep->why == TSG_WHY_NO_GPU && !tsg_may_want_gpu(p, cfg))
            rep->why = cfg->mode == TSG_MODE_CPU ? TSG_WHY_MODE_CPU
                       : cfg->threshold > 0     ? TSG_WHY_THRESHOLD_CPU
                                                : TSG_WHY_TINY;
        be->cpu_sgemm(be->ctx, p);
        rep->path = TSG_PATH_CPU;
        return;
    }
    int64_t done = 0;
    rep->gpu_status = be->gpu_sgemm(be->ctx, p, &done, rep->msg, sizeof rep->msg);
    if (rep->gpu_status == 0) {
        rep->path = TSG_PATH_GPU;
        return;
    }
    if (done < 0 || done > p->n) done = 0; /* a backend that cannot say: nothing is final */
    rep->gpu_done_cols = done;
    rep->path = TSG_PATH_CPU_RETRY;
    if (done == p->n) return;
    /* Columns [done, n) still hold the caller's original C: redo exactly those. */
    tsg_problem rest = *p;
    rest.n = p->n - done;
    rest.b = p->transb == 'N' ? p->b + done * p->ldb : p->b + done;
    rest.c = p->c + done * p->ldc;
    be->cpu_sgemm(be->ctx, &rest);
}
