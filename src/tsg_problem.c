/*
 * tsg_problem.c — BLAS call -> canonical column-major problem; reference argument checks;
 * the scalar rules.
 *
 * The row-major -> column-major swap itself is tsg_problem.h's tsg_problem_swap_rows (inline, so
 * the tiny-call path of shim/tsg_entry.c runs the very same code). Pure C: no printing, no
 * environment, no BLAS calls.
 */
#include "tsg_problem.h"

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
    out->row_major = layout == TSG_CBLAS_ROW_MAJOR;
    out->info = tsg_cblas_problem(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                                  ldc, &out->p);
    if (out->info) {
        out->user_pos = out->info;
        return out->info;
    }
    const int f = tsg_check_problem(&out->p);
    out->info = f ? f + 1 : 0; /* CBLAS adds the layout argument in front */
    out->user_pos = out->row_major ? unswap_rowmajor_pos(out->info) : out->info;
    return out->info;
}

int tsg_map_fortran(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                    const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                    float *c, int64_t ldc, tsg_call *out)
{
    out->row_major = 0;
    tsg_problem_set(&out->p, tsg_decode_trans(transa), tsg_decode_trans(transb), m, n, k, alpha, a,
                    lda, b, ldb, beta, c, ldc);
    out->info = tsg_check_problem(&out->p);
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
