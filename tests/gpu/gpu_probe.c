/*
 * gpu_probe.c — exits 0 when libtsgemm.so can use a GPU here, 77 (ctest's "skipped") when not,
 * printing why. Scripts of the gpu tier run it first, so that without a GPU they report skipped
 * instead of silently testing the CPU path again.
 */
#include <stdio.h>

#include "tsgemm.h"

int main(void)
{
    char info[256];
    if (tsgemm_kernel_info(info, sizeof info) != 0) {
        printf("SKIP: no usable GPU (%s)\n", info);
        return 77;
    }
    printf("GPU usable: %s\n", info);
    return 0;
}
