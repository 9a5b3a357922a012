/*
 * tsgemm-fuzz.c — differential fuzzer of libtsgemm.so (issue 8): random SGEMM calls through every
 * exported BLAS name (cblas_sgemm, sgemm_, cblas_sgemm64_, sgemm_64_, scipy_cblas_sgemm64_,
 * scipy_sgemm_64_, and the LP64 wheel names scipy_cblas_sgemm / scipy_sgemm_ when the library
 * exports them), each judged against a double-precision reference with the semantics of reference
 * SGEMM (tests/support: tt_ref_gemm, tt_compare_bound) and the invariants of docs/TESTING.md: guard
 * bands and NaN-poisoned padding bitwise unchanged, A and B bitwise unchanged, nothing outside C's
 * m x n window written, beta = 0 never reads C (C is NaN then), alpha = 0 or k = 0 never reads A/B
 * (NaN/Inf there, or NULL), counters and tsgemm_last_path() consistent with the call, and illegal
 * calls reported once at the reference position with C untouched.
 *
 * Owns: running calls, judging them, the summary; drawing them is fuzz_draw.c's. Must not: trust
 * src/ for what to expect — the expected error positions are modelled in fuzz_draw.c from the
 * reference BLAS (CBLAS cblas_sgemm.c + SGEMM), independently of tsg_problem.c.
 *
 * Reproducible: call N of seed S depends on (S, N) and on which names the library exports only;
 * a failure prints one line that runs it alone (tsgemm-fuzz --seed S --call N) and the full
 * argument list. TSGEMM_MODE comes from the environment as usual (the library reads it; here
 * mode cpu also means every computing call must report "cpu"). TSGEMM_TEST_EXPECT=gpu: exit 77
 * without a usable GPU, and every computing call must run on the GPU; TSGEMM_TEST_EXPECT=auto:
 * exit 77 without a GPU, and a run (not --call) that found no other failure fails when no call
 * ran on the GPU (stats.gpu = 0).
 * Exit status: 0 clean, 1 failures, 2 usage or setup error.
 *
 * This program defines cblas_xerbla, xerbla_ and RowMajorStrg (linked with -rdynamic), as the
 * netlib testers do, so the library must call them for illegal cblas_sgemm / sgemm_ calls.
 */
#define _GNU_SOURCE
#include <cblas-netlib.h> /* the reference cblas_xerbla prototype we define */
#include <dlfcn.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"
#include "pl_stats.h" /* tests/preload: stderr capture around one call */
#include "tsg_testutil.h"
#include "tsgemm.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

/* ------------------------------------------------------------------ the names under test */
api apis[FZ_NAPIS] = {
    {"cblas_sgemm", K_CBLAS, 1, R_CBLAS_HANDLER, NULL, 0},
    {"sgemm_", K_F77, 1, R_F77_HANDLER, NULL, 0},
    {"cblas_sgemm64_", K_CBLAS64, 1, R_LINE, NULL, 0},
    {"sgemm_64_", K_F77_64, 1, R_LINE, NULL, 0},
    {"scipy_cblas_sgemm64_", K_CBLAS64, 1, R_LINE, NULL, 0},
    {"scipy_sgemm_64_", K_F77_64, 1, R_LINE, NULL, 0},
    {"scipy_cblas_sgemm", K_CBLAS, 0, R_ANY, NULL, 0},
    {"scipy_sgemm_", K_F77, 0, R_ANY, NULL, 0},
};
int avail[FZ_NAPIS], navail;


/* Resolves every name in libtsgemm.so itself (the object defining tsgemm_get_stats). */
static int resolve_apis(void)
{
    Dl_info self;
    if (!dladdr((void *)tsgemm_get_stats_v, &self) || !self.dli_fname) return -1;
    void *h = dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!h) return -1;
    int missing = 0;
    for (size_t i = 0; i < COUNT_OF(apis); ++i) {
        Dl_info where;
        void *fn = dlsym(h, apis[i].name);
        if (fn && (!dladdr(fn, &where) || where.dli_fbase != self.dli_fbase)) fn = NULL;
        apis[i].fn = fn;
        if (fn) avail[navail++] = (int)i;
        else if (apis[i].required) {
            fprintf(stderr, "tsgemm-fuzz: %s is not exported by %s\n", apis[i].name, self.dli_fname);
            ++missing;
        }
    }
    dlclose(h);
    return missing ? -1 : 0;
}

/* ------------------------------------------------------------------ the program's own handlers */

int RowMajorStrg; /* the reference CBLAS flag; the library sets it around our cblas_xerbla */

static struct {
    int cblas_calls, f77_calls, info, row_major_strg;
    char rout[64];
} seen;

void cblas_xerbla(CBLAS_INT p, const char *rout, const char *form, ...)
{
    (void)form; /* must not exit: the library expects the program to continue */
    ++seen.cblas_calls;
    seen.info = (int)p;
    seen.row_major_strg = RowMajorStrg;
    snprintf(seen.rout, sizeof seen.rout, "%s", rout ? rout : "(null)");
}

void xerbla_(const char *srname, const int *info, size_t srname_len)
{
    ++seen.f77_calls;
    seen.info = *info;
    size_t n = srname_len < sizeof seen.rout - 1 ? srname_len : sizeof seen.rout - 1;
    memcpy(seen.rout, srname, n);
    seen.rout[n] = '\0';
}

/* ------------------------------------------------------------------ one call */
/* ------------------------------------------------------------------ operands */

typedef struct operands {
    tt_mat A, B, C;
    float *snapA, *snapB, *snapC;
} operands;

static void plant_specials(tt_rng *r, tt_mat *x)
{
    static const float vals[] = {NAN, INFINITY, -INFINITY, 1e-40f, -1e-45f, -0.0f};
    if (x->rows == 0 || x->cols == 0) return;
    for (int s = 1 + (int)rnd(r, 3); s > 0; --s)
        x->p[(int64_t)rnd(r, (uint64_t)x->rows) + (int64_t)rnd(r, (uint64_t)x->cols) * x->ld] =
            vals[rnd(r, COUNT_OF(vals))];
}

static int make_operands(const fz_call *c, operands *o, tt_rng *r)
{
    memset(o, 0, sizeof *o);
    tt_mat *mats[3] = {&o->A, &o->B, &o->C};
    int64_t lds[3] = {c->lda, c->ldb, c->ldc};
    const int offs[3] = {c->off_a, c->off_b, c->off_c};
    for (int w = 0; w < 3; ++w) {
        int64_t rows, cols;
        tt_stored_shape(c->row, "ABC"[w], w == 0 ? c->ta : c->tb, c->sm, c->sn, c->sk, &rows, &cols);
        /* an illegal ld still needs a buffer: the legal one */
        int64_t ld = lds[w] >= max1(rows) ? lds[w] : max1(rows);
        if (tt_mat_alloc(mats[w], rows, cols, ld, offs[w])) return -1;
        if (c->ints) tt_mat_fill_int(mats[w], r, -8, 8);
        else tt_mat_fill_uniform(mats[w], r);
        tt_mat_fill_padding(mats[w], NAN); /* padding read into a result shows as NaN */
    }
    if (c->specials) plant_specials(r, mats[rnd(r, 3)]);
    if (c->alpha == 0.0f || c->sk == 0) { /* must not be read */
        tt_mat_fill_value(&o->A, NAN);
        tt_mat_fill_value(&o->B, chance(r, 500) ? INFINITY : NAN);
    }
    if (c->beta == 0.0f) tt_mat_fill_value(&o->C, NAN); /* must not be read */
    o->snapA = tt_mat_snapshot(&o->A);
    o->snapB = tt_mat_snapshot(&o->B);
    o->snapC = tt_mat_snapshot(&o->C);
    return o->snapA && o->snapB && o->snapC ? 0 : -1;
}

static void free_operands(operands *o)
{
    tt_mat *mats[3] = {&o->A, &o->B, &o->C};
    float *snaps[3] = {o->snapA, o->snapB, o->snapC};
    for (int w = 0; w < 3; ++w) {
        tt_mat_free(mats[w]);
        free(snaps[w]);
    }
}

static void run_call(const fz_call *c, operands *o)
{
    const api *ap = &apis[c->api];
    const float *a = c->null_ab ? NULL : o->A.p, *b = c->null_ab ? NULL : o->B.p;
    float *cc = c->null_c ? NULL : o->C.p;
    switch (ap->kind) {
    case K_CBLAS:
        ((cblas32_fn)ap->fn)(c->layout, c->transa, c->transb, (int)c->m, (int)c->n, (int)c->k,
                             c->alpha, a, (int)c->lda, b, (int)c->ldb, c->beta, cc, (int)c->ldc);
        break;
    case K_CBLAS64:
        ((cblas64_fn)ap->fn)(c->layout, c->transa, c->transb, c->m, c->n, c->k, c->alpha, a,
                             c->lda, b, c->ldb, c->beta, cc, c->ldc);
        break;
    case K_F77: {
        const int m = (int)c->m, n = (int)c->n, k = (int)c->k;
        const int lda = (int)c->lda, ldb = (int)c->ldb, ldc = (int)c->ldc;
        ((f77_32_fn)ap->fn)(c->fta, c->ftb, &m, &n, &k, &c->alpha, a, &lda, b, &ldb, &c->beta,
                            cc, &ldc);
        break;
    }
    case K_F77_64:
        ((f77_64_fn)ap->fn)(c->fta, c->ftb, &c->m, &c->n, &c->k, &c->alpha, a, &c->lda, b,
                            &c->ldb, &c->beta, cc, &c->ldc);
        break;
    }
}

/* ------------------------------------------------------------------ judging */

enum { PATH_QUICK, PATH_CPU, PATH_GPU, PATH_RETRY, PATH_ILLEGAL, PATH_OTHER, NPATHS };
static const char *const path_names[NPATHS] = {"quick", "cpu", "gpu", "cpu-retry", "illegal", "other"};

static int path_index(const char *p)
{
    for (int i = 0; i < PATH_OTHER; ++i)
        if (!strcmp(p, path_names[i])) return i;
    return PATH_OTHER;
}

/* What to print when the process dies inside a call: that call's arguments and how to rerun it. */
static char g_dying[2048];

static struct {
    int expect_gpu, expect_auto, mode_cpu, quiet, verbose;
    uint64_t paths[NPATHS], nonfinite, sampled, bitwise, failures;
    int nonfinite_only; /* --nonfinite-only: calls without NaN/Inf/denormals or a non-finite
                           scalar are drawn (the sequence stays the seed's) but not run     */
    uint64_t skipped;   /* such calls not run                                            */
} g;

typedef struct verdict {
    char why[1024];
    int bad;
} verdict;

static void failf(verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failf(verdict *v, const char *fmt, ...)
{
    if (v->bad++) return; /* the first reason is the one reported */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->why, sizeof v->why, fmt, ap);
    va_end(ap);
}

/* Counters moved by exactly this call's outcome. */
static void check_counters(verdict *v, const struct tsgemm_stats *s0, const struct tsgemm_stats *s1,
                           int path)
{
    uint64_t d_ill = s1->illegal - s0->illegal, d_quick = s1->quick - s0->quick;
    uint64_t d_gpu = s1->gpu - s0->gpu, d_cpu = s1->cpu - s0->cpu;
    uint64_t d_fail = s1->gpu_failed - s0->gpu_failed;
    int ok = s1->calls - s0->calls == 1 && d_ill == (path == PATH_ILLEGAL) &&
             d_quick == (path == PATH_QUICK) && d_gpu == (path == PATH_GPU) &&
             d_cpu == (path == PATH_CPU || path == PATH_RETRY) && d_fail == (path == PATH_RETRY);
    if (!ok)
        failf(v, "counters moved calls+%" PRIu64 " illegal+%" PRIu64 " quick+%" PRIu64
                 " gpu+%" PRIu64 " cpu+%" PRIu64 " gpu_failed+%" PRIu64 " for path %s",
              s1->calls - s0->calls, d_ill, d_quick, d_gpu, d_cpu, d_fail, path_names[path]);
}

/* The report of an illegal call: the program's handler or one printed line, exactly once. */
static void check_report(verdict *v, const fz_call *c, const char *out)
{
    const api *a = &apis[c->api];
    int lines = 0, line_pos = -1, other = 0;
    for (const char *s = out; *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : s + strlen(s)) {
        const char *p = "tsgemm: parameter ";
        if (!strncmp(s, p, strlen(p))) {
            ++lines;
            line_pos = atoi(s + strlen(p));
            char name[96];
            snprintf(name, sizeof name, " to %s had an illegal value", a->name);
            const char *eol = strchr(s, '\n');
            const char *hit = strstr(s, name);
            if (!hit || (eol && hit > eol)) failf(v, "report line does not name %s: %.200s", a->name, s);
        } else {
            ++other; /* e.g. a knob warning at the first call: shown, not judged */
            const char *eol = strchr(s, '\n');
            fprintf(stderr, "%.*s\n", (int)(eol ? eol - s : (long)strlen(s)), s);
        }
    }
    int handler = seen.cblas_calls + seen.f77_calls;
    report_kind want = a->report;
    if (want == R_ANY) want = handler ? (is_cblas(a->kind) ? R_CBLAS_HANDLER : R_F77_HANDLER) : R_LINE;
    if (want == R_LINE) {
        if (handler) failf(v, "a handler was called (cblas_xerbla %d, xerbla_ %d); expected one printed line",
                           seen.cblas_calls, seen.f77_calls);
        else if (lines != 1) failf(v, "%d report lines printed, expected 1", lines);
        else if (line_pos != c->user_pos) failf(v, "reported parameter %d, the reference reports %d", line_pos, c->user_pos);
        return;
    }
    if (lines) failf(v, "tsgemm printed a report although the program defines a handler");
    if (want == R_CBLAS_HANDLER) {
        const int row = c->layout == 101;
        if (seen.cblas_calls != 1 || seen.f77_calls)
            failf(v, "cblas_xerbla called %d times, xerbla_ %d; expected 1 and 0", seen.cblas_calls, seen.f77_calls);
        else if (seen.info != c->raw_pos)
            failf(v, "cblas_xerbla received %d, the reference passes %d (caller's position %d)", seen.info, c->raw_pos, c->user_pos);
        else if (seen.row_major_strg != row)
            failf(v, "RowMajorStrg was %d inside cblas_xerbla, expected %d", seen.row_major_strg, row);
        else if (a->report != R_ANY && strcmp(seen.rout, "cblas_sgemm"))
            failf(v, "cblas_xerbla received routine \"%s\"", seen.rout);
    } else {
        if (seen.f77_calls != 1 || seen.cblas_calls)
            failf(v, "xerbla_ called %d times, cblas_xerbla %d; expected 1 and 0", seen.f77_calls, seen.cblas_calls);
        else if (seen.info != c->user_pos)
            failf(v, "xerbla_ received %d, the reference passes %d", seen.info, c->user_pos);
        else if (a->report != R_ANY && strncmp(seen.rout, "SGEMM", 5))
            failf(v, "xerbla_ received SRNAME \"%s\"", seen.rout);
    }
    if (RowMajorStrg != 0) failf(v, "RowMajorStrg left at %d after the call", RowMajorStrg);
}

static int64_t pick_index(tt_rng *r, int64_t n)
{
    static const int64_t edges[] = {63, 64, 127, 128, 129, 255, 256, 257};
    switch (rnd(r, 6)) {
    case 0: return 0;
    case 1: return n - 1;
    case 2: { int64_t e = edges[rnd(r, COUNT_OF(edges))]; return e < n ? e : n - 1; }
    default: return (int64_t)rnd(r, (uint64_t)n);
    }
}

enum { NSAMPLES = 192 };
#define FULL_REF_MAX_MNK 2e8 /* above: sampled elements (a naive double loop costs seconds) */
#define FULL_REF_MAX_MN 4e6

/* The result in C's window against the reference (column-major view of the user's call). */
_Static_assert(TSGEMM_MATH_3XTF32 == 1 && TSGEMM_MATH_TF32 == 2, "tt_math_split numbers the maths as tsgemm.h does");

static void check_result(verdict *v, const fz_call *c, const operands *o, tt_rng *r, int path)
{
    /* row-major C = op(A)op(B) is C^T = op(B)^T op(A)^T in column-major storage */
    const char ta = c->row ? c->tb : c->ta, tb = c->row ? c->ta : c->tb;
    const int64_t m = c->row ? c->n : c->m, n = c->row ? c->m : c->n, k = c->k;
    /* inputs as they were before the call (the snapshots): C is overwritten, and a corrupted
     * A or B (reported separately) must not move the reference */
    const float *a0 = o->snapA + o->A.first, *b0 = o->snapB + o->B.first;
    const float *A = c->row ? b0 : a0, *B = c->row ? a0 : b0, *C0 = o->snapC + o->C.first;
    const int64_t lda = c->row ? o->B.ld : o->A.ld, ldb = c->row ? o->A.ld : o->B.ld;
    const double alpha = c->alpha, beta = c->beta;
    const int nonfinite = !isfinite(c->alpha) || !isfinite(c->beta) || c->specials;
    const int bitwise = c->ints && !c->specials && exact_scalar(c->alpha) &&
                        exact_scalar(c->beta) && k <= 16384;
    /* gradual underflow: each of the k products and the alpha/beta roundings may lose TT_ETA/2
     * absolutely, scaled by the largest factor it meets (|inputs| <= 8, |alpha|, |beta| <= 4) */
    const double fa = isfinite(alpha) ? fabs(alpha) : 0, fb = isfinite(beta) ? fabs(beta) : 0;
    /* a GPU call in TSGEMM_MATH=3xtf32 or tf32 (the family takes it, or the FP32 kernels do:
     * either is within this bound) may also carry that math's error (TT_SPLIT3, TT_SPLIT1:
     * tests/support/tsg_testutil.h) */
    const double split = path == PATH_GPU ? tt_math_split(tsgemm_get_math()) : 0.0;
    /* the floor: gradual underflow, and in either TF32 math a subnormal operand's error
     * (TT_SPLIT3_ABS per unit of |a| + |b| <= 16: TF32 keeps 10 fraction bits there too) */
    const double unit = TT_ETA * 8 + (split > 0 ? TT_SPLIT3_ABS * 16 : 0.0);
    const tt_bound bound = {bitwise ? 0.0 : TT_GAMMA,
                            bitwise ? 0.0 : TT_GAMMA * (double)(k + 2) * unit * (1 + fa) * (1 + fb),
                            1, bitwise ? 0.0 : split};
    g.nonfinite += nonfinite;
    g.bitwise += bitwise;
    const int sampled = (double)m * (double)n * (double)k > FULL_REF_MAX_MNK ||
                        (double)m * (double)n > FULL_REF_MAX_MN;
    g.sampled += sampled;
    const int64_t count = sampled ? NSAMPLES : m * n;
    double *R = malloc(sizeof(double) * (size_t)(count ? count : 1));
    double *S = malloc(sizeof(double) * (size_t)(count ? count : 1));
    float *got = sampled ? malloc(sizeof(float) * NSAMPLES) : NULL;
    if (!R || !S || (sampled && !got)) {
        failf(v, "out of memory for the reference");
        goto out;
    }
    tt_check ck;
    if (!sampled) {
        tt_ref_gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C0, o->C.ld, R, S);
        ck = tt_compare_bound(o->C.p, o->C.ld, m, n, k, R, S, &bound);
    } else {
        int64_t is[NSAMPLES], js[NSAMPLES];
        for (int s = 0; s < NSAMPLES; ++s) {
            is[s] = pick_index(r, m);
            js[s] = pick_index(r, n);
            tt_ref_gemm_at(ta, tb, k, alpha, A, lda, B, ldb, beta, C0, o->C.ld,
                           is[s], js[s], &R[s], &S[s]);
            got[s] = o->C.p[is[s] + js[s] * o->C.ld];
        }
        ck = tt_compare_bound(got, NSAMPLES, NSAMPLES, 1, k, R, S, &bound);
        if (ck.bad) {
            const int64_t s = ck.first_i;
            ck.first_i = is[s];
            ck.first_j = js[s];
        }
        if (!nonfinite) { /* every reference element is finite: so must the whole window be */
            int64_t nf = 0;
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < m; ++i) nf += !isfinite(o->C.p[i + j * o->C.ld]);
            if (nf) failf(v, "%" PRId64 " non-finite elements in C (all inputs finite)", nf);
        }
    }
    if (ck.bad) {
        /* the reference value of the first bad element, recomputed (sampled or not) */
        double want, scale;
        tt_ref_gemm_at(ta, tb, k, alpha, A, lda, B, ldb, beta, C0, o->C.ld,
                       ck.first_i, ck.first_j, &want, &scale);
        /* in the caller's own (i, j) of C */
        int64_t ui = c->row ? ck.first_j : ck.first_i, uj = c->row ? ck.first_i : ck.first_j;
        failf(v, "%zu of %" PRId64 " %selements wrong; first C(%" PRId64 ",%" PRId64 ") = %.9g, "
                 "reference %.9g (bound %s, scale %.3g)",
              ck.bad, count, sampled ? "sampled " : "", ui, uj,
              o->C.p[ck.first_i + ck.first_j * o->C.ld], want,
              bitwise ? "bitwise" : split > 0 ? "gamma_(k+2) + 3xTF32 split" : "gamma_(k+2)", scale);
    }
    size_t ref_nonzero = 0; /* values that may underflow to 0 in float do not count */
    for (int64_t i = 0; i < count; ++i) ref_nonzero += fabs(R[i]) > bound.floor;
    if (ref_nonzero && !ck.nonzero) failf(v, "result is all zeros");
out:
    free(R);
    free(S);
    free(got);
}

/* Runs call `index`, judges it; returns 1 when it failed. */
static int fuzz_one(uint64_t seed, uint64_t index, const char *repro_prefix)
{
    fz_call c;
    tt_rng r;
    draw_call(seed, index, &c, &r);
    if (g.nonfinite_only && isfinite(c.alpha) && isfinite(c.beta) && !c.specials) {
        g.skipped++;
        return 0;
    }
    char what[768];
    describe(&c, what, sizeof what);
    operands o;
    verdict v = {"", 0};
    if (make_operands(&c, &o, &r)) {
        fprintf(stderr, "tsgemm-fuzz: out of memory for call %" PRIu64 ": %s\n", index, what);
        free_operands(&o);
        return 1;
    }
    /* what a crash inside the call prints (signal handler / sanitizer death callback) */
    snprintf(g_dying, sizeof g_dying, "tsgemm-fuzz: died in call %" PRIu64 ": %s\n%s --call %" PRIu64 "\n",
             index, what, repro_prefix, index);

    memset(&seen, 0, sizeof seen);
    RowMajorStrg = 0;
    struct tsgemm_stats s0, s1;
    pl_capture cap = {-1, NULL};
    const int capture = c.user_pos != 0; /* illegal calls: what the library prints is judged */
    tsgemm_get_stats(&s0);
    if (capture && pl_capture_begin(&cap)) {
        fprintf(stderr, "tsgemm-fuzz: cannot capture stderr\n");
        exit(2);
    }
    run_call(&c, &o);
    char *out = capture ? pl_capture_end(&cap) : NULL;
    tsgemm_get_stats(&s1);
    g_dying[0] = '\0';
    const char *path_text = tsgemm_last_path();
    const int path = path_index(path_text);
    g.paths[path]++;
    apis[c.api].calls++;
    check_counters(&v, &s0, &s1, path);

    const int quick = c.m == 0 || c.n == 0 || c.k == 0 || c.alpha == 0.0f;
    if (c.user_pos) {
        if (path != PATH_ILLEGAL) failf(&v, "path %s, expected illegal (parameter %d)", path_text, c.user_pos);
        check_report(&v, &c, out);
        size_t ca = tt_mat_any_changed(&o.A, o.snapA), cb = tt_mat_any_changed(&o.B, o.snapB);
        size_t cc = tt_mat_any_changed(&o.C, o.snapC);
        if (ca || cb || cc) failf(&v, "illegal call changed A %zu, B %zu, C %zu floats", ca, cb, cc);
    } else {
        if (seen.cblas_calls || seen.f77_calls)
            failf(&v, "legal call reported as illegal (handler received %d)", seen.info);
        if (quick && path != PATH_QUICK) failf(&v, "path %s, expected quick", path_text);
        if (!quick) {
            if (path != PATH_CPU && path != PATH_GPU && path != PATH_RETRY)
                failf(&v, "path %s for a computing call", path_text);
            else if (g.expect_gpu && path != PATH_GPU)
                failf(&v, "ran on %s, TSGEMM_TEST_EXPECT=gpu", path_text);
            else if (g.mode_cpu && path != PATH_CPU)
                failf(&v, "ran on %s, TSGEMM_MODE=cpu", path_text);
        }
        size_t ca = tt_mat_any_changed(&o.A, o.snapA), cb = tt_mat_any_changed(&o.B, o.snapB);
        size_t cout = tt_mat_outside_changed(&o.C, o.snapC);
        if (ca || cb || cout)
            failf(&v, "A changed %zu, B changed %zu, outside C's window changed %zu floats", ca, cb, cout);
        const int untouched = c.m == 0 || c.n == 0 || ((c.alpha == 0.0f || c.k == 0) && c.beta == 1.0f);
        if (untouched) {
            size_t cc = tt_mat_any_changed(&o.C, o.snapC);
            if (cc) failf(&v, "C changed in %zu floats; this call must not touch it", cc);
        } else {
            check_result(&v, &c, &o, &r, path);
        }
    }
    free(out);
    if (g.verbose) printf("call %" PRIu64 ": %s -> %s%s\n", index, what, path_text, v.bad ? " FAIL" : "");
    if (v.bad) {
        g.failures++;
        printf("FAIL call %" PRIu64 ": %s\n  %s\n  path %s; reproduce alone: %s --call %" PRIu64 "\n",
               index, what, v.why, path_text, repro_prefix, index);
        fflush(stdout);
    }
    free_operands(&o);
    return v.bad != 0;
}

/* ------------------------------------------------------------------ crashes */

#if defined(__SANITIZE_ADDRESS__)
static void on_sanitizer_death(void)
{
    if (g_dying[0]) {
        ssize_t w = write(2, g_dying, strlen(g_dying));
        (void)w;
    }
}
#else
static void on_fatal_signal(int sig)
{
    if (g_dying[0]) {
        ssize_t w = write(2, g_dying, strlen(g_dying));
        (void)w;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}
#endif

static void install_crash_reports(void)
{
#if defined(__SANITIZE_ADDRESS__)
    /* ASan owns SIGSEGV; it calls this before it exits (UBSan's -fno-sanitize-recover too) */
    __sanitizer_set_death_callback(on_sanitizer_death);
#else
    const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < COUNT_OF(sigs); ++i) signal(sigs[i], on_fatal_signal);
#endif
}

/* ------------------------------------------------------------------ main */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tsgemm-fuzz [--seed S] [--count N] [--seconds T] [--call N] [--keep-going]\n"
            "                   [--load LIB]... [--quiet] [--verbose]\n"
            "  --seed S      seed (default: from the clock, printed)\n"
            "  --count N     number of calls (default 10000; with --seconds alone: no limit)\n"
            "  --seconds T   stop after T seconds\n"
            "  --call N      run call N of the seed only (what a failure says to reproduce it)\n"
            "  --keep-going  do not stop at the first failing call\n"
            "  --load LIB    dlopen LIB first (RTLD_LOCAL), e.g. a numpy wheel's ILP64 OpenBLAS:\n"
            "                the library then sends ILP64 CBLAS calls there (the caller's own BLAS)\n"
            "  --nonfinite-only  run only the calls with special values (NaN/Inf/denormals in\n"
            "                A, B or C, or a non-finite alpha/beta); the others are drawn, not run\n"
            "  --quiet       print only failures and the summary line\n"
            "  --verbose     print every call\n"
            "environment: TSGEMM_MODE (read by the library), TSGEMM_TEST_EXPECT=gpu|auto\n");
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!s || !*s) return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end) return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t seed = 0, count = 10000, one_call = 0;
    double seconds = 0;
    int have_seed = 0, have_count = 0, have_call = 0, keep_going = 0, nload = 0;
    enum { MAX_LOAD = 4 };
    const char *load[MAX_LOAD];
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--seed")) bad = parse_u64(val, &seed), have_seed = 1, ++i;
        else if (!strcmp(a, "--count")) bad = parse_u64(val, &count), have_count = 1, ++i;
        else if (!strcmp(a, "--call")) bad = parse_u64(val, &one_call), have_call = 1, ++i;
        else if (!strcmp(a, "--seconds")) {
            char *end;
            seconds = val ? strtod(val, &end) : 0;
            bad = !val || *end || seconds <= 0;
            ++i;
        } else if (!strcmp(a, "--load")) {
            bad = !val || nload == MAX_LOAD;
            if (!bad) load[nload++] = val;
            ++i;
        } else if (!strcmp(a, "--keep-going")) keep_going = 1;
        else if (!strcmp(a, "--quiet")) g.quiet = 1;
        else if (!strcmp(a, "--nonfinite-only")) g.nonfinite_only = 1;
        else if (!strcmp(a, "--verbose")) g.verbose = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else bad = 1;
        if (bad) {
            usage(stderr);
            return 2;
        }
    }
    if (!have_seed) seed = mix64((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32)) % 1000000007u;
    if (seconds > 0 && !have_count) count = UINT64_MAX;
    if (have_call) g.verbose = 1;

    const char *expect = getenv("TSGEMM_TEST_EXPECT");
    const char *mode = getenv("TSGEMM_MODE");
    g.expect_gpu = expect && !strcmp(expect, "gpu");
    g.expect_auto = expect && !strcmp(expect, "auto");
    g.mode_cpu = mode && !strcasecmp(mode, "cpu");
    char info[256] = "not asked (TSGEMM_MODE=cpu)";
    /* starts the GPU when there is one: not in cpu mode, where the library never would */
    int have_gpu = !g.mode_cpu && tsgemm_kernel_info(info, sizeof info) == 0;
    if (expect && (!strcmp(expect, "gpu") || !strcmp(expect, "auto")) && !have_gpu) {
        printf("SKIP: %s\n", info); /* info says "no usable GPU: why" */
        return 77;
    }
    for (int i = 0; i < nload; ++i) /* RTLD_LOCAL, as numpy loads the OpenBLAS it bundles */
        if (!dlopen(load[i], RTLD_NOW | RTLD_LOCAL)) {
            fprintf(stderr, "tsgemm-fuzz: --load %s: %s\n", load[i], dlerror());
            return 2;
        }
    if (resolve_apis()) return 2;
    install_crash_reports();

    char repro[1024];
    const char *math = getenv("TSGEMM_MATH");
    int rl = snprintf(repro, sizeof repro, "%s%s%s%s%s --seed %" PRIu64 "%s", mode ? "TSGEMM_MODE=" : "",
                      mode ? mode : "", math && *math ? " TSGEMM_MATH=" : "", math && *math ? math : "",
                      mode || (math && *math) ? " tsgemm-fuzz" : "tsgemm-fuzz", seed,
                      g.nonfinite_only ? " --nonfinite-only" : "");
    for (int i = 0; i < nload && rl > 0 && (size_t)rl < sizeof repro; ++i)
        rl += snprintf(repro + rl, sizeof repro - (size_t)rl, " --load %s", load[i]);
    char names[512] = "";
    for (size_t i = 0; i < COUNT_OF(apis); ++i) {
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%s%s", l ? " " : "", apis[i].name,
                 apis[i].fn ? "" : " (not exported)");
    }
    if (!g.quiet) {
        printf("tsgemm-fuzz: seed %" PRIu64 ", TSGEMM_MODE=%s; names: %s\n", seed, mode ? mode : "(unset)", names);
        printf("tsgemm-fuzz: GPU: %s; CPU BLAS: %s\n", info, tsgemm_cpu_blas());
        fflush(stdout);
    }

    const double t0 = now_s();
    uint64_t done = 0;
    if (have_call) {
        fuzz_one(seed, one_call, repro);
        done = 1;
    } else {
        for (uint64_t i = 0; i < count; ++i) {
            int failed = fuzz_one(seed, i, repro);
            ++done;
            if (failed && !keep_going) {
                printf("  (in sequence: %s --count %" PRIu64 ")\n", repro, i + 1);
                break;
            }
            if (seconds > 0 && now_s() - t0 >= seconds) break;
        }
    }
    const double dt = now_s() - t0;
    tsgemm_release();
    if (g.expect_auto && !have_call && !g.failures) {
        struct tsgemm_stats st;
        tsgemm_get_stats(&st);
        if (st.gpu == 0) {
            printf("FAIL: TSGEMM_TEST_EXPECT=auto: none of %" PRIu64 " calls ran on the GPU "
                   "(stats.gpu = 0)\n", done);
            g.failures++;
        }
    }

    char per_api[512] = "", per_path[256] = "";
    for (size_t i = 0; i < COUNT_OF(apis); ++i) {
        size_t l = strlen(per_api);
        if (apis[i].fn)
            snprintf(per_api + l, sizeof per_api - l, " %s=%" PRIu64, apis[i].name, apis[i].calls);
        else
            snprintf(per_api + l, sizeof per_api - l, " %s=absent", apis[i].name);
    }
    for (int p = 0; p < NPATHS; ++p) {
        size_t l = strlen(per_path);
        if (p != PATH_OTHER || g.paths[p])
            snprintf(per_path + l, sizeof per_path - l, " %s=%" PRIu64, path_names[p], g.paths[p]);
    }
    printf("tsgemm-fuzz: seed %" PRIu64 ", %" PRIu64 " calls in %.2f s (TSGEMM_MODE=%s) | api%s | "
           "path%s | special values %" PRIu64 ", bitwise %" PRIu64 ", sampled %" PRIu64
           "%s | failures %" PRIu64 "\n",
           seed, done, dt, mode ? mode : "(unset)", per_api, per_path, g.nonfinite, g.bitwise,
           g.sampled, g.nonfinite_only ? " (--nonfinite-only: the others drawn, not run)" : "",
           g.failures);
    return g.failures ? 1 : 0;
}
