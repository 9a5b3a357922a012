/*
 * cache_client.c — one SGEMM through libtsgemm_fake (the stand-in GPU backend), for the hostile
 * environment tests (tests/hostile/run_cache_cases.sh): column-major NN, m n k from the command
 * line, small-integer inputs (every sum exact below 2^24), C compared bit for bit with a double
 * reference. Prints "path=<tsgemm_last_path()> ok" and exits 0 when C is right, 1 otherwise.
 */
#include <cblas-netlib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tsgemm.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: cache_client m n k\n");
        return 2;
    }
    const int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
    float *a = malloc(sizeof(float) * (size_t)m * (size_t)k);
    float *b = malloc(sizeof(float) * (size_t)k * (size_t)n);
    float *c = malloc(sizeof(float) * (size_t)m * (size_t)n);
    if (!a || !b || !c) return 2;
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < (size_t)m * (size_t)k; ++i) a[i] = (float)((s = s * 6364136223846793005ull + 1) >> 61) - 3.0f;
    for (size_t i = 0; i < (size_t)k * (size_t)n; ++i) b[i] = (float)((s = s * 6364136223846793005ull + 1) >> 61) - 4.0f;
    for (size_t i = 0; i < (size_t)m * (size_t)n; ++i) c[i] = 0.0f / 0.0f; /* beta = 0: never read */
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m);
    long bad = 0;
    for (int j = 0; j < n; j += (n > 64 ? 7 : 1))
        for (int i = 0; i < m; ++i) {
            double r = 0;
            for (int l = 0; l < k; ++l) r += (double)a[i + (size_t)l * m] * (double)b[l + (size_t)j * k];
            if ((double)c[i + (size_t)j * m] != r) ++bad;
        }
    printf("path=%s %s\n", tsgemm_last_path(), bad ? "WRONG" : "ok");
    return bad ? 1 : 0;
}
