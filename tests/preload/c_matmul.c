/*
 * c_matmul.c — an ordinary C program linked only to OpenBLAS (its <cblas.h>), unaware of tsgemm:
 * it times float32 C = A*B (and A^T*B) at the sizes given (one untimed call, then the median of
 * REPS timed calls, each printed), checks sampled elements against double
 * precision, and says whether tsgemm was in the process and where the calls ran (read through
 * dlsym, so the program needs no tsgemm header or library). Run it plain and under
 * LD_PRELOAD=libtsgemm.so to compare (scripts/device-run.sh does, with n = 4096 on the GPU
 * machine; the preload tier with small n).
 *   c_matmul [--expect any|gpu|none] N [N ...]
 * Exit status 0 = every sampled element within gamma (k+2) u (|A||B|) (docs/TESTING.md, gamma = 2) and
 * the expectation met.
 */
#define _GNU_SOURCE
#include <cblas.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct stats { /* include/tsgemm.h, struct tsgemm_stats */
    uint64_t calls, illegal, quick, gpu, cpu, gpu_failed;
    double gpu_flops, cpu_flops, gpu_seconds, cpu_seconds;
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

enum { REPS = 5 };

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static float uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(*s >> 11) * 0x1p-52 - 1.0);
}

int main(int argc, char **argv)
{
    const char *expect = "any";
    int first = 1;
    if (argc > 2 && !strcmp(argv[1], "--expect")) expect = argv[2], first = 3;
    if (first >= argc) {
        fprintf(stderr, "usage: %s [--expect any|gpu|none] N [N ...]\n", argv[0]);
        return 2;
    }
    void (*get)(struct stats *) = (void (*)(struct stats *))dlsym(RTLD_DEFAULT, "tsgemm_get_stats");
    printf("tsgemm in process: %s\n", get ? "yes" : "no");
    const int want_absent = !strcmp(expect, "none"); /* any/gpu: tsgemm must be present */
    if (want_absent != !get) {
        printf("FAIL: tsgemm %s, expected %s\n", get ? "present" : "absent", expect);
        return 1;
    }
    int bad = 0;
    for (int ai = first; ai < argc; ++ai) {
        const int n = atoi(argv[ai]);
        if (n <= 0) return 2;
        float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n);
        float *c = malloc(sizeof(float) * n * n);
        if (!a || !b || !c) return 1;
        uint64_t seed = 7;
        for (long i = 0; i < (long)n * n; ++i) a[i] = uniform(&seed), b[i] = uniform(&seed);
        for (int t = 0; t < 2; ++t) {
            CBLAS_TRANSPOSE ta = t ? CblasTrans : CblasNoTrans;
            struct stats s0 = {0}, s1 = {0};
            cblas_sgemm(CblasRowMajor, ta, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
            if (get) get(&s0);
            double times[REPS];
            for (int r = 0; r < REPS; ++r) {
                double t0 = now();
                cblas_sgemm(CblasRowMajor, ta, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
                times[r] = now() - t0;
            }
            if (get) get(&s1);
            printf("%s %dx%dx%d: each (ms)", t ? "A^T*B" : "A*B  ", n, n, n);
            for (int r = 0; r < REPS; ++r) printf(" %.3f", times[r] * 1e3);
            printf("\n");
            qsort(times, REPS, sizeof times[0], cmp_double);
            const double dt = times[REPS / 2];
            int wrong = 0;
            uint64_t ps = 99;
            for (int s = 0; s < 64; ++s) { /* sampled elements, the last one included */
                int i = s ? (int)((ps = ps * 6364136223846793005ull + 1) >> 33) % n : n - 1;
                int j = s ? (int)((ps = ps * 6364136223846793005ull + 1) >> 33) % n : n - 1;
                double r = 0, bound = 0;
                for (int l = 0; l < n; ++l) {
                    double x = t ? a[(long)l * n + i] : a[(long)i * n + l];
                    double p = x * b[(long)l * n + j];
                    r += p, bound += fabs(p);
                }
                wrong += !(fabs(c[(long)i * n + j] - r) <= 2.0 * (n + 2) * 0x1p-24 * bound);
            }
            const char *where = !get ? "-" : s1.gpu > s0.gpu ? "gpu" : s1.cpu > s0.cpu ? "cpu" : "?";
            printf("%s %dx%dx%d: %.3f ms median (%.3f TFLOP/s), ran on %s, %d of 64 sampled elements wrong\n",
                   t ? "A^T*B" : "A*B  ", n, n, n, dt * 1e3, 2.0 * n * n * (double)n / dt * 1e-12,
                   where, wrong);
            bad += wrong;
            if (!strcmp(expect, "gpu") && strcmp(where, "gpu")) {
                printf("FAIL: expected the GPU\n");
                bad++;
            }
        }
        free(a), free(b), free(c);
    }
    return bad ? 1 : 0;
}
