/*
 * bench.h — shared types of tsgemm-bench: shapes, the implementations it compares, one result per
 * shape x implementation, the options, and the interfaces between the bench's files:
 *
 *   tsgemm-bench.c   options, the sweep driver, timing of host calls, the NVBLAS worker's loop
 *   bench_problem.c  shape syntax and sweeps, input generation, double references, result checks
 *   bench_cpu.c      the real OpenBLAS (dlopen'd, never through tsgemm) and the host description
 *   bench_cuda.c     cudart + cuBLAS loaded at run time: device facts, cuBLAS+copies, kernel-only
 *   bench_nvblas.c   NVBLAS in child processes (config files, re-exec, results through a pipe)
 *   bench_report.c   the table, the summary, CSV write and read
 *   bench_plot.c     gnuplot data, script and child process
 *
 * Nothing here links CUDA: every CUDA symbol is dlsym'd, so the bench starts where CUDA is absent.
 */
#ifndef TSGEMM_BENCH_H
#define TSGEMM_BENCH_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------------ implementations */

enum bench_impl {
    BI_OPENBLAS = 0,   /* OpenBLAS cblas_sgemm through its own dlopen handle            */
    BI_TSGEMM,         /* our cblas_sgemm, TSGEMM_MODE_AUTO                             */
    BI_TSGEMM_GPU,     /* our cblas_sgemm, TSGEMM_MODE_GPU (verified by stats deltas)   */
    BI_CUBLAS_COPIES,  /* cudaMemcpy H2D + cublasSgemm_v2 + cudaMemcpy D2H, pageable    */
    BI_NVBLAS,         /* NVBLAS sgemm_, default config (child process)                 */
    BI_NVBLAS_TUNED,   /* NVBLAS sgemm_, AUTOPIN + TILE_DIM 4096 (child process)        */
    BI_TSGEMM_KERNEL,  /* tsgemm_sgemm_device on device-resident data, CUDA events      */
    BI_CUBLAS_KERNEL,  /* cublasSgemm_v2 on device-resident data, CUDA events           */
    BI_COUNT
};
#define BI_FIRST_KERNEL BI_TSGEMM_KERNEL

/* CSV / column name of an implementation ("openblas", "tsgemm", ...); static storage. */
const char *bench_impl_name(int impl);
/* The implementation named `name`, or -1. */
int bench_impl_from_name(const char *name);

/* ------------------------------------------------------------------ shapes and problems */

/* One benchmark shape as the caller of cblas_sgemm sees it. */
typedef struct bench_shape {
    int64_t m, n, k;
    char ta, tb; /* 'N' or 'T'                           */
    int row;     /* 1 = CblasRowMajor, 0 = CblasColMajor */
} bench_shape;

/*
 * The same call as one column-major problem (what cuBLAS, NVBLAS and tsgemm_sgemm_device take):
 * a row-major C = op(A)op(B) is the column-major C^T = op(B)^T op(A)^T, so for row-major shapes
 * the operands, m/n and the transposes swap. swap = 1 means "pass the user's B as A".
 * Leading dimensions are tight (rows of the stored matrix).
 */
typedef struct bench_cm {
    char ta, tb;
    int m, n, k;
    int lda, ldb, ldc;
    int swap;
} bench_cm;

/* Canonical column-major view of s, with the tight leading dimensions the bench allocates. */
void bench_cm_of(const bench_shape *s, bench_cm *cm);
/* Leading dimensions of the user's stored A, B, C (cblas_sgemm arguments) for shape s. */
void bench_user_lds(const bench_shape *s, int *lda, int *ldb, int *ldc);

/* Flop count of one call: 2*m*n*k. */
double bench_flops(const bench_shape *s);
/* "4096x4096x4096 NT col" into buf; returns buf. */
char *bench_shape_label(const bench_shape *s, char *buf, size_t len);

/*
 * Parses a shape list: entries separated by spaces, semicolons or newlines; each entry is
 * "n" (square), "m,n,k", "m,n,k:TA,TB" or "m,n,k:TA,TB:row|col" (TA, TB one of N, T, C; the
 * comma between them optional). Appends to *out (realloc'd) and *count. Returns 0, or -1 with a
 * message in err.
 */
int bench_parse_shapes(const char *text, bench_shape **out, int *count, char *err, size_t errlen);
/* Writes shapes in the syntax above, ';'-separated, into buf (for the NVBLAS worker). */
int bench_format_shapes(const bench_shape *s, int count, char *buf, size_t len);
/* The default sweep (quick = 0) or the --quick one, as shape-list text (static storage). */
const char *bench_default_shapes(int quick);

/* ------------------------------------------------------------------ host operands, checks */

/* The host operands of one shape. A, B, C are the user's (row- or column-major) arrays. */
typedef struct bench_data {
    bench_shape s;
    bench_cm cm;
    int lda, ldb, ldc;   /* user's leading dimensions                                      */
    size_t na, nb, nc;   /* elements: m*k, k*n, m*n                                        */
    float *A, *B;        /* inputs, uniform in [-1,1], never zero                         */
    float *C;            /* the output every implementation writes (poisoned before calls) */
    float *C0;           /* input C when beta != 0 (restored before every call), else NULL */
    float alpha, beta;
} bench_data;

/*
 * Allocates and fills the operands of shape s (pageable malloc memory). Deterministic in
 * (seed, index): the NVBLAS worker regenerates the very same inputs. Returns 0 or -1 (no memory).
 */
int bench_data_make(bench_data *d, const bench_shape *s, float alpha, float beta,
                    uint64_t seed, int index);
void bench_data_free(bench_data *d);
/* Makes d->C ready for a call: NaN everywhere (beta = 0) or a copy of C0. Never timed. */
void bench_data_prepare_c(bench_data *d);
/* The canonical operands: the arrays to pass as column-major A and B. */
const float *bench_cm_a(const bench_data *d);
const float *bench_cm_b(const bench_data *d);

/*
 * What results are checked against: OpenBLAS's result, once it has itself been checked against
 * a double-precision reference (full when small, sampled elements otherwise).
 */
typedef struct bench_ref {
    float *ref;          /* validated OpenBLAS result (nc floats), NULL until validated    */
    double ref_maxabs;   /* max |ref|                                                      */
    double *dfull;       /* full double reference (nc) when the shape is small, else NULL  */
    int nsamples;        /* sampled double reference otherwise                             */
    size_t *sidx;        /* sample positions in the canonical (column-major) C             */
    double *sval;
    double dmaxabs;      /* max |double reference| over what was computed                  */
    double tol;          /* relative error bound (see bench_tolerance)                     */
} bench_ref;

/* The documented FP32 bound on max|c - ref| / max|ref| for inner dimension k (relative). */
double bench_tolerance(int64_t k, double override_tol);
/* Builds the double reference of d (full or sampled); ref->ref stays NULL. Returns 0 or -1. */
int bench_ref_init(bench_ref *ref, const bench_data *d, double tol);
void bench_ref_free(bench_ref *ref);
/*
 * Error of the result in d->C: max|c - ref| / max|ref| against ref->ref when set, else against
 * the double reference. Returns NaN (and *nonfinite > 0) when C holds NaN or Inf anywhere.
 */
double bench_check(const bench_ref *ref, const bench_data *d, const float *c, size_t *nonfinite);
/* Same, always against the double reference (used to validate OpenBLAS itself). */
double bench_check_double(const bench_ref *ref, const bench_data *d, const float *c,
                          size_t *nonfinite);
/* ||c - C64||_F / ||C64||_F against the double reference: over all of C when the reference is
 * full, over its sampled elements otherwise; NAN when c has a non-finite element. */
double bench_frob_double(const bench_ref *ref, const bench_data *d, const float *c);

/* ------------------------------------------------------------------ results */

enum bench_status {
    BS_NONE = 0, /* not run (e.g. skipped by options): reason says why    */
    BS_OK,       /* timed and correct                                     */
    BS_WRONG,    /* ran, result above the error bound or NaN: no time     */
    BS_NA,       /* cannot run here: reason says why                      */
    BS_FAIL      /* tried and failed (CUDA error, ...): reason says why   */
};
const char *bench_status_name(int st); /* "ok", "WRONG", "n/a", "failed", "skipped" */
int bench_status_from_name(const char *name);

typedef struct bench_result {
    int status;
    int reps;                        /* timed repeats behind the figures                 */
    double median_ms, min_ms, max_ms;
    double err;                      /* max relative error (NaN when not checked)        */
    char reason[240];                /* why not ok; for ok rows an optional note         */
} bench_result;

/* Fills r as n/a / failed / skipped with a printf-style reason. */
void bench_result_set(bench_result *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* TFLOP/s of an ok result (0 otherwise). */
double bench_result_tflops(const bench_result *r, const bench_shape *s);

/* ------------------------------------------------------------------ options */

enum { BENCH_OWN_BLAS_MAX = 4 }; /* --own-blas libraries at most */

typedef struct bench_opts {
    int quick;
    int reps, reps_given;      /* timed repeats per host implementation                     */
    int kernel_reps;           /* timed repeats per kernel-only implementation              */
    int warmup, kernel_warmup; /* untimed calls before the repeats                          */
    int settle_ms;             /* pause after a call in which OpenBLAS ran (see settle())   */
    int rewarm_ms;             /* untimed calls after that pause, at least this long (ms)   */
    double budget_s;           /* without --reps: stop repeating (after 2) past this, seconds */
    float alpha, beta;
    uint64_t seed;
    double tol;                /* 0 = bench_tolerance's default                             */
    int no_nvblas, no_cublas, no_gpu, no_kernel;
    int keep_tmp;
    int device;                /* CUDA ordinal (TSGEMM_DEVICE, default 0)                   */
    const char *csv, *plot, *plot_from, *openblas;
    const char *nvblas_lib;    /* --nvblas-lib: explicit libnvblas path                     */
    const char *worker_config; /* hidden --nvblas-worker CONFIG                             */
    int worker_impl;           /* hidden --worker-impl: BI_NVBLAS or BI_NVBLAS_TUNED         */
    char *shapes_text;
    const char *replay;        /* --replay FILE                                             */
    int replay_rounds;         /* --replay-rounds N (1..9): the passes N times, rotated; medians */
    const char *replay_csv;    /* --replay-csv FILE: every class's medians, one row each        */
    const char *replay_calls;  /* --replay-calls FILE: every call of every pass and round       */
    int replay_threads;        /* --replay-threads: CPU time by thread group after each pass    */
    const char *own_blas[BENCH_OWN_BLAS_MAX]; /* --own-blas PATH (repeatable): the trace's own BLAS */
    int n_own_blas;
    unsigned math_mask;        /* --math LIST: bit m for tsgemm math m (0 fp32, 1 3xtf32, 2
                                  tf32); 0 = no math table (the default output)             */
} bench_opts;

/* bench_options.c: fills o (its defaults set by the caller) from the command line; prints the
 * usage on --help or a bad option. Returns 0 to run, 1 to exit 0 (help), -1 to exit 2 (bad usage). */
int bench_parse_options(int argc, char **argv, bench_opts *o);

/* ------------------------------------------------------------------ bench_cpu.c */

/* The real OpenBLAS cblas_sgemm (enum arguments as int: CblasRowMajor = 101, ColMajor = 102,
 * NoTrans = 111, Trans = 112). */
typedef void (*bench_cblas_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                                     const float *, int, float, float *, int);
typedef struct bench_cpu {
    void *handle;
    bench_cblas_sgemm_fn sgemm;
    char path[512];       /* file the library was loaded from (dladdr)      */
    char config[256];     /* openblas_get_config()                           */
    char corename[64];    /* openblas_get_corename()                         */
    int threads;          /* openblas_get_num_threads()                      */
    char why[256];        /* why it could not be loaded                      */
    char model[256];      /* /proc/cpuinfo "model name"                      */
    int online_cpus;
} bench_cpu;

/* Loads OpenBLAS by `name` (NULL: libopenblas.so.0, then libopenblas.so) RTLD_LOCAL and reads
 * its configuration and the host CPU's. Returns 0, or -1 with cpu->why set. */
int bench_cpu_load(bench_cpu *cpu, const char *name);
/* 1 when OpenBLAS runs a generic core (Prescott, Core2, Katmai, ...) while OPENBLAS_CORETYPE is
 * unset: its SGEMM is then several times slower than the CPU allows. */
int bench_cpu_core_suspicious(const bench_cpu *cpu);

/* ------------------------------------------------------------------ bench_cuda.c */

/* What the run-time loaded CUDA side found. */
typedef struct bench_cuda_info {
    int have_cudart, have_cublas; /* libraries loaded                                          */
    int device_ok;                /* a device can be used through cudart                       */
    char cudart_path[512], cublas_path[512];
    char why[256];                /* "n/a: ..." when !device_ok (no lib, no driver, no device)  */
    char cublas_why[256];         /* "n/a: ..." when cuBLAS cannot be used                     */
    int device;                   /* ordinal used                                              */
    char name[256];               /* GPU name                                                  */
    int cc_major, cc_minor, sms, clock_mhz;
    double mem_gib;
    int driver_version, runtime_version; /* 13000 = 13.0; 0 = unknown / no driver             */
    int cublas_version;                  /* cublasGetVersion_v2 (or cublasGetProperty)         */
} bench_cuda_info;

/* dlopen(RTLD_LOCAL) of the first of stem.so.13, stem.so.12, stem.so found by the loader's
 * search, then in $CUDA_HOME/lib64, $CUDA_PATH/lib64 and /usr/local/cuda/lib64 (stem e.g.
 * "libcublas"). path receives the file loaded. Returns the handle, or NULL with err holding the
 * first dlerror() of a candidate that exists but failed to load ("" when none was found). */
void *bench_cuda_dlopen(const char *stem, char *path, size_t len, char *err, size_t elen);
/* Loads cudart (and cuBLAS when with_cublas) through bench_cuda_dlopen, probes device `device`,
 * creates a stream, two events and the cuBLAS handle. Never fails hard: info says what works. */
void bench_cuda_init(int device, int with_cublas, bench_cuda_info *info);
/* Destroys the handle, stream and buffers. */
void bench_cuda_shutdown(void);

/* Device buffers for one shape (cudaMalloc'd once per shape, outside every timed region).
 * Returns 0, or -1 with why ("failed: cudaMalloc ..."). */
int bench_cuda_shape_begin(const bench_data *d, char *why, size_t len);
void bench_cuda_shape_end(void);

/*
 * One end-to-end cuBLAS call on host data with plain copies: cudaMemcpy H2D of A, B (and C when
 * beta != 0) from pageable memory, cublasSgemm_v2, cudaMemcpy D2H of C. *seconds = host wall
 * time of exactly that sequence. Returns 0 or -1 with why.
 */
int bench_cuda_cublas_copies(bench_data *d, double *seconds, char *why, size_t len);

/*
 * Kernel-only timing on device-resident data: uploads A, B (C0), then for each of warmup + reps
 * calls poisons (beta = 0) or restores C on the device outside the events, and times one call
 * of impl (BI_TSGEMM_KERNEL or BI_CUBLAS_KERNEL) with CUDA events. ms[0..reps) receive the
 * timed calls in milliseconds; the last result is downloaded into d->C for checking.
 * Returns 0 or -1 with why.
 */
int bench_cuda_kernel(int impl, bench_data *d, int warmup, int reps, double *ms, char *why,
                      size_t len);

/*
 * The cuBLAS kernel column's arithmetic from now on: 0 cublasSgemm_v2 (FP32, the default), 1
 * cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 (TF32 tensor cores: the reduced-precision
 * anchor of --math). Returns 0, or -1 with why when cuBLAS lacks cublasGemmEx.
 */
int bench_cuda_set_fast_tf32(int on, char *why, size_t len);

/* ------------------------------------------------------------------ bench_nvblas.c */

/* Path of a directory for this run's temporary files (created on first use); NULL on failure. */
const char *bench_tmpdir(void);
/* Removes the temporary directory unless keep is set. */
void bench_tmpdir_cleanup(int keep);

/*
 * Runs the NVBLAS column `impl` (BI_NVBLAS or BI_NVBLAS_TUNED) for all shapes in a child process
 * (this executable re-exec'd with --nvblas-worker CONFIG) and stores its results in
 * res[i * BI_COUNT + impl]. cpu_blas_path is what NVBLAS_CPU_BLAS_LIB names.
 */
void bench_nvblas_run(int impl, const bench_opts *o, const bench_shape *shapes, int nshapes,
                      const char *cpu_blas_path, bench_result *res);
/* The configuration text of impl's NVBLAS column, for the header (static storage). */
const char *bench_nvblas_describe(int impl);

/* In the worker: load NVBLAS (RTLD_LOCAL) and return its sgemm_, or NULL with why. */
typedef void (*bench_f77_sgemm_fn)(const char *, const char *, const int *, const int *,
                                   const int *, const float *, const float *, const int *,
                                   const float *, const int *, const float *, float *,
                                   const int *);
bench_f77_sgemm_fn bench_nvblas_load(const char *explicit_path, char *path_out, size_t plen,
                                     char *why, size_t wlen);
/* In the worker: one result line on stdout for the parent. */
void bench_nvblas_emit(int index, const bench_result *r);

/* ------------------------------------------------------------------ bench_report.c */

/* Prints the end-to-end table, the kernel-only table, notes with every reason, and the
 * fastest-per-shape summary. */
void bench_report_tables(FILE *f, const bench_shape *shapes, int nshapes,
                         const bench_result *res);
/* Writes the CSV (one row per shape x implementation). Returns 0 or -1 (errno). */
int bench_csv_write(const char *path, const bench_shape *shapes, int nshapes,
                    const bench_result *res, double alpha, double beta);
/* Reads a CSV written by bench_csv_write. Returns 0 or -1 with err. */
int bench_csv_read(const char *path, bench_shape **shapes, int *nshapes, bench_result **res,
                   char *err, size_t errlen);

/* ------------------------------------------------------------------ bench_plot.c */

/*
 * Draws png: TFLOP/s against size per implementation (square NN column-major shapes, log-log)
 * and, for the other shapes, TFLOP/s bars per implementation (log scale); gnuplot runs as a
 * child process. title goes on top. Returns 0, or -1 with why (e.g. gnuplot not found).
 */
int bench_plot(const char *png, const char *title, const bench_shape *shapes, int nshapes,
               const bench_result *res, char *why, size_t len);

/* ------------------------------------------------------------------ bench_replay.c */

/*
 * --replay FILE: replays a TSGEMM_TRACE file (src/tsg_trace.h) with its gaps and fresh C's on
 * OpenBLAS (cpu->sgemm), tsgemm auto and, when gpu_ok, tsgemm with the GPU forced (else one line
 * with gpu_why), every result checked (bench_replay.c says how). Prints the per-trace totals and
 * the per-class table on stdout. Returns 0, 1 when a result was wrong (or no memory), 2 when the
 * trace cannot be read or is not a valid trace (the line and the reason on stderr).
 */
int bench_replay(const char *path, const bench_opts *o, const bench_cpu *cpu, int gpu_ok,
                 const char *gpu_why);

/* ------------------------------------------------------------------ bench_ownblas.c */

/* The libraries loaded to stand for a replayed trace's own BLAS (bench_ownblas.c says why). */
typedef struct bench_own_blas {
    int n;
    char path[BENCH_OWN_BLAS_MAX][PATH_MAX]; /* each one's real path */
    void *handle[BENCH_OWN_BLAS_MAX];
} bench_own_blas;

/*
 * Loads the library at `path` (untrusted: a command-line argument) into the process, RTLD_LOCAL,
 * and appends it to ob. Refused, returning -1 with the reason in why[len]: in a privileged
 * (AT_SECURE) process; a bare name without '/' (no search path is used); a path that does not
 * resolve (realpath) or is not a regular file; a library that does not load, is a copy of tsgemm
 * (defines tsgemm_version) or defines none of the own-BLAS names (src/tsg_trace.h
 * tsg_trace_entry_own_blas); more than BENCH_OWN_BLAS_MAX. Returns 0 when loaded.
 */
int bench_own_blas_open(bench_own_blas *ob, const char *path, char *why, size_t len);

/*
 * The function that stands for the caller's own `entry` (a tsg_trace_entry) in this process: the
 * first loaded object, not a copy of tsgemm, that defines the entry's name itself — the one
 * tsgemm's shim runs such calls on (shim/tsg_cpublas.c), so that own_pool is 1 for them in auto
 * mode. NULL (and *lib NULL) when there is none or the entry is not an own-BLAS name; else *lib
 * is the defining object's path as the loader has it.
 */
void *bench_own_blas_fn(int entry, const char **lib);

/* ------------------------------------------------------------------ --math */

/* The math table (--math, o->math_mask: bit m for tsgemm math m) on stdout, a markdown table:
 * per shape the kernel-only median (ms), TFLOP/s and error ||C - C64||_F / ||C64||_F of cuBLAS
 * FP32, tsgemm in each math of the mask and cuBLAS FAST_TF32, with each error's ratio to cuBLAS
 * FP32's. cuda: bench_cuda_init's facts; tsgemm_gpu_ok / tsgemm_gpu_why: whether tsgemm has a
 * GPU, and why not. A cell that cannot run says why. tsgemm's math is left as it was. */
void bench_math_table(const bench_opts *o, const bench_cuda_info *cuda, int tsgemm_gpu_ok,
                      const char *tsgemm_gpu_why, const bench_shape *shapes, int nshapes);

/* ------------------------------------------------------------------ misc */

/* Fills x[0..n) with uniform values in (-1, 1), never 0, deterministic in seed. */
void bench_fill_uniform(float *x, size_t n, uint64_t seed);

/* Monotonic clock in seconds. */
double bench_now(void);
/* Median / min / max of x[0..n) (n >= 1); x is sorted in place. */
void bench_stats(double *x, int n, double *median, double *min, double *max);

#endif /* TSGEMM_BENCH_H */
