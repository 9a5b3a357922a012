/*
 * test_gpu_multi.c — one call over several device slots (src/tsg_multi.h, gpu/tsg_devices.cu
 * tsg_gpu_sgemm_split) on a single GPU: TSGEMM_DEVICE=0,0 lists device 0 twice, so every large
 * call is cut into two panels that run at once as two pipelines (two workspaces: streams, pinned
 * slots, arenas) on the one GPU — the same code as on two GPUs. Linked to libtsgemm_fi (faults
 * aimed at one slot with "STAGE:N@SLOT").
 *   - shapes cut by columns and by rows, edges that do not divide, all four transposes, both
 *     layouts, beta = 0 (C poisoned with NaN) and beta != 0, padded leading dimensions and
 *     pointers off 16-byte alignment: every call split (multi_gpu_calls + 1), on the GPU, right
 *     against a double reference (sampled: these shapes are above 4e9 flops), A and B untouched,
 *     nothing written outside C's window; a small call is not split; a call repeated gives the
 *     same bits;
 *   - a failure injected on slot 1 (and on slot 0) at every stage, first and later occurrences:
 *     the other slot finishes the panel (path gpu, gpu_handoffs + 1, no CPU retry), and with
 *     faults on both slots the CPU retry finishes exactly what is not final. These use
 *     integer-valued operands whose products are exact in float, so the whole of C is compared
 *     bitwise with the CPU BLAS's result (and sampled elements with the double reference).
 *
 *   test_gpu_multi     everything (exit 77 when no GPU is usable); sets TSGEMM_DEVICE=0,0 when
 *                      the variable is unset (ctest sets it: gpu.multi_0_0)
 */
#define _GNU_SOURCE
#include <cblas-netlib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_cases.h"
#include "tsg_testutil.h"
#include "tsgemm.h"

int tsgemm_test_fault(const char *spec); /* libtsgemm_fi only */

static int g_fail, g_checks;


/* Sampled double reference (edges and 3000 random elements), A/B untouched, C's outside kept. */
static int check(const gcase *g, operands *o, const char *what)
{
    char d[160];
    gc_describe(g, d, sizeof d);
    int bad = 0;
    g_checks++;
    tt_rng r;
    tt_seed(&r, (uint64_t)(g->m * 31 + g->n * 7 + g->k));
    int64_t fi, fj;
    size_t b = tt_check_sampled(g->ta, g->tb, g->m, g->n, g->k, g->alpha, o->A.p, o->A.ld, o->B.p,
                                o->B.ld, g->beta, o->c0 + o->C.first, o->C.ld, o->C.p, o->C.ld, &r,
                                128, 3000, &fi, &fj);
    if (b) {
        fprintf(stderr, "FAIL %s: %s: %zu sampled elements outside the bound, first (%lld, %lld)\n",
                what, d, b, (long long)fi, (long long)fj);
        bad++;
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

static struct tsgemm_stats stats(void)
{
    struct tsgemm_stats s;
    tsgemm_get_stats(&s);
    return s;
}

/* One call; `split`: whether it must have been cut into panels. */
static void run_case(const gcase *g, uint64_t seed, int split)
{
    operands o;
    gc_make_operands(g, seed, 0, &o);
    const struct tsgemm_stats s0 = stats();
    gc_call(g, &o);
    const struct tsgemm_stats s1 = stats();
    char d[160];
    gc_describe(g, d, sizeof d);
    EXPECT(!strcmp(tsgemm_last_path(), "gpu"), "%s ran on %s, not gpu", d, tsgemm_last_path());
    EXPECT(s1.multi_gpu_calls - s0.multi_gpu_calls == (uint64_t)split, "%s: multi_gpu_calls +%llu, want +%d",
           d, (unsigned long long)(s1.multi_gpu_calls - s0.multi_gpu_calls), split);
    EXPECT(s1.gpu_handoffs == s0.gpu_handoffs, "%s: a handoff without a fault", d);
    check(g, &o, split ? "split" : "one device");
    gc_free_operands(&o);
}

static void shape_cases(void)
{
    /* columns cut (m <= n) and rows cut (m > n); edges off the 128 tile; every panel above the
     * floors of src/tsg_multi.h (2 * 1024^3 flops, 1024 x 1024 of C) */
    const int64_t shapes[][3] = {{2048, 2048, 1024}, {1500, 4099, 1100}, {4001, 1700, 800},
                                 {2500, 2501, 2000}, {3000, 2900, 700}};
    const char tr[4][2] = {{'N', 'N'}, {'N', 'T'}, {'T', 'N'}, {'T', 'T'}};
    int idx = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int t = 0; t < 4; ++t, ++idx) {
            gcase g = {idx % 3 == 1, tr[t][0], tr[t][1], shapes[s][0], shapes[s][1], shapes[s][2],
                       (idx % 2) ? 3 : 0, (idx % 4 == 3) ? 1 : 0, idx % 5 == 4 ? -1.5f : 1.0f,
                       (idx % 2) ? 0.5f : 0.0f};
            run_case(&g, 100 + (uint64_t)idx, 1);
        }
    /* below the floors: one device, exactly today's call */
    gcase small = {0, 'N', 'N', 1024, 1024, 1024, 0, 0, 1.0f, 0.0f};
    run_case(&small, 7, 0);
    gcase skinny = {1, 'T', 'N', 300, 5000, 2000, 1, 0, 1.0f, 0.25f};
    run_case(&skinny, 8, 0); /* 300 x 2500 panels: below the area floor */
    /* the same call twice: the same bits (the split and each panel's plan are pure functions) */
    gcase g = {0, 'N', 'T', 2600, 2300, 1500, 1, 0, 1.0f, 0.5f};
    operands o;
    gc_make_operands(&g, 99, 0, &o);
    gc_call(&g, &o);
    float *first = tt_mat_snapshot(&o.C);
    memcpy(o.C.mem, o.snapC, o.C.total * sizeof(float));
    gc_call(&g, &o);
    EXPECT(tt_mat_any_changed(&o.C, first) == 0, "a repeated split call gave other bits");
    free(first);
    gc_free_operands(&o);
}

/* ---- injected failures ---- */

/* C of g computed on the CPU BLAS (exact for the integer operands of the fault cases). */
static float *cpu_result(const gcase *g, operands *o)
{
    float *keep = tt_mat_snapshot(&o->C);
    tsgemm_set_mode(TSGEMM_MODE_CPU);
    gc_call(g, o);
    tsgemm_set_mode(TSGEMM_MODE_GPU);
    EXPECT(!strcmp(tsgemm_last_path(), "cpu"), "the reference call ran on %s", tsgemm_last_path());
    float *want = tt_mat_snapshot(&o->C);
    memcpy(o->C.mem, keep, o->C.total * sizeof(float));
    free(keep);
    return want;
}

/* One call with `spec` armed. expect: 0 the other slot takes over (path gpu, one handoff),
 * 1 a CPU retry is allowed (faults on both slots), 2 the fault may not fire. */
static void fault_case(const char *spec, int expect, uint64_t seed)
{
    /* two panels of 1500 x 3000 blocks (several blocks each), beta != 0 so a block finished twice
     * would show; 3000 x 3000 x 600 integer operands, exact in float */
    gcase g = {(int)(seed % 2), seed % 3 ? 'N' : 'T', 'T', 3000, 3000, 600, 1, 0, 1.0f, 2.0f};
    operands o;
    gc_make_operands(&g, seed, 1, &o);
    float *want = cpu_result(&g, &o);
    if (strstr(spec, "alloc") || strstr(spec, "pinned")) tsgemm_release(); /* allocate again */
    const struct tsgemm_stats s0 = stats();
    EXPECT(tsgemm_test_fault(spec) == 0, "cannot arm %s", spec);
    gc_call(&g, &o);
    tsgemm_test_fault("");
    const struct tsgemm_stats s1 = stats();
    const char *path = tsgemm_last_path();
    const uint64_t handed = s1.gpu_handoffs - s0.gpu_handoffs, failed = s1.gpu_failed - s0.gpu_failed;
    EXPECT(s1.multi_gpu_calls - s0.multi_gpu_calls == 1, "%s: the call was not split", spec);
    if (expect == 0)
        EXPECT(handed == 1 && failed == 0 && !strcmp(path, "gpu"),
               "%s: want the other slot to finish (handoffs +%llu, gpu_failed +%llu, path %s)", spec,
               (unsigned long long)handed, (unsigned long long)failed, path);
    else if (expect == 1)
        EXPECT(handed >= 1 && (!strcmp(path, "gpu") || !strcmp(path, "cpu-retry")) &&
                   failed == (uint64_t)!strcmp(path, "cpu-retry"),
               "%s: handoffs +%llu, gpu_failed +%llu, path %s", spec, (unsigned long long)handed,
               (unsigned long long)failed, path);
    else
        EXPECT(handed <= 1 && failed == 0 && !strcmp(path, "gpu"), "%s: handoffs +%llu, path %s", spec,
               (unsigned long long)handed, path);
    EXPECT(tt_mat_any_changed(&o.C, want) == 0, "%s: C differs from the exact result", spec);
    g_checks++;
    check(&g, &o, spec);
    free(want);
    gc_free_operands(&o);
}

static void fault_cases(void)
{
    const char *stages[] = {"alloc", "pinned", "upload", "kernel", "download", "sync"};
    const int nth[] = {1, 2, 5};
    uint64_t seed = 500;
    for (int slot = 1; slot >= 0; --slot)
        for (size_t s = 0; s < sizeof stages / sizeof stages[0]; ++s)
            for (size_t t = 0; t < sizeof nth / sizeof nth[0]; ++t) {
                if (slot == 0 && t > 0) continue; /* slot 0: the first occurrence of each stage */
                char spec[64];
                snprintf(spec, sizeof spec, "%s:%d@%d", stages[s], nth[t], slot);
                /* every stage is reached at least once per panel; later occurrences may not be
                 * (alloc and pinned happen once per workspace) */
                fault_case(spec, nth[t] == 1 ? 0 : 2, seed++);
                /* both slots split again, right */
                gcase again = {1, 'T', 'N', 2100, 2300, 1100, 2, 1, 1.0f, 0.0f};
                run_case(&again, seed++, 1);
            }
    /* both slots fail: the heir fails too, the CPU retry finishes exactly what is not final */
    fault_case("upload:3:every", 1, seed++);
    fault_case("kernel:2:every", 1, seed++);
    fault_case("download:1:every", 1, seed++);
    fault_case("any:4:every", 1, seed++);
}

int main(void)
{
    char info[512];
    setvbuf(stdout, NULL, _IONBF, 0);
    if (!getenv("TSGEMM_DEVICE")) setenv("TSGEMM_DEVICE", "0,0", 1); /* read at the first call */
    if (tsgemm_kernel_info(info, sizeof info) != 0) {
        printf("SKIP: %s\n", info);
        return 77;
    }
    printf("%s; TSGEMM_DEVICE=%s\n", info, getenv("TSGEMM_DEVICE"));
    tsgemm_set_mode(TSGEMM_MODE_GPU);
    /* the slots exist once the GPU started: a list of one device would test nothing here */
    gcase warm = {0, 'N', 'N', 2048, 2048, 1024, 0, 0, 1.0f, 0.0f};
    operands o;
    gc_make_operands(&warm, 1, 0, &o);
    gc_call(&warm, &o);
    gc_free_operands(&o);
    const struct tsgemm_stats s = stats();
    if (s.gpu_devices < 2) {
        fprintf(stderr, "FAIL: %u device slot(s) with TSGEMM_DEVICE=%s; this test needs a list of "
                        "two (0,0 on one GPU)\n", s.gpu_devices, getenv("TSGEMM_DEVICE"));
        return 1;
    }
    shape_cases();
    fault_cases();
    const struct tsgemm_stats e = stats();
    printf("%d checks, %d failures; %llu gpu calls (%llu split over %u slots, %llu handoffs), "
           "%llu redone on the cpu; %u workspaces\n",
           g_checks, g_fail, (unsigned long long)e.gpu, (unsigned long long)e.multi_gpu_calls,
           e.gpu_devices, (unsigned long long)e.gpu_handoffs, (unsigned long long)e.gpu_failed,
           e.workspaces);
    tsgemm_release();
    return g_fail ? 1 : 0;
}
