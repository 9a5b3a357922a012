/*
 * fuzz_draw.c — tsgemm-fuzz's call generator: sizes (mostly small, often at tile edges, some
 * huge leading dimensions), scalars, transposes and layouts as each name spells them, paddings
 * and offsets, planted specials, and illegal arguments with the positions the reference BLAS
 * reports for them (CBLAS cblas_sgemm.c + cblas_xerbla.c, BLAS SGEMM), modelled here
 * independently of src/tsg_problem.c.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"

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

int exact_scalar(float x)
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
void draw_call(uint64_t seed, uint64_t index, fz_call *c, tt_rng *r)
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

void describe(const fz_call *c, char *buf, size_t len)
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
