/*
 * pipe_probe.c — times calls from host memory through the transfer pipeline with the GPU forced,
 * for tuning runs (scripts/device-run.sh pipe): the knobs of the process (TSGEMM_COPY_THREADS,
 * TSGEMM_TEST_UNIT, TSGEMM_TEST_COPY) are read once, so each configuration is one process. It
 * links libtsgemm_fi, the tests' twin: only that library reads the TSGEMM_TEST_* tuning knobs.
 *
 *   pipe_probe [--require-gpu] [--after-openblas] [--gap MS] [--beta B] [--fresh] SHAPE...
 *                                                                     SHAPE: n, or m,n,k
 *
 * Per shape: pageable operands (malloc, filled, never zero), one warm-up call, then 7 timed
 * calls (host monotonic clock around cblas_sgemm, beta = 0, C poisoned before each); prints the
 * median and min in ms and the bytes moved per ms as GB/s. --after-openblas makes a 1024^3 CPU
 * call (OpenBLAS's threads then spin for a while) right before each timed call, --gap MS waits
 * that long between the two. --beta B: C holds inputs (uniform) and goes up too. --fresh (beta =
 * 0 only): C is malloc'd right before each call and freed after it, as numpy does with every
 * result (above glibc's mmap threshold its pages are new each time: the call pays their first
 * touch). Options apply to the shapes after them. Sampled results are checked against double; a wrong one exits 1.
 * --require-gpu (the tests): every call of the shapes after it (warm-up and timed) must report
 * tsgemm_last_path() "gpu" and move stats.gpu by one; one that does not exits 1.
 */
#define _GNU_SOURCE
#include <cblas-netlib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tsg_testutil.h"
#include "tsgemm.h"

int main(int argc, char **argv)
{
    char info[512];
    if (tsgemm_kernel_info(info, sizeof info) != 0) {
        printf("SKIP: %s\n", info);
        return 77;
    }
    int after_openblas = 0, fresh = 0, require_gpu = 0, bad = 0;
    double gap_ms = 0;
    float beta = 0.0f;
    float *wa = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--after-openblas")) {
            after_openblas = 1;
            wa = malloc(sizeof(float) * 3 * 1024 * 1024);
            for (int j = 0; j < 3 * 1024 * 1024; ++j) wa[j] = (float)(j % 7) - 3.0f;
            continue;
        }
        if (!strcmp(argv[i], "--gap") && i + 1 < argc) {
            gap_ms = atof(argv[++i]);
            continue;
        }
        if (!strcmp(argv[i], "--require-gpu")) {
            require_gpu = 1;
            continue;
        }
        if (!strcmp(argv[i], "--fresh")) {
            fresh = 1;
            continue;
        }
        if (!strcmp(argv[i], "--beta") && i + 1 < argc) {
            beta = (float)atof(argv[++i]);
            continue;
        }
        long m, n, k;
        if (sscanf(argv[i], "%ld,%ld,%ld", &m, &n, &k) != 3) m = n = k = atol(argv[i]);
        float *a = malloc(sizeof(float) * (size_t)(m * k)), *b = malloc(sizeof(float) * (size_t)(k * n));
        float *c = malloc(sizeof(float) * (size_t)(m * n));
        float *c0 = beta != 0.0f ? malloc(sizeof(float) * (size_t)(m * n)) : NULL;
        tt_rng r;
        tt_seed(&r, 3);
        for (long j = 0; j < m * k; ++j) a[j] = tt_uniform(&r);
        for (long j = 0; j < k * n; ++j) b[j] = tt_uniform(&r);
        if (c0)
            for (long j = 0; j < m * n; ++j) c0[j] = tt_uniform(&r);
        enum { R = 7 };
        double t[R];
        int off_gpu = 0; /* calls of this shape that did not run on the GPU */
        const int fresh_c = fresh && !c0;
        for (int rep = -1; rep < R; ++rep) {
            if (fresh_c) { /* a new C for every call; only the last one is checked */
                free(c);
                c = malloc(sizeof(float) * (size_t)(m * n));
            } else if (c0) memcpy(c, c0, sizeof(float) * (size_t)(m * n));
            else memset(c, 0xff, sizeof(float) * (size_t)(m * n)); /* NaN */
            if (after_openblas) {
                tsgemm_set_mode(TSGEMM_MODE_CPU);
                cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 1024, 1024, 1024, 1.0f, wa,
                            1024, wa + 1024 * 1024, 1024, 0.0f, wa + 2 * 1024 * 1024, 1024);
                if (gap_ms > 0) {
                    struct timespec ts = {(time_t)(gap_ms / 1e3),
                                          (long)(fmod(gap_ms, 1e3) * 1e6)};
                    nanosleep(&ts, NULL);
                }
            }
            tsgemm_set_mode(TSGEMM_MODE_GPU);
            struct tsgemm_stats s0, s1;
            tsgemm_get_stats(&s0);
            double t0 = tt_now_s();
            cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, a,
                        (int)m, b, (int)k, beta, c, (int)m);
            if (rep >= 0) t[rep] = tt_now_s() - t0;
            tsgemm_get_stats(&s1);
            if (strcmp(tsgemm_last_path(), "gpu") || s1.gpu - s0.gpu != 1) {
                ++off_gpu;
                if (require_gpu)
                    fprintf(stderr, "FAIL: %ld x %ld x %ld call %d ran on %s (stats.gpu +%llu)\n", m,
                            n, k, rep + 1, tsgemm_last_path(), (unsigned long long)(s1.gpu - s0.gpu));
            }
        }
        bad += require_gpu && off_gpu;
        int64_t fi, fj;
        /* the FP32 bound, plus the math's allowance under TSGEMM_MATH=3xtf32 or tf32 */
        const tt_bound bound = {TT_GAMMA, 0.0, 0, tt_math_split(tsgemm_get_math())};
        size_t wrong = tt_check_sampled_bound('N', 'N', m, n, k, 1.0f, a, m, b, k, beta, c0, m, c, m,
                                              &r, 16, 200, &fi, &fj, &bound);
        bad += wrong != 0;
        tt_median(t, R); /* sorts it */
        const double bytes = 4.0 * ((double)m * k + (double)k * n + (c0 ? 2.0 : 1.0) * m * n);
        printf("%s%s%6ld x %6ld x %6ld  median %8.3f ms  min %8.3f ms  %6.1f GB/s  %6.2f TFLOP/s  %s%s\n",
               c0 ? "beta 1  " : "", fresh_c ? "fresh C " : "", m, n, k, t[R / 2] * 1e3, t[0] * 1e3, bytes / t[R / 2] * 1e-9,
               2.0 * m * n * k / t[R / 2] * 1e-12, tsgemm_last_path(), wrong ? "  WRONG" : "");
        free(a), free(b), free(c), free(c0);
    }
    free(wa);
    return bad ? 1 : 0;
}
