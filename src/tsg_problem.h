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
 * the GPU, so a call with a device operand can only run there (docs/TESTING.md fault class 19).
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
     * After where_c, so initializers that stop at where_c mean FP32. */
    unsigned char math;
    /* 1 when C is fresh: host memory this process has not passed as C before, whose pages the
     * call's writes will fault in first (shim/tsg_tracer.h tsg_c_fresh says exactly when; the
     * shim sets it only where the trace or the cost model reads it); 0 otherwise or unknown (after math: initializers that stop
     * before it mean "not fresh") */
    unsigned char fresh_c;
    /* 1 when the call's CPU side is the caller's own BLAS (a wheel's OpenBLAS behind
     * scipy_cblas_sgemm64_, cblas_sgemm64_, scipy_cblas_sgemm or scipy_sgemm_, once found:
     * shim/tsg_cpublas.c tsg_cpu_own_pool), whose worker threads the program's other BLAS calls
     * keep spinning and tsgemm cannot quiet; the decision then asks more of the GPU
     * (src/tsg_dispatch.h TSG_GPU_MARGIN_OWN_POOL). The shim sets it only where that decision reads
     * it (auto mode, no TSGEMM_GPU_THRESHOLD, a call above the GPU floor); 0 otherwise (after
     * fresh_c: initializers that stop before it mean tsgemm's own CPU BLAS) */
    unsigned char own_pool;
} tsg_problem;

/* 1 when some operand that the call would read or write is device memory (CPU cannot run it). */
static inline int tsg_needs_device(const tsg_problem *p)
{
    return p->where_a == TSG_DEVICE || p->where_b == TSG_DEVICE || p->where_c == TSG_DEVICE;
}

/* The call's transpose pair, as the rates (src/tsg_cost.h tsg_rates.gpu_pair_*) and the
 * executor's tensor-core tiles (src/tsg_dispatch.h tsg_gpu_limits.tc_tile) index it: 0 NN, 1 TN
 * (op(A) = A^T), 2 NT, 3 TT. */
static inline int tsg_problem_pair(const tsg_problem *p)
{
    return (p->transa != 'N') + 2 * (p->transb != 'N');
}

/* Values of the CBLAS enums (reference cblas.h); kept here so src/ needs no CBLAS header. */
enum { TSG_CBLAS_ROW_MAJOR = 101, TSG_CBLAS_COL_MAJOR = 102 };
enum { TSG_CBLAS_NO_TRANS = 111, TSG_CBLAS_TRANS = 112, TSG_CBLAS_CONJ_TRANS = 113 };

/*
 * The forms of a transpose argument. At the ABI edge, what the caller passed: the CBLAS enum
 * (TSG_CBLAS_NO_TRANS / _TRANS / _CONJ_TRANS) or the Fortran character (N n T t C c; only the
 * first character counts). From the mapping below down — src/, the executor, the kernels — one
 * form only: the character 'N' or 'T' of tsg_problem.transa / transb (C is T for real data).
 * The decoders answer 0 for anything else (an illegal argument).
 */
static inline char tsg_decode_trans(char t)
{
    const int l = t | 0x20; /* lower-cases the letters; no other byte becomes n, t or c */
    return l == 'n' ? 'N' : l == 't' || l == 'c' ? 'T' : 0;
}

static inline char tsg_decode_cblas_trans(int t)
{
    /* one unsigned compare for the range (the enum's three values are consecutive) */
    if ((unsigned)(t - TSG_CBLAS_NO_TRANS) > (unsigned)(TSG_CBLAS_CONJ_TRANS - TSG_CBLAS_NO_TRANS))
        return 0;
    return t == TSG_CBLAS_NO_TRANS ? 'N' : 'T';
}

/* Fills *p with a column-major problem as given (transposes already decoded; host operands, FP32,
 * C not known fresh, tsgemm's own CPU BLAS). */
static inline void tsg_problem_set(tsg_problem *p, char ta, char tb, int64_t m, int64_t n,
                                   int64_t k, float alpha, const float *a, int64_t lda,
                                   const float *b, int64_t ldb, float beta, float *c, int64_t ldc)
{
    p->transa = ta;
    p->transb = tb;
    p->m = m;
    p->n = n;
    p->k = k;
    p->alpha = alpha;
    p->a = a;
    p->lda = lda;
    p->b = b;
    p->ldb = ldb;
    p->beta = beta;
    p->c = c;
    p->ldc = ldc;
    p->where_a = p->where_b = p->where_c = TSG_HOST;
    p->math = 0; /* TSG_MATH_FP32 */
    p->fresh_c = 0;
    p->own_pool = 0;
}

/*
 * The row-major swap, the only one: a row-major C = op(A) op(B) is the column-major
 * C^T = op(B)^T op(A)^T, so A and B, m and n, lda and ldb, transa and transb (and where A and B
 * live) trade places; C, k and ldc stay. Done when `row` is nonzero, else *p is left as it is.
 * Its own inverse: applied to a mapped row-major problem it gives back the caller's terms (the
 * per-call line and the trace use it so). Written as selects, not branches: on the tiny-call
 * path the compiler keeps them in registers.
 */
static inline void tsg_problem_swap_rows(tsg_problem *p, int row)
{
    const tsg_problem q = *p;
    p->transa = row ? q.transb : q.transa;
    p->transb = row ? q.transa : q.transb;
    p->m = row ? q.n : q.m;
    p->n = row ? q.m : q.n;
    p->a = row ? q.b : q.a;
    p->b = row ? q.a : q.b;
    p->lda = row ? q.ldb : q.lda;
    p->ldb = row ? q.lda : q.ldb;
    p->where_a = row ? q.where_b : q.where_a;
    p->where_b = row ? q.where_a : q.where_b;
}

/*
 * A cblas_sgemm call as the column-major problem the reference hands its Fortran layer: the
 * layout and transposes decoded, the row-major swap applied. Returns 0, or the CBLAS position
 * of the first bad one of layout (1), TransA (2), TransB (3) — *p is then untouched.
 * Checks nothing else: tsg_check_problem does, on *p.
 */
static inline int tsg_cblas_problem(int layout, int transa, int transb, int64_t m, int64_t n,
                                    int64_t k, float alpha, const float *a, int64_t lda,
                                    const float *b, int64_t ldb, float beta, float *c,
                                    int64_t ldc, tsg_problem *p)
{
    if (layout != TSG_CBLAS_ROW_MAJOR && layout != TSG_CBLAS_COL_MAJOR) return 1;
    const char ta = tsg_decode_cblas_trans(transa), tb = tsg_decode_cblas_trans(transb);
    if (ta == 0) return 2;
    if (tb == 0) return 3;
    tsg_problem_set(p, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    tsg_problem_swap_rows(p, layout == TSG_CBLAS_ROW_MAJOR);
    return 0;
}

/*
 * The reference SGEMM checks (BLAS/SRC/sgemm.f) of a column-major problem, in its order:
 * transa (1) and transb (2) decoded (0 is illegal), m (3), n (4), k (5) >= 0,
 * lda >= max(1, transa == 'N' ? m : k) (8), ldb >= max(1, transb == 'N' ? k : n) (10),
 * ldc >= max(1, m) (13). Returns the Fortran position of the first bad argument, or 0.
 */
static inline int tsg_check_problem(const tsg_problem *p)
{
    if (p->transa == 0) return 1;
    if (p->transb == 0) return 2;
    if (p->m < 0) return 3;
    if (p->n < 0) return 4;
    if (p->k < 0) return 5;
    const int64_t ra = p->transa == 'N' ? p->m : p->k, rb = p->transb == 'N' ? p->k : p->n;
    if (p->lda < (ra > 1 ? ra : 1)) return 8;
    if (p->ldb < (rb > 1 ? rb : 1)) return 10;
    if (p->ldc < (p->m > 1 ? p->m : 1)) return 13;
    return 0;
}

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
 * ld >= max(1, rows): tsg_cblas_problem, then tsg_check_problem. Pointers are not checked
 * (the reference does not either). Returns out->info.
 */
int tsg_map_cblas(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
                  float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                  float beta, float *c, int64_t ldc, tsg_call *out);

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
 * empty operand: the range a managed operand is prefetched over and a fresh C's pages span, never
 * ld*cols (which runs past the allocation). The pipeline moves rows x cols (the gaps between
 * columns stay behind), and the cost model prices that (src/tsg_cost.c). */
int64_t tsg_extent(int64_t rows, int64_t cols, int64_t ld);

/* Row and column counts of A and B as stored (before op()). */
void tsg_stored_shape_a(const tsg_problem *p, int64_t *rows, int64_t *cols);
void tsg_stored_shape_b(const tsg_problem *p, int64_t *rows, int64_t *cols);

#ifdef __cplusplus
}
#endif

#endif /* TSG_PROBLEM_H */
