/*
 * stats_at_exit.c — preloaded after libtsgemm.so by run_testers.sh in its `tiny` mode: at exit it
 * prints tsgemm's counters (tsgemm_get_stats_v, found in the global scope) as one line
 *   stats_at_exit: N calls: G gpu, C cpu, F gpu failures, Q quick, I illegal
 * so interposition can be proven at TSGEMM_LOG=1, where tsgemm prints no exit summary and tiny
 * calls take the inline path. Prints "stats_at_exit: no tsgemm" when the library is not there.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#include "tsgemm.h"

__attribute__((destructor)) static void print_stats(void)
{
    void (*get)(struct tsgemm_stats *, size_t) =
        (void (*)(struct tsgemm_stats *, size_t))dlsym(RTLD_DEFAULT, "tsgemm_get_stats_v");
    if (!get) {
        fprintf(stderr, "stats_at_exit: no tsgemm\n");
        return;
    }
    struct tsgemm_stats s;
    get(&s, sizeof s);
    fprintf(stderr, "stats_at_exit: %llu calls: %llu gpu, %llu cpu, %llu gpu failures, %llu quick, %llu illegal\n",
            (unsigned long long)s.calls, (unsigned long long)s.gpu, (unsigned long long)s.cpu,
            (unsigned long long)s.gpu_failed, (unsigned long long)s.quick,
            (unsigned long long)s.illegal);
}
