/*
 * version_check.c — one version: the library's tsgemm_version(), the header's
 * TSGEMM_VERSION_STRING and TSGEMM_VERSION_MAJOR/_MINOR/_PATCH, and CMake's PROJECT_VERSION
 * (argv[1]) all say the same. Exit status 0 when they do, 1 (and what differs) otherwise.
 */
#include <stdio.h>
#include <string.h>

#include "tsgemm.h"

#define STR2(x) #x
#define STR(x) STR2(x)

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROJECT_VERSION\n", argv[0]);
        return 2;
    }
    const char *parts = STR(TSGEMM_VERSION_MAJOR) "." STR(TSGEMM_VERSION_MINOR) "." STR(
        TSGEMM_VERSION_PATCH);
    printf("project %s, header %s (%s), library %s\n", argv[1], TSGEMM_VERSION_STRING, parts,
           tsgemm_version());
    const int ok = !strcmp(argv[1], TSGEMM_VERSION_STRING) && !strcmp(argv[1], parts) &&
                   !strcmp(argv[1], tsgemm_version());
    puts(ok ? "version_check: one version" : "FAIL: the versions differ");
    return ok ? 0 : 1;
}
