/*
 * tsg_testutil.h — helpers shared by the test tiers: a double-precision reference GEMM with exact
 * BLAS semantics, matrices with padding, guard bands and sentinels, exact-extent allocations next
 * to an unmapped page, random fills, and the result checks of docs/TESTING.md.
 * Test-only code: never linked into libtsgemm.so.
 */
#ifndef TSG_TESTUTIL_H
#define TSG_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Timing for the probes and speed lines: seconds on CLOCK_MONOTONIC, and the median of n values
 * (sorts v in place; n >= 1). */
double tt_now_s(void);
double tt_median(double *v, int n);

/* Whether c is one of the comma-separated numbers in list ("7" or "7,9,11"): the knobs and
 * arguments that name kernel configurations. */
int tt_in_list(const char *list, int c);

/* xorshift64* — reproducible inputs from a seed printed on failure. */
typedef struct tt_rng { uint64_t s; } tt_rng;
void tt_seed(tt_rng *r, uint64_t seed);
uint64_t tt_next(tt_rng *r);
float tt_uniform(tt_rng *r);          /* uniform in [-1, 1) */
float tt_small_int(tt_rng *r, int lo, int hi); /* an integer in [lo, hi], as float */

/*
 * A column-major matrix of rows x cols with leading dimension ld, placed `offset` floats after a
 * 64-byte aligned start (offset 1..3 exercises unaligned pointers), inside a buffer whose every
 * other float — padding rows ld > rows, `guard` floats before and after — holds a sentinel.
 * The last column's padding is kept up to TT_GUARD floats, so a huge ld costs no memory when
 * there is one column (or none).
 */
typedef struct tt_mat {
    float *mem;   /* whole buffer (sentinels + elements)        */
    size_t total; /* floats in mem                                */
    float *p;     /* the matrix: element (i, j) at p[i + j*ld]    */
    int64_t rows, cols, ld;
    size_t first; /* index of p[0] in mem                         */
} tt_mat;

#define TT_GUARD 64
extern const float tt_sentinel; /* 12345.678f: a value no product here produces */

int tt_mat_alloc(tt_mat *m, int64_t rows, int64_t cols, int64_t ld, int offset);
void tt_mat_free(tt_mat *m);
void tt_mat_fill_uniform(tt_mat *m, tt_rng *r);
void tt_mat_fill_int(tt_mat *m, tt_rng *r, int lo, int hi);
void tt_mat_fill_value(tt_mat *m, float v);   /* e.g. NaN poison */
/* Sets the padding rows (rows..ld-1 of every column) to v, e.g. NaN: padding read into a result
 * then shows as NaN. Guard bands keep the sentinel. */
void tt_mat_fill_padding(tt_mat *m, float v);
/* A copy of the whole buffer, to check later that nothing outside the window changed. */
float *tt_mat_snapshot(const tt_mat *m);
/* Number of floats outside the rows x cols window that differ bitwise from the snapshot. */
size_t tt_mat_outside_changed(const tt_mat *m, const float *snap);
/* Number of floats anywhere in the buffer that differ bitwise from the snapshot. */
size_t tt_mat_any_changed(const tt_mat *m, const float *snap);

/*
 * Exactly `count` floats ending where an unmapped page begins: touching element `count` faults.
 * Returns NULL on failure. Free with tt_guarded_free(ptr, count).
 */
float *tt_guarded_alloc(size_t count);
void tt_guarded_free(float *p, size_t count);

/*
 * Storage of an operand of a user-level call as column-major rows x cols: which = 'A' (op(A) is
 * m x k), 'B' (op(B) is k x n) or 'C' (m x n, trans ignored); trans 'N' or 'T' (stored as X^T);
 * row_major: row-major data is stored as its transpose.
 */
void tt_stored_shape(int row_major, char which, char trans, int64_t m, int64_t n, int64_t k,
                     int64_t *rows, int64_t *cols);

/*
 * Reference: R = alpha*op(A)*op(B) + beta*C in double, column-major, R is m x n with ld m.
 * BLAS semantics: alpha == 0 or k == 0 never reads A or B (C = beta*C, the quick-return rule);
 * beta == 0 never reads C. If absr != NULL it receives |alpha|*(|op(A)||op(B)|) + |beta|*|C|
 * (the error-bound scale). The arithmetic follows reference SGEMM (BLAS/SRC/sgemm.f) element by
 * element, so that non-finite inputs give non-finite results exactly where the reference BLAS
 * gives them: op(A) = A: TEMP = ALPHA*B(L,J), C(I,J) += TEMP*A(I,L) with no zero skipping
 * (alpha = Inf beside a zero in B gives NaN); op(A) = A^T: C(I,J) = ALPHA*sum(A(L,I)*B(L,J)) +
 * BETA*C(I,J). transa/transb: N n T t C c.
 */
void tt_ref_gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, double alpha,
                 const float *a, int64_t lda, const float *b, int64_t ldb, double beta,
                 const float *c, int64_t ldc, double *r, double *absr);
/* One element (i, j) of the same reference (sampled checks of large shapes). */
void tt_ref_gemm_at(char transa, char transb, int64_t k, double alpha, const float *a,
                    int64_t lda, const float *b, int64_t ldb, double beta, const float *c,
                    int64_t ldc, int64_t i, int64_t j, double *r, double *absr);

typedef struct tt_check {
    size_t bad;          /* elements outside the bound (NaN counts as outside unless expected) */
    size_t nonzero;      /* elements of C that are not zero                                   */
    double rel_fro;      /* ||C - R||_F / ||R||_F                                              */
    double worst_ratio;  /* max |c - r| / bound                                                */
    int64_t first_i, first_j; /* first bad element, -1 when none                              */
} tt_check;

/*
 * Compares C (m x n, ldc) against R. Element bound (docs/TESTING.md):
 * |c - r| <= gamma * (k + 2) * u * absr, with u = 2^-24 (unit roundoff of float): k products
 * summed in any order, then the alpha and beta roundings (Higham, 3.5). gamma = 0
 * demands bitwise equality (integer inputs whose partial sums stay below 2^24 are exact).
 * NaN/Inf in R must be matched by NaN/Inf in C (same class), never by a finite value.
 */
tt_check tt_compare(const float *c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                    const double *r, const double *absr, double gamma);

/*
 * The same check on a sample of C's elements, for shapes whose full double reference would cost
 * too much: the first and last row and column (up to `edge` elements of each) and `random` other
 * elements drawn from r. c0 is the caller's original C (read only when beta != 0). Returns the
 * number of elements outside the bound (NaN in the result counts) and the first one in *fi, *fj.
 */
size_t tt_check_sampled(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                        const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                        const float *c0, int64_t ldc0, const float *c, int64_t ldc, tt_rng *r,
                        int edge, int random, int64_t *fi, int64_t *fj);

/* The same with two extensions (tt_compare is tt_compare_bound with floor 0, any_nonfinite 0). */
typedef struct tt_bound {
    double gamma;      /* as tt_compare's gamma; 0 with floor 0 demands bitwise equality      */
    double floor;      /* absolute allowance added to every element's bound: gradual underflow
                          (denormal alpha, beta or inputs) loses up to TT_ETA/2 per product,
                          which no relative bound covers                                     */
    int any_nonfinite; /* 1: a non-finite reference element is matched by any non-finite
                          result (NaN or either Inf: the class depends on the order in which a
                          library applies alpha, e.g. Inf*(a*b) vs (Inf*b)*a with b = 0)       */
    double split;      /* relative allowance added to gamma (k + 2) u, times the same absr:
                          TT_SPLIT3 for TSGEMM_MATH=3xtf32 calls, TT_SPLIT1 for
                          TSGEMM_MATH=tf32 calls, 0 otherwise                                 */
} tt_bound;
tt_check tt_compare_bound(const float *c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                          const double *r, const double *absr, const tt_bound *bound);

/* tt_check_sampled against a bound of the caller's (tt_check_sampled is this with TT_GAMMA, floor
 * 0, any_nonfinite 0 and split 0): the tensor-core maths' checks pass TT_SPLIT3 or TT_SPLIT1. */
size_t tt_check_sampled_bound(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                              const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                              const float *c0, int64_t ldc0, const float *c, int64_t ldc, tt_rng *r,
                              int edge, int random, int64_t *fi, int64_t *fj, const tt_bound *bound);

/* The smallest positive float (denormal), 2^-149: the unit of absolute underflow error. */
#define TT_ETA 0x1p-149

/* Bound factor used by the tests: the classic bound gamma_(k+2) ~ (k+2)u holds for any summation
 * order (blocked, split-K, FMA); 2 is a safety factor against second-order terms, far below what
 * a real indexing or race bug produces (errors of the size of the elements themselves). */
#define TT_GAMMA 2.0

/* What 3xTF32 (TSGEMM_MATH=3xtf32, include/tsgemm.h) adds to each element's bound, relative to
 * (|A||B|)ij: each operand x = big + small + d with big = TF32(x), small = TF32(x - big),
 * |x - big| <= 2^-11 |x| and |d| <= 2^-11 |x - big| <= 2^-22 |x|; the product drops small*small
 * and both d terms, at most 3 * 2^-22 (1 + 2^-11) of |a b|, rounded up to 2^-20 for the
 * tensor cores' truncating sums of the three parts (second order). Seen on the H100: 6.2 u at
 * k = 1, where the FP32 part of the bound, 2 (k + 2) u, is 6 u (docs/NOTES.md, 2026-12-06). */
#define TT_SPLIT3 0x1p-20

/* What plain TF32 (TSGEMM_MATH=tf32, reduced precision) adds to each element's bound, relative to
 * (|A||B|)ij: each operand is rounded to TF32's 10 fraction bits, |x - TF32(x)| <= 2^-11 |x| (to
 * nearest, either tie rule), or truncated by the tensor core, |x - trunc(x)| < 2^-10 |x| (an
 * operand read raw: kernels/tf32/tsg_kernel_tf32.cuh "BRAW"), so a product is off by at most
 * (2^-10 + 2^-11 + 2^-21) |a b| < 1.51 * 2^-10; rounded up to 2^-9 for the tensor cores'
 * truncating sums (second order). About 2^15 u: a wrong index is off by the size of the elements
 * themselves, 2^9 times more, but a lost k-tile (32 of k products) can hide in it once k passes
 * a few thousand; that stays the FP32 and 3xTF32 checks' job. */
#define TT_SPLIT1 0x1p-9

/* The allowance above for a GPU call of the given math, as include/tsgemm.h numbers them
 * (TSGEMM_MATH_FP32 0, TSGEMM_MATH_3XTF32 1, TSGEMM_MATH_TF32 2): 0, TT_SPLIT3 or TT_SPLIT1. */
static inline double tt_math_split(int math)
{
    return math == 1 ? TT_SPLIT3 : math == 2 ? TT_SPLIT1 : 0.0;
}

/* And near underflow: TF32 keeps 10 fraction bits of a subnormal too, so its spacing there is
 * 2^-136 and a subnormal operand's big + small misses it by up to 2^-137, absolutely (the H200:
 * k = 1 products of a planted subnormal came out up to 3.3% off, about 2^-138). Per product at
 * most 2^-137 (|a| + |b|); callers add it to the floor with their bound on |a| + |b|. */
#define TT_SPLIT3_ABS 0x1p-137

#endif /* TSG_TESTUTIL_H */
