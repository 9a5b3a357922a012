/*
 * tsg_problem.h — the canonical SGEMM problem and how a BLAS call becomes one.
 *
 * Owns: the column-major problem every backend receives, the mapping from the CBLAS and Fortran
 * argument lists (the row-major swap lives here and nowhere else), reference argument checking,
 * and the BLAS scalar rules (quick returns, alpha = 0 / k = 0, beta = 0).
 * Must not: include CUDA or CBLAS headers, print, read the environment, or call any BLAS.
 */
#ifndef TSG_PROBLEM_H
#define TSG_PROBLEM_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>
#include <stdint.h>

/*
 * C = alpha * op(A) * op(B) + beta * C, column-major.
 * op(A) is m x k, op(B) is k x n, C is m x n. transa/transb are 'N' or 'T' (nothing else once
 * checked). A is lda x (transa == 'N' ? k : m), B is ldb x (transb == 'N' ? n : k).
 */
/*
 * Where an operand lives (CUDA's pointer attributes; the shim asks the driver only in a process
 * that has CUDA loaded). Host memory of any kind can be read by the CPU; device memory only by
 * the GPU, so a call with a device operand can only run there (TESTING.md fault class 19).
 */
typedef enum tsg_where {
    TSG_HOST = 0,    /* ordinary (pageable) host memory: staged through pinned buffers   */
    TSG_PINNED,      /* page-locked host memory (cudaHostAlloc / registered): DMA'd directly */
    TSG_MANAGED,     /* CUDA managed memory: used in place by the kernel, readable by the CPU */
    TSG_DEVICE       /* device memory: used in place; the CPU cannot touch it             */
} tsg_where;

typedef struct tsg_problem {
    char transa, transb;
    int64_t m, n, k;
    float alpha, beta;
    const float *a;
    int64_t lda;
    const float *b;
    int64_t ldb;
    float *c;
    int64_t ldc;
    /* residency of A, B, C (tsg_where); all TSG_HOST unless the shim found otherwise */
    unsigned char where_a, where_b, where_c;
    /* the arithmetic a GPU run of this call uses (src/tsg_config.h tsg_math): TSG_MATH_FP32 (0)
     * unless the shim set TSGEMM_MATH / tsgemm_set_math's value; the CPU BLAS ignores it.
     * Last, so initializers that stop at where_c mean FP32. */
    unsigned char math;
} tsg_problem;

/* 1 when some operand that the call would read or write is device memory (CPU cannot run it). */
static inline int tsg_needs_device(const tsg_problem *p)
{
    return p->where_a == TSG_DEVICE || p->where_b == TSG_DEVICE || p->where_c == TSG_DEVICE;
}

/* Values of the CBLAS enums (reference cblas.h); kept here so src/ needs no CBLAS header. */
enum { TSG_CBLAS_ROW_MAJOR = 101, TSG_CBLAS_COL_MAJOR = 102 };
enum { TSG_CBLAS_NO_TRANS = 111, TSG_CBLAS_TRANS = 112, TSG_CBLAS_CONJ_TRANS = 113 };

/* A call after reading its arguments. */
typedef struct tsg_call {
    tsg_problem p;  /* valid only when info == 0 */
    int info;       /* 0: legal. Otherwise the position the reference library hands to its error
                       handler: for CBLAS, the CBLAS position within the problem as passed to the
                       Fortran layer (for row-major: the swapped one), which the reference
                       cblas_xerbla swaps back; for Fortran, the SGEMM position. */
    int user_pos;   /* the same argument's position in the caller's own argument list */
    int row_major;  /* 1 when the CBLAS call was row-major (the handler protocol needs it)  */
} tsg_call;

/*
 * Reads a cblas_sgemm call (any integer width; 32-bit callers widen). Checks in the reference
 * order (netlib CBLAS cblas_sgemm.c, then SGEMM on the possibly swapped problem): layout (1),
 * TransA (2), TransB (3), then M, N, K, lda, ldb, ldc of the Fortran-level problem with
 * ld >= max(1, rows). Row-major C = op(A)op(B) is computed as column-major
 * C^T = op(B)^T op(A)^T: A/B, M/N, lda/ldb and TransA/TransB swap. Pointers are not checked
 * (the reference does not either). Returns out->info.
 */
int tsg_map_cblas(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
                  float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                  float beta, float *c, int64_t ldc, tsg_call *out);

/* A transpose character as reference SGEMM reads TRANSA / TRANSB: N n -> 'N'; T t C c -> 'T'
 * (C is T for real data); anything else -> 0 (illegal). */
char tsg_decode_trans(char t);

/*
 * Reads a Fortran SGEMM call. Only the first character of transa/transb counts:
 * N n -> 'N'; T t C c -> 'T' (C is T for real data); anything else is illegal.
 * Positions are those of reference SGEMM: 1 transa, 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb,
 * 13 ldc. Returns out->info.
 */
int tsg_map_fortran(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                    const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                    float *c, int64_t ldc, tsg_call *out);

/* Name of the argument at a user-facing position ("M", "lda", ...); cblas = 1 for CBLAS
 * numbering, 0 for Fortran. Returns "?" for positions that are never reported. */
const char *tsg_arg_name(int cblas, int pos);

/* What the scalar rules decided. */
typedef enum tsg_rule {
    TSG_RULE_COMPUTE = 0,  /* a real product: hand it to a backend                   */
    TSG_RULE_NOTHING,      /* m = 0, n = 0, or (alpha = 0 or k = 0) with beta = 1     */
    TSG_RULE_SCALED        /* alpha = 0 or k = 0: C = beta * C done here (beta = 0 writes
                              exact zeros without reading C); A and B never read      */
} tsg_rule;

/* What the scalar rules would decide, without touching C. */
tsg_rule tsg_scalar_rule(const tsg_problem *p);

/*
 * Applies the BLAS quick returns and the alpha/k/beta rules (reference SGEMM) to a legal
 * problem. Writes only the m x n window of C, and only in the TSG_RULE_SCALED case.
 */
tsg_rule tsg_apply_scalar_rules(const tsg_problem *p);

/* 2*m*n*k as a double (flop count of the product). */
double tsg_flops(const tsg_problem *p);

/* Number of elements from an operand's first to its last element: (cols-1)*ld + rows, or 0 for an
 * empty operand. Transfers copy this extent, never ld*cols (which runs past the allocation). */
int64_t tsg_extent(int64_t rows, int64_t cols, int64_t ld);

/* Row and column counts of A and B as stored (before op()). */
void tsg_stored_shape_a(const tsg_problem *p, int64_t *rows, int64_t *cols);
void tsg_stored_shape_b(const tsg_problem *p, int64_t *rows, int64_t *cols);

#ifdef __cplusplus
}
#endif

#endif /* TSG_PROBLEM_H */
