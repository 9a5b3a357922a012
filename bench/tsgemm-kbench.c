/*
 * tsgemm-kbench.c — tsgemm's FP32 kernels against cuBLAS SGEMM on device-resident data (beta = 0;
 * CUDA events around each call, median of the repetitions after 3 warm-ups), through
 * tsgemm_sgemm_device and the tuning hooks that force a configuration, a split of K and the
 * stream-K tail. A developer's tool for the device runs (scripts/device-run.sh kbench,
 * kernel-run.sh, big-run.sh, ncu-run.sh); not installed, no test.
 *
 *   tsgemm-kbench [reps]                 the rule's choice and every configuration (with splits
 *                                        1..16 on some shapes) on the issues' shapes (default 20)
 *   tsgemm-kbench --big [reps] [configs] the large shapes of issue 10 (4096^3 and 8192^3 in all
 *                                        four transpose pairs, 16384^3, the stream-K tail's
 *                                        shapes, 2048^3, 4095^3 unaligned): cuBLAS, the rule,
 *                                        the rule without its tail and each listed configuration
 *                                        (comma-separated; default: 0 and every one from 7 on)
 *   TSGEMM_BENCH_SHAPES=a|b    --big: only the shapes whose name contains one of the
 *                              '|'-separated texts (e.g. "4096^3|TN"): a profiler run
 *                              (scripts/ncu-run.sh) on a few kernels, or a shorter A/B
 *   TSGEMM_BENCH_INTERLEAVE=0  --big: each column's repetitions after the previous column's (the
 *                              default: round-robin, one call of each column per repetition in a
 *                              shuffled order, so that a drift of the clocks and what the call
 *                              before leaves behind reach every column alike; one column after
 *                              another moved 8192^3 columns by up to 4% with their place in the
 *                              order, docs/NOTES.md "v0.20")
 * Exit status: 0, 1 when a tsgemm call failed, 77 when no GPU is usable.
 */
#define _GNU_SOURCE
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_check.h"
#include "tsg_testutil.h"
#include "tsgemm.h"
#include "tsgemm_tuning.h" /* the kernel configuration hooks (not the stable API) */

static int g_fail;
static cublasHandle_t g_cublas;

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

typedef struct bshape {
    const char *name;
    char ta, tb;
    int64_t m, n, k, ld_extra; /* ld = rows + ld_extra */
    int off;                   /* operands offset by this many floats from 16-byte alignment */
    int sweep;                 /* 0: rule only; 1: + every configuration; 2: + splits 1..16 */
} bshape;

typedef struct btime {
    double med, slow, fast; /* TFLOP/s */
} btime;

static float *g_bA, *g_bB, *g_bC;
static cudaEvent_t g_e0, g_e1;

/* One call timed by events around it (ms): impl 0 tsgemm as configured now, 1 cuBLAS. */
static float time_call(const bshape *b, int impl)
{
    const int64_t ar = b->ta == 'N' ? b->m : b->k, br = b->tb == 'N' ? b->k : b->n;
    const int64_t lda = ar + b->ld_extra, ldb = br + b->ld_extra, ldc = b->m + b->ld_extra;
    const float *A = g_bA + b->off, *B = g_bB + b->off;
    float *C = g_bC + b->off;
    float ms = 0;
    CK(cudaEventRecord(g_e0, 0));
    if (impl == 0) {
        if (tsgemm_sgemm_device(b->ta, b->tb, b->m, b->n, b->k, 1.0f, A, lda, B, ldb, 0.0f, C, ldc, NULL)) {
            fprintf(stderr, "FAIL: bench %s: tsgemm call failed\n", b->name);
            g_fail++;
        }
    } else {
        const float one = 1, zero = 0;
        CB(cublasSgemm(g_cublas, b->ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T, b->tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T,
                       (int)b->m, (int)b->n, (int)b->k, &one, A, (int)lda, B, (int)ldb, &zero, C, (int)ldc));
    }
    CK(cudaEventRecord(g_e1, 0));
    CK(cudaEventSynchronize(g_e1));
    CK(cudaEventElapsedTime(&ms, g_e0, g_e1));
    return ms;
}

/* TFLOP/s of the median, slowest and fastest of reps times (ms; sorted in place). */
static btime rates(const bshape *b, float *times, int reps)
{
    qsort(times, (size_t)reps, sizeof(float), cmp_float);
    const double fl = 2.0 * (double)b->m * (double)b->n * (double)b->k;
    btime t = {fl / (times[reps / 2] * 1e-3) * 1e-12, fl / (times[reps - 1] * 1e-3) * 1e-12,
               fl / (times[0] * 1e-3) * 1e-12};
    return t;
}

/* Median (and extremes) of reps timed calls after 3 warm-ups; impl 0 tsgemm, 1 cuBLAS. */
static btime time_shape(const bshape *b, int impl, int reps)
{
    float *times = malloc(sizeof(float) * (size_t)reps);
    for (int rep = -3; rep < reps; ++rep) {
        const float ms = time_call(b, impl);
        if (rep >= 0) times[rep] = ms;
    }
    const btime t = rates(b, times, reps);
    free(times);
    return t;
}

/* --bench-big's columns: cuBLAS, the rule, the rule without its tail (v0.14) and each
 * configuration of cfgs forced, reps timed calls of each after 3 warm-ups. interleave (the
 * default; TSGEMM_BENCH_INTERLEAVE=0 turns it off): round-robin, every repetition one call of each
 * column in an order shuffled afresh (a fixed seed: the same orders every run), so that a drift of
 * the clocks over the shape's run and what the call before leaves behind (a slower kernel before
 * it lets the clocks recover: docs/NOTES.md "v0.20", runs 4-8) reach every column alike; off: each
 * column's calls after the previous column's, in the order above (before v0.20). out[0] cuBLAS,
 * out[1] the rule, out[2] no tail, out[3 + i] configuration cfgs[i]. */
static void time_columns(const bshape *b, int reps, int nc, const int *cfgs, int interleave, btime *out)
{
    const int ncol = 3 + nc;
    float *times = malloc(sizeof(float) * (size_t)reps * (size_t)ncol);
    int order[35];
    tt_rng r;
    tt_seed(&r, 20261204);
    /* interleaved: reps + 3 rounds of one call per column; otherwise one round of reps + 3 each */
    const int rounds = interleave ? reps + 3 : 1, per = interleave ? 1 : reps + 3;
    for (int round = 0; round < rounds; ++round) {
        for (int j = 0; j < ncol; ++j) order[j] = j;
        for (int j = ncol - 1; interleave && j > 0; --j) { /* Fisher-Yates */
            const int x = (int)(tt_next(&r) % (uint64_t)(j + 1)), y = order[j];
            order[j] = order[x], order[x] = y;
        }
        for (int j = 0; j < ncol; ++j) {
            const int c = order[j];
            tsgemm_set_kernel_config(c >= 3 ? cfgs[c - 3] : -1, 0);
            tsgemm_set_kernel_tail(c == 2 ? -1 : 0);
            for (int i = 0; i < per; ++i) {
                const int rep = (interleave ? round : i) - 3;
                const float ms = time_call(b, c == 0);
                if (rep >= 0) times[(size_t)c * (size_t)reps + (size_t)rep] = ms;
            }
        }
    }
    tsgemm_set_kernel_config(-1, 0);
    tsgemm_set_kernel_tail(0);
    for (int c = 0; c < ncol; ++c) out[c] = rates(b, times + (size_t)c * (size_t)reps, reps);
    free(times);
}

/* The benches' device buffers: A and B of na floats (uniform values from one host chunk, B's
 * shifted so that A and B differ), C of nc floats, and the timing events. */
static void bench_buffers(size_t na, size_t nc)
{
    const size_t chunk = (size_t)1 << 24;
    CK(cudaMalloc((void **)&g_bA, na * 4));
    CK(cudaMalloc((void **)&g_bB, na * 4));
    CK(cudaMalloc((void **)&g_bC, nc * 4));
    tt_rng r;
    tt_seed(&r, 1);
    float *h = malloc(chunk * 4);
    if (!h) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    for (size_t i = 0; i < chunk; ++i) h[i] = tt_uniform(&r);
    for (size_t o = 0; o < na; o += chunk) {
        const size_t len = na - o < chunk ? na - o : chunk;
        CK(cudaMemcpy(g_bA + o, h, len * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(g_bB + o, h + (chunk - len) / 2, len * 4, cudaMemcpyHostToDevice));
    }
    free(h);
    CK(cudaEventCreate(&g_e0));
    CK(cudaEventCreate(&g_e1));
}

static void bench(int reps)
{
    char info[256];
    tsgemm_kernel_info(info, sizeof info);
    const bshape shapes[] = {
        {"NN 4096^3", 'N', 'N', 4096, 4096, 4096, 0, 0, 1},
        {"NT 4096^3", 'N', 'T', 4096, 4096, 4096, 0, 0, 0},
        {"TN 4096^3", 'T', 'N', 4096, 4096, 4096, 0, 0, 0},
        {"TT 4096^3", 'T', 'T', 4096, 4096, 4096, 0, 0, 0},
        {"NN 8192^3", 'N', 'N', 8192, 8192, 8192, 0, 0, 0},
        {"NN 2048^3", 'N', 'N', 2048, 2048, 2048, 0, 0, 1},
        {"NN 1024^3", 'N', 'N', 1024, 1024, 1024, 0, 0, 2},
        {"NN 1000^3", 'N', 'N', 1000, 1000, 1000, 0, 0, 2},
        {"NN 512^3", 'N', 'N', 512, 512, 512, 0, 0, 2},
        {"NN 768^3", 'N', 'N', 768, 768, 768, 0, 0, 1},
        {"NN 1536^3", 'N', 'N', 1536, 1536, 1536, 0, 0, 1},
        {"NN 3000^3", 'N', 'N', 3000, 3000, 3000, 0, 0, 1},
        {"NT 1024^3", 'N', 'T', 1024, 1024, 1024, 0, 0, 0},
        {"TN 512x512x65536", 'T', 'N', 512, 512, 65536, 0, 0, 0},
        {"NN 512x512x65536", 'N', 'N', 512, 512, 65536, 0, 0, 2},
        {"NN 65536x64x4096", 'N', 'N', 65536, 64, 4096, 0, 0, 2},
        {"NN 64x65536x4096", 'N', 'N', 64, 65536, 4096, 0, 0, 2},
        {"NN 4095^3", 'N', 'N', 4095, 4095, 4095, 0, 0, 1},
        {"NN 4095^3 ld+1 +1f", 'N', 'N', 4095, 4095, 4095, 1, 1, 1},
        {"TN 4095^3 ld+1 +1f", 'T', 'N', 4095, 4095, 4095, 1, 1, 0},
    };
    const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
    /* operands up to 2^28 floats (64x65536x4096's B), C up to 8192^2 */
    bench_buffers(((size_t)1 << 28) + 64, (size_t)8192 * 8192 + 64);
    const int ncfg = tsgemm_kernel_config_info(0, info, sizeof info);
    printf("\nkernel benchmark, device-resident data, beta = 0, median of %d after 3 warm-ups\n", reps);
    for (int c = 0; c < ncfg; ++c) {
        tsgemm_kernel_config_info(c, info, sizeof info);
        printf("  %s\n", info);
    }
    static const int64_t sweep_splits[] = {1, 2, 4, 8, 16};
    struct { int cfg; int64_t splits; btime rule, cub; int best_cfg; int64_t best_s; double best; } res[32];
    printf("\nper configuration (TFLOP/s, median; 'rule' = the rule's split for that configuration)\n");
    for (int s = 0; s < nshapes; ++s) {
        const bshape *b = &shapes[s];
        tsgemm_set_kernel_config(-1, 0);
        tsgemm_kernel_plan(b->ta, b->tb, b->m, b->n, b->k, &res[s].cfg, &res[s].splits);
        res[s].rule = time_shape(b, 0, reps);
        res[s].cub = time_shape(b, 1, reps);
        res[s].best = res[s].rule.med, res[s].best_cfg = res[s].cfg, res[s].best_s = res[s].splits;
        for (int c = 0; b->sweep && c < ncfg; ++c) {
            int pc;
            int64_t ps;
            tsgemm_set_kernel_config(c, 0);
            tsgemm_kernel_plan(b->ta, b->tb, b->m, b->n, b->k, &pc, &ps);
            btime t = time_shape(b, 0, reps);
            printf("%-20s cfg %d: rule (%lld) %6.2f", b->name, c, (long long)ps, t.med);
            if (t.med > res[s].best) res[s].best = t.med, res[s].best_cfg = c, res[s].best_s = ps;
            for (int i = 0; b->sweep == 2 && i < 5; ++i) {
                tsgemm_set_kernel_config(c, sweep_splits[i]);
                tsgemm_kernel_plan(b->ta, b->tb, b->m, b->n, b->k, &pc, &ps);
                t = time_shape(b, 0, reps);
                printf("  s%lld %6.2f", (long long)ps, t.med);
                if (t.med > res[s].best) res[s].best = t.med, res[s].best_cfg = c, res[s].best_s = ps;
            }
            printf("\n");
        }
        fflush(stdout);
    }
    tsgemm_set_kernel_config(-1, 0);
    printf("\nthe rule's choice vs cuBLAS (TFLOP/s, median [slowest-fastest]); best = best measured above\n");
    printf("%-20s %-9s %22s %22s %7s  %s\n", "shape", "cfg/split", "tsgemm", "cuBLAS", "ratio", "best cfg/split TFLOP/s ratio");
    for (int s = 0; s < nshapes; ++s) {
        char cs[16], bs[48];
        snprintf(cs, sizeof cs, "%d/%lld", res[s].cfg, (long long)res[s].splits);
        snprintf(bs, sizeof bs, "%d/%lld %.2f %.3f", res[s].best_cfg, (long long)res[s].best_s, res[s].best,
                 res[s].best / res[s].cub.med);
        printf("%-20s %-9s %8.2f [%5.2f-%5.2f] %8.2f [%5.2f-%5.2f] %7.3f  %s\n", shapes[s].name, cs,
               res[s].rule.med, res[s].rule.slow, res[s].rule.fast, res[s].cub.med, res[s].cub.slow,
               res[s].cub.fast, res[s].rule.med / res[s].cub.med, bs);
    }
    cudaFree(g_bA), cudaFree(g_bB), cudaFree(g_bC);
}

/* Whether name contains one of the '|'-separated texts of filter (NULL or empty: every name). */
static int name_matches(const char *name, const char *filter)
{
    if (!filter || !*filter) return 1;
    for (const char *p = filter;;) {
        const char *bar = strchr(p, '|');
        const size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len && memmem(name, strlen(name), p, len)) return 1;
        if (!bar) return 0;
        p = bar + 1;
    }
}

/* --bench-big: the issue-10/11 shapes against cuBLAS, each listed configuration forced with the
 * rule's split for it (printed as cN/S when S > 1). */
static void bench_big(int reps, const char *list)
{
    char info[256];
    const bshape shapes[] = {
        {"NN 4096^3", 'N', 'N', 4096, 4096, 4096, 0, 0, 0},
        {"NT 4096^3", 'N', 'T', 4096, 4096, 4096, 0, 0, 0},
        {"TN 4096^3", 'T', 'N', 4096, 4096, 4096, 0, 0, 0},
        {"TT 4096^3", 'T', 'T', 4096, 4096, 4096, 0, 0, 0},
        {"NN 8192^3", 'N', 'N', 8192, 8192, 8192, 0, 0, 0},
        {"NT 8192^3", 'N', 'T', 8192, 8192, 8192, 0, 0, 0},
        {"TN 8192^3", 'T', 'N', 8192, 8192, 8192, 0, 0, 0},
        {"TT 8192^3", 'T', 'T', 8192, 8192, 8192, 0, 0, 0},
        {"NN 16384^3", 'N', 'N', 16384, 16384, 16384, 0, 0, 0},
        /* the stream-K tail's last round (v0.14), configuration 7 on 132 SMs: 800 tiles leave 8
         * (6% of a round), 288 24 (18%), 3200 32 (24%), 1152 96 (73%) */
        {"NN 5120^3", 'N', 'N', 5120, 5120, 5120, 0, 0, 0},
        {"NN 3072^3", 'N', 'N', 3072, 3072, 3072, 0, 0, 0},
        {"NN 10240^3", 'N', 'N', 10240, 10240, 10240, 0, 0, 0},
        {"NN 6144^3", 'N', 'N', 6144, 6144, 6144, 0, 0, 0},
        {"NN 2048^3", 'N', 'N', 2048, 2048, 2048, 0, 0, 0},
        {"NN 3000^3", 'N', 'N', 3000, 3000, 3000, 0, 0, 0},
        {"NN 2304^3", 'N', 'N', 2304, 2304, 2304, 0, 0, 0},
        {"NT 2688^3", 'N', 'T', 2688, 2688, 2688, 0, 0, 0},
        {"TT 3072^3", 'T', 'T', 3072, 3072, 3072, 0, 0, 0},
        {"NN 1536^3", 'N', 'N', 1536, 1536, 1536, 0, 0, 0},
        {"NN 1024^3", 'N', 'N', 1024, 1024, 1024, 0, 0, 0},
        {"NN 1000^3", 'N', 'N', 1000, 1000, 1000, 0, 0, 0},
        {"NN 512^3", 'N', 'N', 512, 512, 512, 0, 0, 0},
        {"NN 512x512x65536", 'N', 'N', 512, 512, 65536, 0, 0, 0},
        {"TN 512x512x65536", 'T', 'N', 512, 512, 65536, 0, 0, 0},
        {"NN 65536x64x4096", 'N', 'N', 65536, 64, 4096, 0, 0, 0},
        {"NN 64x65536x4096", 'N', 'N', 64, 65536, 4096, 0, 0, 0},
        {"NN 4095^3", 'N', 'N', 4095, 4095, 4095, 0, 0, 0},
        {"NN 4095^3 ld+1 +1f", 'N', 'N', 4095, 4095, 4095, 1, 1, 0},
        {"TN 4095^3 ld+1 +1f", 'T', 'N', 4095, 4095, 4095, 1, 1, 0},
    };
    const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
    bench_buffers(((size_t)1 << 28) + 64 * 1024, ((size_t)1 << 28) + 64 * 1024);
    const int ncfg = tsgemm_kernel_config_info(0, info, sizeof info);
    int cfgs[32], nc = 0;
    for (int c = 0; c < ncfg && nc < 32; ++c)
        if (list && *list ? tt_in_list(list, c) : (c == 0 || c >= 7)) cfgs[nc++] = c;
    printf("\nbig-kernel benchmark, device-resident data, beta = 0, median of %d after 3 warm-ups (16384^3: %d)\n",
           reps, reps / 4 > 3 ? reps / 4 : 3);
    for (int i = 0; i < nc; ++i) {
        tsgemm_kernel_config_info(cfgs[i], info, sizeof info);
        printf("  %s\n", info);
    }
    double ratio[32][35]; /* cuBLAS, the rule, up to 32 configurations, the rule without its tail */
    const char *only = getenv("TSGEMM_BENCH_SHAPES");
    const char *il = getenv("TSGEMM_BENCH_INTERLEAVE");
    const int interleave = !(il && !strcmp(il, "0"));
    printf(interleave ? "columns timed round-robin, one call each per repetition in a shuffled order\n"
                      : "columns timed one after another (TSGEMM_BENCH_INTERLEAVE=0)\n");
    int run[32];
    for (int s = 0; s < nshapes; ++s) run[s] = name_matches(shapes[s].name, only);
    for (int s = 0; s < nshapes; ++s) {
        const bshape *b = &shapes[s];
        if (!run[s]) continue;
        const int rp = b->m >= 16384 ? (reps / 4 > 3 ? reps / 4 : 3) : reps;
        tsgemm_set_kernel_config(-1, 0);
        int pc;
        int64_t ps;
        tsgemm_kernel_plan(b->ta, b->tb, b->m, b->n, b->k, &pc, &ps);
        int64_t tt = 0, tbk = 0;
        tsgemm_kernel_tail(b->ta, b->tb, b->m, b->n, b->k, &tt, &tbk);
        btime col[35]; /* cuBLAS, the rule, no tail, then cfgs[] */
        time_columns(b, rp, nc, cfgs, interleave, col);
        const btime cub = col[0], rule = col[1], plain = col[2];
        printf("%-20s cuBLAS %6.2f  rule(%d/%lld tail %lld/%lld) %6.2f %.3f  no tail %6.2f %.3f", b->name, cub.med, pc,
               (long long)ps, (long long)tt, (long long)tbk, rule.med, rule.med / cub.med, plain.med,
               plain.med / cub.med);
        ratio[s][0] = cub.med, ratio[s][1] = rule.med / cub.med, ratio[s][34] = plain.med / cub.med;
        for (int i = 0; i < nc; ++i) {
            tsgemm_set_kernel_config(cfgs[i], 0);
            tsgemm_kernel_plan(b->ta, b->tb, b->m, b->n, b->k, &pc, &ps);
            const btime t = col[3 + i];
            ratio[s][2 + i] = t.med / cub.med;
            if (ps > 1) printf("  c%d/%lld %6.2f %.3f", cfgs[i], (long long)ps, t.med, t.med / cub.med);
            else printf("  c%d %6.2f %.3f", cfgs[i], t.med, t.med / cub.med);
        }
        printf("\n");
        fflush(stdout);
    }
    tsgemm_set_kernel_config(-1, 0);
    printf("\nratio to cuBLAS (median TFLOP/s over median), per configuration forced (the rule's split for it)\n");
    printf("%-20s %7s %6s %7s", "shape", "cuBLAS", "rule", "no-tail");
    for (int i = 0; i < nc; ++i) printf("  cfg%-3d", cfgs[i]);
    printf("\n");
    for (int s = 0; s < nshapes; ++s) {
        if (!run[s]) continue;
        printf("%-20s %7.2f %6.3f %7.3f", shapes[s].name, ratio[s][0], ratio[s][1], ratio[s][34]);
        for (int i = 0; i < nc; ++i) printf("  %6.3f", ratio[s][2 + i]);
        printf("\n");
    }
    cudaFree(g_bA), cudaFree(g_bB), cudaFree(g_bC);
}


int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run killed by a time limit keeps its finished lines */
    const int big = argc > 1 && !strcmp(argv[1], "--big");
    const int a = big ? 2 : 1; /* the first argument after the mode */
    char info[256];
    if (tsgemm_kernel_info(info, sizeof info) != 0) {
        printf("SKIP: %s\n", info);
        return 77;
    }
    printf("kernel: %s\n", info);
    CB(cublasCreate(&g_cublas));
    if (big) bench_big(argc > a ? atoi(argv[a]) : 10, argc > a + 1 ? argv[a + 1] : NULL);
    else bench(argc > a ? atoi(argv[a]) : 20);
    cublasDestroy(g_cublas);
    tsgemm_release();
    return g_fail ? 1 : 0;
}
