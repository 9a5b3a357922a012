/*
 * tsg_dispatch.c — the decision and the attempt order. See tsg_dispatch.h (the cost model is
 * src/tsg_cost.c).
 */
#include "tsg_dispatch.h"
#include "tsg_multi.h"
#include "tsg_rates.h"

#include <math.h>
#include <string.h>

const char *tsg_why_text(tsg_why why)
{
    static const char *const text[TSG_WHY_COUNT] = {
        "TSGEMM_MODE=cpu", "TSGEMM_MODE=gpu", "tiny", "no usable GPU",
        "below TSGEMM_GPU_THRESHOLD", "at/above TSGEMM_GPU_THRESHOLD",
        "model: CPU faster", "model: GPU faster", "device operand",
        "model: GPU faster, but not after waiting for its workspace's pinning",
        "model: GPU faster, but not twice, beside the caller's own BLAS threads"};
    return (why >= 0 && why < TSG_WHY_COUNT) ? text[why] : "?";
}

double tsg_estimate_gpus_s(const tsg_problem *p, const tsg_rates *r)
{
    /* the casts below need bounded fields; rates outside them price no GPU call at all */
    if (tsg_rates_gpu_check(r, 0) >= 0 || !tsg_rates_cpu_ok(r)) return INFINITY;
    if (!(r->gpu_count > 1)) return tsg_estimate_gpu_s(p, r);
    /* the panels' edges on the call's pair's tile, as tsg_gpu_work_make cuts them */
    const tsg_gpu_kernel kn = tsg_gpu_kernel_of(p, r);
    const tsg_multi_limits lim = {(int64_t)kn.tile_m, (int64_t)kn.tile_n};
    double est = 0;
    const int d = tsg_multi_devices(p, (int)r->gpu_count, r, &lim, &est);
    return d > 1 ? est : tsg_estimate_gpu_s(p, r);
}



/* C may be written where it is: device memory, or managed memory with beta = 0 (a half-written
 * managed C with beta != 0 would mislead a CPU retry, which reads it). */
static int c_in_place(const tsg_problem *p)
{
    return p->where_c == TSG_DEVICE || (p->where_c == TSG_MANAGED && p->beta == 0.0f);
}

static int host_memory(unsigned char where) { return where == TSG_HOST || where == TSG_PINNED; }

/* The plan limits of a call: the executor's, with the tensor-core family's tile for a call of its
 * maths where the family is there (tsg_gpu_limits.tc_tile). An FP32 call plans as before. */
static tsg_plan_limits call_limits(const tsg_problem *p, const tsg_gpu_limits *lim)
{
    tsg_plan_limits pl = lim->plan;
    if (p->math == TSG_MATH_3XTF32 || p->math == TSG_MATH_TF32) {
        const int64_t *t = lim->tc_tile[p->math == TSG_MATH_TF32][tsg_problem_pair(p)];
        if (t[0] > 0 && t[1] > 0) pl.tile_m = t[0], pl.tile_n = t[1];
    }
    return pl;
}

void tsg_gpu_work_make(const tsg_problem *p, const tsg_gpu_limits *lim, const tsg_rates *r,
                       tsg_gpu_work *out)
{
    const tsg_plan_limits plan = call_limits(p, lim);
    out->limits = plan;
    out->planned = 0;
    out->split.count = 0;
    const int scalar_only = p->k == 0 || p->alpha == 0.0f;
    if (scalar_only || (p->where_a >= TSG_MANAGED && p->where_b >= TSG_MANAGED && c_in_place(p))) {
        out->how = TSG_GPU_IN_PLACE;
        return;
    }
    if (lim->devices > 1 && host_memory(p->where_a) && host_memory(p->where_b) && host_memory(p->where_c)) {
        /* panel edges are multiples of the kernels' tile: each panel's tile grid is the call's */
        const tsg_multi_limits ml = {plan.tile_m, plan.tile_n};
        const int d = tsg_multi_devices(p, lim->devices, r, &ml, NULL);
        if (d > 1 && tsg_multi_split_make(p, d, NULL, &ml, &out->split) > 1) {
            out->how = TSG_GPU_PANELS;
            return;
        }
    }
    out->how = TSG_GPU_PIPELINE;
    out->planned = tsg_plan_make(p, &plan, &out->plan) == 0;
}

int tsg_may_want_gpu(const tsg_problem *p, const tsg_policy *cfg)
{
    if (cfg->mode == TSG_MODE_CPU) return 0;
    if (tsg_needs_device(p)) return 1;
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
    if (tsg_needs_device(p)) { /* the CPU cannot read it: the GPU or nothing */
        *why = cfg->mode == TSG_MODE_CPU ? TSG_WHY_MODE_CPU
               : gpu_usable              ? TSG_WHY_DEVICE_OPERAND
                                         : TSG_WHY_NO_GPU;
        return cfg->mode != TSG_MODE_CPU && gpu_usable;
    }
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
    if (!tsg_rates_usable(r)) { /* a GPU with no rates cannot be judged: stay on the safe side */
        *why = TSG_WHY_MODEL_CPU;
        return 0;
    }
    const double gpu_s = tsg_estimate_gpus_s(p, r), cpu_s = tsg_estimate_cpu_s(p, r);
    const int gpu = gpu_s < tsg_gpu_margin(p) * cpu_s;
    *why = gpu                                ? TSG_WHY_MODEL_GPU
           : gpu_s < TSG_GPU_MARGIN * cpu_s ? TSG_WHY_OWN_POOL
                                            : TSG_WHY_MODEL_CPU;
    return gpu;
}

/* Which operands the call touches: with the scalar rules only C (A and B are never read). */
static int touches_device(const tsg_problem *p, tsg_rule rule)
{
    return rule == TSG_RULE_SCALED ? p->where_c == TSG_DEVICE : tsg_needs_device(p);
}

/* Everything not reported final still holds the caller's original C: redo exactly that, on the
 * CPU (a report of several devices has up to two rectangles per part). Out of line: its array
 * stays off the stack of every other call. */
static __attribute__((noinline)) void retry_rest(const tsg_problem *p, const tsg_backends *be,
                                                 const tsg_done *done)
{
    tsg_problem rest[2 * TSG_DONE_MAX_PARTS];
    const int count = tsg_done_remaining_all(p, done, rest, 2 * TSG_DONE_MAX_PARTS);
    for (int i = 0; i < count && i < 2 * TSG_DONE_MAX_PARTS; ++i) be->cpu_sgemm(be->ctx, &rest[i]);
}

/* The GPU attempt: its work made here, then run by the backend. Out of line: the work (a plan,
 * up to TSG_MAX_DEVICES panels) stays off the stack of every CPU call. */
static __attribute__((noinline)) int run_gpu(const tsg_problem *p, const tsg_backends *be,
                                             const tsg_gpu_limits *lim, const tsg_rates *r,
                                             tsg_report *rep)
{
    tsg_gpu_work work;
    tsg_gpu_work_make(p, lim, r, &work);
    rep->done.alloc_s = 0.0;
    return be->gpu_sgemm(be->ctx, p, &work, &rep->done, rep->msg, sizeof rep->msg);
}

void tsg_run(const tsg_problem *p, const tsg_policy *cfg, const tsg_backends *be, tsg_report *rep)
{
    /* not memset: msg is 256 bytes, more than a tiny call's whole budget */
    rep->path = TSG_PATH_NONE;
    rep->why = TSG_WHY_TINY;
    rep->gpu_status = 0;
    rep->done.bm = rep->done.bn = 1;
    rep->done.blocks = rep->done.cols = 0;
    rep->done.nparts = 0;
    rep->done.families = 0;
    rep->msg[0] = '\0';
    rep->rule = tsg_scalar_rule(p);
    if (rep->rule == TSG_RULE_NOTHING) return;
    const int device = touches_device(p, rep->rule);
    if (rep->rule == TSG_RULE_SCALED && !device) {
        tsg_apply_scalar_rules(p);
        return;
    }
    tsg_rates rates;
    memset(&rates, 0, sizeof rates);
    tsg_gpu_limits lim; /* gpu_ready fills it when it answers 1 (fields it leaves: 0) */
    memset(&lim, 0, sizeof lim);
    int usable = 0;
    if ((device || tsg_may_want_gpu(p, cfg)) && cfg->mode != TSG_MODE_CPU && be->gpu_ready)
        usable = be->gpu_ready(be->ctx, &rates, &lim);
    if (device) { /* only the GPU can run it: there, or not at all */
        rep->why = cfg->mode == TSG_MODE_CPU ? TSG_WHY_MODE_CPU
                   : usable                  ? TSG_WHY_DEVICE_OPERAND
                                             : TSG_WHY_NO_GPU;
        if (!usable) {
            rep->path = TSG_PATH_REFUSED;
            return;
        }
        rep->gpu_status = run_gpu(p, be, &lim, &rates, rep);
        rep->path = rep->gpu_status == 0 ? TSG_PATH_GPU : TSG_PATH_REFUSED;
        return;
    }
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
    if (rep->why == TSG_WHY_MODEL_GPU && lim.warming &&
        !(tsg_estimate_gpus_s(p, &rates) + lim.warm_left_s < tsg_gpu_margin(p) * tsg_estimate_cpu_s(p, &rates))) {
        /* the model's choice, priced with the wait for the warm-up, yields to the CPU; a forced
         * mode or the threshold waits for the slots */
        rep->why = TSG_WHY_WARMING;
        be->cpu_sgemm(be->ctx, p);
        rep->path = TSG_PATH_CPU;
        return;
    }
    rep->gpu_status = run_gpu(p, be, &lim, &rates, rep);
    if (rep->gpu_status == 0) {
        rep->path = TSG_PATH_GPU;
        return;
    }
    rep->path = TSG_PATH_CPU_RETRY;
    retry_rest(p, be, &rep->done);
}
