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

/* The knobs, parsed from the environment on first use (bad values: one warning line each). */
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
