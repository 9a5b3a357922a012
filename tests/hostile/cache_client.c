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

#include "exact_inputs.h"

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
    exact_inputs(a, b, c, m, n, k);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m);
    const long bad = exact_wrong(a, b, c, m, n, k, (n > 64 ? 7 : 1));
    printf("path=%s %s\n", tsgemm_last_path(), bad ? "WRONG" : "ok");
    free(a);
    free(b);
    free(c);
    return bad ? 1 : 0;
}
