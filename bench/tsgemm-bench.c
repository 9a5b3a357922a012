/*
 * tsgemm-bench.c — main(): the header, the sweep, timing of host-memory calls, and the NVBLAS
 * worker's loop (the options: bench_options.c).
 *
 * In one process, two passes over the shapes. First, per shape: OpenBLAS (the real one, through
 * its own handle; its checked result is the reference), tsgemm's cblas_sgemm in auto mode and with
 * the GPU forced (proved by tsgemm_get_stats deltas), before the bench loads CUDA's runtime. Then,
 * per shape: cuBLAS with plain copies, and kernel-only tsgemm_sgemm_device vs cublasSgemm_v2 on
 * device data. NVBLAS runs afterwards in child processes (bench_nvblas.c).
 * Every timed result is checked; a wrong one gets no time. Poisoning and copying of C happen
 * outside every timed region.
 * Must not: call cblas_sgemm of OpenBLAS by global name (the global one is tsgemm's).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "tsgemm.h"

/* tsgemm's exported CBLAS entry point (the enum arguments are ints in the C ABI). libtsgemm
 * ships no CBLAS header of its own, so it is declared here rather than via <cblas.h>, which
 * would be OpenBLAS's on Debian. */
void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);

enum { CBLAS_ROW = 101, CBLAS_COL = 102, CBLAS_NOTRANS = 111, CBLAS_TRANS = 112 };

/* ------------------------------------------------------------------ small helpers */

/* Fills r from a reason that starts with "n/a: " or "failed: " (the prefix becomes the status). */
static void set_from_why(bench_result *r, const char *why)
{
    if (!strncmp(why, "n/a: ", 5)) bench_result_set(r, BS_NA, "%s", why + 5);
    else if (!strncmp(why, "failed: ", 8)) bench_result_set(r, BS_FAIL, "%s", why + 8);
    else bench_result_set(r, BS_FAIL, "%s", why);
}

/* The GPU's start began a warm-up (TSGEMM_PIN_AT_START, gpu/tsg_gpu.h tsg_gpu_warm): its pinning
 * holds the process's memory map for 65-100 ms, and until it is over auto mode keeps calls on the
 * CPU. One call in GPU mode waits for it (a GPU call waits for the warm-up), so that no timed
 * call — the OpenBLAS pass or column included — runs beside it. */
static void wait_for_warm_up(void)
{
    static float a[64 * 64], b[64 * 64], c[64 * 64];
    const int was = tsgemm_set_mode(TSGEMM_MODE_GPU);
    cblas_sgemm(CBLAS_COL, CBLAS_NOTRANS, CBLAS_NOTRANS, 64, 64, 64, 1.0f, a, 64, b, 64, 0.0f, c, 64);
    tsgemm_set_mode(was >= 0 ? was : TSGEMM_MODE_AUTO);
}

static const char *strip_prefix(const char *why)
{
    if (!strncmp(why, "n/a: ", 5)) return why + 5;
    if (!strncmp(why, "failed: ", 8)) return why + 8;
    return why;
}

/* ------------------------------------------------------------------ timing host calls */

/* One call of an implementation on host data; *seconds = wall time of the call itself. */
typedef int (*host_fn)(bench_data *d, void *ctx, double *seconds, char *why, size_t len);

static int call_openblas(bench_data *d, void *ctx, double *seconds, char *why, size_t len)
{
    (void)why, (void)len;
    const bench_cpu *cpu = ctx;
    const bench_shape *s = &d->s;
    double t0 = bench_now();
    cpu->sgemm(s->row ? CBLAS_ROW : CBLAS_COL, s->ta == 'N' ? CBLAS_NOTRANS : CBLAS_TRANS,
               s->tb == 'N' ? CBLAS_NOTRANS : CBLAS_TRANS, (int)s->m, (int)s->n, (int)s->k,
               d->alpha, d->A, d->lda, d->B, d->ldb, d->beta, d->C, d->ldc);
    *seconds = bench_now() - t0;
    return 0;
}

static int call_tsgemm(bench_data *d, void *ctx, double *seconds, char *why, size_t len)
{
    (void)ctx, (void)why, (void)len;
    const bench_shape *s = &d->s;
    double t0 = bench_now();
    cblas_sgemm(s->row ? CBLAS_ROW : CBLAS_COL, s->ta == 'N' ? CBLAS_NOTRANS : CBLAS_TRANS,
                s->tb == 'N' ? CBLAS_NOTRANS : CBLAS_TRANS, (int)s->m, (int)s->n, (int)s->k,
                d->alpha, d->A, d->lda, d->B, d->ldb, d->beta, d->C, d->ldc);
    *seconds = bench_now() - t0;
    return 0;
}

static int call_cublas_copies(bench_data *d, void *ctx, double *seconds, char *why, size_t len)
{
    (void)ctx;
    return bench_cuda_cublas_copies(d, seconds, why, len);
}

static int call_nvblas(bench_data *d, void *ctx, double *seconds, char *why, size_t len)
{
    (void)why, (void)len;
    bench_f77_sgemm_fn f = (bench_f77_sgemm_fn)ctx;
    const bench_cm *cm = &d->cm;
    double t0 = bench_now();
    f(&cm->ta, &cm->tb, &cm->m, &cm->n, &cm->k, &d->alpha, bench_cm_a(d), &cm->lda,
      bench_cm_b(d), &cm->ldb, &d->beta, d->C, &cm->ldc);
    *seconds = bench_now() - t0;
    return 0;
}

/* Marks r WRONG when err is NaN or above the bound; returns 1 then. */
static int judge(bench_result *r, double err, size_t nonfinite, const bench_ref *ref)
{
    if (nonfinite) {
        bench_result_set(r, BS_WRONG, "%zu NaN/Inf elements in C", nonfinite);
        r->err = NAN;
        return 1;
    }
    if (!(err <= ref->tol)) {
        bench_result_set(r, BS_WRONG, "max relative error %.3g above the bound %.3g", err,
                         ref->tol);
        r->err = err;
        return 1;
    }
    return 0;
}

/* One end-to-end column being timed: an implementation, its call, and what it has measured. */
typedef struct column {
    int impl;
    host_fn fn;
    void *ctx;
    int check_double;  /* check against the double reference (OpenBLAS validates itself)   */
    int mode;          /* tsgemm_set_mode value around each call, or -1 to leave it alone  */
    bench_result *r;
    int active;        /* still running (not failed, wrong, or out of repeats)             */
    int calls, n;      /* calls made, timed calls in t                                     */
    double *t, spent, worst;
    uint64_t d_calls, d_gpu, d_cpu, d_gpu_failed; /* tsgemm_get_stats deltas of its calls  */
} column;
enum { BENCH_MAX_COLUMNS = 3 }; /* OpenBLAS, tsgemm auto, tsgemm forced */

/*
 * OpenBLAS's worker threads spin after each call for 2^OPENBLAS_THREAD_TIMEOUT TSC cycles
 * (default 2^28, about 0.13 s at 2 GHz; OpenBLAS's driver/others/blas_server.c) before they
 * sleep, and take the CPUs that a GPU column's host copy threads need: measured on the H200 host,
 * 4096^3 with the GPU forced ran 5.6 ms alone and 14.0 ms right after an OpenBLAS call
 * (docs/NOTES.md "v0.3"). So every call that needs those CPUs (any tsgemm or GPU column) first
 * waits until o->settle_ms have passed since the last call in which OpenBLAS ran. The wait is
 * outside every timed region. A column that waited then makes untimed calls before its timed
 * one, for at least o->rewarm_ms (at least one call): after the pause the GPU, the copy threads
 * and the CPUs are idle, and the first calls after idle time are slower (v0.4 run 1: 512^3 0.88
 * ms in the column after the pause, 0.60 in the one after it), while every column should be
 * timed as it runs back to back. The rotation keeps the cyclic order of the columns, so auto
 * mode's column always follows OpenBLAS's and pays the pause: with one untimed call its GPU calls
 * of 768^3-2048^3 took up to 1.7x the forced column's (v0.8 run 6); with 20 ms of them the worst
 * auto / forced was 1.07 against 1.12 with one call (v0.9 run 2, one bench each; docs/NOTES.md
 * "v0.9").
 */
static double g_openblas_end = -1; /* bench_now() at the end of the last OpenBLAS call; -1: none */
/* A settle pause happened since the OpenBLAS column's last call: its workers have slept since,
 * so its next timed call is preceded by untimed ones too (the same --rewarm). Without them the
 * OpenBLAS column of the H200 runs met its 16 workers asleep at every small shape while auto
 * mode's CPU calls ran after their own untimed calls (v0.13 run 3: 256^3 0.29 ms against 0.13
 * for the same OpenBLAS through tsgemm; docs/NOTES.md "v0.13"). */
static int g_openblas_cold;

static void openblas_ran(void) { g_openblas_end = bench_now(); }

/* Returns 1 when OpenBLAS ran since the last settle (and the pause, if any, is over). */
static int settle(const bench_opts *o)
{
    if (g_openblas_end < 0 || o->settle_ms <= 0) return 0;
    double left = g_openblas_end + o->settle_ms * 1e-3 - bench_now();
    if (left > 0) {
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        while (nanosleep(&ts, &ts) != 0) {
        }
    }
    g_openblas_end = -1;
    g_openblas_cold = 1;
    return 1;
}

/* One call of c (timed or not), checked; a failure or wrong result ends the column. */
static void column_call(const bench_opts *o, bench_data *d, const bench_ref *ref, column *c,
                        int timed)
{
    char why[256] = "";
    double sec = 0;
    struct tsgemm_stats s0, s1;
    if (c->mode >= 0) tsgemm_set_mode(c->mode);
    int rewarm = c->impl == BI_OPENBLAS ? g_openblas_cold : settle(o);
    if (c->impl == BI_OPENBLAS) g_openblas_cold = 0;
    if (rewarm) { /* back from the pause (or, for OpenBLAS, from its sleep): untimed calls first */
        const double t0 = bench_now();
        do {
            double ignored;
            bench_data_prepare_c(d);
            if (c->fn(d, c->ctx, &ignored, why, sizeof why) != 0) break; /* the timed call reports it */
        } while (bench_now() - t0 < o->rewarm_ms * 1e-3);
        why[0] = '\0';
    }
    bench_data_prepare_c(d); /* untimed: NaN (beta = 0) or C's input */
    tsgemm_get_stats(&s0);
    int rc = c->fn(d, c->ctx, &sec, why, sizeof why);
    tsgemm_get_stats(&s1);
    if (c->impl == BI_OPENBLAS || s1.cpu != s0.cpu) openblas_ran();
    if (c->mode >= 0) tsgemm_set_mode(TSGEMM_MODE_AUTO);
    ++c->calls;
    c->d_calls += s1.calls - s0.calls;
    c->d_gpu += s1.gpu - s0.gpu;
    c->d_cpu += s1.cpu - s0.cpu;
    c->d_gpu_failed += s1.gpu_failed - s0.gpu_failed;
    if (rc != 0) {
        set_from_why(c->r, why);
        c->active = 0;
        return;
    }
    size_t bad;
    double err = c->check_double ? bench_check_double(ref, d, d->C, &bad)
                                 : bench_check(ref, d, d->C, &bad);
    if (judge(c->r, err, bad, ref)) {
        c->active = 0;
        return;
    }
    if (err > c->worst) c->worst = err;
    if (!timed) return;
    c->t[c->n++] = sec * 1e3;
    c->spent += sec;
    if (c->n >= o->reps || (!o->reps_given && c->n >= 2 && c->spent > o->budget_s))
        c->active = 0; /* done; r is filled in by run_columns */
}

/* A round's order of the columns 0..n-1 (n <= BENCH_MAX_COLUMNS): a Fisher-Yates shuffle driven
 * by *rng (splitmix64, seeded from --seed: the same orders in every run with the same seed). */
static void round_order(int *order, int n, uint64_t *rng)
{
    for (int i = 0; i < n; ++i) order[i] = i;
    for (int i = n - 1; i > 0; --i) {
        uint64_t z = (*rng += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        const int j = (int)(z % (uint64_t)(i + 1));
        const int t = order[i];
        order[i] = order[j], order[j] = t;
    }
}

/*
 * Times the columns side by side: each gets its warm-up calls, then the repeats run in rounds
 * (one call of every column per round), so that drift of the machine (clocks, neighbours)
 * touches every column alike. Each round calls the columns in an order of its own, shuffled
 * from --seed (round_order), so that no column always runs right after the same one. A rotation
 * kept the cyclic order, so the column after OpenBLAS was always the same one: run 3 of
 * 2026-12-01 charged OpenBLAS's spinning workers to the GPU columns that way (12.7 ms at 4096^3
 * where pipe_probe measured 5.6), and with --settle 0 the auto column, right after OpenBLAS's,
 * paid them at every repeat where the forced column never did (H100 run 86: 512 x 512 x 65536
 * auto 10.6 ms, forced 8.8, both on the GPU). settle() keeps every GPU-using call clear of them
 * unless --settle 0. Every call's result is checked. Without --reps a column stops after 2
 * repeats once they took o->budget_s seconds.
 */
static void run_columns(const bench_opts *o, bench_data *d, const bench_ref *ref, column *cols,
                        int ncols)
{
    for (int i = 0; i < ncols; ++i) {
        column *c = &cols[i];
        c->active = 1;
        c->t = malloc(sizeof(double) * (size_t)o->reps);
        if (!c->t) {
            bench_result_set(c->r, BS_FAIL, "out of memory");
            c->active = 0;
        }
        for (int w = 0; w < o->warmup && c->active; ++w) column_call(o, d, ref, c, 0);
    }
    int order[BENCH_MAX_COLUMNS];
    if (ncols < 1 || ncols > BENCH_MAX_COLUMNS) { /* a programming error: no round order fits */
        fprintf(stderr, "tsgemm-bench: %d columns, at most %d\n", ncols, BENCH_MAX_COLUMNS);
        exit(3);
    }
    uint64_t rng = o->seed;
    for (int round = 0; round < o->reps; ++round) {
        round_order(order, ncols, &rng);
        for (int j = 0; j < ncols; ++j)
            if (cols[order[j]].active) column_call(o, d, ref, &cols[order[j]], 1);
    }
    for (int i = 0; i < ncols; ++i) {
        column *c = &cols[i];
        if (c->t && c->n > 0 && c->r->status != BS_WRONG && c->r->status != BS_FAIL &&
            c->r->status != BS_NA) {
            c->r->status = BS_OK;
            c->r->reps = c->n;
            c->r->err = c->worst;
            c->r->reason[0] = '\0';
            bench_stats(c->t, c->n, &c->r->median_ms, &c->r->min_ms, &c->r->max_ms);
        }
        free(c->t);
        c->t = NULL;
    }
}

static void time_kernel(int impl, const bench_opts *o, bench_data *d, const bench_ref *ref,
                        bench_result *r)
{
    double *ms = malloc(sizeof(double) * (size_t)o->kernel_reps);
    char why[256] = "";
    if (!ms) {
        bench_result_set(r, BS_FAIL, "out of memory");
        return;
    }
    bench_data_prepare_c(d);
    settle(o);
    if (bench_cuda_kernel(impl, d, o->kernel_warmup, o->kernel_reps, ms, why, sizeof why) != 0) {
        set_from_why(r, why);
        free(ms);
        return;
    }
    size_t bad;
    double err = bench_check(ref, d, d->C, &bad);
    if (!judge(r, err, bad, ref)) {
        r->status = BS_OK;
        r->reps = o->kernel_reps;
        r->err = err;
        r->reason[0] = '\0';
        bench_stats(ms, o->kernel_reps, &r->median_ms, &r->min_ms, &r->max_ms);
    }
    free(ms);
}

/* Reference of d: one untimed OpenBLAS call checked against double precision; when right,
 * its result is what every other column is compared with (else they face the double one). */
static void make_reference(bench_cpu *cpu, bench_data *d, bench_ref *ref)
{
    double sec;
    size_t bad;
    bench_data_prepare_c(d);
    call_openblas(d, cpu, &sec, NULL, 0);
    openblas_ran();
    double err = bench_check_double(ref, d, d->C, &bad);
    if (bad || !(err <= ref->tol)) return;
    ref->ref = malloc(d->nc * sizeof(float));
    if (!ref->ref) return; /* the others are then checked against the double reference */
    memcpy(ref->ref, d->C, d->nc * sizeof(float));
    double mx = 0;
    for (size_t i = 0; i < d->nc; ++i)
        if (fabs(ref->ref[i]) > mx) mx = fabs(ref->ref[i]);
    ref->ref_maxabs = mx;
}

/* ------------------------------------------------------------------ the run's context */

typedef struct bench_run {
    bench_opts *o;
    bench_cpu cpu;
    bench_cuda_info cuda;
    int tsgemm_gpu_ok;
    char tsgemm_kernel[512];  /* tsgemm_kernel_info text, or why no GPU */
    char tsgemm_gpu_why[400]; /* "n/a: ..." when the forced-GPU column cannot run */
    char tsgemm_path[512];
    char date[64], host[128];
} bench_run;

/* ------------------------------------------------------------------ one shape */

/* The operands and the reference of shape `index` (the same inputs in both passes: they come
 * from --seed and the index; each pass makes its reference anew, one more untimed OpenBLAS call
 * per shape, rather than hold every shape's C between the passes). On failure marks the results
 * of impls[0..nimpls) FAIL and returns -1. */
static int shape_begin(bench_run *run, int index, const bench_shape *s, bench_data *d,
                       bench_ref *ref, bench_result *res, const int *impls, int nimpls)
{
    const bench_opts *o = run->o;
    char label[96];
    bench_shape_label(s, label, sizeof label);
    if (bench_data_make(d, s, o->alpha, o->beta, o->seed, index) != 0) {
        for (int i = 0; i < nimpls; ++i)
            bench_result_set(&res[impls[i]], BS_FAIL, "out of host memory for the operands");
        fprintf(stderr, "tsgemm-bench: %s: out of host memory\n", label);
        return -1;
    }
    if (bench_ref_init(ref, d, bench_tolerance(s->k, o->tol)) != 0) {
        for (int i = 0; i < nimpls; ++i)
            bench_result_set(&res[impls[i]], BS_FAIL, "out of host memory for the reference");
        bench_data_free(d);
        return -1;
    }
    make_reference(&run->cpu, d, ref);
    return 0;
}

/* The first pass over a shape: the columns on host memory (OpenBLAS, tsgemm auto, tsgemm with the
 * GPU forced), timed side by side in rounds, while the bench has not loaded CUDA's runtime. */
static void run_shape_host(bench_run *run, int index, const bench_shape *s, bench_result *res)
{
    bench_opts *o = run->o;
    bench_data d;
    bench_ref ref;
    static const int host_impls[] = {BI_OPENBLAS, BI_TSGEMM, BI_TSGEMM_GPU};
    for (int i = 0; i < BI_COUNT; ++i) bench_result_set(&res[i], BS_NONE, "not run");
    if (shape_begin(run, index, s, &d, &ref, res, host_impls, 3) != 0) return;

    column cols[BENCH_MAX_COLUMNS];
    int ncols = 0;
    memset(cols, 0, sizeof cols);
    cols[ncols++] = (column){.impl = BI_OPENBLAS, .fn = call_openblas, .ctx = &run->cpu,
                             .check_double = 1, .mode = -1, .r = &res[BI_OPENBLAS]};
    cols[ncols++] = (column){.impl = BI_TSGEMM, .fn = call_tsgemm, .mode = TSGEMM_MODE_AUTO,
                             .r = &res[BI_TSGEMM]};
    /* tsgemm with the GPU forced: only where tsgemm has one (checked again per call below). */
    if (o->no_gpu) bench_result_set(&res[BI_TSGEMM_GPU], BS_NONE, "--no-gpu");
    else if (!run->tsgemm_gpu_ok) set_from_why(&res[BI_TSGEMM_GPU], run->tsgemm_gpu_why);
    else
        cols[ncols++] = (column){.impl = BI_TSGEMM_GPU, .fn = call_tsgemm,
                                 .mode = TSGEMM_MODE_GPU, .r = &res[BI_TSGEMM_GPU]};

    run_columns(o, &d, &ref, cols, ncols);

    /* Where tsgemm's calls ran, from its counters around exactly those calls. */
    for (int i = 0; i < ncols; ++i) {
        column *c = &cols[i];
        if (c->impl == BI_TSGEMM && c->r->status == BS_OK) {
            if (c->d_gpu == (uint64_t)c->calls) snprintf(c->r->reason, sizeof c->r->reason, "ran on gpu");
            else if (c->d_cpu == (uint64_t)c->calls && !c->d_gpu_failed)
                snprintf(c->r->reason, sizeof c->r->reason, "ran on cpu");
            else
                snprintf(c->r->reason, sizeof c->r->reason,
                         "mixed: %llu gpu, %llu cpu (%llu gpu failures redone on cpu) of %d calls",
                         (unsigned long long)c->d_gpu, (unsigned long long)c->d_cpu,
                         (unsigned long long)c->d_gpu_failed, c->calls);
        }
        if (c->impl == BI_TSGEMM_GPU) { /* forced: every call must have run on the GPU */
            if (c->d_gpu == 0 && c->calls > 0)
                bench_result_set(c->r, BS_NA,
                                 "gpu unavailable (tsgemm ran all %d calls on the CPU)", c->calls);
            else if (c->d_gpu != (uint64_t)c->calls && c->r->status != BS_FAIL)
                bench_result_set(c->r, BS_FAIL,
                                 "only %llu of %d calls ran on the GPU (%llu gpu failures redone "
                                 "on cpu)",
                                 (unsigned long long)c->d_gpu, c->calls,
                                 (unsigned long long)c->d_gpu_failed);
        }
    }
    bench_ref_free(&ref);
    bench_data_free(&d);
}

/* The second pass over a shape, after every shape's first: cuBLAS with its copies, then the
 * kernel-only columns, on the device buffers of this shape. Fills the results of those columns
 * (with the reason when one cannot run). */
static void run_shape_cuda(bench_run *run, int index, const bench_shape *s, bench_result *res)
{
    bench_opts *o = run->o;
    /* why_not[i]: the option that leaves column cuda_impls[i] out, NULL when it is asked for */
    static const int cuda_impls[] = {BI_CUBLAS_COPIES, BI_TSGEMM_KERNEL, BI_CUBLAS_KERNEL};
    const char *why_not[3] = {NULL, NULL, NULL};
    if (o->no_cublas) why_not[0] = why_not[2] = "--no-cublas";
    if (o->no_kernel) why_not[1] = why_not[2] = "--no-kernel";
    if (o->no_gpu) why_not[0] = why_not[1] = why_not[2] = "--no-gpu";
    int nwant = 0;
    for (int i = 0; i < 3; ++i) {
        if (why_not[i]) bench_result_set(&res[cuda_impls[i]], BS_NONE, "%s", why_not[i]);
        else if (!run->cuda.device_ok) set_from_why(&res[cuda_impls[i]], run->cuda.why);
        else ++nwant;
    }
    if (!nwant) return;

    bench_data d;
    bench_ref ref;
    if (shape_begin(run, index, s, &d, &ref, res, cuda_impls, 3) != 0) return;
    char why[256] = "";
    const int have_bufs = bench_cuda_shape_begin(&d, why, sizeof why) == 0;
    for (int i = 0; i < 3; ++i) {
        bench_result *r = &res[cuda_impls[i]];
        if (why_not[i]) continue;
        if (!have_bufs) set_from_why(r, why);
        else if (cuda_impls[i] == BI_TSGEMM_KERNEL && !run->tsgemm_gpu_ok)
            set_from_why(r, run->tsgemm_gpu_why);
        else if (cuda_impls[i] != BI_TSGEMM_KERNEL && run->cuda.cublas_why[0])
            set_from_why(r, run->cuda.cublas_why);
        else if (cuda_impls[i] == BI_CUBLAS_COPIES) {
            column c = {.impl = BI_CUBLAS_COPIES, .fn = call_cublas_copies, .mode = -1, .r = r};
            run_columns(o, &d, &ref, &c, 1);
        } else {
            time_kernel(cuda_impls[i], o, &d, &ref, r);
        }
    }
    if (have_bufs) bench_cuda_shape_end();
    bench_ref_free(&ref);
    bench_data_free(&d);
}

static void progress(int index, int nshapes, const bench_shape *s, const bench_result *res,
                     double seconds)
{
    char label[96], line[1024];
    size_t used = 0;
    bench_shape_label(s, label, sizeof label);
    used += (size_t)snprintf(line, sizeof line, "[%2d/%d] %-24s", index + 1, nshapes, label);
    for (int i = 0; i < BI_COUNT && used < sizeof line; ++i) {
        const bench_result *r = &res[i];
        if (r->status == BS_OK)
            used += (size_t)snprintf(line + used, sizeof line - used, " %s %.3g ms", bench_impl_name(i),
                                     r->median_ms);
        else if (r->status == BS_WRONG || r->status == BS_FAIL)
            used += (size_t)snprintf(line + used, sizeof line - used, " %s %s", bench_impl_name(i),
                                     bench_status_name(r->status));
    }
    if (used < sizeof line) snprintf(line + used, sizeof line - used, "  (%.1f s)", seconds);
    fprintf(stderr, "%s\n", line);
}

/* ------------------------------------------------------------------ header */

/* The header's first half, written before the sweep: the date, the CPU, OpenBLAS and tsgemm. */
static void header(FILE *f, bench_run *run)
{
    fprintf(f, "tsgemm-bench %s: SGEMM side by side, end to end on host memory and kernel-only\n",
            tsgemm_version());
    fprintf(f, "date        %s   host %s\n", run->date, run->host);
    fprintf(f, "cpu         %s, %d online CPUs\n", run->cpu.model, run->cpu.online_cpus);
    fprintf(f, "openblas    %s\n", run->cpu.path);
    fprintf(f, "            config \"%s\", core %s, %d threads%s%s\n", run->cpu.config,
            run->cpu.corename, run->cpu.threads,
            getenv("OPENBLAS_CORETYPE") ? ", OPENBLAS_CORETYPE=" : " (OPENBLAS_CORETYPE unset)",
            getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "");
    if (bench_cpu_core_suspicious(&run->cpu))
        fprintf(f,
                "WARNING     OpenBLAS runs its generic \"%s\" kernels and OPENBLAS_CORETYPE is "
                "unset:\n            the CPU baseline may be several times too slow (0.2 vs 1.25 "
                "TFLOP/s seen on the\n            H200 host). Rerun with e.g. "
                "OPENBLAS_CORETYPE=SkylakeX (Intel AVX-512) or Zen.\n",
                run->cpu.corename);
    fprintf(f, "tsgemm      %s (%s)\n", tsgemm_version(), run->tsgemm_path);
    fprintf(f, "            kernel: %s\n", run->tsgemm_kernel);
    static const char *const knobs[] = {"TSGEMM_MODE", "TSGEMM_GPU_THRESHOLD", "TSGEMM_CPU_BLAS",
                                        "TSGEMM_DEVICE", "TSGEMM_LOG"};
    for (size_t i = 0; i < sizeof knobs / sizeof *knobs; ++i)
        if (getenv(knobs[i]))
            fprintf(f, "            %s=%s in the environment\n", knobs[i], getenv(knobs[i]));
    /* TSGEMM_TEST_* (tuning A/Bs) reach only the tests' twin libtsgemm_fi, the one library that
     * exports tsgemm_test_fault: under the release library such a run would time the rule */
    const int fi = dlsym(RTLD_DEFAULT, "tsgemm_test_fault") != NULL;
    int test_knobs = 0;
    for (char **e = environ; *e; ++e)
        if (!strncmp(*e, "TSGEMM_TEST_", 12)) {
            fprintf(f, "            %s in the environment%s\n", *e, fi ? "" : " (ignored)");
            ++test_knobs;
        }
    if (test_knobs && !fi)
        fprintf(f, "WARNING     TSGEMM_TEST_* knobs are read only by the tests' twin libtsgemm_fi; "
                   "this\n            library ignores them (run with "
                   "LD_PRELOAD=<build>/libtsgemm_fi.so)\n");
}

/* The header's second half, written after the sweep (the bench loads CUDA's runtime only for its
 * second pass): CUDA, the GPU, cuBLAS, NVBLAS, the method and the check. */
static void header_rest(FILE *f, bench_run *run, int nshapes)
{
    bench_opts *o = run->o;
    const bench_cuda_info *c = &run->cuda;
    if (o->no_gpu) {
        fprintf(f, "gpu         not used (--no-gpu)\n");
    } else {
        if (c->have_cudart && c->driver_version)
            fprintf(f, "cudart      %s, runtime %d.%d; the driver supports CUDA %d.%d\n",
                    c->cudart_path, c->runtime_version / 1000, c->runtime_version % 1000 / 10,
                    c->driver_version / 1000, c->driver_version % 1000 / 10);
        else if (c->have_cudart)
            fprintf(f, "cudart      %s, runtime %d.%d; no CUDA driver\n", c->cudart_path,
                    c->runtime_version / 1000, c->runtime_version % 1000 / 10);
        else
            fprintf(f, "cudart      %s\n", c->why);
        if (c->device_ok)
            fprintf(f, "gpu         device %d: %s, sm_%d%d, %d SMs, %d MHz, %.1f GiB\n", c->device,
                    c->name, c->cc_major, c->cc_minor, c->sms, c->clock_mhz, c->mem_gib);
        else
            fprintf(f, "gpu         NO GPU FOUND: %s -> GPU columns are n/a\n", strip_prefix(c->why));
        if (c->have_cublas)
            fprintf(f, "cublas      %s, version %d.%d.%d (cublasSgemm_v2, CUBLAS_DEFAULT_MATH: FP32, "
                       "no TF32)%s%s\n",
                    c->cublas_path, c->cublas_version / 10000, c->cublas_version % 10000 / 100,
                    c->cublas_version % 100, c->cublas_why[0] ? "; " : "",
                    c->cublas_why[0] ? c->cublas_why : "");
        else
            fprintf(f, "cublas      %s\n", c->cublas_why);
        if (o->no_nvblas)
            fprintf(f, "nvblas      not run (--no-nvblas)\n");
        else
            fprintf(f,
                    "nvblas      sgemm_ in child processes (NVBLAS reads its config once per "
                    "process):\n            nvblas = %s;\n            nvblas-tuned = %s\n",
                    bench_nvblas_describe(BI_NVBLAS), bench_nvblas_describe(BI_NVBLAS_TUNED));
    }
    fprintf(f,
            "method      %d shapes; inputs uniform in [-1,1], never 0 (seed %llu); alpha %g, beta "
            "%g;\n            C set to NaN%s before every call, untimed; warm-up %d, then %d "
            "repeats%s; median shown.\n",
            nshapes, (unsigned long long)o->seed, (double)o->alpha, (double)o->beta,
            o->beta != 0.0f ? " (beta = 0) / restored (beta != 0)" : "", o->warmup, o->reps,
            o->reps_given ? "" : " (2 once a column spent 8 s on a shape)");
    if (o->settle_ms > 0)
        fprintf(f,
                "            every tsgemm and GPU call waits until %d ms have passed since the "
                "last call\n            in which OpenBLAS ran (its workers spin until then; "
                "--settle), then makes\n            untimed calls of its column for %d ms "
                "(at least one; --rewarm); the OpenBLAS column\n            makes them too "
                "after such a pause.\n",
                o->settle_ms, o->rewarm_ms);
    else
        fprintf(f, "            --settle 0: GPU columns may run beside OpenBLAS's spinning workers.\n");
    fprintf(f,
            "            two passes: every shape's openblas / tsgemm / tsgemm-gpu columns first,"
            "\n            in a process that has not loaded CUDA's runtime (a program that does "
            "not use\n            CUDA, to tsgemm); then the cuBLAS and kernel-only columns.\n");
    fprintf(f,
            "            end-to-end = host monotonic clock around one call on pageable malloc "
            "memory.\n            cublas+copies = cudaMemcpy H2D A, B%s + cublasSgemm_v2 + "
            "cudaMemcpy D2H C, all timed;\n            its device buffers are cudaMalloc'd once "
            "per shape outside the timed region.\n",
            o->beta != 0.0f ? ", C" : " (C too when beta != 0)");
    fprintf(f,
            "            kernel-only = CUDA events around one call on device-resident data, "
            "warm-up %d, %d repeats,\n            each from a NaN (or restored) C; the last "
            "one's result is checked.\n",
            o->kernel_warmup, o->kernel_reps);
    fprintf(f,
            "check       max|c - ref| / max|ref| <= %s else WRONG (no time);\n            ref = "
            "OpenBLAS's result, itself checked against double precision (all\n            "
            "elements when m*n*k <= 2^26, else 256..4096 sampled elements incl. the corners).\n",
            o->tol > 0 ? "--tol" : "1e-4 (FP32; x sqrt(k/65536) for k > 65536)");
    fprintf(f, "\n");
}

/* ------------------------------------------------------------------ the NVBLAS worker */

static int worker_main(bench_opts *o, const bench_shape *shapes, int nshapes)
{
    int impl = o->worker_impl == BI_NVBLAS_TUNED ? BI_NVBLAS_TUNED : BI_NVBLAS;
    bench_result r;
    char why[300] = "", path[512] = "";
    tsgemm_set_mode(TSGEMM_MODE_CPU); /* tsgemm stays off the GPU in this process */
    bench_cpu cpu;
    bench_f77_sgemm_fn f = NULL;
    if (bench_cpu_load(&cpu, o->openblas) != 0) {
        snprintf(why, sizeof why, "failed: worker: %s", cpu.why);
    } else if (!(f = bench_nvblas_load(o->nvblas_lib, path, sizeof path, why, sizeof why))) {
        /* why says so */
    } else {
        /* NVBLAS without a usable GPU silently runs everything on its CPU BLAS: never time it.
         * Only cudart is probed here; cuBLAS is NVBLAS's business in this process. */
        bench_cuda_info ci;
        bench_cuda_init(o->device, 0, &ci);
        bench_cuda_shutdown();
        if (!ci.device_ok) {
            snprintf(why, sizeof why, "%s", ci.why);
            f = NULL;
        }
    }
    if (!f) {
        for (int i = 0; i < nshapes; ++i) {
            set_from_why(&r, why);
            bench_nvblas_emit(i, &r);
        }
        return 0;
    }
    fprintf(stderr, "tsgemm-bench: %s: %s, %d shapes\n", bench_impl_name(impl), path, nshapes);
    for (int i = 0; i < nshapes; ++i) {
        bench_data d;
        bench_ref ref;
        double t0 = bench_now();
        if (bench_data_make(&d, &shapes[i], o->alpha, o->beta, o->seed, i) != 0) {
            bench_result_set(&r, BS_FAIL, "out of host memory for the operands");
            bench_nvblas_emit(i, &r);
            continue;
        }
        if (bench_ref_init(&ref, &d, bench_tolerance(shapes[i].k, o->tol)) != 0) {
            bench_result_set(&r, BS_FAIL, "out of host memory for the reference");
            bench_nvblas_emit(i, &r);
            bench_data_free(&d);
            continue;
        }
        make_reference(&cpu, &d, &ref); /* as in the parent */
        bench_result_set(&r, BS_NONE, "not run");
        column c = {.impl = impl, .fn = call_nvblas, .ctx = (void *)f, .mode = -1, .r = &r};
        run_columns(o, &d, &ref, &c, 1);
        if (c.d_calls && r.status == BS_OK)
            snprintf(r.reason, sizeof r.reason,
                     "NVBLAS's CPU BLAS calls reached tsgemm (%llu calls, run on OpenBLAS)",
                     (unsigned long long)c.d_calls);
        bench_nvblas_emit(i, &r);
        char label[96];
        fprintf(stderr, "        %s [%d/%d] %s: %s %.3g ms (%.1f s)\n", bench_impl_name(impl),
                i + 1, nshapes, bench_shape_label(&shapes[i], label, sizeof label),
                bench_status_name(r.status), r.median_ms, bench_now() - t0);
        bench_ref_free(&ref);
        bench_data_free(&d);
    }
    return 0;
}

/* ------------------------------------------------------------------ output */

static int write_outputs(const bench_opts *o, const char *title, const bench_shape *shapes,
                         int nshapes, const bench_result *res)
{
    int rc = 0;
    char alt[1024]; /* the CSV written when the plot fails and no --csv was given */
    const char *csv = o->plot_from ? NULL : o->csv;
    if (csv) {
        if (bench_csv_write(csv, shapes, nshapes, res, o->alpha, o->beta) != 0) {
            fprintf(stderr, "tsgemm-bench: cannot write %s: %s\n", csv, strerror(errno));
            rc = 1;
        } else {
            fprintf(stdout, "CSV written to %s\n", csv);
        }
    }
    if (o->plot) {
        char why[512];
        if (bench_plot(o->plot, title, shapes, nshapes, res, why, sizeof why) == 0) {
            fprintf(stdout, "plot written to %s\n", o->plot);
        } else {
            fprintf(stdout, "no plot: %s\n", why);
            if (!csv && !o->plot_from) { /* keep the data: the plot can be made later */
                snprintf(alt, sizeof alt, "%s.csv", o->plot);
                if (bench_csv_write(alt, shapes, nshapes, res, o->alpha, o->beta) == 0) csv = alt;
            }
            if (csv)
                fprintf(stdout,
                        "the data is in %s: plot it later with tsgemm-bench --plot-from %s "
                        "--plot %s\n",
                        csv, csv, o->plot);
        }
    }
    return rc;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    bench_opts o = {.reps = 5, .kernel_reps = 20, .warmup = 1, .kernel_warmup = 3, .settle_ms = 300, .rewarm_ms = 20,
                    .budget_s = 8.0, .alpha = 1.0f, .beta = 0.0f, .seed = 42};
    int prc = bench_parse_options(argc, argv, &o);
    if (prc) return prc > 0 ? 0 : 2;

    bench_shape *shapes = NULL;
    bench_result *res = NULL;
    int nshapes = 0;
    char err[256] = "";

    if (o.plot_from) { /* tables and plot of an earlier run */
        if (bench_csv_read(o.plot_from, &shapes, &nshapes, &res, err, sizeof err) != 0) {
            fprintf(stderr, "tsgemm-bench: %s: %s\n", o.plot_from, err);
            return 1;
        }
        bench_report_tables(stdout, shapes, nshapes, res);
        char title[600];
        snprintf(title, sizeof title, "tsgemm-bench: %s", o.plot_from);
        int rc = write_outputs(&o, title, shapes, nshapes, res);
        bench_tmpdir_cleanup(o.keep_tmp);
        free(shapes);
        free(res);
        return rc;
    }

    if (o.replay) { /* a recorded program instead of the sweep */
        bench_cpu cpu;
        memset(&cpu, 0, sizeof cpu);
        if (bench_cpu_load(&cpu, o.openblas) != 0) {
            fprintf(stderr, "tsgemm-bench: cannot load OpenBLAS: %s\n", cpu.why);
            return 1;
        }
        char info[512] = "", why[600];
        const int gpu_ok = !o.no_gpu && tsgemm_kernel_info(info, (int)sizeof info) == 0;
        if (gpu_ok) wait_for_warm_up();
        snprintf(why, sizeof why, "%s", o.no_gpu ? "--no-gpu" : info);
        /* both CPU sides named: tsgemm's CPU BLAS is the bench's OpenBLAS (the same loaded
         * object, shim/tsg_cpublas.c) unless TSGEMM_CPU_BLAS names another */
        printf("tsgemm-bench %s --replay: OpenBLAS %s (%d threads), tsgemm %s; tsgemm's CPU BLAS %s\n",
               tsgemm_version(), cpu.path, cpu.threads, gpu_ok ? info : "without a GPU", tsgemm_cpu_blas());
        int rc = bench_replay(o.replay, &o, &cpu, gpu_ok, why);
        tsgemm_release();
        return rc;
    }
    const char *text = o.shapes_text ? o.shapes_text : bench_default_shapes(o.quick);
    if (bench_parse_shapes(text, &shapes, &nshapes, err, sizeof err) != 0 || nshapes == 0) {
        fprintf(stderr, "tsgemm-bench: --shapes: %s\n", nshapes == 0 && !err[0] ? "no shapes" : err);
        return 2;
    }
    if (o.worker_config) {
        int rc = worker_main(&o, shapes, nshapes);
        free(shapes);
        free(o.shapes_text);
        return rc;
    }

    bench_run run;
    memset(&run, 0, sizeof run);
    run.o = &o;
    time_t now = time(NULL);
    strftime(run.date, sizeof run.date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    if (gethostname(run.host, sizeof run.host) != 0) snprintf(run.host, sizeof run.host, "?");
    if (bench_cpu_load(&run.cpu, o.openblas) != 0) {
        fprintf(stderr, "tsgemm-bench: cannot load OpenBLAS, the baseline and reference: %s\n",
                run.cpu.why);
        return 1;
    }
    Dl_info di;
    snprintf(run.tsgemm_path, sizeof run.tsgemm_path, "%s",
             dladdr((void *)&tsgemm_version, &di) && di.dli_fname ? di.dli_fname : "?");
    /* tsgemm's GPU first, and CUDA's runtime only after the host columns: a process that loads a
     * shared CUDA runtime is a CUDA program to tsgemm (shim/tsg_residency.h), whose every call
     * asks the driver where its operands live (0.8-2.4 us at 64^3, H100 runs 90-91), while the
     * programs the host columns stand for (numpy, Octave, Fortran codes) do not use CUDA. */
    if (o.no_gpu) {
        snprintf(run.tsgemm_kernel, sizeof run.tsgemm_kernel, "not queried (--no-gpu)");
        snprintf(run.cuda.why, sizeof run.cuda.why, "n/a: --no-gpu");
    } else {
        run.tsgemm_gpu_ok =
            tsgemm_kernel_info(run.tsgemm_kernel, (int)sizeof run.tsgemm_kernel) == 0;
        if (run.tsgemm_gpu_ok) wait_for_warm_up();
        else
            snprintf(run.tsgemm_gpu_why, sizeof run.tsgemm_gpu_why,
                     "n/a: gpu unavailable (tsgemm: %.200s)", run.tsgemm_kernel);
    }
    header(stdout, &run);
    fflush(stdout);

    res = calloc((size_t)nshapes * BI_COUNT, sizeof *res);
    if (!res) return 1;
    double t_all = bench_now();
    for (int i = 0; i < nshapes; ++i) {
        double t0 = bench_now();
        run_shape_host(&run, i, &shapes[i], &res[i * BI_COUNT]);
        progress(i, nshapes, &shapes[i], &res[i * BI_COUNT], bench_now() - t0);
    }
    if (!o.no_gpu) {
        bench_cuda_init(o.device, !o.no_cublas || !o.no_kernel, &run.cuda);
        fprintf(stderr, "tsgemm-bench: the CUDA columns\n");
    }
    for (int i = 0; i < nshapes; ++i) {
        double t0 = bench_now();
        run_shape_cuda(&run, i, &shapes[i], &res[i * BI_COUNT]);
        if (!o.no_gpu) progress(i, nshapes, &shapes[i], &res[i * BI_COUNT], bench_now() - t0);
    }
    tsgemm_release(); /* leave the GPU's memory to the NVBLAS children */
    const int nv[2] = {BI_NVBLAS, BI_NVBLAS_TUNED};
    for (int j = 0; j < 2; ++j) {
        if (o.no_nvblas || o.no_gpu) {
            for (int i = 0; i < nshapes; ++i)
                bench_result_set(&res[i * BI_COUNT + nv[j]], BS_NONE,
                                 o.no_gpu ? "--no-gpu" : "--no-nvblas");
            continue;
        }
        settle(&o);
        double t0 = bench_now();
        bench_nvblas_run(nv[j], &o, shapes, nshapes, run.cpu.path, res);
        fprintf(stderr, "[nvblas] %s done (%.1f s)\n", bench_impl_name(nv[j]), bench_now() - t0);
    }
    fprintf(stderr, "tsgemm-bench: sweep done in %.1f s\n", bench_now() - t_all);
    header_rest(stdout, &run, nshapes);

    bench_report_tables(stdout, shapes, nshapes, res);
    if (o.math_mask)
        bench_math_table(&o, &run.cuda, run.tsgemm_gpu_ok, run.tsgemm_gpu_why, shapes, nshapes);
    char title[700];
    snprintf(title, sizeof title, "tsgemm-bench %s, %s: %s / %s", tsgemm_version(), run.date,
             run.cuda.device_ok ? run.cuda.name : "no GPU", run.cpu.model);
    int rc = write_outputs(&o, title, shapes, nshapes, res);

    bench_cuda_shutdown();
    tsgemm_release();
    bench_tmpdir_cleanup(o.keep_tmp);
    free(shapes);
    free(res);
    free(o.shapes_text);
    return rc;
}
