/*
 * pkg_client.c — a small program built the way a user builds against an installed tsgemm
 * (package tier): `cc pkg_client.c $(pkg-config --cflags --libs tsgemm)` or find_package(tsgemm),
 * nothing else. Its cblas_sgemm is libtsgemm's (the link resolves it there; no OpenBLAS on the
 * command line).
 *
 * Usage: pkg_client VERSION — one 96 x 80 x 112 product, checked against a double reference;
 * tsgemm_get_stats must show exactly one more call, computed (cpu or gpu); tsgemm_version() must
 * be VERSION. Exit status 0 passed, 1 failed, 2 usage.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tsgemm.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s VERSION\n", argv[0]);
        return 2;
    }
    enum { M = 96, N = 80, K = 112 };
    static float a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)((i * 7 % 13) - 6) / 8.0f;
    for (int i = 0; i < K * N; i++)
        b[i] = (float)((i * 5 % 11) - 5) / 4.0f;
    struct tsgemm_stats s0, s1;
    tsgemm_get_stats(&s0);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, M, b, K, 0.0f, c, M);
    tsgemm_get_stats(&s1);
    int bad = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            double r = 0;
            for (int p = 0; p < K; p++)
                r += (double)a[i + p * M] * b[p + j * K];
            /* inputs are multiples of 1/32 with small numerators: every sum is exact in float */
            if (c[i + j * M] != (float)r)
                bad++;
        }
    unsigned long long calls = s1.calls - s0.calls, ran = (s1.cpu - s0.cpu) + (s1.gpu - s0.gpu);
    int ok = bad == 0 && calls == 1 && ran == 1 && strcmp(tsgemm_version(), argv[1]) == 0;
    printf("pkg_client: tsgemm %s, %d wrong elements, calls +%llu, computed +%llu (gpu %llu, cpu "
           "%llu): %s\n",
           tsgemm_version(), bad, calls, ran, (unsigned long long)(s1.gpu - s0.gpu),
           (unsigned long long)(s1.cpu - s0.cpu), ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
