/*
 * exit_warming.c — a process that exits while the GPU's staging is still being pinned (the
 * warm-up after the start, gpu/tsg_gpu.h tsg_gpu_warm): gpu.exit_while_warming runs it 20 times
 * and wants exit status 0 every time, as from the process's own exit() — no crash, no hang (the
 * exit handler waits for the warm-up before the CUDA runtime's handlers tear the context down).
 *
 *   exit_warming [call]   start the GPU (tsgemm_kernel_info), optionally make one auto call of
 *                         1024^3 (the cost model's GPU side, run on the CPU while warming), exit(0)
 * Exit status: 0, or 77 without a usable GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas-netlib.h>

#include "tsgemm.h"

int main(int argc, char **argv)
{
    char info[512];
    if (tsgemm_kernel_info(info, sizeof info) != 0) {
        printf("SKIP: %s\n", info);
        return 77;
    }
    if (argc > 1 && !strcmp(argv[1], "call")) {
        enum { N = 1024 };
        float *a = calloc((size_t)N * N, sizeof(float)), *b = calloc((size_t)N * N, sizeof(float)),
              *c = calloc((size_t)N * N, sizeof(float));
        if (!a || !b || !c) return 1;
        a[0] = b[0] = 1.0f;
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, a, N, b, N, 0.0f, c, N);
        if (c[0] != 1.0f) {
            printf("FAIL: c[0] = %g, want 1\n", (double)c[0]);
            return 1;
        }
        printf("%s\n", tsgemm_last_path());
    }
    exit(0); /* the warm-up may still run: the library's exit handler waits for it */
}
