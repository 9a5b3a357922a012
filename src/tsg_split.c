/*
 * tsg_split.c — 32-bit block decomposition and the portable fallback loop. See tsg_split.h.
 */
#include "tsg_split.h"

int tsg_fits_int32(const tsg_problem *p)
{
    return p->m <= INT32_MAX && p->n <= INT32_MAX && p->k <= INT32_MAX && p->lda <= INT32_MAX &&
           p->ldb <= INT32_MAX && p->ldc <= INT32_MAX;
}

/* Address of op(X)(row, col) for X stored column-major with leading dimension ld. */
static const float *op_at(const float *x, char trans, int64_t ld, int64_t row, int64_t col)
{
    return trans == 'N' ? x + row + col * ld : x + col + row * ld;
}

int tsg_split_int32(const tsg_problem *p, void (*run)(void *ctx, const tsg_problem *blk),
                    void *ctx, int64_t block)
{
    if (p->lda > INT32_MAX || p->ldb > INT32_MAX || p->ldc > INT32_MAX) return -1;
    for (int64_t j = 0; j < p->n; j += block) {
        for (int64_t i = 0; i < p->m; i += block) {
            for (int64_t l = 0; l < p->k; l += block) {
                tsg_problem b = *p;
                b.m = p->m - i < block ? p->m - i : block;
                b.n = p->n - j < block ? p->n - j : block;
                b.k = p->k - l < block ? p->k - l : block;
                b.a = op_at(p->a, p->transa, p->lda, i, l);
                b.b = op_at(p->b, p->transb, p->ldb, l, j);
                b.c = p->c + i + j * p->ldc;
                if (l > 0) b.beta = 1.0f;
                run(ctx, &b);
            }
        }
    }
    return 0;
}

void tsg_ref_sgemm(const tsg_problem *p)
{
    for (int64_t j = 0; j < p->n; ++j) {
        float *c = p->c + j * p->ldc;
        for (int64_t i = 0; i < p->m; ++i) c[i] = p->beta == 0.0f ? 0.0f : p->beta * c[i];
        for (int64_t l = 0; l < p->k; ++l) {
            float bl = p->alpha * *op_at(p->b, p->transb, p->ldb, l, j);
            if (p->transa == 'N') {
                const float *a = p->a + l * p->lda;
                for (int64_t i = 0; i < p->m; ++i) c[i] += bl * a[i];
            } else {
                for (int64_t i = 0; i < p->m; ++i) c[i] += bl * p->a[l + i * p->lda];
            }
        }
    }
}
