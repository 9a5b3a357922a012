/*
 * test_gpu_pipeline.c — fault class 20, the transfer pipeline, through cblas_sgemm on host memory
 * with the GPU forced (linked to libtsgemm_fi, the fault-injection twin of the library):
 *   - piece boundaries: shapes one below / at / one above the plan's block, chunk and split
 *     thresholds (src/tsg_plan.h), all four transposes, both layouts, beta = 0 (C poisoned with
 *     NaN) and beta != 0, leading dimensions larger than the rows, pointers off 16-byte alignment;
 *     every result against a double reference (sampled for large shapes), A and B bitwise
 *     untouched and nothing outside C's window written. Run again by ctest with caps
 *     (TSGEMM_DEVICE_MEMORY, TSGEMM_PINNED_MEMORY) that force the bounded mode and many pieces;
 *   - a failure injected at every stage (allocation, pinned allocation, upload, kernel, download,
 *     synchronisation), first and later occurrences: C right (beta applied exactly once), the call
 *     counted as a GPU failure redone on the CPU, the GPU working again at the next call;
 *   - fork() after the copy threads exist: the child's call runs on the CPU and is right, the
 *     parent keeps using the GPU;
 *   - 16 threads issuing large calls at once: results bitwise equal to the single-thread ones.
 *
 *   test_gpu_pipeline           everything above (exit 77 when no GPU is usable)
 *   test_gpu_pipeline --cases   the boundary cases only (the capped ctest run)
 *   test_gpu_pipeline --slots   the first calls' pinned slots only (gpu.pipeline_slots_by_call)
 *   test_gpu_pipeline --small   small shapes only (the sanitizers; run it with caps)
 *   test_gpu_pipeline --hash    prints a hash of one call's C bits (ctest compares runs with
 *                               different TSGEMM_COPY_THREADS: the result must not depend on it)
 */
#define _GNU_SOURCE
#include <cblas-netlib.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu_cases.h"
#include "tsg_testutil.h"
#include "tsgemm.h"

int tsgemm_test_fault(const char *spec); /* libtsgemm_fi only */

static int g_fail, g_checks;


/* Checks C against the reference (full below ~4e7 multiply-adds, sampled above) and that A, B and
 * everything outside C's window are unchanged. Returns the number of problems found. The bound
 * is the FP32 one plus, under TSGEMM_MATH=3xtf32 or tf32, that math's allowance (TT_SPLIT3,
 * TT_SPLIT1: the tensor-core family may run the call; the cases' inputs are normal numbers). */
static int check(const gcase *g, operands *o, const char *what)
{
    char d[160];
    gc_describe(g, d, sizeof d);
    int bad = 0;
    g_checks++;
    const float *c0 = o->c0 + o->C.first;
    const tt_bound bound = {TT_GAMMA, 0.0, 0, tt_math_split(tsgemm_get_math())};
    if ((double)g->m * g->n * g->k <= 4e7) {
        double *r = malloc(sizeof(double) * (size_t)(g->m * g->n)), *ab = malloc(sizeof(double) * (size_t)(g->m * g->n));
        tt_ref_gemm(g->ta, g->tb, g->m, g->n, g->k, g->alpha, o->A.p, o->A.ld, o->B.p, o->B.ld,
                    g->beta, c0, o->C.ld, r, ab);
        tt_check ck = tt_compare_bound(o->C.p, o->C.ld, g->m, g->n, g->k, r, ab, &bound);
        free(r), free(ab);
        if (ck.bad || ck.nonzero == 0) {
            fprintf(stderr, "FAIL %s: %s: %zu elements outside the bound, first (%lld, %lld)\n",
                    what, d, ck.bad, (long long)ck.first_i, (long long)ck.first_j);
            bad++;
        }
    } else {
        tt_rng r;
        tt_seed(&r, (uint64_t)(g->m * 31 + g->n * 7 + g->k));
        int64_t fi, fj;
        size_t b = tt_check_sampled_bound(g->ta, g->tb, g->m, g->n, g->k, g->alpha, o->A.p, o->A.ld,
                                          o->B.p, o->B.ld, g->beta, c0, o->C.ld, o->C.p, o->C.ld, &r, 64,
                                          2000, &fi, &fj, &bound);
        if (b) {
            fprintf(stderr, "FAIL %s: %s: %zu sampled elements outside the bound, first (%lld, %lld)\n",
                    what, d, b, (long long)fi, (long long)fj);
            bad++;
        }
    }
    if (tt_mat_any_changed(&o->A, o->snapA) || tt_mat_any_changed(&o->B, o->snapB)) {
        fprintf(stderr, "FAIL %s: %s: A or B changed\n", what, d);
        bad++;
    }
    if (tt_mat_outside_changed(&o->C, o->snapC)) {
        fprintf(stderr, "FAIL %s: %s: written outside C's window\n", what, d);
        bad++;
    }
    g_fail += bad;
    return bad;
}

static int run_case(const gcase *g, uint64_t seed, const char *want_path)
{
    operands o;
    gc_make_operands(g, seed, 0, &o);
    gc_call(g, &o);
    char d[160];
    gc_describe(g, d, sizeof d);
    EXPECT(!want_path || !strcmp(tsgemm_last_path(), want_path), "%s ran on %s, not %s", d,
           tsgemm_last_path(), want_path);
    int bad = check(g, &o, want_path ? want_path : "call");
    gc_free_operands(&o);
    return bad;
}

/* ---- pinned slots: pinned at the start, or sized to the call ---- */

/* The first staged call of the process. With the warm-up (TSGEMM_PIN_AT_START unset or 1, the
 * default; gpu/tsg_gpu.h tsg_gpu_warm) the start pinned the first workspace's slots at their full
 * size in the background; the first call (forced mode: it waits for the warm-up) finds them and a
 * larger call grows nothing. With TSGEMM_PIN_AT_START=0 (gpu.pipeline_slots_by_call) a small
 * staged call pins its units' worth (gpu/tsg_workspace.h ensure_pinned: 10 slots of at least
 * 64 KiB, here a 256 KiB unit), not the cap's 10 x 16 MiB, and a larger call grows the slots,
 * within the cap. Runs before any other call (default mode, no caps). */
static void slots_case(void)
{
    const char *knob = getenv("TSGEMM_PIN_AT_START");
    const int warm = !knob || strcmp(knob, "0") != 0;
    struct tsgemm_stats s1, s2;
    const gcase small = {0, 'N', 'N', 300, 257, 500, 0, 0, 1.0f, 0.0f};
    const gcase large = {0, 'N', 'T', 2048, 2048, 2048, 0, 0, 1.0f, 0.0f};
    run_case(&small, 7001, "gpu");
    tsgemm_get_stats(&s1);
    run_case(&large, 7002, "gpu");
    tsgemm_get_stats(&s2);
    const double mib = 1 << 20;
    printf("pinned after a 300x257x500 call: %.3g MiB; after 2048^3: %.3g MiB (cap %.3g MiB; %s)\n",
           s1.pinned_pool_bytes / mib, s2.pinned_pool_bytes / mib, s2.pinned_pool_cap / mib,
           warm ? "pinned at the start" : "TSGEMM_PIN_AT_START=0");
    g_checks++;
    if (warm) {
        EXPECT(s1.pinned_pool_bytes >= 10 * 8 * mib && s1.pinned_pool_bytes <= s1.pinned_pool_cap,
               "after the warm-up and a 300x257x500 call %.3g MiB pinned (10 slots of 8-16 MiB "
               "expected, cap %.3g)", s1.pinned_pool_bytes / mib, s1.pinned_pool_cap / mib);
        EXPECT(s2.pinned_pool_bytes == s1.pinned_pool_bytes,
               "the 2048^3 call changed the pinned slots: %.3g MiB, before %.3g", s2.pinned_pool_bytes / mib,
               s1.pinned_pool_bytes / mib);
        return;
    }
    EXPECT(s1.pinned_pool_bytes > 0 && s1.pinned_pool_bytes <= 10 * 0.5 * mib,
           "a 300x257x500 call left %.3g MiB pinned (10 slots of at most 512 KiB expected)",
           s1.pinned_pool_bytes / mib);
    EXPECT(s2.pinned_pool_bytes > s1.pinned_pool_bytes && s2.pinned_pool_bytes <= s2.pinned_pool_cap,
           "after 2048^3 %.3g MiB pinned (before %.3g, cap %.3g)", s2.pinned_pool_bytes / mib,
           s1.pinned_pool_bytes / mib, s2.pinned_pool_cap / mib);
}

/* ---- piece boundaries ---- */

/* Small shapes only, for the sanitizers (run with caps: still many pieces, bounded mode). */
static void small_cases(void)
{
    const int64_t shapes[][3] = {{129, 127, 8}, {300, 257, 500}, {1, 300, 200}, {257, 1, 300}, {64, 64, 2049}};
    const char tr[4][2] = {{'N', 'N'}, {'N', 'T'}, {'T', 'N'}, {'T', 'T'}};
    int idx = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int t = 0; t < 4; ++t, ++idx) {
            gcase g = {idx % 3 == 1, tr[t][0], tr[t][1], shapes[s][0], shapes[s][1], shapes[s][2],
                       idx % 2, idx % 4 == 3, 1.0f, (idx % 2) ? 0.5f : 0.0f};
            run_case(&g, 2000 + (uint64_t)idx, "gpu");
        }
}

static void boundary_cases(int capped)
{
    /* one block / two blocks (m*n around 2^20), chunks around 1.5 * 256, blocks around the
     * 8192-row cap, long K with split-K, 2-D pieces with edges everywhere */
    const int64_t shapes[][3] = {
        {1024, 1024, 384}, {1024, 1025, 385}, {1023, 1024, 383}, {2049, 2047, 515},
        {8193, 64, 700},   {300, 300, 70000}, {1100, 900, 700},  {1, 3000, 2000},
        {3000, 1, 2000},   {129, 127, 8},     {1537, 1025, 1},
    };
    const char tr[4][2] = {{'N', 'N'}, {'N', 'T'}, {'T', 'N'}, {'T', 'T'}};
    int idx = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        if (capped && shapes[s][0] * shapes[s][1] * shapes[s][2] > 1e9) continue; /* many pieces */
        for (int t = 0; t < 4; ++t, ++idx) {
            gcase g = {idx % 3 == 1, tr[t][0], tr[t][1], shapes[s][0], shapes[s][1], shapes[s][2],
                       (idx % 2) ? 3 : 0, (idx % 4 == 3) ? 1 : 0, idx % 5 == 4 ? -1.5f : 1.0f,
                       (idx % 2) ? 0.5f : 0.0f};
            /* the long shapes once per transpose pair is plenty */
            if (shapes[s][2] >= 70000 && t > 1) continue;
            run_case(&g, 1000 + (uint64_t)idx, "gpu");
        }
    }
}

/* ---- injected failures ---- */

static void fault_cases(void)
{
    const char *stages[] = {"alloc", "pinned", "upload", "kernel", "download", "sync"};
    const int nth[] = {1, 2, 5};
    for (size_t s = 0; s < sizeof stages / sizeof stages[0]; ++s)
        for (size_t t = 0; t < sizeof nth / sizeof nth[0]; ++t) {
            char spec[64];
            snprintf(spec, sizeof spec, "%s:%d", stages[s], nth[t]);
            if (!strcmp(stages[s], "alloc") || !strcmp(stages[s], "pinned"))
                tsgemm_release(); /* so the call allocates again */
            struct tsgemm_stats s0, s1;
            tsgemm_get_stats(&s0);
            EXPECT(tsgemm_test_fault(spec) == 0, "cannot arm %s", spec);
            /* 6 blocks of 1024 x 2048 in two units each, 2 chunks, beta != 0: a failure after
             * some blocks are down leaves a partial C that the retry must finish exactly */
            gcase g = {0, 'N', 'T', 3000, 3000, 300 + (int)t, 0, 0, 1.0f, 1.5f};
            operands o;
            gc_make_operands(&g, 77 + s * 10 + t, 0, &o);
            gc_call(&g, &o);
            tsgemm_get_stats(&s1);
            tsgemm_test_fault("");
            check(&g, &o, spec);
            const int failed = (int)(s1.gpu_failed - s0.gpu_failed);
            if (nth[t] == 1) /* every stage is reached at least once per call */
                EXPECT(failed == 1 && !strcmp(tsgemm_last_path(), "cpu-retry"),
                       "%s: the failure did not fire (gpu_failed +%d, path %s)", spec, failed,
                       tsgemm_last_path());
            else
                EXPECT(failed <= 1, "%s: gpu_failed +%d", spec, failed);
            gc_free_operands(&o);
            /* the GPU works again */
            gcase again = {1, 'T', 'N', 700, 900, 1100, 2, 1, 1.0f, 0.0f};
            run_case(&again, 5 + s, "gpu");
        }
    /* every 3rd stage event fails over a run of calls: each call right */
    tsgemm_test_fault("any:3:every");
    for (int i = 0; i < 6; ++i) {
        gcase g = {i % 2, i % 3 ? 'N' : 'T', 'N', 1500 + 17 * i, 1300, 500, 0, 0, 1.0f, 0.25f};
        run_case(&g, 300 + (uint64_t)i, NULL);
    }
    tsgemm_test_fault("");
}

/* ---- fork ---- */

static void fork_case(void)
{
    gcase g = {0, 'N', 'N', 1200, 1100, 1000, 0, 0, 1.0f, 0.0f};
    run_case(&g, 11, "gpu"); /* the copy threads and the context exist now */
    pid_t pid = fork();
    if (pid == 0) {
        g_fail = 0;
        run_case(&g, 12, "cpu"); /* a child cannot use its parent's context */
        _exit(g_fail ? 1 : 0);
    }
    int status = 0;
    EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait");
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the forked child failed (status %d)", status);
    run_case(&g, 13, "gpu");
}

/* ---- threads ---- */

enum { NT = 16 };
typedef struct tjob {
    gcase g;
    operands o;
    float *single; /* C after the single-thread call */
} tjob;

static void *thread_call(void *arg)
{
    tjob *j = arg;
    gc_call(&j->g, &j->o);
    return NULL;
}

static void threads_case(void)
{
    static tjob jobs[NT];
    for (int i = 0; i < NT; ++i) {
        jobs[i].g = (gcase){i % 2, i % 4 < 2 ? 'N' : 'T', i % 3 ? 'N' : 'T', 1400 + 31 * i, 1300 - 17 * i,
                            900 + 5 * i, i % 2, 0, 1.0f, i % 2 ? 0.5f : 0.0f};
        gc_make_operands(&jobs[i].g, 500 + (uint64_t)i, 0, &jobs[i].o);
        float *c_in = tt_mat_snapshot(&jobs[i].o.C);
        gc_call(&jobs[i].g, &jobs[i].o); /* single-thread result */
        jobs[i].single = tt_mat_snapshot(&jobs[i].o.C);
        memcpy(jobs[i].o.C.mem, c_in, jobs[i].o.C.total * sizeof(float)); /* C as before */
        free(c_in);
    }
    pthread_t t[NT];
    for (int i = 0; i < NT; ++i) pthread_create(&t[i], NULL, thread_call, &jobs[i]);
    for (int i = 0; i < NT; ++i) pthread_join(t[i], NULL);
    for (int i = 0; i < NT; ++i) {
        EXPECT(tt_mat_any_changed(&jobs[i].o.C, jobs[i].single) == 0,
               "thread %d: result differs from the single-thread one", i);
        check(&jobs[i].g, &jobs[i].o, "16 threads");
        free(jobs[i].single);
        gc_free_operands(&jobs[i].o);
    }
}

static int print_hash(void)
{
    gcase g = {0, 'N', 'T', 2049, 1500, 1700, 1, 0, 1.0f, 0.5f};
    operands o;
    gc_make_operands(&g, 4242, 0, &o);
    gc_call(&g, &o);
    uint64_t h = 1469598103934665603ull;
    for (int64_t j = 0; j < g.n; ++j)
        for (int64_t i = 0; i < g.m; ++i) {
            uint32_t bits;
            memcpy(&bits, &o.C.p[i + j * o.C.ld], 4);
            h = (h ^ bits) * 1099511628211ull;
        }
    printf("%016llx %s\n", (unsigned long long)h, tsgemm_last_path());
    int bad = check(&g, &o, "hash");
    gc_free_operands(&o);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    char info[512];
    setvbuf(stdout, NULL, _IONBF, 0); /* nothing lost if the test crashes */
    if (tsgemm_kernel_info(info, sizeof info) != 0) {
        printf("SKIP: %s\n", info);
        return 77;
    }
    tsgemm_set_mode(TSGEMM_MODE_GPU);
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "--hash")) return print_hash();
    const int capped = getenv("TSGEMM_DEVICE_MEMORY") || getenv("TSGEMM_PINNED_MEMORY");
    if ((!mode[0] || !strcmp(mode, "--slots")) && !capped) slots_case();
    if (!strcmp(mode, "--slots")) {
        printf("%d checks, %d failures\n", g_checks, g_fail);
        return g_fail ? 1 : 0;
    }
    if (!strcmp(mode, "--small")) small_cases();
    else boundary_cases(capped);
    if (!mode[0]) {
        fault_cases();
        fork_case();
        threads_case();
    }
    struct tsgemm_stats s;
    tsgemm_get_stats(&s);
    printf("%d checks, %d failures; %llu gpu calls, %llu redone on the cpu; pools: device %.0f "
           "MiB of %.0f, pinned %.0f MiB of %.0f, %u copy threads, %u workspaces\n",
           g_checks, g_fail, (unsigned long long)s.gpu, (unsigned long long)s.gpu_failed,
           s.device_pool_bytes / (1 << 20), s.device_pool_cap / (1 << 20),
           s.pinned_pool_bytes / (1 << 20), s.pinned_pool_cap / (1 << 20), s.copy_threads,
           s.workspaces);
    tsgemm_release();
    return g_fail ? 1 : 0;
}
