/*
 * fuzz.h — what tsgemm-fuzz's two units share (tests/fuzz): the names under test (apis, filled by
 * tsgemm-fuzz.c's resolve_apis), one drawn call (fz_call), the random draws' helpers, and the
 * call generator of fuzz_draw.c (draw_call, describe, exact_scalar). Test code only.
 */
#ifndef TSG_FUZZ_H
#define TSG_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "tsg_testutil.h" /* tt_rng */

#define COUNT_OF(x) (sizeof(x) / sizeof((x)[0]))

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

/* every name fuzzed (tsgemm-fuzz.c); avail[0, navail) the indexes the library exports */
#define FZ_NAPIS 8
extern api apis[FZ_NAPIS];
extern int avail[FZ_NAPIS], navail;

static inline int is_cblas(api_kind k) { return k == K_CBLAS || k == K_CBLAS64; }
static inline int is_64(api_kind k) { return k == K_CBLAS64 || k == K_F77_64; }

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

static inline uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline uint64_t rnd(tt_rng *r, uint64_t n) { return tt_next(r) % n; }
static inline int chance(tt_rng *r, int per_mille) { return (int)rnd(r, 1000) < per_mille; }
static inline int64_t max1(int64_t v) { return v > 1 ? v : 1; }

/* fuzz_draw.c: call `index` of `seed` (every draw from its own generator r: the call alone is
 * reproducible), legal or with one or two arguments made illegal, and the reference BLAS's error
 * positions for it (c->user_pos, c->raw_pos) */
void draw_call(uint64_t seed, uint64_t index, fz_call *c, tt_rng *r);
/* the call as one line: the name and every argument as passed */
void describe(const fz_call *c, char *buf, size_t len);
/* x is one of the scalars whose products stay exact (2, -2, 0.5, -0.5, 3) */
int exact_scalar(float x);

#endif /* TSG_FUZZ_H */
