/*
 * bench_replay.c — tsgemm-bench --replay FILE: a recorded trace (TSGEMM_TRACE, src/tsg_trace.h)
 * replayed in this process three ways: OpenBLAS (its own handle), tsgemm auto, tsgemm with the
 * GPU forced (skipped, with a line saying so, when no GPU is usable).
 *
 * Per pass, the calls run in the trace's order with the recorded gaps between them (the end of
 * one call to the start of the next: nanosleep for all but the last 200 us, then a spin; the
 * replayer's own work between calls — checking the last result, preparing the next C — counts
 * inside the gap) and the recorded freshness: a fresh C is a new anonymous mapping (pages never
 * touched, unmapped after its check), any other C lies in one reused buffer that the first call
 * touched. A and B lie in two buffers of uniform (-1, 1) values sized for the largest operand.
 * No settle pause and no rewarm: the calls meet OpenBLAS's spinning workers, the copy threads and
 * the clocks as the program did. Every result is checked: up to 16 elements of C (the four
 * corners among them) against a double-precision dot product of the very operands, error
 * max|c - ref| / max|ref| within bench_tolerance(k); with beta != 0 the sampled elements' inputs
 * are read before the call. A wrong or non-finite result marks the pass WRONG and the run exits 1.
 *
 * Replayed as: tsgemm's passes through the very entry point the program called (cblas_sgemm,
 * sgemm_, the ILP64 names, the scipy_ names: all exported by the library the bench links), so
 * each call takes the path it took in the program (the tiny path is per entry point); OpenBLAS's
 * pass through its cblas_sgemm (column-major for Fortran entries), except the calls through the
 * own-BLAS names when --own-blas loaded a library defining them: through that library's function
 * of the same name (own_blas_setup); with the recorded layout,
 * transposes, sizes and leading dimensions,
 * alpha/beta 0, 1 or 0.75 / -0.5 for the class "other". Calls of tsgemm_sgemm_device, calls with
 * a non-host operand, and sizes beyond 32 bits are skipped (counted).
 *
 * --replay-calls FILE writes every call's time as each pass and round ran it (write_calls), so
 * that a class's loss can be traced to the calls that make it and to what ran before them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "bench.h"
#include "bench_threads.h"
#include "tsg_dispatch.h"
#include "tsg_trace.h"
#include "tsgemm.h"

void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);
void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
/* tsgemm's other exported names (shim/tsg_entry.c; docs/DESIGN.md lists them): the ILP64 ones
 * take 64-bit sizes (the enums stay C ints), the scipy_ LP64 ones are cblas_sgemm's and sgemm_'s */
void cblas_sgemm64_(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k, float alpha,
                    const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                    int64_t ldc);
void scipy_cblas_sgemm64_(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
                          float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                          float beta, float *C, int64_t ldc);
void sgemm_64_(const char *ta, const char *tb, const int64_t *m, const int64_t *n, const int64_t *k,
               const float *alpha, const float *a, const int64_t *lda, const float *b,
               const int64_t *ldb, const float *beta, float *c, const int64_t *ldc);
void scipy_sgemm_64_(const char *ta, const char *tb, const int64_t *m, const int64_t *n,
                     const int64_t *k, const float *alpha, const float *a, const int64_t *lda,
                     const float *b, const int64_t *ldb, const float *beta, float *c,
                     const int64_t *ldc);
void scipy_cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                       const float *A, int lda, const float *B, int ldb, float beta, float *C,
                       int ldc);
void scipy_sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                  const float *alpha, const float *a, const int *lda, const float *b,
                  const int *ldb, const float *beta, float *c, const int *ldc);

enum { PASS_OPENBLAS = 0, PASS_AUTO, PASS_GPU, PASSES };
static const char *const pass_names[PASSES] = {"openblas", "tsgemm", "tsgemm-gpu"};
enum { SAMPLES = 16 };
#define REPLAY_MAX_CALLS 2000000
#define REPLAY_MAX_BYTES ((double)(8ull << 30)) /* per operand buffer */

typedef struct call {
    tsg_trace_rec r;
    int cls;         /* index into the class table */
    int skip;        /* not replayable here (device entry or operand, > 32-bit sizes) */
} call;

typedef struct cls {
    tsg_trace_rec key;
    int calls;
    double rec_s;            /* recorded time */
    double s[PASSES];        /* replayed time */
    int gpu[PASSES];         /* calls tsgemm ran on the GPU (stats delta) */
} cls;

typedef struct replay {
    call *calls;
    int ncalls, nskip;
    cls *classes;
    int nclasses;
    float *a, *b, *c;        /* operand buffers; c: the reused C */
    size_t na, nb, nc;       /* their floats */
    bench_cblas_sgemm_fn openblas;
    /* per entry (tsg_trace_entry): the function of the program's own BLAS that the plain pass
     * calls instead of openblas (bench_ownblas.c); NULL for every other entry */
    void *own[TSG_TRACE_ENTRY_COUNT];
    double tol;
    /* --replay-calls: each call's time (ms; -1: not run) and GPU flag per round and pass, at
     * ((round * PASSES + pass) * ncalls + call); NULL when not asked for */
    float *call_ms;
    unsigned char *call_gpu;
    int round;               /* the round run_pass is in */
} replay;

/* ------------------------------------------------------------------ reading the trace */

static int same_class(const tsg_trace_rec *x, const tsg_trace_rec *y)
{
    return x->entry == y->entry && x->row_major == y->row_major && x->transa == y->transa &&
           x->transb == y->transb && x->m == y->m && x->n == y->n && x->k == y->k;
}

/* the caller's stored operand shapes (rows x cols in the caller's layout order) */
static void stored(const tsg_trace_rec *r, int64_t *ea, int64_t *eb, int64_t *ec)
{
    const int na = r->transa == 'N', nb = r->transb == 'N';
    /* outer dimension (cols for column-major, rows for row-major) of A, B, C */
    int64_t oa, ob, oc, ia, ib, ic; /* outer count, inner (contiguous) count */
    if (!r->row_major) {
        ia = na ? r->m : r->k, oa = na ? r->k : r->m;
        ib = nb ? r->k : r->n, ob = nb ? r->n : r->k;
        ic = r->m, oc = r->n;
    } else {
        ia = na ? r->k : r->m, oa = na ? r->m : r->k;
        ib = nb ? r->n : r->k, ob = nb ? r->k : r->n;
        ic = r->n, oc = r->m;
    }
    *ea = oa > 0 && ia > 0 ? (oa - 1) * r->lda + ia : 0;
    *eb = ob > 0 && ib > 0 ? (ob - 1) * r->ldb + ib : 0;
    *ec = oc > 0 && ic > 0 ? (oc - 1) * r->ldc + ic : 0;
}

static int read_trace(const char *path, replay *rp)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        fprintf(stderr, "tsgemm-bench: --replay %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[TSG_TRACE_LINE_MAX + 2];
    int lineno = 0, cap = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        ++lineno;
        if (len == 0 || line[len - 1] != '\n') {
            fprintf(stderr, "tsgemm-bench: %s:%d: line longer than %d bytes or unterminated\n",
                    path, lineno, TSG_TRACE_LINE_MAX);
            goto bad;
        }
        line[--len] = 0;
        if (lineno == 1 && !tsg_trace_is_header(line, len)) {
            fprintf(stderr, "tsgemm-bench: %s: the first line is not \"%s\"\n", path, TSG_TRACE_HEADER);
            goto bad;
        }
        tsg_trace_rec r;
        const char *why = "";
        const int kind = tsg_trace_parse_line(line, len, &r, &why);
        if (kind == TSG_TRACE_BAD) {
            fprintf(stderr, "tsgemm-bench: %s:%d: %s\n", path, lineno, why);
            goto bad;
        }
        if (kind == TSG_TRACE_COMMENT) continue;
        if (rp->ncalls >= REPLAY_MAX_CALLS) {
            fprintf(stderr, "tsgemm-bench: %s: more than %d calls\n", path, REPLAY_MAX_CALLS);
            goto bad;
        }
        if (rp->ncalls == cap) {
            cap = cap ? 2 * cap : 1024;
            call *c = realloc(rp->calls, (size_t)cap * sizeof *c);
            if (!c) goto bad;
            rp->calls = c;
        }
        call *c = &rp->calls[rp->ncalls++];
        memset(c, 0, sizeof *c);
        c->r = r;
        int64_t ea, eb, ec;
        stored(&r, &ea, &eb, &ec);
        c->skip = r.entry == TSG_TRACE_DEVICE || r.where_a != 'h' || r.where_b != 'h' ||
                  r.where_c != 'h' || r.m > INT32_MAX || r.n > INT32_MAX || r.k > INT32_MAX ||
                  r.lda > INT32_MAX || r.ldb > INT32_MAX || r.ldc > INT32_MAX ||
                  4.0 * (double)ea > REPLAY_MAX_BYTES || 4.0 * (double)eb > REPLAY_MAX_BYTES ||
                  4.0 * (double)ec > REPLAY_MAX_BYTES;
        if (c->skip) {
            ++rp->nskip;
            continue;
        }
        if ((size_t)ea > rp->na) rp->na = (size_t)ea;
        if ((size_t)eb > rp->nb) rp->nb = (size_t)eb;
        if ((size_t)ec > rp->nc) rp->nc = (size_t)ec;
        int k = 0;
        while (k < rp->nclasses && !same_class(&rp->classes[k].key, &r)) ++k;
        if (k == rp->nclasses) {
            cls *t = realloc(rp->classes, (size_t)(k + 1) * sizeof *t);
            if (!t) goto bad;
            rp->classes = t;
            memset(&t[k], 0, sizeof t[k]);
            t[k].key = r;
            ++rp->nclasses;
        }
        c->cls = k;
        rp->classes[k].calls++;
        rp->classes[k].rec_s += (double)r.time_ns * 1e-9;
    }
    if (ferror(f) || lineno == 0) {
        fprintf(stderr, "tsgemm-bench: %s: %s\n", path, lineno ? "read error" : "empty file");
        goto bad;
    }
    fclose(f);
    return 0;
bad:
    fclose(f);
    return -1;
}

/* ------------------------------------------------------------------ one call */

static float scalar(int cls, int is_beta)
{
    return cls == TSG_TRACE_ZERO ? 0.0f : cls == TSG_TRACE_ONE ? 1.0f : is_beta ? -0.5f : 0.75f;
}

/* element (i, j) of op(X) in the caller's layout: X stored with leading dimension ld */
static double at(const float *x, int64_t ld, int row_major, int trans, int64_t i, int64_t j)
{
    if (trans) { int64_t t = i; i = j; j = t; }
    return row_major ? x[i * ld + j] : x[i + j * ld];
}

typedef struct samples {
    int n;
    int64_t i[SAMPLES], j[SAMPLES];
    double c0[SAMPLES]; /* C's input there (beta != 0) */
} samples;

static size_t cidx(const tsg_trace_rec *r, int64_t i, int64_t j)
{
    return (size_t)(r->row_major ? i * r->ldc + j : i + j * r->ldc);
}

static void pick(const tsg_trace_rec *r, samples *s, uint64_t *seed)
{
    s->n = 0;
    if (r->m == 0 || r->n == 0) return;
    const int64_t ci[4] = {0, r->m - 1, 0, r->m - 1}, cj[4] = {0, 0, r->n - 1, r->n - 1};
    for (int q = 0; q < SAMPLES; ++q) {
        int64_t i, j;
        if (q < 4) {
            i = ci[q], j = cj[q];
        } else {
            *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
            i = (int64_t)((*seed >> 33) % (uint64_t)r->m);
            j = (int64_t)((*seed >> 13) % (uint64_t)r->n);
        }
        s->i[s->n] = i, s->j[s->n] = j;
        ++s->n;
    }
}

/* max relative error over the samples; NaN when a sample is not finite */
static double check(const tsg_trace_rec *r, const float *a, const float *b, const float *c,
                    const samples *s)
{
    const float alpha = scalar(r->alpha, 0), beta = scalar(r->beta, 1);
    double maxerr = 0, maxref = 0;
    for (int q = 0; q < s->n; ++q) {
        double ref = 0;
        if (alpha != 0.0f)
            for (int64_t l = 0; l < r->k; ++l)
                ref += at(a, r->lda, r->row_major, r->transa != 'N', s->i[q], l) *
                       at(b, r->ldb, r->row_major, r->transb != 'N', l, s->j[q]);
        ref = alpha * ref + (beta != 0.0f ? beta * s->c0[q] : 0.0);
        const double got = c[cidx(r, s->i[q], s->j[q])];
        if (!isfinite(got)) return NAN;
        if (fabs(got - ref) > maxerr) maxerr = fabs(got - ref);
        if (fabs(ref) > maxref) maxref = fabs(ref);
    }
    return maxref > 0 ? maxerr / maxref : maxerr; /* all-zero refs (alpha = beta = 0): exact */
}

/* the own-BLAS names' conventions: the LP64 and ILP64 CBLAS ones, the LP64 Fortran one (with
 * the hidden lengths of its two character arguments) */
typedef void (*own_cblas_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                             int, float, float *, int);
typedef void (*own_cblas64_fn)(int, int, int, int64_t, int64_t, int64_t, float, const float *,
                               int64_t, const float *, int64_t, float, float *, int64_t);
typedef void (*own_f77_fn)(const char *, const char *, const int *, const int *, const int *,
                           const float *, const float *, const int *, const float *, const int *,
                           const float *, float *, const int *, size_t, size_t);

static void run_call(int pass, const replay *rp, const tsg_trace_rec *r, float *c)
{
    const float alpha = scalar(r->alpha, 0), beta = scalar(r->beta, 1);
    const int m = (int)r->m, n = (int)r->n, k = (int)r->k;
    const int lda = (int)r->lda, ldb = (int)r->ldb, ldc = (int)r->ldc;
    const int ta = r->transa == 'N' ? 111 : r->transa == 'T' ? 112 : 113;
    const int tb = r->transb == 'N' ? 111 : r->transb == 'T' ? 112 : 113;
    const int layout = r->row_major ? 101 : 102;
    const char cta = r->transa, ctb = r->transb;
    const int64_t m64 = m, n64 = n, k64 = k, lda64 = lda, ldb64 = ldb, ldc64 = ldc;
    void *own = rp->own[r->entry];
    if (pass == PASS_OPENBLAS && own) { /* the program's own library, as the program called it */
        if (r->entry == TSG_TRACE_SCIPY_F77)
            ((own_f77_fn)own)(&cta, &ctb, &m, &n, &k, &alpha, rp->a, &lda, rp->b, &ldb, &beta, c,
                              &ldc, 1, 1);
        else if (r->entry == TSG_TRACE_SCIPY_CBLAS)
            ((own_cblas_fn)own)(layout, ta, tb, m, n, k, alpha, rp->a, lda, rp->b, ldb, beta, c, ldc);
        else /* scipy_cblas_sgemm64_, cblas_sgemm64_ */
            ((own_cblas64_fn)own)(layout, ta, tb, m64, n64, k64, alpha, rp->a, lda64, rp->b, ldb64,
                                  beta, c, ldc64);
        return;
    }
    if (pass == PASS_OPENBLAS) {
        rp->openblas(layout, ta, tb, m, n, k, alpha, rp->a, lda, rp->b, ldb, beta, c, ldc);
        return;
    }
    switch (r->entry) {
    case TSG_TRACE_CBLAS64:
        cblas_sgemm64_(layout, ta, tb, m64, n64, k64, alpha, rp->a, lda64, rp->b, ldb64, beta, c, ldc64);
        break;
    case TSG_TRACE_SCIPY_CBLAS64:
        scipy_cblas_sgemm64_(layout, ta, tb, m64, n64, k64, alpha, rp->a, lda64, rp->b, ldb64, beta, c,
                             ldc64);
        break;
    case TSG_TRACE_SCIPY_CBLAS:
        scipy_cblas_sgemm(layout, ta, tb, m, n, k, alpha, rp->a, lda, rp->b, ldb, beta, c, ldc);
        break;
    case TSG_TRACE_F77_64:
        sgemm_64_(&cta, &ctb, &m64, &n64, &k64, &alpha, rp->a, &lda64, rp->b, &ldb64, &beta, c, &ldc64);
        break;
    case TSG_TRACE_SCIPY_F77_64:
        scipy_sgemm_64_(&cta, &ctb, &m64, &n64, &k64, &alpha, rp->a, &lda64, rp->b, &ldb64, &beta, c,
                        &ldc64);
        break;
    case TSG_TRACE_SCIPY_F77:
        scipy_sgemm_(&cta, &ctb, &m, &n, &k, &alpha, rp->a, &lda, rp->b, &ldb, &beta, c, &ldc);
        break;
    case TSG_TRACE_F77:
        sgemm_(&cta, &ctb, &m, &n, &k, &alpha, rp->a, &lda, rp->b, &ldb, &beta, c, &ldc);
        break;
    default: /* TSG_TRACE_CBLAS (device entries are skipped when the trace is read) */
        cblas_sgemm(layout, ta, tb, m, n, k, alpha, rp->a, lda, rp->b, ldb, beta, c, ldc);
        break;
    }
}

static double now_s(void) { return bench_now(); }

/* until t (monotonic seconds): sleep for all but the last 200 us, then spin */
static void wait_until(double t)
{
    double left = t - now_s();
    if (left > 200e-6) {
        const double s = left - 200e-6;
        struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
    }
    while (now_s() < t) {}
}

typedef struct pass_result {
    int ran, wrong, overruns;
    double call_s, wall_s, worst_err;
    int first_wrong; /* call index */
    uint64_t gpu_calls;
} pass_result;

static void run_pass(int pass, replay *rp, pass_result *pr)
{
    memset(pr, 0, sizeof *pr);
    pr->first_wrong = -1;
    uint64_t seed = 0x5eed;
    const long page = 4096;
    double last_end = now_s();
    const double t_start = last_end;
    struct tsgemm_stats st0, st1;
    for (int i = 0; i < rp->ncalls; ++i) {
        call *cl = &rp->calls[i];
        if (cl->skip) continue;
        const tsg_trace_rec *r = &cl->r;
        int64_t ea, eb, ec;
        stored(r, &ea, &eb, &ec);
        float *c = rp->c, *map = NULL;
        size_t map_bytes = 0;
        if (r->fresh_c && ec > 0) { /* new pages, never touched (unless beta != 0 reads them) */
            map_bytes = ((size_t)ec * 4 + (size_t)page - 1) / (size_t)page * (size_t)page;
            map = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (map == MAP_FAILED) {
                map = NULL; /* no memory for a fresh C: the reused one, said in the notes */
                pr->overruns += 0;
            } else {
                c = map;
            }
        }
        samples s;
        pick(r, &s, &seed);
        const int beta_reads = r->beta != TSG_TRACE_ZERO;
        for (int q = 0; q < s.n; ++q) {
            float *e = &c[cidx(r, s.i[q], s.j[q])];
            if (beta_reads) {
                /* a fresh C holds zeros: give it inputs, a function of the position so that a
                 * sample drawn twice reads the same value both times */
                if (map) *e = (float)((int)((s.i[q] * 31 + s.j[q] * 17) % 19) - 9) / 8.0f;
                s.c0[q] = *e;
            } else if (!map) {
                *e = NAN; /* a call that writes nothing is caught */
            }
        }
        tsgemm_get_stats(&st0);
        wait_until(last_end + (double)r->gap_ns * 1e-9);
        if (now_s() > last_end + (double)r->gap_ns * 1e-9 + 50e-6) pr->overruns++;
        const double t0 = now_s();
        run_call(pass, rp, r, c);
        const double t1 = now_s();
        last_end = t1;
        tsgemm_get_stats(&st1);
        pr->call_s += t1 - t0;
        cls *k = &rp->classes[cl->cls];
        k->s[pass] += t1 - t0;
        const int on_gpu = st1.gpu > st0.gpu;
        k->gpu[pass] += on_gpu;
        if (rp->call_ms) {
            const size_t ix = ((size_t)rp->round * PASSES + (size_t)pass) * (size_t)rp->ncalls + (size_t)i;
            rp->call_ms[ix] = (float)((t1 - t0) * 1e3);
            rp->call_gpu[ix] = (unsigned char)on_gpu;
        }
        pr->gpu_calls += (uint64_t)on_gpu;
        pr->ran++;
        const double err = check(r, rp->a, rp->b, c, &s);
        if (!(err <= bench_tolerance(r->k, rp->tol))) {
            if (pr->first_wrong < 0) {
                pr->first_wrong = i;
                pr->worst_err = err;
            }
            pr->wrong++;
        } else if (err > pr->worst_err && pr->first_wrong < 0) {
            pr->worst_err = err;
        }
        if (map) munmap(map, map_bytes);
    }
    pr->wall_s = now_s() - t_start;
}

/* ------------------------------------------------------------------ the report */

static int cmp_cls(const void *x, const void *y)
{
    const cls *a = x, *b = y;
    return a->s[PASS_OPENBLAS] < b->s[PASS_OPENBLAS] ? 1 : a->s[PASS_OPENBLAS] > b->s[PASS_OPENBLAS] ? -1 : 0;
}

/* --replay-csv: one row per class, in the trace's order of first appearance, with the key call's
 * fields (the class is entry, layout, transposes, m, n, k; leading dimensions, scalars and fresh C
 * are its first call's) and the median times (ms) per way; an empty cell for a way that did not
 * run; own_pool 1 when a library stood for the program's own behind the class's entry (the auto
 * pass decided its calls with the own-pool margin; own_blas_setup), else 0. Header line first.
 * Returns 0, or -1 with a message when the file cannot be written. */
static int write_csv(const char *path, const replay *rp, const pass_result *pr)
{
    FILE *f = fopen(path, "we");
    if (!f) {
        fprintf(stderr, "tsgemm-bench: --replay-csv %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "entry,layout,transa,transb,m,n,k,lda,ldb,ldc,alpha,beta,fresh_c,calls,recorded_ms,"
               "openblas_ms,tsgemm_ms,gpu_ms,tsgemm_on_gpu,own_pool\n");
    for (int i = 0; i < rp->nclasses; ++i) {
        const cls *k = &rp->classes[i];
        const tsg_trace_rec *r = &k->key;
        fprintf(f, "%s,%s,%c,%c,%lld,%lld,%lld,%lld,%lld,%lld,%d,%d,%d,%d,%.6f",
                tsg_trace_entry_name(r->entry), r->row_major ? "row" : "col", r->transa, r->transb,
                (long long)r->m, (long long)r->n, (long long)r->k, (long long)r->lda,
                (long long)r->ldb, (long long)r->ldc, r->alpha, r->beta, r->fresh_c, k->calls,
                k->rec_s * 1e3);
        for (int p = 0; p < PASSES; ++p) {
            if (pr[p].ran) fprintf(f, ",%.6f", k->s[p] * 1e3);
            else fprintf(f, ",");
        }
        fprintf(f, ",%d,%d\n", k->gpu[PASS_AUTO], rp->own[r->entry] != NULL);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "tsgemm-bench: --replay-csv %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The median of n values (n <= 9; the upper middle one for even n, a time that was measured). */
/* --replay-calls FILE: one row per call run, by round, then pass (OpenBLAS, auto, forced), then
 * the trace's order. order: the pass's place in its round (0: first); prev_on_gpu: whether the
 * pass's previous call ran on the GPU (0 for its first). Returns 0, or -1 (said on stderr). */
static int write_calls(const char *path, const replay *rp, int rounds)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tsgemm-bench: --replay-calls %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "round,pass,order,call,entry,layout,transa,transb,m,n,k,gap_ms,ms,on_gpu,prev_on_gpu\n");
    for (int r = 0; r < rounds; ++r)
        for (int p = 0; p < PASSES; ++p) {
            int prev = 0;
            for (int i = 0; i < rp->ncalls; ++i) {
                const size_t ix = ((size_t)r * PASSES + (size_t)p) * (size_t)rp->ncalls + (size_t)i;
                if (rp->call_ms[ix] < 0) continue;
                const tsg_trace_rec *t = &rp->calls[i].r;
                fprintf(f, "%d,%s,%d,%d,%s,%s,%c,%c,%lld,%lld,%lld,%.6f,%.6f,%d,%d\n", r + 1,
                        pass_names[p], (p - r % PASSES + PASSES) % PASSES, i + 1,
                        tsg_trace_entry_name(t->entry), t->row_major ? "row" : "col", t->transa,
                        t->transb, (long long)t->m, (long long)t->n, (long long)t->k,
                        (double)t->gap_ns * 1e-6, (double)rp->call_ms[ix], rp->call_gpu[ix], prev);
                prev = rp->call_gpu[ix];
            }
        }
    const int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "tsgemm-bench: --replay-calls %s: write failed\n", path);
        return -1;
    }
    return 0;
}

static double median_of(const double *v, int n)
{
    double t[9];
    memcpy(t, v, sizeof(double) * (size_t)n);
    for (int i = 1; i < n; ++i) /* insertion sort: n <= 9 */
        for (int j = i; j > 0 && t[j - 1] > t[j]; --j) {
            const double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return t[n / 2];
}

/*
 * The trace's calls through the own-BLAS names (src/tsg_trace.h tsg_trace_entry_own_blas): the
 * libraries of --own-blas loaded (bench_ownblas.c), and for each such name one line saying which
 * library stands for the program's own — the plain pass calls it and tsgemm runs the calls' CPU
 * side on it, with auto mode's own-pool margin — or that none does, so that the figures of such
 * a replay are never taken for the program's. Returns 0, or 2 when a --own-blas library is
 * refused (the reason on stderr).
 */
static int own_blas_setup(replay *rp, const bench_opts *o)
{
    int calls[TSG_TRACE_ENTRY_COUNT] = {0}, any = 0;
    for (int i = 0; i < rp->ncalls; ++i)
        if (!rp->calls[i].skip && tsg_trace_entry_own_blas(rp->calls[i].r.entry)) {
            ++calls[rp->calls[i].r.entry];
            any = 1;
        }
    if (!any) {
        if (o->n_own_blas)
            printf("  own BLAS    not loaded: no call of the trace goes through scipy_cblas_sgemm64_, "
                   "cblas_sgemm64_, scipy_cblas_sgemm or scipy_sgemm_\n");
        return 0;
    }
    static bench_own_blas ob; /* loaded for the process's life, as the program's was */
    for (int i = 0; i < o->n_own_blas; ++i) {
        char why[PATH_MAX + 128];
        if (bench_own_blas_open(&ob, o->own_blas[i], why, sizeof why) != 0) {
            fprintf(stderr, "tsgemm-bench: --own-blas %s: %s\n", o->own_blas[i], why);
            return 2;
        }
    }
    int used[BENCH_OWN_BLAS_MAX] = {0};
    for (int e = 0; e < TSG_TRACE_ENTRY_COUNT; ++e) {
        if (!calls[e]) continue;
        const char *lib = NULL;
        rp->own[e] = bench_own_blas_fn(e, &lib);
        for (int i = 0; i < ob.n; ++i) used[i] |= lib && !strcmp(lib, ob.path[i]);
        if (rp->own[e])
            printf("  own BLAS    %s (%d calls): %s stands for the program's own library: the "
                   "openblas pass calls its %s, tsgemm runs their CPU side on it (own_pool 1: "
                   "auto mode's margin %.2g)\n",
                   tsg_trace_entry_name(e), calls[e], lib, tsg_trace_entry_name(e),
                   TSG_GPU_MARGIN_OWN_POOL);
        else
            printf("  own BLAS    %s (%d calls): not loaded (no --own-blas library defines it): "
                   "own_pool 0, auto mode decides them with the margin %.2g, not the program's "
                   "%.2g, and the openblas pass runs them on OpenBLAS\n",
                   tsg_trace_entry_name(e), calls[e], TSG_GPU_MARGIN, TSG_GPU_MARGIN_OWN_POOL);
    }
    for (int i = 0; i < ob.n; ++i)
        if (!used[i]) printf("  own BLAS    %s: loaded, stands for none of the trace's calls\n", ob.path[i]);
    return 0;
}

static void print_ms(double s, int ran)
{
    if (ran) printf(" %12.3f", s * 1e3);
    else printf(" %12s", "-");
}

int bench_replay(const char *path, const bench_opts *o, const bench_cpu *cpu, int gpu_ok,
                 const char *gpu_why)
{
    replay rp;
    memset(&rp, 0, sizeof rp);
    rp.openblas = cpu->sgemm;
    rp.tol = o->tol;
    if (read_trace(path, &rp) != 0) return 2;
    double rec_s = 0, gaps_s = 0;
    for (int i = 0; i < rp.ncalls; ++i)
        if (!rp.calls[i].skip) {
            rec_s += (double)rp.calls[i].r.time_ns * 1e-9;
            gaps_s += (double)rp.calls[i].r.gap_ns * 1e-9;
        }
    printf("replay %s: %d calls (%d skipped: device entry or operand, or beyond 32 bits), %d "
           "classes; recorded %.3f ms in calls, %.3f ms of gaps\n",
           path, rp.ncalls, rp.nskip, rp.nclasses, rec_s * 1e3, gaps_s * 1e3);
    if (own_blas_setup(&rp, o) != 0) return 2;
    rp.a = malloc((rp.na ? rp.na : 1) * sizeof(float));
    rp.b = malloc((rp.nb ? rp.nb : 1) * sizeof(float));
    rp.c = malloc((rp.nc ? rp.nc : 1) * sizeof(float));
    if (!rp.a || !rp.b || !rp.c) {
        fprintf(stderr, "tsgemm-bench: --replay: no memory for the operands\n");
        return 1;
    }
    bench_fill_uniform(rp.a, rp.na, o->seed);
    bench_fill_uniform(rp.b, rp.nb, o->seed + 1);
    bench_fill_uniform(rp.c, rp.nc, o->seed + 2); /* touched once: the reused C */
    const int rounds = o->replay_rounds > 1 ? o->replay_rounds : 1;
    /* each round's figures: per pass, and per class and pass (for the medians) */
    pass_result pr[PASSES], (*prr)[PASSES] = calloc((size_t)rounds, sizeof *prr);
    double *cls_s = calloc((size_t)rp.nclasses * (size_t)rounds * PASSES, sizeof *cls_s);
    int *cls_g = calloc((size_t)rp.nclasses * (size_t)rounds * PASSES, sizeof *cls_g);
    if (!prr || !cls_s || !cls_g) {
        fprintf(stderr, "tsgemm-bench: --replay: no memory for %d rounds\n", rounds);
        return 1;
    }
    if (o->replay_calls) {
        const size_t cells = (size_t)rounds * PASSES * (size_t)(rp.ncalls ? rp.ncalls : 1);
        rp.call_ms = malloc(cells * sizeof *rp.call_ms);
        rp.call_gpu = calloc(cells, 1);
        if (!rp.call_ms || !rp.call_gpu) {
            fprintf(stderr, "tsgemm-bench: --replay-calls: no memory for %zu calls\n", cells);
            return 1;
        }
        for (size_t j = 0; j < cells; ++j) rp.call_ms[j] = -1.0f;
    }
    memset(pr, 0, sizeof pr);
    int rc = 0;
    if (!gpu_ok) printf("  %-11s skipped: %s\n", pass_names[PASS_GPU], gpu_why);
    for (int r = 0; r < rounds; ++r) {
        /* round r runs the passes from the r-th on (OpenBLAS, auto, forced, rotated): in three
         * rounds each pass runs once first, once after each of the others' passes */
        for (int i = 0; i < PASSES; ++i) {
            const int p = (i + r) % PASSES;
            if (p == PASS_GPU && !gpu_ok) continue;
            if (p != PASS_OPENBLAS)
                tsgemm_set_mode(p == PASS_GPU ? TSGEMM_MODE_GPU : TSGEMM_MODE_AUTO);
            for (int c = 0; c < rp.nclasses; ++c) rp.classes[c].s[p] = 0, rp.classes[c].gpu[p] = 0;
            pass_result *q = &prr[r][p];
            rp.round = r;
            static bench_threads th0, th1; /* --replay-threads: before and after the pass */
            const double pass_t0 = now_s();
            if (o->replay_threads) bench_threads_sample(&th0);
            run_pass(p, &rp, q);
            if (o->replay_threads) bench_threads_sample(&th1);
            const double pass_s = now_s() - pass_t0;
            for (int c = 0; c < rp.nclasses; ++c) {
                cls_s[((size_t)c * rounds + r) * PASSES + p] = rp.classes[c].s[p];
                cls_g[((size_t)c * rounds + r) * PASSES + p] = rp.classes[c].gpu[p];
            }
            char tag[24] = "";
            if (rounds > 1) snprintf(tag, sizeof tag, " round %d", r + 1);
            printf("  %-11s %8.3f ms in calls, %8.3f ms wall (gaps included), %llu on the GPU, "
                   "%d gaps overrun, worst error %.2e%s%s\n",
                   pass_names[p], q->call_s * 1e3, q->wall_s * 1e3, (unsigned long long)q->gpu_calls,
                   q->overruns, q->worst_err, q->wrong ? "  WRONG" : "", tag);
            if (o->replay_threads) bench_threads_print(stdout, pass_names[p], &th0, &th1, pass_s);
            if (q->wrong) {
                const tsg_trace_rec *w = &rp.calls[q->first_wrong].r;
                printf("  %-11s WRONG: %d of %d results out of bounds; first: call %d (%s %s %c%c "
                       "%lld x %lld x %lld), error %.3g > %.3g\n",
                       pass_names[p], q->wrong, q->ran, q->first_wrong + 1,
                       tsg_trace_entry_name(w->entry), w->row_major ? "row" : "col", w->transa,
                       w->transb, (long long)w->m, (long long)w->n, (long long)w->k, q->worst_err,
                       bench_tolerance(w->k, rp.tol));
                rc = 1;
            }
        }
    }
    /* the figures reported: each pass's median round (its totals, GPU calls, errors as that round
     * had them; the worst error and the WRONG count over all rounds), each class's median time
     * and GPU count over the rounds */
    for (int p = 0; p < PASSES; ++p) {
        double t[9];
        for (int r = 0; r < rounds; ++r) t[r] = prr[r][p].call_s;
        const double med = median_of(t, rounds);
        int mr = 0;
        for (int r = 0; r < rounds; ++r)
            if (prr[r][p].call_s == med) mr = r;
        pr[p] = prr[mr][p];
        for (int r = 0; r < rounds; ++r) {
            if (prr[r][p].worst_err > pr[p].worst_err) pr[p].worst_err = prr[r][p].worst_err;
            if (r != mr) pr[p].wrong += prr[r][p].wrong;
        }
    }
    for (int c = 0; c < rp.nclasses; ++c)
        for (int p = 0; p < PASSES; ++p) {
            double t[9], g[9];
            for (int r = 0; r < rounds; ++r) {
                t[r] = cls_s[((size_t)c * rounds + r) * PASSES + p];
                g[r] = cls_g[((size_t)c * rounds + r) * PASSES + p];
            }
            rp.classes[c].s[p] = median_of(t, rounds);
            rp.classes[c].gpu[p] = (int)median_of(g, rounds);
        }
    if (rounds > 1) {
        printf("  median of %d rounds (each pass's median round; classes: each class's median):\n", rounds);
        for (int p = 0; p < PASSES; ++p) {
            if (p == PASS_GPU && !gpu_ok) continue;
            printf("  %-11s %8.3f ms in calls (median; rounds", pass_names[p], pr[p].call_s * 1e3);
            for (int r = 0; r < rounds; ++r) printf(" %.3f", prr[r][p].call_s * 1e3);
            printf("), %llu on the GPU%s\n", (unsigned long long)pr[p].gpu_calls, pr[p].wrong ? "  WRONG" : "");
        }
    }
    free(prr);
    free(cls_s);
    free(cls_g);
    if (o->replay_csv && write_csv(o->replay_csv, &rp, pr) != 0) rc = rc ? rc : 1;
    if (rp.call_ms && write_calls(o->replay_calls, &rp, rounds) != 0) rc = rc ? rc : 1;
    free(rp.call_ms);
    free(rp.call_gpu);
    tsgemm_set_mode(TSGEMM_MODE_AUTO);
    /* the per-class table, largest OpenBLAS time first, at most 25 rows */
    qsort(rp.classes, (size_t)rp.nclasses, sizeof *rp.classes, cmp_cls);
    printf("\n  %-44s %6s %12s %12s %12s %12s %s\n", "class (entry layout TT m x n x k)", "calls",
           "recorded ms", "openblas ms", "tsgemm ms", "gpu-forc ms", "tsgemm on GPU");
    const int rows = rp.nclasses < 25 ? rp.nclasses : 25;
    cls rest;
    memset(&rest, 0, sizeof rest);
    for (int i = 0; i < rp.nclasses; ++i) {
        const cls *k = &rp.classes[i];
        if (i >= rows) {
            rest.calls += k->calls;
            rest.rec_s += k->rec_s;
            for (int p = 0; p < PASSES; ++p) rest.s[p] += k->s[p], rest.gpu[p] += k->gpu[p];
            continue;
        }
        char label[96];
        snprintf(label, sizeof label, "%s %s %c%c %lldx%lldx%lld", tsg_trace_entry_name(k->key.entry),
                 k->key.row_major ? "row" : "col", k->key.transa, k->key.transb,
                 (long long)k->key.m, (long long)k->key.n, (long long)k->key.k);
        printf("  %-44s %6d %12.3f", label, k->calls, k->rec_s * 1e3);
        for (int p = 0; p < PASSES; ++p) print_ms(k->s[p], pr[p].ran > 0);
        printf(" %d/%d\n", k->gpu[PASS_AUTO], k->calls);
    }
    if (rp.nclasses > rows) {
        char label[64];
        snprintf(label, sizeof label, "(%d other classes)", rp.nclasses - rows);
        printf("  %-44s %6d %12.3f", label, rest.calls, rest.rec_s * 1e3);
        for (int p = 0; p < PASSES; ++p) print_ms(rest.s[p], pr[p].ran > 0);
        printf(" %d/%d\n", rest.gpu[PASS_AUTO], rest.calls);
    }
    printf("  %-44s %6d %12.3f", "total", rp.ncalls - rp.nskip, rec_s * 1e3);
    for (int p = 0; p < PASSES; ++p) print_ms(pr[p].call_s, pr[p].ran > 0);
    printf(" %llu/%d\n", (unsigned long long)pr[PASS_AUTO].gpu_calls, rp.ncalls - rp.nskip);
    printf("  replay-summary %s calls=%d openblas_ms=%.3f tsgemm_ms=%.3f gpu_ms=%s%s\n", path,
           rp.ncalls - rp.nskip, pr[0].call_s * 1e3, pr[1].call_s * 1e3,
           pr[2].ran ? "" : "skipped", rc ? " WRONG" : "");
    if (pr[2].ran) {
        /* the forced-GPU figure after the fact, so the summary line stays one line */
        printf("  replay-summary-gpu %s gpu_ms=%.3f\n", path, pr[2].call_s * 1e3);
    }
    free(rp.a);
    free(rp.b);
    free(rp.c);
    free(rp.calls);
    free(rp.classes);
    return rc;
}
