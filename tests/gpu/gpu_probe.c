/*
 * gpu_probe.c — exits 0 when libtsgemm.so can use a GPU here, 77 (ctest's "skipped") when not,
 * printing why. Scripts of the gpu tier run it first, so that without a GPU they report skipped
 * instead of silently testing the CPU path again.
 *   gpu_probe --rates   also makes auto-mode calls of a few sizes; run with TSGEMM_LOG=2 it shows
 *                       the measured (or cached) rates and, at TSGEMM_LOG=3, where each size ran.
 */
#include <cblas-netlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsgemm.h"

int main(int argc, char **argv)
{
    char info[256];
    if (tsgemm_kernel_info(info, sizeof info) != 0) {
        printf("SKIP: %s\n", info);
        return 77;
    }
    printf("GPU usable: %s\n", info);
    if (argc > 1 && !strcmp(argv[1], "--rates")) {
        const int sizes[] = {128, 256, 384, 512, 768, 1024, 2048};
        float *buf = malloc(sizeof(float) * 3 * 2048 * 2048);
        if (!buf) return 1;
        for (size_t i = 0; i < 3u * 2048 * 2048; ++i) buf[i] = (float)(i % 13) - 6.0f;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
            int n = sizes[s];
            cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, buf, n,
                        buf + 2048 * 2048, n, 0.0f, buf + 2 * 2048 * 2048, n);
            printf("auto mode, %d^3, beta = 0: %s\n", n, tsgemm_last_path());
        }
        free(buf);
    }
    return 0;
}
