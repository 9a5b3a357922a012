/*
 * tsg_log.h — the knobs as this process sees them, and the one place that prints.
 *
 * Owns: reading TSGEMM_* from the environment once (src/tsg_config parses; this unit injects
 * getenv and prints the warnings), the TSGEMM_LOG levels of README "What is printed", the "said once" flags of
 * GPU trouble, and the monotonic clock.
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

/* The kinds of GPU trouble that TSGEMM_LOG=1 reports only the first time in a process (README
 * "Knobs": one line each kind). */
typedef enum tsg_once {
    TSG_ONCE_FORK = 0,       /* a forked child of a process that used the GPU                */
    TSG_ONCE_ENOMEM,         /* a GPU call ran out of memory                                 */
    TSG_ONCE_EFAIL,          /* a GPU call failed (CUDA error), or a split call lost a panel  */
    TSG_ONCE_EFATAL,         /* a fatal CUDA error: the GPU is disabled                      */
    TSG_ONCE_FORCED_NO_GPU,  /* TSGEMM_MODE=gpu without a usable GPU                         */
    TSG_ONCE_INIT,           /* the GPU's start-up or its measurement failed                 */
    TSG_ONCE_CACHE,          /* the rates cache could not be used                            */
    TSG_ONCE_RATES,          /* the measured rates were out of their physical bounds         */
    TSG_ONCE_N
} tsg_once;

/* 1 the first time it is asked about `kind` in this process, 0 ever after (any thread). */
int tsg_log_first(tsg_once kind);

/* Monotonic wall clock in seconds (timing of calls and of the rate measurements). */
static inline double tsg_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif /* TSG_LOG_H */
