/*
 * gpu_cases.h — one CBLAS call of the gpu tier's pipeline tests (test_gpu_pipeline,
 * test_gpu_multi): a column-major canonical shape (m x n x k, op(A) op(B)) made in guarded host
 * buffers (tests/support tt_mat), called column-major or, with `row`, row-major on the same memory
 * (the transposed problem, as tsgemm maps it); and the tests' EXPECT.
 */
#ifndef TSG_GPU_CASES_H
#define TSG_GPU_CASES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tsg_testutil.h"

/* A check of the gpu tier's tests: on failure prints "FAIL file:line: <message>" to stderr and
 * counts it in g_fail, the including file's own failure counter. */
#define EXPECT(cond, ...)                                                                        \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                 \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fputc('\n', stderr);                                                                 \
            g_fail++;                                                                            \
        }                                                                                        \
    } while (0)

typedef struct gcase {
    int row;
    char ta, tb;
    int64_t m, n, k;
    int pad, offset; /* extra leading-dimension rows; float offset of every operand */
    float alpha, beta;
} gcase;

typedef struct operands {
    tt_mat A, B, C;
    float *c0, *snapA, *snapB, *snapC; /* original C (whole buffer), and A, B, C as called */
} operands;

/* Fills A, B, C from `seed`: uniform in [-1, 1), or with `integers` small integers (A, B in
 * [-3, 3], C in [-8, 8]: |sum| <= 9 k + |beta C| is exact in float for k < 10^5). With beta = 0
 * C is then set to NaN (never read: NaN must not survive). Exits 1 when out of host memory. */
void gc_make_operands(const gcase *g, uint64_t seed, int integers, operands *o);
void gc_free_operands(operands *o);
/* cblas_sgemm of g on o (column- or row-major). */
void gc_call(const gcase *g, operands *o);
/* "col NN m=.. n=.. k=.. pad=.. off=.. alpha=.. beta=.." */
void gc_describe(const gcase *g, char *buf, size_t len);

#endif /* TSG_GPU_CASES_H */
