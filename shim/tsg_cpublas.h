/*
 * tsg_cpublas.h — the CPU backend: the CPU BLAS reached through its own dlopen handle, or the
 * caller's own library for the names that have one (tsg_cpublas.c).
 */
#ifndef TSG_CPUBLAS_H
#define TSG_CPUBLAS_H

#include <stddef.h>
#include <stdint.h>

#include "../src/tsg_problem.h"
#include "../src/tsg_rates.h"
#include "tsg_api.h"

/* The CPU BLAS's own cblas_sgemm and Fortran sgemm_ (with gfortran's hidden lengths). */
typedef void (*tsg_cblas_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                                   const float *, int, float, float *, int);
typedef void (*tsg_f77_sgemm_fn)(const char *, const char *, const int *, const int *, const int *,
                                 const float *, const float *, const int *, const float *,
                                 const int *, const float *, float *, const int *, size_t, size_t);
/* The ILP64 CBLAS names' prototype (cblas_sgemm64_, scipy_cblas_sgemm64_: 64-bit sizes, int enums). */
typedef void (*tsg_cblas64_sgemm_fn)(int, int, int, int64_t, int64_t, int64_t, float, const float *,
                                     int64_t, const float *, int64_t, float, float *, int64_t);

/*
 * Loads the CPU BLAS (once) and returns its own entry points for the tiny-call path of
 * tsg_entry.c: NULL for a name the library lacks, both NULL when only the portable loop is
 * available. Never tsgemm's own (the loader refuses a library that resolves to us).
 */
void tsg_cpu_entry_points(tsg_cblas_sgemm_fn *cblas, tsg_f77_sgemm_fn *f77);

/* The same without loading: returns 1 with them when the CPU BLAS's load has finished (by
 * tsg_cpu_entry_points, tsg_cpu_sgemm, tsg_cpu_describe, ...), else 0 with both NULL. Either
 * pointer may be NULL (not written). Lock-free: one acquire load. */
int tsg_cpu_loaded_entry_points(tsg_cblas_sgemm_fn *cblas, tsg_f77_sgemm_fn *f77);

/*
 * The function a tiny call through `api` (any name but cblas_sgemm and sgemm_, whose functions are
 * tsg_cpu_entry_points') may go straight to, with the caller's own arguments: the caller's own
 * library's function of that very name (tsg_cpu_sgemm_api's choice; the prototype is the name's)
 * once looked up and found; else, for the LP64 names scipy_cblas_sgemm and scipy_sgemm_, tsgemm's
 * own CPU BLAS's cblas_sgemm / sgemm_ (the same prototypes) once loaded; else NULL (the full path:
 * the ILP64 names without a library of their own need 32-bit blocks). Neither looks up nor loads.
 * *decided: 1 when the answer cannot change any more (the lookup is done, and the function was
 * found, or no fallback applies, or the fallback is loaded).
 */
void *tsg_cpu_tiny_fn(tsg_api api, int *decided);

/* Looks up the caller's own function for `api` now, once per name (dl_iterate_phdr; nothing for
 * names without one). For the gate of the tiny path, so that tsg_cpu_tiny_fn can answer. */
void tsg_cpu_native_lookup(tsg_api api);

/* Runs p on the CPU BLAS (OpenBLAS through its own dlopen handle; sizes beyond 32 bits in blocks;
 * the portable loop when no BLAS can be loaded). Never fails. */
void tsg_cpu_sgemm(const tsg_problem *p);

/*
 * The same for a call that arrived through `api`. For the ILP64 CBLAS names and the LP64 scipy_
 * names, when another loaded library defines the same name (numpy wheels bundle an ILP64 OpenBLAS
 * exporting scipy_cblas_sgemm64_; scipy and scikit-learn wheels an LP64 one exporting
 * scipy_sgemm_ and scipy_cblas_sgemm), that library — the one the program called — takes the call
 * natively, with the name's own integer width and convention; otherwise tsg_cpu_sgemm. Never
 * tsgemm itself: the lookup skips our own definitions.
 */
void tsg_cpu_sgemm_api(tsg_api api, const tsg_problem *p);

/* 1 when tsg_cpu_sgemm_api(api, ...) runs on the caller's own library (a wheel's OpenBLAS that
 * defines the name the call came through), 0 when it runs on tsgemm's own CPU BLAS. The first
 * call per name looks the library up (as tsg_cpu_sgemm_api's first call would); later ones are
 * one acquire load. */
int tsg_cpu_own_pool(tsg_api api);

/* The CPU BLAS's own entry points, for calls that re-enter while this thread is inside the CPU
 * BLAS (tsg_thread_in_blas).
 * They run the reference loop instead when the library lacks the name. */
void tsg_cpu_forward_cblas(int layout, int transa, int transb, int m, int n, int k, float alpha,
                           const float *a, int lda, const float *b, int ldb, float beta, float *c,
                           int ldc);
void tsg_cpu_forward_f77(const char *transa, const char *transb, const int *m, const int *n,
                         const int *k, const float *alpha, const float *a, const int *lda,
                         const float *b, const int *ldb, const float *beta, float *c,
                         const int *ldc);

/* One-line description of tsgemm's own CPU BLAS (path, configuration, threads, core type);
 * loads it. */
const char *tsg_cpu_describe(void);

/* The same, into buf[len], for the library that the CPU path of a call through `api` runs on
 * (tsg_cpu_sgemm_api): the caller's own when one defines the name — its path and its OpenBLAS
 * info functions, named with the api name's decoration (scipy_openblas_get_config64_ for
 * scipy_cblas_sgemm64_); else tsg_cpu_describe's text (which loads tsgemm's own). */
void tsg_cpu_describe_api(tsg_api api, char *buf, size_t len);

/* Measures the CPU path of a call through `api` (tsg_cpu_sgemm_api: the caller's own library when
 * one defines the name, else tsgemm's own CPU BLAS) in ~30-50 ms into *out, one sample
 * (src/tsg_rates.h tsg_cpu_rates):
 * flops, the flop/s of a TSG_CPU_BIG_N^3 call; mid_s, the seconds of a TSG_CPU_MID_N^3 one
 * (medians); small_s, of a TSG_CPU_SMALL_N^3 one (the mean less the slowest call; src/tsg_cost.h);
 * latency_s, the best of five 8^3 calls; thin_m_s and thin_n_s, the median of three calls with
 * m, then n, thin (src/tsg_cost.h TSG_CPU_THIN); touch_bps, the first touch of fresh anonymous
 * memory by as many threads as that BLAS runs (its openblas_get_num_threads; 1 when it does not
 * say, as netlib's single-threaded BLAS; at most 64), each writing one byte per 4 KiB over its
 * own part (32 MiB / threads, 512 KiB to 2 MiB) of a new mapping at once, as a BLAS's threads
 * write their parts of C (the fastest of 3; no madvise: the page size policy a malloc'd C gets;
 * where fewer threads can be made, those that were). Without memory for the operands: a modest
 * rate and 0 (not measured) for every other time; touch_bps 0 when no mapping can be had. */
void tsg_cpu_measure(tsg_api api, tsg_cpu_rates *out);

/* A spot check of cached rates: the seconds of one TSG_CPU_SMALL_N^3 call through `api`'s CPU path,
 * the faster of 2 after one untimed call (which faults the operands in, so the timed calls take no
 * page fault: a GPU warm-up pinning beside them cannot stall them). The check is one-way (a
 * cache is measured again only when it reads the CPU slower than this), so the fastest reading
 * is the one it needs; before 2026-12-07 the median of 5, 1 ms on an H100 host where 3 calls take
 * 0.43 (256^3 at 0.142 ms, device run 86). 0 without memory for the operands. */
double tsg_cpu_spot_s(tsg_api api);

#endif /* TSG_CPUBLAS_H */
