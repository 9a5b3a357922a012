/*
 * psgemm_check.c — ScaLAPACK PSGEMM under LD_PRELOAD=libtsgemm.so in every MPI rank (preload
 * tier, started by mpi_run.sh under mpirun).
 *
 * An unmodified kind of program: a BLACS process grid, block-cyclic A, B and C, one distributed
 * C = alpha op(A) op(B) + beta C per transpose pair (NN, TN, NT). PBLAS turns each into local
 * sgemm_ calls — mostly rank-NB panel updates — which resolve to tsgemm when it is preloaded.
 * Checks:
 *   - every local element of C against a serial double-precision reference computed from the same
 *     generators (small integers: products and sums are exact in float, so the comparison is
 *     bitwise);
 *   - tsgemm's counters in every rank: each rank prints one line
 *       psgemm_check: rank R/P local L: tsgemm calls C (cpu X, gpu Y, quick Q, illegal I)
 *       intercepted; E elements checked, W wrong
 *     (or "NOT intercepted"), and rank 0 requires that all P ranks made computed calls.
 * Exit status 0 when every rank passed (mpirun returns non-zero if any rank fails), 1 otherwise.
 * Usage: psgemm_check [--plain] [M N K NB]  (default 701 643 677 32; the grid is as square as P
 * allows). --plain: a run without tsgemm — results are checked the same, and no rank may have
 * tsgemm in its process.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_stats.h"

/* BLACS (C interface) and ScaLAPACK tools: Debian's libscalapack-openmpi ships no header. */
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int icontxt, int what, int *val);
void Cblacs_gridinit(int *icontxt, char *order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int *nprow, int *npcol, int *myprow, int *mypcol);
void Cblacs_gridexit(int icontxt);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc,
            const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ictxt, const int *lld, int *info);
void psgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const float *alpha, const float *a, const int *ia, const int *ja, const int *desca,
             const float *b, const int *ib, const int *jb, const int *descb, const float *beta,
             float *c, const int *ic, const int *jc, const int *descc);

/* Global element (i, j) of matrix `which` (0 A, 1 B, 2 C): an integer in [-4, 4]. */
static float gen(int which, int i, int j)
{
    uint32_t h = (uint32_t)i * 2654435761u ^ (uint32_t)j * 2246822519u ^
                 (uint32_t)which * 3266489917u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return (float)((int)(h % 9u) - 4);
}

/* Global index of local index l (0-based) in a dimension distributed in blocks of nb over np
 * processes, owned by process p (source process 0). */
static int global_index(int l, int nb, int p, int np) { return (l / nb * np + p) * nb + l % nb; }

struct local {
    int rows, cols, desc[9];
    float *v;
};

/* Allocates and fills this rank's part of a global rows x cols matrix `which`. */
static int make_local(struct local *x, int which, int rows, int cols, int nb, int ctxt, int prow,
                      int pcol, int nprow, int npcol)
{
    const int zero = 0;
    x->rows = numroc_(&rows, &nb, &prow, &zero, &nprow);
    x->cols = numroc_(&cols, &nb, &pcol, &zero, &npcol);
    int lld = x->rows > 1 ? x->rows : 1, info = 0;
    descinit_(x->desc, &rows, &cols, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    x->v = malloc(sizeof(float) * (size_t)lld * (size_t)(x->cols > 0 ? x->cols : 1));
    if (info != 0 || !x->v) return -1;
    for (int lj = 0; lj < x->cols; ++lj)
        for (int li = 0; li < x->rows; ++li)
            x->v[li + (size_t)lj * lld] = gen(which, global_index(li, nb, prow, nprow),
                                              global_index(lj, nb, pcol, npcol));
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    Cblacs_pinfo(&me, &np);
    int plain = argc > 1 && !strcmp(argv[1], "--plain");
    argv += plain;
    argc -= plain;
    int gm = argc > 4 ? atoi(argv[1]) : 701, gn = argc > 4 ? atoi(argv[2]) : 643;
    int gk = argc > 4 ? atoi(argv[3]) : 677, nb = argc > 4 ? atoi(argv[4]) : 32;
    int nprow = 1;
    for (int r = 1; r * r <= np; ++r)
        if (np % r == 0) nprow = r;
    int npcol = np / nprow, ctxt, myrow, mycol;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", nprow, npcol);
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);

    pl_get_stats_fn get = pl_get_stats();
    struct tsgemm_stats s0 = pl_stats_now();
    long bad = 0, checked = 0;
    const float alpha = 1.0f, beta = -1.0f;
    const int one = 1;
    static const char pairs[3][2] = {{'N', 'N'}, {'T', 'N'}, {'N', 'T'}};
    for (int t = 0; t < 3; ++t) {
        char ta = pairs[t][0], tb = pairs[t][1];
        struct local a, b, c;
        /* stored shapes: A is m x k (or k x m for T), B k x n (or n x k) */
        if (make_local(&a, 0, ta == 'N' ? gm : gk, ta == 'N' ? gk : gm, nb, ctxt, myrow, mycol,
                       nprow, npcol) ||
            make_local(&b, 1, tb == 'N' ? gk : gn, tb == 'N' ? gn : gk, nb, ctxt, myrow, mycol,
                       nprow, npcol) ||
            make_local(&c, 2, gm, gn, nb, ctxt, myrow, mycol, nprow, npcol)) {
            fprintf(stderr, "psgemm_check: rank %d: descinit or malloc failed\n", me);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        psgemm_(&ta, &tb, &gm, &gn, &gk, &alpha, a.v, &one, &one, a.desc, b.v, &one, &one, b.desc,
                &beta, c.v, &one, &one, c.desc);
        int lld = c.desc[8];
        for (int lj = 0; lj < c.cols; ++lj)
            for (int li = 0; li < c.rows; ++li) {
                int i = global_index(li, nb, myrow, nprow), j = global_index(lj, nb, mycol, npcol);
                double r = beta * (double)gen(2, i, j);
                for (int l = 0; l < gk; ++l)
                    r += alpha * (double)(ta == 'N' ? gen(0, i, l) : gen(0, l, i)) *
                         (double)(tb == 'N' ? gen(1, l, j) : gen(1, j, l));
                float got = c.v[li + (size_t)lj * lld];
                if ((double)got != r && bad++ < 5)
                    fprintf(stderr,
                            "psgemm_check: rank %d %c%c: C(%d,%d) = %g, serial reference %g\n", me,
                            ta, tb, i, j, (double)got, r);
                ++checked;
            }
        free(a.v);
        free(b.v);
        free(c.v);
    }
    struct tsgemm_stats s1 = pl_stats_now();
    unsigned long long calls = s1.calls - s0.calls, ran = (s1.cpu - s0.cpu) + (s1.gpu - s0.gpu);
    int intercepted = get != NULL && ran > 0 && s1.illegal == s0.illegal;
    const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    fprintf(stderr,
            "psgemm_check: rank %d/%d local %s: tsgemm calls %llu (cpu %llu, gpu %llu, quick %llu, "
            "illegal %llu) %s; %ld elements checked, %ld wrong\n",
            me, np, lr ? lr : "?", calls, (unsigned long long)(s1.cpu - s0.cpu),
            (unsigned long long)(s1.gpu - s0.gpu), (unsigned long long)(s1.quick - s0.quick),
            (unsigned long long)(s1.illegal - s0.illegal),
            intercepted ? "intercepted" : get ? "NOT intercepted (no computed call)"
                                              : "NOT intercepted (tsgemm is not in the process)",
            checked, bad);

    long totals[4] = {bad, intercepted, checked, get != NULL}, sums[4];
    MPI_Reduce(totals, sums, 4, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int fail = 0;
    if (me == 0) {
        fail = sums[0] != 0 || sums[2] != 3L * gm * gn || (plain ? sums[3] != 0 : sums[1] != np);
        printf("psgemm_check: %d ranks (%d x %d grid), M N K NB = %d %d %d %d: %ld of %d ranks "
               "intercepted, %ld elements checked, %ld wrong: %s\n",
               np, nprow, npcol, gm, gn, gk, nb, sums[1], np, sums[2], sums[0],
               fail ? "FAIL" : "ok");
    }
    MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
    Cblacs_gridexit(ctxt);
    MPI_Finalize();
    return fail;
}
