/*
 * secure_client.c — one SGEMM through a tsgemm library loaded by absolute path, for the
 * privileged-process test (run_secure_cases.sh installs a copy of this program setuid root and
 * runs it as an unprivileged user). The library is opened with dlopen(argv[1]) rather than linked,
 * so the test does not depend on what the dynamic loader lets a secure-mode program find through
 * RUNPATH. Column-major NN, m n k from the command line, small-integer inputs (every sum exact
 * below 2^24), C compared exactly with a double reference.
 * Prints "secure=<AT_SECURE> euid=<euid> path=<tsgemm_last_path()>", then lines "cpu-blas=..."
 * (tsgemm_cpu_blas), "gpu=..." (tsgemm_kernel_info) and "ok" or "WRONG";
 * exits 0 when C is right, 1 when it is wrong, 2 when the library cannot be used.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "exact_inputs.h"

typedef void sgemm_fn(int, int, int, int, int, int, float, const float *, int, const float *, int,
                      float, float *, int);
typedef const char *text_fn(void);

int main(int argc, char **argv)
{
    if (argc != 5 || argv[1][0] != '/') {
        fprintf(stderr, "usage: secure_client /ABSOLUTE/libtsgemm.so m n k\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "secure_client: %s\n", dlerror());
        return 2;
    }
    sgemm_fn *sgemm = (sgemm_fn *)dlsym(h, "cblas_sgemm");
    text_fn *last_path = (text_fn *)dlsym(h, "tsgemm_last_path");
    text_fn *cpu_blas = (text_fn *)dlsym(h, "tsgemm_cpu_blas");
    int (*kernel_info)(char *, int) = (int (*)(char *, int))dlsym(h, "tsgemm_kernel_info");
    if (!sgemm || !last_path || !cpu_blas || !kernel_info) {
        fprintf(stderr, "secure_client: %s lacks a tsgemm symbol\n", argv[1]);
        return 2;
    }
    const int m = atoi(argv[2]), n = atoi(argv[3]), k = atoi(argv[4]);
    if (m < 1 || n < 1 || k < 1 || m > 4096 || n > 4096 || k > 4096) return 2;
    float *a = malloc(sizeof(float) * (size_t)m * (size_t)k);
    float *b = malloc(sizeof(float) * (size_t)k * (size_t)n);
    float *c = malloc(sizeof(float) * (size_t)m * (size_t)n);
    if (!a || !b || !c) return 2;
    exact_inputs(a, b, c, m, n, k);
    enum { COL_MAJOR = 102, NO_TRANS = 111 }; /* CBLAS's enum values (cblas.h) */
    sgemm(COL_MAJOR, NO_TRANS, NO_TRANS, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m);
    const long bad = exact_wrong(a, b, c, m, n, k, 1);
    char gpu[512];
    gpu[0] = 0;
    (void)kernel_info(gpu, (int)sizeof gpu); /* -1 (no GPU): gpu says why */
    printf("secure=%lu euid=%ld path=%s\ncpu-blas=%s\ngpu=%s\n%s\n", getauxval(AT_SECURE),
           (long)geteuid(), last_path(), cpu_blas(), gpu, bad ? "WRONG" : "ok");
    free(a);
    free(b);
    free(c);
    return bad ? 1 : 0;
}
