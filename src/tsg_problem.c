/*
 * tsg_problem.c — BLAS call -> canonical column-major problem; reference argument checks;
 * the scalar rules.
 *
 * The row-major -> column-major swap exists here and nowhere else (the same place OpenBLAS keeps
 * it, interface/gemm.c). Pure C: no printing, no environment, no BLAS calls.
 */
#include "tsg_problem.h"

static int64_t max1(int64_t v) { return v > 1 ? v : 1; }

/*
 * Reference SGEMM checks (BLAS/SRC/sgemm.f) on a problem whose transposes are already decoded
 * ('N'/'T', or 0 when illegal). Returns the Fortran position of the first bad argument, or 0.
 */
static int check_fortran_order(char ta, char tb, int64_t m, int64_t n, int64_t k, int64_t lda,
                               int64_t ldb, int64_t ldc)
{
    if (ta == 0) return 1;
    if (tb == 0) return 2;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < max1(ta == 'N' ? m : k)) return 8;
    if (ldb < max1(tb == 'N' ? k : n)) return 10;
    if (ldc < max1(m)) return 13;
    return 0;
}

char tsg_decode_trans(char t)
{
    switch (t) {
    case 'N': case 'n': return 'N';
    case 'T': case 't': case 'C': case 'c': return 'T';
    default: return 0;
    }
}

static char decode_cblas_trans(int t)
{
    switch (t) {
    case TSG_CBLAS_NO_TRANS: return 'N';
    case TSG_CBLAS_TRANS: case TSG_CBLAS_CONJ_TRANS: return 'T';
    default: return 0;
    }
}

static void fill(tsg_problem *p, char ta, char tb, int64_t m, int64_t n, int64_t k, float alpha,
                 const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                 int64_t ldc)
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
}

/* Row-major CBLAS positions as the reference cblas_xerbla un-swaps them (cblas_xerbla.c). */
static int unswap_rowmajor_pos(int pos)
{
    switch (pos) {
    case 4: return 5;
    case 5: return 4;
    case 9: return 11;
    case 11: return 9;
    default: return pos;
    }
}

int tsg_map_cblas(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
                  float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                  float beta, float *c, int64_t ldc, tsg_call *out)
{
    char ta = decode_cblas_trans(transa);
    char tb = decode_cblas_trans(transb);
    out->row_major = layout == TSG_CBLAS_ROW_MAJOR;
    out->info = 0;
    if (layout != TSG_CBLAS_ROW_MAJOR && layout != TSG_CBLAS_COL_MAJOR)
        out->info = 1;
    else if (ta == 0)
        out->info = 2;
    else if (tb == 0)
        out->info = 3;
    if (out->info) {
        out->user_pos = out->info;
        return out->info;
    }
    if (out->row_major) /* the one swap: C^T = op(B)^T op(A)^T */
        fill(&out->p, tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
    else
        fill(&out->p, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    const tsg_problem *p = &out->p;
    int f = check_fortran_order(p->transa, p->transb, p->m, p->n, p->k, p->lda, p->ldb, p->ldc);
    out->info = f ? f + 1 : 0; /* CBLAS adds the layout argument in front */
    out->user_pos = out->row_major ? unswap_rowmajor_pos(out->info) : out->info;
    return out->info;
}

int tsg_map_fortran(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                    const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                    float *c, int64_t ldc, tsg_call *out)
{
    char ta = tsg_decode_trans(transa);
    char tb = tsg_decode_trans(transb);
    out->row_major = 0;
    fill(&out->p, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    out->info = check_fortran_order(ta, tb, m, n, k, lda, ldb, ldc);
    out->user_pos = out->info;
    return out->info;
}

const char *tsg_arg_name(int cblas, int pos)
{
    static const char *const cb[15] = {"?",   "layout", "TransA", "TransB", "M", "N", "K", "alpha",
                                       "A",   "lda",    "B",      "ldb",    "beta", "C", "ldc"};
    static const char *const fo[14] = {"?",     "TRANSA", "TRANSB", "M",    "N",   "K", "ALPHA",
                                       "A",     "LDA",    "B",      "LDB",  "BETA", "C", "LDC"};
    if (cblas) return (pos >= 1 && pos <= 14) ? cb[pos] : "?";
    return (pos >= 1 && pos <= 13) ? fo[pos] : "?";
}

tsg_rule tsg_scalar_rule(const tsg_problem *p)
{
    if (p->m == 0 || p->n == 0) return TSG_RULE_NOTHING;
    if (p->alpha != 0.0f && p->k != 0) return TSG_RULE_COMPUTE;
    if (p->beta == 1.0f) return TSG_RULE_NOTHING;
    return TSG_RULE_SCALED;
}

tsg_rule tsg_apply_scalar_rules(const tsg_problem *p)
{
    tsg_rule rule = tsg_scalar_rule(p);
    if (rule != TSG_RULE_SCALED) return rule;
    for (int64_t j = 0; j < p->n; ++j) {
        float *col = p->c + j * p->ldc;
        if (p->beta == 0.0f) {
            for (int64_t i = 0; i < p->m; ++i) col[i] = 0.0f; /* never read: NaN must not survive */
        } else {
            for (int64_t i = 0; i < p->m; ++i) col[i] *= p->beta;
        }
    }
    return TSG_RULE_SCALED;
}

double tsg_flops(const tsg_problem *p)
{
    return 2.0 * (double)p->m * (double)p->n * (double)p->k;
}

int64_t tsg_extent(int64_t rows, int64_t cols, int64_t ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    return (cols - 1) * ld + rows;
}

void tsg_stored_shape_a(const tsg_problem *p, int64_t *rows, int64_t *cols)
{
    *rows = p->transa == 'N' ? p->m : p->k;
    *cols = p->transa == 'N' ? p->k : p->m;
}

void tsg_stored_shape_b(const tsg_problem *p, int64_t *rows, int64_t *cols)
{
    *rows = p->transb == 'N' ? p->k : p->n;
    *cols = p->transb == 'N' ? p->n : p->k;
}
