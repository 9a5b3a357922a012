/*
 * tsg_shim.h — internal interface between the files of the ABI layer (shim/).
 *
 * shim/ is where the process meets tsgemm: exported names, the environment, printing, dlopen of
 * the CPU BLAS, lazy GPU start-up, fork handling, counters. Everything it decides it asks src/.
 */
#ifndef TSG_SHIM_H
#define TSG_SHIM_H

#include <stdint.h>
#include <time.h>

#include "../src/tsg_config.h"
#include "../src/tsg_dispatch.h"
#include "../src/tsg_problem.h"

/* Which exported name a call came through (for reports and error handling). */
typedef enum tsg_api {
    TSG_API_CBLAS = 0,       /* cblas_sgemm                               */
    TSG_API_F77,             /* sgemm_                                    */
    TSG_API_CBLAS64,         /* cblas_sgemm64_                            */
    TSG_API_F77_64,          /* sgemm_64_                                 */
    TSG_API_SCIPY_CBLAS64,   /* scipy_cblas_sgemm64_ (numpy/scipy wheels) */
    TSG_API_SCIPY_F77_64,    /* scipy_sgemm_64_                           */
    TSG_API_COUNT
} tsg_api;

const char *tsg_api_name(tsg_api api);

/* Monotonic wall clock in seconds (timing of calls and of the rate measurements). */
static inline double tsg_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static inline int tsg_api_is_cblas(tsg_api api)
{
    return api == TSG_API_CBLAS || api == TSG_API_CBLAS64 || api == TSG_API_SCIPY_CBLAS64;
}

/* ---- tsg_runtime.c: knobs, logging, counters, GPU state, the per-call driver ---- */

/* The knobs, parsed from the environment on first use (warnings printed then). */
const tsg_config *tsg_rt_config(void);

/* Prints one line "tsgemm: ..." to stderr when TSGEMM_LOG >= level. */
void tsg_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Runs a read call to completion: illegal -> report; else scalar rules, dispatch, backends,
 * counters and trace. `layout_text` is for the trace line ("col", "row", "f77"). */
void tsg_rt_sgemm(tsg_api api, const tsg_call *call);

/* 1 while this thread is inside the CPU BLAS (re-entrant calls go straight to it). */
extern _Thread_local int tsg_in_fallback;

/* ---- tsg_cpublas.c: the CPU backend ---- */

/* Runs p on the CPU BLAS (OpenBLAS through its own dlopen handle; sizes beyond 32 bits in blocks;
 * the portable loop when no BLAS can be loaded). Never fails. */
void tsg_cpu_sgemm(const tsg_problem *p);

/*
 * The same for a call that arrived through `api`. For the ILP64 CBLAS names, when another loaded
 * library defines the same name (numpy/scipy wheels bundle an ILP64 OpenBLAS exporting
 * scipy_cblas_sgemm64_), that library — the one the program called — takes the call natively
 * with 64-bit sizes; otherwise tsg_cpu_sgemm.
 */
void tsg_cpu_sgemm_api(tsg_api api, const tsg_problem *p);

/* The CPU BLAS's own entry points, for calls that re-enter while tsg_in_fallback is set.
 * They run the reference loop instead when the library lacks the name. */
void tsg_cpu_forward_cblas(int layout, int transa, int transb, int m, int n, int k, float alpha,
                           const float *a, int lda, const float *b, int ldb, float beta, float *c,
                           int ldc);
void tsg_cpu_forward_f77(const char *transa, const char *transb, const int *m, const int *n,
                         const int *k, const float *alpha, const float *a, const int *lda,
                         const float *b, const int *ldb, const float *beta, float *c,
                         const int *ldc);

/* One-line description of the CPU BLAS in use (path, core type, threads). */
const char *tsg_cpu_describe(void);

/* Measures the CPU BLAS rate (flop/s at a mid size) and per-call latency in a few ms. */
void tsg_cpu_measure(double *flops, double *latency_s);

/* ---- tsg_xerbla.c: illegal-argument reports ---- */

/* Reports call->info through the program's own handler (cblas_xerbla for CBLAS, xerbla_ for
 * Fortran, when the main executable defines it) following the reference protocol, otherwise
 * by one line on stderr with the user-facing position. Never exits. */
void tsg_report_illegal(tsg_api api, const tsg_call *call);

/* 1 when `addr` lies in the main executable (not in a shared library). */
int tsg_addr_in_main_program(const void *addr);

#endif /* TSG_SHIM_H */
