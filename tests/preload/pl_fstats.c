/*
 * pl_fstats.c — tsgemm's counters for the Fortran client (bind(c) name pl_f_stats), reached with
 * dlsym(RTLD_DEFAULT) so the program does not link libtsgemm.
 * v(1) = 1 when tsgemm is in the process, else 0 (and the rest 0); v(2) calls, v(3) cpu + gpu,
 * v(4) quick, v(5) illegal, v(6) gpu failures.
 */
#define _GNU_SOURCE
#include <stdint.h>

#include "pl_stats.h"

void pl_f_stats(int64_t v[6]);

void pl_f_stats(int64_t v[6])
{
    struct tsgemm_stats s = pl_stats_now();
    v[0] = pl_get_stats() != NULL;
    v[1] = (int64_t)s.calls;
    v[2] = (int64_t)(s.cpu + s.gpu);
    v[3] = (int64_t)s.quick;
    v[4] = (int64_t)s.illegal;
    v[5] = (int64_t)s.gpu_failed;
}
