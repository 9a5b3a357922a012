/*
 * tsg_trace.h — the call trace's text format (TSGEMM_TRACE=FILE; tsgemm-bench --replay FILE).
 *
 * Owns: one record per SGEMM call of a process, its one-line text form and a strict parser of
 * that form (a trace is untrusted input: every field range-checked, lines bounded). Must not:
 * open files, read the clock or the environment, print (shim/tsg_tracer.c writes traces, the
 * bench reads them).
 *
 * The file (version 1):
 *   line 1       exactly TSG_TRACE_HEADER ("# tsgemm-trace 1")
 *   other lines  a call line, or a comment: '#' then printable ASCII (another process appending
 *                to the same file starts with the header again, which is such a comment)
 * A call line is 17 fields separated by exactly one space, no leading or trailing space:
 *   entry layout transa transb m n k lda ldb ldc alpha beta where fresh gap_ns path time_ns
 *   e.g. "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hhh 1 15000 cpu 2500000"
 * entry    the exported name the call came through (tsg_trace_entry_name)
 * layout   row | col (Fortran entries: col)
 * transa/b N | T | C, as the call's first character says (the recorder writes N or T)
 * m..ldc   the caller's own terms (a row-major call is not swapped): decimal digits, no sign or
 *          leading zero; m, n, k >= 0, ld >= 1 and ld >= the stored rows of its operand as the
 *          reference BLAS checks it (illegal calls are never recorded); at most INT32_MAX for the
 *          32-bit entries, TSG_TRACE_DIM_MAX for the 64-bit ones
 * alpha    0 | 1 | x (any other value), likewise beta
 * where    three letters for A, B, C as the caller named them: h host (pageable), p pinned,
 *          m managed, d device (the shim's residency classes)
 * fresh    1 when C was fresh (shim/tsg_tracer.h says exactly when), else 0
 * gap_ns   nanoseconds from the end of the process's previous SGEMM call to this call's start
 *          (0 for the first, and for calls that overlap another thread's), <= TSG_TRACE_NS_MAX
 * path     where it ran: tiny (below the GPU floor, OpenBLAS), cpu, gpu, retry (GPU failed,
 *          redone on the CPU), quick (the scalar rules finished it), refused (device operand, no
 *          GPU)
 * time_ns  the call's wall time in nanoseconds, <= TSG_TRACE_NS_MAX
 * A line is at most TSG_TRACE_LINE_MAX bytes, newline excluded.
 */
#ifndef TSG_TRACE_H
#define TSG_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TSG_TRACE_HEADER "# tsgemm-trace 1"
enum { TSG_TRACE_VERSION = 1, TSG_TRACE_LINE_MAX = 256 };
/* sizes of the 64-bit entries: 2^40 (4 TiB of floats in one row) */
#define TSG_TRACE_DIM_MAX ((int64_t)1 << 40)
/* gaps and times: 10^15 ns, about 11.6 days */
#define TSG_TRACE_NS_MAX ((uint64_t)1000000000000000ULL)

/* The entries, in the order of shim/tsg_api.h's tsg_api (the recorder casts), then the device
 * API tsgemm_sgemm_device. */
typedef enum tsg_trace_entry {
    TSG_TRACE_CBLAS = 0,        /* cblas_sgemm           */
    TSG_TRACE_F77,              /* sgemm_                */
    TSG_TRACE_CBLAS64,          /* cblas_sgemm64_        */
    TSG_TRACE_F77_64,           /* sgemm_64_             */
    TSG_TRACE_SCIPY_CBLAS64,    /* scipy_cblas_sgemm64_  */
    TSG_TRACE_SCIPY_F77_64,     /* scipy_sgemm_64_       */
    TSG_TRACE_SCIPY_CBLAS,      /* scipy_cblas_sgemm     */
    TSG_TRACE_SCIPY_F77,        /* scipy_sgemm_          */
    TSG_TRACE_DEVICE,           /* tsgemm_sgemm_device   */
    TSG_TRACE_ENTRY_COUNT
} tsg_trace_entry;

/* Scalar classes of alpha and beta. */
typedef enum tsg_trace_scalar { TSG_TRACE_ZERO = 0, TSG_TRACE_ONE, TSG_TRACE_OTHER } tsg_trace_scalar;

typedef enum tsg_trace_path {
    TSG_TRACE_TINY = 0, TSG_TRACE_PATH_CPU, TSG_TRACE_PATH_GPU, TSG_TRACE_RETRY,
    TSG_TRACE_QUICK, TSG_TRACE_REFUSED, TSG_TRACE_PATH_COUNT
} tsg_trace_path;

typedef struct tsg_trace_rec {
    int entry;                 /* tsg_trace_entry                                    */
    int row_major;             /* 1 row-major (CBLAS entries only), 0 column-major   */
    char transa, transb;       /* 'N', 'T' or 'C'                                    */
    int64_t m, n, k;           /* the caller's terms                                 */
    int64_t lda, ldb, ldc;
    int alpha, beta;           /* tsg_trace_scalar                                   */
    char where_a, where_b, where_c; /* 'h', 'p', 'm' or 'd'                          */
    int fresh_c;               /* 0 or 1                                             */
    uint64_t gap_ns;           /* <= TSG_TRACE_NS_MAX                                */
    int path;                  /* tsg_trace_path                                     */
    uint64_t time_ns;          /* <= TSG_TRACE_NS_MAX                                */
} tsg_trace_rec;

/* Names as the file spells them ("cblas_sgemm", ...; "tiny", "cpu", ...); "?" out of range. */
const char *tsg_trace_entry_name(int entry);
const char *tsg_trace_path_name(int path);
/* 1 for the entries with a layout argument (cblas_*, scipy_cblas_*). */
int tsg_trace_entry_is_cblas(int entry);
/* 1 for the entries whose sizes are 64-bit (the *64_ names and tsgemm_sgemm_device). */
int tsg_trace_entry_is_64(int entry);
/*
 * 1 for the entries whose calls run on the caller's own BLAS when a loaded library other than
 * tsgemm defines the same name (a numpy or scipy wheel's OpenBLAS; shim/tsg_cpublas.c), and then
 * carry tsg_problem.own_pool = 1 in auto mode (the model's wider margin, src/tsg_dispatch.h
 * TSG_GPU_MARGIN_OWN_POOL): cblas_sgemm64_, scipy_cblas_sgemm64_, scipy_cblas_sgemm and
 * scipy_sgemm_. The ILP64 Fortran names are not among them (their CPU side is tsgemm's own BLAS,
 * in 32-bit blocks). The shim, the replayer (bench/bench_replay.c) and tsgemm-model-check all ask
 * this one function.
 */
int tsg_trace_entry_own_blas(int entry);

/* The letter of a residency (src/tsg_problem.h tsg_where) as the file and the per-call line of
 * TSGEMM_LOG=3 spell it: TSG_HOST 'h', TSG_PINNED 'p', TSG_MANAGED 'm', TSG_DEVICE 'd'. */
char tsg_trace_where_letter(int where);

/* The class of a scalar: 0.0f (either sign) TSG_TRACE_ZERO, 1.0f TSG_TRACE_ONE, else OTHER. */
int tsg_trace_scalar_class(float v);

/*
 * Checks a record against the rules of the file format above (the parser applies the same
 * checks). Returns NULL when valid, else a static text naming the first fault.
 */
const char *tsg_trace_check(const tsg_trace_rec *r);

/*
 * Writes r's call line, with a trailing '\n', into buf (len bytes, NUL-terminated). Returns the
 * line's length including the newline, or -1 when r is invalid (tsg_trace_check) or buf is too
 * small (len > TSG_TRACE_LINE_MAX + 1 always suffices).
 */
int tsg_trace_format(const tsg_trace_rec *r, char *buf, size_t len);

/* What one line of a trace file is. */
typedef enum tsg_trace_kind { TSG_TRACE_BAD = -1, TSG_TRACE_CALL = 0, TSG_TRACE_COMMENT = 1 } tsg_trace_kind;

/*
 * Parses one line (len bytes at line, no newline; the bytes need not be NUL-terminated and may
 * hold NUL, which is refused). Returns TSG_TRACE_CALL with *out filled, TSG_TRACE_COMMENT for a
 * comment or header line ('#' then printable ASCII or nothing), or TSG_TRACE_BAD with a static
 * reason in *why (out untouched): longer than TSG_TRACE_LINE_MAX, a control or non-ASCII byte,
 * a wrong field count or separator, a bad token, a number out of range, an illegal call.
 */
int tsg_trace_parse_line(const char *line, size_t len, tsg_trace_rec *out, const char **why);

/* 1 when the line (len bytes, no newline) is exactly TSG_TRACE_HEADER: a file's first line must be. */
int tsg_trace_is_header(const char *line, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TSG_TRACE_H */
