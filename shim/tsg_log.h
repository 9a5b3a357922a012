/*
 * tsg_log.h — the knobs as this process sees them, and the one place that prints.
 *
 * Owns: reading TSGEMM_* from the environment once (src/tsg_config parses; this unit injects
 * getenv and prints the warnings), the TSGEMM_LOG levels of DESIGN.md, and the monotonic clock.
 * Depends on nothing else in shim/, so the runtime, the CPU-BLAS loader and the xerbla protocol
 * can all log without importing each other.
 */
#ifndef TSG_LOG_H
#define TSG_LOG_H

#include <time.h>

#include "../src/tsg_config.h"

/*
 * 1 in a privileged process: the kernel set AT_SECURE in the auxiliary vector (setuid/setgid
 * programs, file capabilities, an LSM transition; getauxval(3)). Checked once. Such a process
 * reads no knob at all (tsg_rt_config gives the defaults), reads and writes no rates cache and
 * never starts the GPU (README "Privileged programs" says why).
 */
int tsg_rt_privileged(void);

/* The knobs, parsed from the environment on first use (bad values: one warning line each); in a
 * privileged process the defaults, whatever the environment holds. TSGEMM_TEST_* are read only
 * by the tests' twin library tsgemm_fi: a release build parses them as unset. The pinned cap's
 * bound is this machine's physical memory (sysconf). */
const tsg_config *tsg_rt_config(void);

/* Prints one line "tsgemm: ..." to stderr when TSGEMM_LOG >= level (one write: lines from
 * several threads do not interleave). */
void tsg_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Monotonic wall clock in seconds (timing of calls and of the rate measurements). */
static inline double tsg_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif /* TSG_LOG_H */
