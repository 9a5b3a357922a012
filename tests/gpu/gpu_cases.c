/*
 * gpu_cases.c — see gpu_cases.h.
 */
#include "gpu_cases.h"

#include <cblas-netlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void gc_make_operands(const gcase *g, uint64_t seed, int integers, operands *o)
{
    tt_rng r;
    tt_seed(&r, seed);
    const int64_t ar = g->ta == 'N' ? g->m : g->k, ac = g->ta == 'N' ? g->k : g->m;
    const int64_t br = g->tb == 'N' ? g->k : g->n, bc = g->tb == 'N' ? g->n : g->k;
    if (tt_mat_alloc(&o->A, ar, ac, ar + g->pad, g->offset) ||
        tt_mat_alloc(&o->B, br, bc, br + g->pad, g->offset) ||
        tt_mat_alloc(&o->C, g->m, g->n, g->m + g->pad, g->offset)) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    if (integers) {
        tt_mat_fill_int(&o->A, &r, -3, 3);
        tt_mat_fill_int(&o->B, &r, -3, 3);
        tt_mat_fill_int(&o->C, &r, -8, 8);
    } else {
        tt_mat_fill_uniform(&o->A, &r);
        tt_mat_fill_uniform(&o->B, &r);
        tt_mat_fill_uniform(&o->C, &r);
    }
    o->c0 = tt_mat_snapshot(&o->C);
    if (g->beta == 0.0f) tt_mat_fill_value(&o->C, NAN);
    o->snapA = tt_mat_snapshot(&o->A);
    o->snapB = tt_mat_snapshot(&o->B);
    o->snapC = tt_mat_snapshot(&o->C);
}

void gc_free_operands(operands *o)
{
    tt_mat_free(&o->A), tt_mat_free(&o->B), tt_mat_free(&o->C);
    free(o->c0), free(o->snapA), free(o->snapB), free(o->snapC);
}

void gc_call(const gcase *g, operands *o)
{
    const CBLAS_TRANSPOSE ta = g->ta == 'N' ? CblasNoTrans : CblasTrans;
    const CBLAS_TRANSPOSE tb = g->tb == 'N' ? CblasNoTrans : CblasTrans;
    if (!g->row)
        cblas_sgemm(CblasColMajor, ta, tb, (int)g->m, (int)g->n, (int)g->k, g->alpha, o->A.p,
                    (int)o->A.ld, o->B.p, (int)o->B.ld, g->beta, o->C.p, (int)o->C.ld);
    else /* row-major C^T = op(B)^T op(A)^T: the same memory seen transposed */
        cblas_sgemm(CblasRowMajor, tb, ta, (int)g->n, (int)g->m, (int)g->k, g->alpha, o->B.p,
                    (int)o->B.ld, o->A.p, (int)o->A.ld, g->beta, o->C.p, (int)o->C.ld);
}

void gc_describe(const gcase *g, char *buf, size_t len)
{
    snprintf(buf, len, "%s %c%c m=%lld n=%lld k=%lld pad=%d off=%d alpha=%g beta=%g",
             g->row ? "row" : "col", g->ta, g->tb, (long long)g->m, (long long)g->n,
             (long long)g->k, g->pad, g->offset, g->alpha, g->beta);
}
