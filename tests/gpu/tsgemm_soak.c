/*
 * tsgemm_soak.c — the soak of issue 8: many threads, mixed shapes on both sides of the CPU/GPU
 * crossover, for a fixed number of calls; nothing lost, nothing growing.
 *
 *   tsgemm_soak [--threads T] [--rounds R] [--fail-every N] [--rss-tolerance MIB] [--seed S] [--cpu]
 *
 * 0. One call in GPU mode: it waits for the GPU's warm-up, after which auto mode's sides no longer
 *    depend on when a call comes.
 * 1. Single-thread pass: each shape of the table once (auto mode, or whatever TSGEMM_MODE says),
 *    checked against a sampled double reference (docs/TESTING.md's element bound); its C bits and its
 *    path are kept. The kept call is the second on its buffer, as the soak's calls are (a C whose
 *    pages are not there yet is priced as freshly allocated: shim/tsg_tracer.h tsg_c_fresh).
 * 2. Warm-up: every thread runs one round (pools, copy threads, workspaces reach their size).
 *    Then the process's RSS and tsgemm's pool sizes (tsgemm_get_stats) are read.
 * 3. Soak: T threads (default 16) each run R rounds (default 20) over all shapes, every thread in
 *    its own rotated order, each call on a fresh copy of the shape's original C. Every result must
 *    be bitwise the single-thread one (a kernel or schedule choice that depended on load would
 *    show here) and must have run on the same path.
 * 4. After: RSS may have grown by at most --rss-tolerance MiB (default 64: allocator slack of
 *    16 threads; a leak of C-sized buffers would pass it within a few rounds), and tsgemm's
 *    device and pinned pools hold no more than their caps (both sizes are printed, before and
 *    after, so growth within the caps shows too).
 * With --fail-every N, a GPU failure is injected every N-th pipeline step (tsgemm_test_fault
 * "any:N:every", libtsgemm_fi only): bitwise equality no longer applies to calls the CPU redid,
 * so every result is checked against the sampled double reference instead, and the run must
 * have seen failures redone on the CPU.
 * --cpu runs without a GPU too (the CPU path and the harness itself; the unit tier's short run).
 * Exit status: 0 pass, 1 a failure, 77 skipped (no usable GPU and no --cpu).
 */
#define _GNU_SOURCE
#include <cblas-netlib.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsg_testutil.h"
#include "tsgemm.h"

int tsgemm_test_fault(const char *spec); /* libtsgemm_fi only */

typedef struct shape {
    int row;          /* CBLAS layout: 1 row-major                      */
    char ta, tb;      /* 'N' or 'T'                                      */
    int m, n, k, pad; /* pad: extra leading-dimension elements           */
    float alpha, beta;
} shape;

/* Both sides of the crossover on the H200 (docs/RESULTS.md): below ~700^3 the CPU, above the
 * GPU; skinny, long-K and row-major shapes; beta != 0 on some. */
static const shape g_shapes[] = {
    {0, 'N', 'N', 64, 64, 64, 0, 1.0f, 0.0f},
    {1, 'T', 'N', 200, 173, 311, 3, 0.5f, -1.0f},
    {0, 'N', 'T', 512, 512, 512, 1, 1.0f, 0.0f},
    {0, 'T', 'T', 767, 769, 257, 0, -1.0f, 0.25f},
    {1, 'N', 'N', 1024, 1024, 1024, 0, 1.0f, 0.0f},
    {0, 'N', 'N', 1500, 1100, 1300, 5, 1.0f, 0.5f},
    {0, 'T', 'N', 2048, 256, 2048, 0, 1.0f, 0.0f},
    {1, 'N', 'T', 300, 4000, 200, 2, 2.0f, 0.0f},
    {0, 'N', 'N', 4096, 64, 1024, 0, 1.0f, 1.0f},
    {0, 'N', 'T', 1001, 999, 2049, 7, 1.0f, 0.0f},
    {1, 'T', 'T', 1536, 1536, 1536, 0, 1.0f, 0.0f},
    {0, 'N', 'N', 96, 5000, 96, 1, 1.0f, 0.0f},
};
enum { NS = sizeof g_shapes / sizeof g_shapes[0] };

typedef struct operands {
    tt_mat A, B, C0; /* column-major storage of what the caller passes (row-major: transposed) */
    float *single;   /* C after the single-thread call (whole buffer)                          */
    char path[16];   /* its path                                                               */
} operands;

static operands g_ops[NS];
static int g_threads = 16, g_rounds = 20, g_fail_every = 0;
static double g_rss_tol_mib = 64;
static int g_cpu_ok;
static atomic_long g_calls, g_mismatch, g_path_changed, g_wrong;

static void call(const shape *s, const operands *o, float *c)
{
    const int lay = s->row ? CblasRowMajor : CblasColMajor;
    const enum CBLAS_TRANSPOSE ta = s->ta == 'N' ? CblasNoTrans : CblasTrans;
    const enum CBLAS_TRANSPOSE tb = s->tb == 'N' ? CblasNoTrans : CblasTrans;
    /* row-major: the caller's m x n problem is stored transposed (tt_stored_shape) */
    cblas_sgemm(lay, ta, tb, s->m, s->n, s->k, s->alpha, o->A.p, (int)o->A.ld, o->B.p,
                (int)o->B.ld, s->beta, c + o->C0.first, (int)o->C0.ld);
}

/* Sampled double-reference check of C (the whole buffer, as the C0 layout) against shape s. */
static size_t check(const shape *s, const operands *o, const float *c, uint64_t seed)
{
    tt_rng r;
    tt_seed(&r, seed);
    int64_t fi, fj;
    const float *cp = c + o->C0.first;
    /* row-major calls are the transposed column-major problem: op(B)^T op(A)^T */
    if (s->row)
        return tt_check_sampled(s->tb, s->ta, s->n, s->m, s->k, s->alpha, o->B.p, o->B.ld,
                                o->A.p, o->A.ld, s->beta, o->C0.p, o->C0.ld, cp, o->C0.ld, &r,
                                8, 200, &fi, &fj);
    return tt_check_sampled(s->ta, s->tb, s->m, s->n, s->k, s->alpha, o->A.p, o->A.ld, o->B.p,
                            o->B.ld, s->beta, o->C0.p, o->C0.ld, cp, o->C0.ld, &r, 8, 200, &fi,
                            &fj);
}

static int make_operands(int i, uint64_t seed)
{
    const shape *s = &g_shapes[i];
    operands *o = &g_ops[i];
    int64_t r, c;
    tt_rng rng;
    tt_seed(&rng, seed + (uint64_t)i);
    tt_stored_shape(s->row, 'A', s->ta, s->m, s->n, s->k, &r, &c);
    if (tt_mat_alloc(&o->A, r, c, r + s->pad, 0)) return -1;
    tt_stored_shape(s->row, 'B', s->tb, s->m, s->n, s->k, &r, &c);
    if (tt_mat_alloc(&o->B, r, c, r + s->pad, 0)) return -1;
    tt_stored_shape(s->row, 'C', 'N', s->m, s->n, s->k, &r, &c);
    if (tt_mat_alloc(&o->C0, r, c, r + s->pad, 0)) return -1;
    tt_mat_fill_uniform(&o->A, &rng);
    tt_mat_fill_uniform(&o->B, &rng);
    tt_mat_fill_uniform(&o->C0, &rng);
    return 0;
}

static double rss_mib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
        fclose(f);
    }
    return (double)res * (double)sysconf(_SC_PAGESIZE) / (1 << 20);
}

typedef struct worker {
    int id, rounds;
    float *c[NS]; /* this thread's C buffers */
} worker;

static void *run_worker(void *arg)
{
    worker *w = arg;
    for (int round = 0; round < w->rounds; ++round)
        for (int j = 0; j < NS; ++j) {
            const int i = (j + w->id + round) % NS; /* each thread its own order */
            const shape *s = &g_shapes[i];
            const operands *o = &g_ops[i];
            memcpy(w->c[i], o->C0.mem, o->C0.total * sizeof(float));
            call(s, o, w->c[i]);
            atomic_fetch_add(&g_calls, 1);
            const char *path = tsgemm_last_path();
            if (g_fail_every) { /* retried calls differ in bits: the bound decides */
                if (check(s, o, w->c[i], 99 + (uint64_t)round) != 0) {
                    if (atomic_fetch_add(&g_wrong, 1) < 5)
                        fprintf(stderr, "FAIL thread %d shape %d (%s): outside the bound\n",
                                w->id, i, path);
                }
                continue;
            }
            if (memcmp(w->c[i], o->single, o->C0.total * sizeof(float)) != 0) {
                if (atomic_fetch_add(&g_mismatch, 1) < 5)
                    fprintf(stderr, "FAIL thread %d shape %d (%s, single-thread %s): result differs "
                                    "from the single-thread one\n", w->id, i, path, o->path);
            }
            if (strcmp(path, o->path) != 0 && atomic_fetch_add(&g_path_changed, 1) < 5)
                fprintf(stderr, "FAIL thread %d shape %d ran on %s, single-thread on %s\n", w->id, i,
                        path, o->path);
        }
    return NULL;
}

static int run_threads(int rounds, worker *ws)
{
    pthread_t *t = calloc((size_t)g_threads, sizeof *t);
    if (!t) return -1;
    for (int i = 0; i < g_threads; ++i) {
        ws[i].rounds = rounds;
        if (pthread_create(&t[i], NULL, run_worker, &ws[i]) != 0) {
            fprintf(stderr, "FAIL: pthread_create\n");
            exit(1);
        }
    }
    for (int i = 0; i < g_threads; ++i) pthread_join(t[i], NULL);
    free(t);
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: tsgemm_soak [--threads T] [--rounds R] [--fail-every N] "
               "[--rss-tolerance MIB] [--seed S] [--cpu]\n(see the comment at the top of "
               "tests/gpu/tsgemm_soak.c)\n");
}

int main(int argc, char **argv)
{
    uint64_t seed = 2026;
    static const struct option opts[] = {{"threads", required_argument, NULL, 't'},
                                         {"rounds", required_argument, NULL, 'r'},
                                         {"fail-every", required_argument, NULL, 'f'},
                                         {"rss-tolerance", required_argument, NULL, 'm'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"cpu", no_argument, NULL, 'c'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 't': g_threads = atoi(optarg); break;
        case 'r': g_rounds = atoi(optarg); break;
        case 'f': g_fail_every = atoi(optarg); break;
        case 'm': g_rss_tol_mib = atof(optarg); break;
        case 's': seed = strtoull(optarg, NULL, 10); break;
        case 'c': g_cpu_ok = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (g_threads < 1 || g_rounds < 1 || g_fail_every < 0) {
        usage(stderr);
        return 2;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    char info[512];
    if (tsgemm_kernel_info(info, sizeof info) != 0) {
        if (!g_cpu_ok) {
            printf("SKIPPED: %s\n", info);
            return 77;
        }
        if (g_fail_every) {
            printf("SKIPPED: --fail-every needs a GPU (%s)\n", info);
            return 77;
        }
        printf("no GPU (%s): the CPU path only (--cpu)\n", info);
    }
    for (int i = 0; i < NS; ++i)
        if (make_operands(i, seed) != 0) {
            fprintf(stderr, "FAIL: out of memory\n");
            return 1;
        }
    /* 0. the GPU's warm-up (gpu/tsg_gpu.h tsg_gpu_warm): until the start's background pinning
     * is over, auto mode keeps calls the model sends to the GPU on the CPU — a side that depends
     * on when the call came, which the single-thread pass must not record. A call in GPU mode
     * waits for it. */
    if (tsgemm_kernel_info(info, sizeof info) == 0) {
        const int was = tsgemm_set_mode(TSGEMM_MODE_GPU);
        float *tmp = g_ops[0].C0.mem ? malloc(g_ops[0].C0.total * sizeof(float)) : NULL;
        if (tmp) {
            memcpy(tmp, g_ops[0].C0.mem, g_ops[0].C0.total * sizeof(float));
            call(&g_shapes[0], &g_ops[0], tmp);
            free(tmp);
        }
        tsgemm_set_mode(was);
    }
    /* 1. single-thread pass */
    int fails = 0, on_gpu = 0;
    for (int i = 0; i < NS; ++i) {
        operands *o = &g_ops[i];
        o->single = tt_mat_snapshot(&o->C0);
        /* a first call on the buffer, its result discarded: the threads' buffers are known to
         * tsgemm by the time they are compared (the warm-up round), so the kept call must see
         * its C as they do — auto mode prices a C whose pages are not resident as freshly
         * allocated (a first touch to pay, src/tsg_cost.h), and a shape near the crossover would
         * otherwise take another side here only for that */
        call(&g_shapes[i], o, o->single);
        memcpy(o->single, o->C0.mem, o->C0.total * sizeof(float));
        call(&g_shapes[i], o, o->single);
        snprintf(o->path, sizeof o->path, "%s", tsgemm_last_path());
        on_gpu += strcmp(o->path, "gpu") == 0;
        if (check(&g_shapes[i], o, o->single, 7) != 0) {
            fprintf(stderr, "FAIL shape %d (%s): single-thread result outside the bound\n", i,
                    o->path);
            fails++;
        }
    }
    printf("single-thread pass: %d shapes, %d on the GPU, %d on the CPU\n", NS, on_gpu,
           NS - on_gpu);
    if (on_gpu == 0 || on_gpu == NS)
        printf("note: every shape ran on one side (TSGEMM_MODE forced, or the crossover moved)\n");
    /* 2. warm-up round on every thread, then the baseline */
    worker *ws = calloc((size_t)g_threads, sizeof *ws);
    if (!ws) return 1;
    for (int t = 0; t < g_threads; ++t) {
        ws[t].id = t;
        for (int i = 0; i < NS; ++i) {
            ws[t].c[i] = malloc(g_ops[i].C0.total * sizeof(float));
            if (!ws[t].c[i]) {
                fprintf(stderr, "FAIL: out of memory\n");
                return 1;
            }
        }
    }
    if (g_fail_every) {
        char spec[64];
        snprintf(spec, sizeof spec, "any:%d:every", g_fail_every);
        if (tsgemm_test_fault(spec) != 0) {
            fprintf(stderr, "FAIL: tsgemm_test_fault(%s)\n", spec);
            return 1;
        }
    }
    run_threads(1, ws);
    struct tsgemm_stats s0, s1;
    tsgemm_get_stats(&s0);
    const double rss0 = rss_mib();
    /* 3. the soak */
    double t0 = 0;
    {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        t0 = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
    run_threads(g_rounds, ws);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    const double dt = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - t0;
    tsgemm_get_stats(&s1);
    const double rss1 = rss_mib();
    if (g_fail_every) tsgemm_test_fault("");
    /* 4. verdicts */
    const long mism = atomic_load(&g_mismatch), pathc = atomic_load(&g_path_changed),
               wrong = atomic_load(&g_wrong);
    fails += mism > 0 || pathc > 0 || wrong > 0;
    if (rss1 - rss0 > g_rss_tol_mib) {
        fprintf(stderr, "FAIL: RSS grew from %.0f to %.0f MiB (tolerance %.0f)\n", rss0, rss1,
                g_rss_tol_mib);
        fails++;
    }
    if (s1.device_pool_bytes > s1.device_pool_cap || s1.pinned_pool_bytes > s1.pinned_pool_cap) {
        fprintf(stderr, "FAIL: pools above their caps (device %.0f of %.0f, pinned %.0f of %.0f)\n",
                s1.device_pool_bytes, s1.device_pool_cap, s1.pinned_pool_bytes,
                s1.pinned_pool_cap);
        fails++;
    }
    const uint64_t retried = s1.gpu_failed - s0.gpu_failed;
    if (g_fail_every && retried == 0) {
        fprintf(stderr, "FAIL: --fail-every %d but no GPU failure was redone on the CPU\n",
                g_fail_every);
        fails++;
    }
    printf("soak: %d threads x %d rounds x %d shapes = %ld calls in %.1f s (gpu %llu, cpu %llu, "
           "redone on the cpu %llu); bitwise mismatches %ld, path changes %ld, outside the bound "
           "%ld; RSS %.0f -> %.0f MiB; pools: device %.0f -> %.0f MiB of %.0f, pinned %.0f -> %.0f "
           "MiB of %.0f, "
           "%u workspaces, %u copy threads\n",
           g_threads, g_rounds, NS, (long)(g_threads * g_rounds * NS), dt,
           (unsigned long long)(s1.gpu - s0.gpu), (unsigned long long)(s1.cpu - s0.cpu),
           (unsigned long long)retried, mism, pathc, wrong, rss0, rss1,
           s0.device_pool_bytes / (1 << 20), s1.device_pool_bytes / (1 << 20),
           s1.device_pool_cap / (1 << 20), s0.pinned_pool_bytes / (1 << 20),
           s1.pinned_pool_bytes / (1 << 20), s1.pinned_pool_cap / (1 << 20), s1.workspaces,
           s1.copy_threads);
    for (int t = 0; t < g_threads; ++t)
        for (int i = 0; i < NS; ++i) free(ws[t].c[i]);
    free(ws);
    for (int i = 0; i < NS; ++i) {
        free(g_ops[i].single);
        tt_mat_free(&g_ops[i].A);
        tt_mat_free(&g_ops[i].B);
        tt_mat_free(&g_ops[i].C0);
    }
    tsgemm_release();
    printf("%s\n", fails ? "FAILED" : "passed");
    return fails ? 1 : 0;
}
