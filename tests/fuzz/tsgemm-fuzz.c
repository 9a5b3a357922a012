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
 * Owns: drawing calls, running them, judging them, the summary. Must not: trust src/ for what to
 * expect — the expected error positions are modelled here from the reference BLAS (CBLAS
 * cblas_sgemm.c + SGEMM), independently of tsg_problem.c.
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

#include "pl_stats.h" /* tests/preload: stderr capture around one call */
#include "tsg_testutil.h"
#include "tsgemm.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#define COUNT_OF(x) (sizeof(x) / sizeof((x)[0]))

/* ------------------------------------------------------------------ the names under test */

typedef void (*cblas32_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                           int, float, float *, int);
typedef void (*f77_32_fn)(const char *, const char *, const int *, const int *, const int *,
                          const float *, const float *, const int *, const float *, const int *,
                          const float *, float *, const int *);
typedef void (*cblas64_fn)(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t,
                           const float *, int64_t, float, float *, int64_t);
typedef void (*f77_64_fn)(const char *, const char *, const int64_t *, const int64_t *,
                          const int64_t *, const float *, const float *, const int64_t *,
                          const float *, const int64_t *, const float *, float *, const int64_t *);

typedef enum { K_CBLAS, K_F77, K_CBLAS64, K_F77_64 } api_kind;

/* How an illegal call through a name must be reported (docs/DESIGN.md, shim/tsg_xerbla.c). */
typedef enum {
    R_CBLAS_HANDLER, /* the program's cblas_xerbla, reference protocol, nothing printed   */
    R_F77_HANDLER,   /* the program's xerbla_, Fortran position, nothing printed          */
    R_LINE,          /* no handler; one printed line with the user-facing position        */
    R_ANY            /* names being added: either of the above, exactly once              */
} report_kind;

typedef struct api {
    const char *name;
    api_kind kind;
    int required;       /* 1: the library must export it; 0: fuzzed when exported */
    report_kind report;
    void *fn;           /* resolved in libtsgemm.so, or NULL */
    uint64_t calls;
} api;

static api apis[] = {
    {"cblas_sgemm", K_CBLAS, 1, R_CBLAS_HANDLER, NULL, 0},
    {"sgemm_", K_F77, 1, R_F77_HANDLER, NULL, 0},
    {"cblas_sgemm64_", K_CBLAS64, 1, R_LINE, NULL, 0},
    {"sgemm_64_", K_F77_64, 1, R_LINE, NULL, 0},
    {"scipy_cblas_sgemm64_", K_CBLAS64, 1, R_LINE, NULL, 0},
    {"scipy_sgemm_64_", K_F77_64, 1, R_LINE, NULL, 0},
    {"scipy_cblas_sgemm", K_CBLAS, 0, R_ANY, NULL, 0},
    {"scipy_sgemm_", K_F77, 0, R_ANY, NULL, 0},
};
static int avail[COUNT_OF(apis)], navail;

static int is_cblas(api_kind k) { return k == K_CBLAS || k == K_CBLAS64; }
static int is_64(api_kind k) { return k == K_CBLAS64 || k == K_F77_64; }

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

typedef struct fz_call {
    uint64_t index;
    int api;
    int layout, transa, transb; /* CBLAS values passed (possibly illegal); F77: unused      */
    const char *fta, *ftb;      /* Fortran strings passed (first character counts)           */
    char ta, tb;                /* op() of the legal call ('N'/'T'): storage and reference   */
    int row;                    /* row-major storage (CBLAS, legal layout 101)               */
    int64_t m, n, k;            /* passed (possibly illegal)                                 */
    int64_t lda, ldb, ldc;      /* passed (possibly illegal)                                 */
    int64_t sm, sn, sk;         /* the legal sizes the buffers are made for                  */
    int off_a, off_b, off_c;
    float alpha, beta;
    int ints;                   /* small-integer inputs                                      */
    int specials;               /* 1: NaN/Inf/denormal/-0 planted in A, B or C               */
    int null_ab;                /* A and B passed as NULL (alpha = 0 or k = 0)               */
    int null_c;                 /* C passed as NULL (m = 0 or n = 0)                         */
    int user_pos, raw_pos;      /* expected error positions; 0 = legal                      */
} fz_call;

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t rnd(tt_rng *r, uint64_t n) { return tt_next(r) % n; }
static int chance(tt_rng *r, int per_mille) { return (int)rnd(r, 1000) < per_mille; }

static const int64_t primes[] = {2,   3,   5,   7,   11,  13,  17,  19,  23,  29,  31,  37,
                                 41,  43,  47,  53,  59,  61,  67,  71,  73,  79,  83,  89,
                                 97,  101, 103, 107, 109, 113, 131, 137, 139, 149, 151, 157,
                                 163, 167, 173, 179, 181, 191, 193, 197, 199, 211, 223, 251};
static const int64_t tile_edges[] = {127, 128, 129, 127, 128, 129, 255, 256, 257,
                                     15,  16,  17,  31,  32,  33,  63,  64,  65};

/* Mostly small (10^5 calls in a few minutes with a double reference on the GPU machine), often
 * at tile edges; large sizes come from draw_call. */
static int64_t draw_dim(tt_rng *r)
{
    uint64_t u = rnd(r, 1000);
    if (u < 40) return 0;
    if (u < 110) return 1;
    if (u < 420) return 2 + (int64_t)rnd(r, 15);
    if (u < 640) return 17 + (int64_t)rnd(r, 48);
    if (u < 760) return primes[rnd(r, COUNT_OF(primes))];
    if (u < 950) return tile_edges[rnd(r, COUNT_OF(tile_edges))];
    return 65 + (int64_t)rnd(r, 236);
}

static float denormal(tt_rng *r)
{
    uint32_t bits = 1 + (uint32_t)rnd(r, 0x7fffff);
    if (chance(r, 500)) bits |= 0x80000000u;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static const float exact_scalars[] = {2.0f, -2.0f, 0.5f, -0.5f, 3.0f};

/* |alpha|, |beta| <= 4 and |inputs| <= 8 keep every finite call far from FP32 overflow. */
static float draw_scalar(tt_rng *r, int beta)
{
    uint64_t u = rnd(r, 1000);
    if (u < (beta ? 250u : 80u)) return chance(r, 100) ? -0.0f : 0.0f;
    if (u < 420) return 1.0f;
    if (u < 500) return -1.0f;
    if (u < 580) return exact_scalars[rnd(r, COUNT_OF(exact_scalars))];
    if (u < 950) return 4.0f * tt_uniform(r);
    if (u < 970) return denormal(r);
    if (u < 982) return NAN;
    return chance(r, 500) ? INFINITY : -INFINITY;
}

static int exact_scalar(float x)
{
    if (x == 0.0f || x == 1.0f || x == -1.0f) return 1;
    for (size_t i = 0; i < COUNT_OF(exact_scalars); ++i)
        if (x == exact_scalars[i]) return 1;
    return 0;
}

static const char *const f77_n[] = {"N", "n", "No transpose", "no"};
static const char *const f77_t[] = {"T", "t", "C", "c", "Transpose", "conjugate transpose"};
static const char *const f77_bad[] = {"X", " ", "", "a", "0", "y", "R"};
static const int bad_enums[] = {0, -1, 100, 103, 110, 114, 131, 0x7fffffff};

static int64_t max1(int64_t v) { return v > 1 ? v : 1; }

/* Reference positions (CBLAS cblas_sgemm.c + cblas_xerbla.c, BLAS SGEMM) of the first bad
 * argument: user = in the caller's own list, raw = what the program's handler receives (row-major
 * CBLAS checks the swapped problem: a bad M arrives as 5, lda as 11, and the handler swaps back). */
/* One argument check of the reference, in its order: bad or not, and the positions reported. */
typedef struct arg_check {
    int bad, raw, user;
} arg_check;

static void first_bad(const arg_check *ch, size_t n, fz_call *c)
{
    c->raw_pos = c->user_pos = 0;
    for (size_t i = 0; i < n; ++i)
        if (ch[i].bad) {
            c->raw_pos = ch[i].raw;
            c->user_pos = ch[i].user;
            return;
        }
}

static void expected_position(fz_call *c)
{
    const int64_t m = c->m, n = c->n, k = c->k;
    if (is_cblas(apis[c->api].kind)) {
        const char ta = c->transa == 111 ? 'N' : 'T', tb = c->transb == 111 ? 'N' : 'T';
        const int row = c->layout == 101;
        /* row-major: the Fortran problem is (TB, TA, N, M, K, B, ldb, A, lda, C, ldc); its
         * positions reach the handler, which swaps 4<->5 and 9<->11 back */
        const arg_check ch[] = {
            {c->layout != 101 && c->layout != 102, 1, 1},
            {c->transa < 111 || c->transa > 113, 2, 2},
            {c->transb < 111 || c->transb > 113, 3, 3},
            {row ? n < 0 : m < 0, 4, row ? 5 : 4},
            {row ? m < 0 : n < 0, 5, row ? 4 : 5},
            {k < 0, 6, 6},
            {row ? c->ldb < max1(tb == 'N' ? n : k) : c->lda < max1(ta == 'N' ? m : k), 9, row ? 11 : 9},
            {row ? c->lda < max1(ta == 'N' ? k : m) : c->ldb < max1(tb == 'N' ? k : n), 11, row ? 9 : 11},
            {c->ldc < max1(row ? n : m), 14, 14},
        };
        first_bad(ch, COUNT_OF(ch), c);
    } else {
        const char a0 = c->fta[0], b0 = c->ftb[0];
        const char ta = (a0 == 'N' || a0 == 'n') ? 'N' : 'T', tb = (b0 == 'N' || b0 == 'n') ? 'N' : 'T';
        const arg_check ch[] = {
            {!a0 || !strchr("NnTtCc", a0), 1, 1},     {!b0 || !strchr("NnTtCc", b0), 2, 2},
            {m < 0, 3, 3},                             {n < 0, 4, 4},
            {k < 0, 5, 5},                             {c->lda < max1(ta == 'N' ? m : k), 8, 8},
            {c->ldb < max1(tb == 'N' ? k : n), 10, 10}, {c->ldc < max1(m), 13, 13},
        };
        first_bad(ch, COUNT_OF(ch), c);
    }
}

static int64_t bad_size(tt_rng *r, api_kind kind)
{
    if (chance(r, 100)) return is_64(kind) ? INT64_MIN : INT32_MIN;
    return -1 - (int64_t)rnd(r, 5);
}

/* One or two arguments made illegal; the buffers stay those of the legal call. */
static void make_illegal(tt_rng *r, fz_call *c)
{
    const api_kind kind = apis[c->api].kind;
    const int nbad = chance(r, 250) ? 2 : 1;
    for (int t = 0; t < nbad; ++t) {
        int64_t rows, cols;
        switch (rnd(r, 7)) {
        case 0:
            if (is_cblas(kind)) {
                c->layout = bad_enums[rnd(r, COUNT_OF(bad_enums))];
                break;
            } /* Fortran has no layout: a bad TRANSA instead */
            /* fall through */
        case 1:
            if (is_cblas(kind)) c->transa = bad_enums[rnd(r, COUNT_OF(bad_enums))];
            else c->fta = f77_bad[rnd(r, COUNT_OF(f77_bad))];
            break;
        case 2:
            if (is_cblas(kind)) c->transb = bad_enums[rnd(r, COUNT_OF(bad_enums))];
            else c->ftb = f77_bad[rnd(r, COUNT_OF(f77_bad))];
            break;
        case 3: c->m = bad_size(r, kind); break;
        case 4: c->n = bad_size(r, kind); break;
        case 5: c->k = bad_size(r, kind); break;
        default: {
            int which = (int)rnd(r, 3);
            tt_stored_shape(c->row, "ABC"[which], which == 0 ? c->ta : c->tb, c->sm, c->sn, c->sk,
                            &rows, &cols);
            int64_t bad = max1(rows) - 1 - (int64_t)rnd(r, 2); /* 0 or -1 when rows <= 1 */
            if (which == 0) c->lda = bad;
            else if (which == 1) c->ldb = bad;
            else c->ldc = bad;
        }
        }
    }
}

static int64_t draw_pad(tt_rng *r)
{
    uint64_t u = rnd(r, 100);
    if (u < 50) return 0;
    if (u < 75) return 1 + (int64_t)rnd(r, 3);
    if (u < 90) return 4 + (int64_t)rnd(r, 13);
    return 17 + (int64_t)rnd(r, 184);
}

static int64_t huge_ld(tt_rng *r, api_kind kind)
{
    static const int64_t big64[] = {INT32_MAX, (int64_t)1 << 31, ((int64_t)1 << 32) + 3,
                                    (int64_t)1 << 40, INT64_MAX / 2, INT64_MAX};
    if (!is_64(kind)) return INT32_MAX - (int64_t)rnd(r, 16);
    return big64[rnd(r, COUNT_OF(big64))];
}

static int draw_off(tt_rng *r) { return chance(r, 500) ? 0 : 1 + (int)rnd(r, 3); }

/* Every draw of call `index` comes from its own generator: the call alone is reproducible. */
static void draw_call(uint64_t seed, uint64_t index, fz_call *c, tt_rng *r)
{
    memset(c, 0, sizeof *c);
    tt_seed(r, mix64(seed ^ mix64(index)));
    c->index = index;
    c->api = avail[rnd(r, (uint64_t)navail)];
    const api_kind kind = apis[c->api].kind;
    const uint64_t ta = rnd(r, 20), tb = rnd(r, 20); /* N 45%, T 40%, C 15% */
    c->ta = ta < 9 ? 'N' : 'T';
    c->tb = tb < 9 ? 'N' : 'T';
    if (is_cblas(kind)) {
        c->row = chance(r, 500);
        c->layout = c->row ? 101 : 102;
        c->transa = ta < 9 ? 111 : ta < 17 ? 112 : 113;
        c->transb = tb < 9 ? 111 : tb < 17 ? 112 : 113;
    } else {
        c->layout = 102;
        c->fta = c->ta == 'N' ? f77_n[rnd(r, COUNT_OF(f77_n))] : f77_t[rnd(r, COUNT_OF(f77_t))];
        c->ftb = c->tb == 'N' ? f77_n[rnd(r, COUNT_OF(f77_n))] : f77_t[rnd(r, COUNT_OF(f77_t))];
    }
    int64_t d[3] = {draw_dim(r), draw_dim(r), draw_dim(r)};
    if (chance(r, 6)) { /* rarely one large size, more rarely two */
        d[rnd(r, 3)] = 1000 + (int64_t)rnd(r, 2001);
        if (chance(r, 50)) d[rnd(r, 3)] = 1000 + (int64_t)rnd(r, 2001);
        if ((double)d[0] * (double)d[1] * (double)d[2] > 2e9 && d[0] * d[1] > 0)
            d[2] = (int64_t)(2e9 / ((double)d[0] * (double)d[1])) + 1;
    }
    c->m = c->sm = d[0];
    c->n = c->sn = d[1];
    c->k = c->sk = d[2];
    c->alpha = draw_scalar(r, 0);
    c->beta = draw_scalar(r, 1);
    c->ints = chance(r, 200);
    c->specials = chance(r, 40);
    c->off_a = draw_off(r);
    c->off_b = draw_off(r);
    c->off_c = draw_off(r);
    int64_t *lds[3] = {&c->lda, &c->ldb, &c->ldc};
    for (int w = 0; w < 3; ++w) {
        int64_t rows, cols;
        tt_stored_shape(c->row, "ABC"[w], w == 0 ? c->ta : c->tb, c->m, c->n, c->k, &rows, &cols);
        *lds[w] = max1(rows) + draw_pad(r);
        /* one column or none: any ld >= rows is legal and costs no memory, so try huge ones
         * (an ld*cols copy or a 32-bit product would show) */
        if (cols <= 1 && chance(r, 100)) *lds[w] = huge_ld(r, kind);
    }
    c->null_ab = (c->alpha == 0.0f || c->k == 0) && chance(r, 500);
    c->null_c = (c->m == 0 || c->n == 0) && chance(r, 300);
    if (chance(r, 30)) make_illegal(r, c);
    expected_position(c);
}

static void describe(const fz_call *c, char *buf, size_t len)
{
    const api *a = &apis[c->api];
    int n;
    if (is_cblas(a->kind))
        n = snprintf(buf, len, "%s(layout=%d, transa=%d, transb=%d, ", a->name, c->layout,
                     c->transa, c->transb);
    else
        n = snprintf(buf, len, "%s(transa=\"%s\", transb=\"%s\", ", a->name, c->fta, c->ftb);
    if (n < 0 || (size_t)n >= len) return;
    snprintf(buf + n, len - (size_t)n,
             "m=%" PRId64 ", n=%" PRId64 ", k=%" PRId64 ", alpha=%.9g, A%s+%d, lda=%" PRId64
             ", B%s+%d, ldb=%" PRId64 ", beta=%.9g, C%s+%d, ldc=%" PRId64 ") %s inputs%s%s",
             c->m, c->n, c->k, c->alpha, c->null_ab ? "=NULL " : "", c->off_a, c->lda,
             c->null_ab ? "=NULL " : "", c->off_b, c->ldb, c->beta, c->null_c ? "=NULL " : "",
             c->off_c, c->ldc, c->ints ? "small-integer" : "uniform",
             c->specials ? ", NaN/Inf/denormals planted" : "",
             c->user_pos ? ", illegal" : "");
}

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
    /* a GPU call in TSGEMM_MATH=3xtf32 (the family takes it, or the FP32 kernels do: either is
     * within this bound) may also carry the split's error (tests/support/tsg_testutil.h) */
    const double split = path == PATH_GPU && tsgemm_get_math() == TSGEMM_MATH_3XTF32 ? TT_SPLIT3 : 0.0;
    /* the floor: gradual underflow, and in 3xTF32 the split's absolute error near underflow
     * (TT_SPLIT3_ABS per unit of |a| + |b| <= 16) */
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
