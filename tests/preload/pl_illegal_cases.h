/*
 * pl_illegal_cases.h — the illegal SGEMM calls of fault class 9, with the answers the reference
 * BLAS gives (netlib CBLAS cblas_sgemm.c + cblas_xerbla.c, BLAS SRC/sgemm.f).
 *
 * user_pos: the position in the caller's own argument list (what a printed report names):
 *   CBLAS 1 layout, 2 TransA, 3 TransB, 4 M, 5 N, 6 K, 9 lda, 11 ldb, 14 ldc;
 *   Fortran 1 TRANSA, 2 TRANSB, 3 M, 4 N, 5 K, 8 LDA, 10 LDB, 13 LDC.
 * raw_info: what the reference hands a program's cblas_xerbla. Row-major calls are checked on the
 * swapped problem (C^T = op(B)^T op(A)^T), so a bad M arrives as 5, N as 4, lda as 11, ldb as 9
 * (the handler swaps back when RowMajorStrg is set); layout/TransA/TransB/K/ldc keep 1/2/3/6/14.
 * With two bad arguments the first one in the (swapped) Fortran order wins: row-major M < 0 and
 * N < 0 reports N.
 */
#ifndef PL_ILLEGAL_CASES_H
#define PL_ILLEGAL_CASES_H

enum { PL_ROW = 101, PL_COL = 102, PL_N = 111, PL_T = 112, PL_BAD = 99 };

struct pl_cblas_illegal {
    const char *what;
    int layout, transa, transb, m, n, k, lda, ldb, ldc;
    int user_pos, raw_info;
};

/* Legal bases: m = 3, n = 4, k = 5. Column-major N,N: lda >= 3, ldb >= 5, ldc >= 3.
 * Row-major N,N: lda >= k = 5, ldb >= n = 4, ldc >= n = 4. */
static const struct pl_cblas_illegal pl_cblas_cases[] = {
    {"col: bad layout", 0, PL_N, PL_N, 3, 4, 5, 3, 5, 3, 1, 1},
    {"col: bad layout and TransA", PL_BAD, PL_BAD, PL_N, 3, 4, 5, 3, 5, 3, 1, 1},
    {"col: bad TransA", PL_COL, PL_BAD, PL_N, 3, 4, 5, 3, 5, 3, 2, 2},
    {"col: bad TransB", PL_COL, PL_N, PL_BAD, 3, 4, 5, 3, 5, 3, 3, 3},
    {"col: M < 0", PL_COL, PL_N, PL_N, -1, 4, 5, 3, 5, 3, 4, 4},
    {"col: N < 0", PL_COL, PL_N, PL_N, 3, -1, 5, 3, 5, 3, 5, 5},
    {"col: K < 0", PL_COL, PL_N, PL_N, 3, 4, -1, 3, 5, 3, 6, 6},
    {"col: lda < M", PL_COL, PL_N, PL_N, 3, 4, 5, 2, 5, 3, 9, 9},
    {"col: TransA=T, lda < K", PL_COL, PL_T, PL_N, 3, 4, 5, 4, 5, 3, 9, 9},
    {"col: ldb < K", PL_COL, PL_N, PL_N, 3, 4, 5, 3, 4, 3, 11, 11},
    {"col: TransB=T, ldb < N", PL_COL, PL_N, PL_T, 3, 4, 5, 3, 3, 3, 11, 11},
    {"col: ldc < M", PL_COL, PL_N, PL_N, 3, 4, 5, 3, 5, 2, 14, 14},
    {"col: ldc = 0 with M = 0", PL_COL, PL_N, PL_N, 0, 4, 5, 1, 5, 0, 14, 14},
    {"col: M < 0 and N < 0", PL_COL, PL_N, PL_N, -1, -1, 5, 3, 5, 3, 4, 4},
    {"col: bad TransA and M < 0", PL_COL, PL_BAD, PL_N, -1, 4, 5, 3, 5, 3, 2, 2},
    {"col: lda and ldc bad", PL_COL, PL_N, PL_N, 3, 4, 5, 2, 5, 2, 9, 9},
    {"col: K < 0 and ldb bad", PL_COL, PL_N, PL_N, 3, 4, -1, 3, 0, 3, 6, 6},
    {"row: bad TransA", PL_ROW, PL_BAD, PL_N, 3, 4, 5, 5, 4, 4, 2, 2},
    {"row: bad TransB", PL_ROW, PL_N, PL_BAD, 3, 4, 5, 5, 4, 4, 3, 3},
    {"row: bad TransA and TransB", PL_ROW, PL_BAD, PL_BAD, 3, 4, 5, 5, 4, 4, 2, 2},
    {"row: M < 0", PL_ROW, PL_N, PL_N, -1, 4, 5, 5, 4, 4, 4, 5},
    {"row: N < 0", PL_ROW, PL_N, PL_N, 3, -1, 5, 5, 4, 4, 5, 4},
    {"row: K < 0", PL_ROW, PL_N, PL_N, 3, 4, -1, 5, 4, 4, 6, 6},
    {"row: lda < K", PL_ROW, PL_N, PL_N, 3, 4, 5, 4, 4, 4, 9, 11},
    {"row: TransA=T, lda < M", PL_ROW, PL_T, PL_N, 3, 4, 5, 2, 4, 4, 9, 11},
    {"row: ldb < N", PL_ROW, PL_N, PL_N, 3, 4, 5, 5, 3, 4, 11, 9},
    {"row: ldc < N", PL_ROW, PL_N, PL_N, 3, 4, 5, 5, 4, 3, 14, 14},
    {"row: M < 0 and N < 0", PL_ROW, PL_N, PL_N, -1, -1, 5, 5, 4, 4, 5, 4},
    {"row: N < 0 and K < 0", PL_ROW, PL_N, PL_N, 3, -1, -1, 5, 4, 4, 5, 4},
    {"row: lda and ldb bad", PL_ROW, PL_N, PL_N, 3, 4, 5, 4, 3, 4, 11, 9},
    {"row: M < 0 and lda bad", PL_ROW, PL_N, PL_N, -1, 4, 5, 4, 4, 4, 4, 5},
    {"row: ldc bad and M < 0", PL_ROW, PL_N, PL_N, -1, 4, 5, 5, 4, 3, 4, 5},
};

struct pl_f77_illegal {
    const char *what;
    char transa, transb;
    int m, n, k, lda, ldb, ldc;
    int pos; /* Fortran position: what xerbla_ receives and what a printed report names */
};

/* Legal base: 'N','N', m = 3, n = 4, k = 5, lda >= 3, ldb >= 5, ldc >= 3. */
static const struct pl_f77_illegal pl_f77_cases[] = {
    {"bad TRANSA", 'X', 'N', 3, 4, 5, 3, 5, 3, 1},
    {"TRANSA blank", ' ', 'N', 3, 4, 5, 3, 5, 3, 1},
    {"bad TRANSB", 'n', 'y', 3, 4, 5, 3, 5, 3, 2},
    {"M < 0", 'N', 'N', -1, 4, 5, 3, 5, 3, 3},
    {"N < 0", 'N', 'N', 3, -1, 5, 3, 5, 3, 4},
    {"K < 0", 'N', 'N', 3, 4, -1, 3, 5, 3, 5},
    {"LDA < M", 'N', 'N', 3, 4, 5, 2, 5, 3, 8},
    {"TRANSA=t, LDA < K", 't', 'N', 3, 4, 5, 4, 5, 3, 8},
    {"LDB < K", 'N', 'N', 3, 4, 5, 3, 4, 3, 10},
    {"TRANSB=c, LDB < N", 'N', 'c', 3, 4, 5, 3, 3, 3, 10},
    {"LDC < M", 'N', 'N', 3, 4, 5, 3, 5, 2, 13},
    {"M < 0 and N < 0", 'N', 'N', -1, -1, 5, 3, 5, 3, 3},
    {"bad TRANSA and TRANSB", 'X', 'Y', 3, 4, 5, 3, 5, 3, 1},
    {"N < 0 and LDC bad", 'N', 'N', 3, -1, 5, 3, 5, 2, 4},
};

static const char *const pl_cblas_arg_name[15] = {"?", "layout", "TransA", "TransB", "M",
                                                 "N", "K",      "?",      "?",      "lda",
                                                 "?", "ldb",    "?",      "?",      "ldc"};
static const char *const pl_f77_arg_name[14] = {"?", "TRANSA", "TRANSB", "M", "N", "K", "?",
                                               "?", "LDA",    "?",      "LDB", "?", "?", "LDC"};

#define PL_COUNT(x) ((int)(sizeof(x) / sizeof((x)[0])))

/* The Fortran SGEMM prototype as C callers use it (no hidden lengths): sgemm_, scipy_sgemm_. */
typedef void (*pl_f77_fn)(const char *transa, const char *transb, const int *m, const int *n,
                          const int *k, const float *alpha, const float *a, const int *lda,
                          const float *b, const int *ldb, const float *beta, float *c,
                          const int *ldc);

/* Makes the illegal call t through fn with alpha = 1, beta = 0. */
static inline void pl_f77_call(pl_f77_fn fn, const struct pl_f77_illegal *t, const float *a,
                               const float *b, float *c)
{
    const float alpha = 1.0f, beta = 0.0f;
    fn(&t->transa, &t->transb, &t->m, &t->n, &t->k, &alpha, a, &t->lda, b, &t->ldb, &beta, c,
       &t->ldc);
}

#endif /* PL_ILLEGAL_CASES_H */
