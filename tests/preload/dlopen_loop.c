/*
 * dlopen_loop.c — fault class 14: libtsgemm.so opened and closed again and again by a program
 * that does not link it (a plug-in host, a Python extension being reloaded).
 *
 * Each round dlopen()s the library (RTLD_LOCAL and RTLD_GLOBAL alternately), looks up
 * cblas_sgemm, sgemm_ and tsgemm_get_stats with dlsym on that handle, checks they are the
 * library's own, runs one small product (alternating layouts and transposes) against a
 * double-precision reference, checks the counters moved by one call, and dlclose()s it. Run with
 * TSGEMM_LOG=2 the library also registers its exit summary: the process must still exit cleanly
 * after the last dlclose (no handler left pointing at unmapped code).
 *
 * Usage: tsg_dlopen_loop [--require-gpu] LIBTSGEMM [ROUNDS=50]
 *   --require-gpu  (the gpu tier, with TSGEMM_MODE=gpu) every round's call must have run on the
 *                  GPU: stats.gpu moved by one and tsgemm_last_path() says "gpu"
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsg_testutil.h"
#include "tsgemm.h"

typedef void (*cblas_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
typedef void (*f77_fn)(const char *, const char *, const int *, const int *, const int *,
                       const float *, const float *, const int *, const float *, const int *,
                       const float *, float *, const int *);
typedef void (*stats_fn)(struct tsgemm_stats *);
typedef const char *(*path_fn)(void);

int main(int argc, char **argv)
{
    int require_gpu = 0;
    if (argc > 1 && !strcmp(argv[1], "--require-gpu")) {
        require_gpu = 1;
        --argc, ++argv;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: tsg_dlopen_loop [--require-gpu] LIBTSGEMM [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 50;
    if (dlsym(RTLD_DEFAULT, "tsgemm_get_stats")) {
        fprintf(stderr, "FAIL: tsgemm is already in the process; run this without LD_PRELOAD\n");
        return 1;
    }
    enum { M = 19, N = 13, K = 21 };
    tt_rng rng;
    tt_seed(&rng, 14);
    float a[K * M], b[K * N], c[M * N];
    double r[M * N], absr[M * N];
    int failures = 0;
    for (int round = 0; round < rounds; ++round) {
        void *h = dlopen(argv[1], RTLD_NOW | (round % 2 ? RTLD_GLOBAL : RTLD_LOCAL));
        if (!h) {
            const char *why = dlerror();
            fprintf(stderr, "FAIL: round %d: dlopen: %s\n", round, why);
            if (why && strstr(why, "static TLS"))
                fprintf(stderr, "  (the library is marked STATIC_TLS — initial-exec TLS — and its TLS "
                                "segment does not fit the static TLS surplus left for dlopen: "
                                "readelf -dlW shows FLAGS STATIC_TLS and the PT_TLS size)\n");
            return 1;
        }
        cblas_fn cblas = (cblas_fn)dlsym(h, "cblas_sgemm");
        f77_fn f77 = (f77_fn)dlsym(h, "sgemm_");
        stats_fn stats = (stats_fn)dlsym(h, "tsgemm_get_stats");
        path_fn last_path = (path_fn)dlsym(h, "tsgemm_last_path");
        Dl_info mine, theirs;
        if (!cblas || !f77 || !stats || !last_path || !dladdr((void *)stats, &mine) ||
            !dladdr((void *)cblas, &theirs) || mine.dli_fbase != theirs.dli_fbase) {
            fprintf(stderr, "FAIL: round %d: cblas_sgemm/sgemm_/tsgemm_get_stats/tsgemm_last_path "
                            "missing or not the library's own\n", round);
            return 1;
        }
        /* column-major, transa N or T by round: the stored A is M x K or K x M */
        int ta = round % 2, tb = (round / 2) % 2;
        int lda = ta ? K : M, ldb = tb ? N : K;
        for (int i = 0; i < K * M; ++i) a[i] = tt_uniform(&rng);
        for (int i = 0; i < K * N; ++i) b[i] = tt_uniform(&rng);
        for (int i = 0; i < M * N; ++i) c[i] = tt_uniform(&rng);
        float alpha = 0.75f, beta = round % 3 ? -0.5f : 0.0f;
        tt_ref_gemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, alpha, a, lda, b, ldb, beta, c, M, r,
                    absr);
        struct tsgemm_stats s0, s1;
        stats(&s0);
        if (round % 4 == 3) {
            const int m = M, n = N, k = K;
            f77(ta ? "T" : "N", tb ? "T" : "N", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &m);
        } else {
            cblas(102, ta ? 112 : 111, tb ? 112 : 111, M, N, K, alpha, a, lda, b, ldb, beta, c, M);
        }
        stats(&s1);
        tt_check chk = tt_compare(c, M, M, N, K, r, absr, TT_GAMMA);
        if (chk.bad || chk.nonzero == 0) {
            fprintf(stderr, "FAIL: round %d: %zu wrong elements (rel_fro %.3g)\n", round, chk.bad,
                    chk.rel_fro);
            ++failures;
        }
        if (s1.calls - s0.calls != 1 || (s1.cpu + s1.gpu) - (s0.cpu + s0.gpu) != 1) {
            fprintf(stderr, "FAIL: round %d: counters moved by %llu calls, %llu computed\n", round,
                    (unsigned long long)(s1.calls - s0.calls),
                    (unsigned long long)((s1.cpu + s1.gpu) - (s0.cpu + s0.gpu)));
            ++failures;
        }
        if (require_gpu && (s1.gpu - s0.gpu != 1 || strcmp(last_path(), "gpu"))) {
            fprintf(stderr, "FAIL: round %d: the call ran on %s (stats.gpu moved by %llu), "
                            "--require-gpu\n", round, last_path(),
                    (unsigned long long)(s1.gpu - s0.gpu));
            ++failures;
        }
        if (dlclose(h)) {
            fprintf(stderr, "FAIL: round %d: dlclose: %s\n", round, dlerror());
            return 1;
        }
    }
    printf("%d dlopen/call/dlclose rounds, %d failures\n", rounds, failures);
    return failures ? 1 : 0;
}
