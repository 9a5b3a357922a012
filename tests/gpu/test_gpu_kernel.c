/*
 * test_gpu_kernel.c — tsgemm's CUDA kernel on device memory, through tsgemm_sgemm_device:
 * the seed's check shapes, the edge grid of docs/TESTING.md over all four transpose pairs, padded
 * leading dimensions, pointers offset by 1-3 floats, alpha in {0, 1, -1.5}, beta in {0 over NaN,
 * 1, 0.5}, integer inputs bit for bit and uniform inputs within the element bound, nothing outside
 * C's window written and A/B untouched (whole buffers with sentinels and guard bands are copied to
 * the device and back), TN and TT with a 16-byte aligned transposed A (the k-contiguous 16-byte
 * loader of BigConfig::AKC), split-K shapes, grids beyond 65535 tiles, bit-identical repeats, and the
 * accuracy ratio to cuBLAS at n = 4096 (docs/TESTING.md: ratio <= 1.5).
 * Every configuration of the kernel family (issue 11) runs the edge grid, the split-K shapes and
 * the repeat check, forced through tsgemm_set_kernel_config: with the rule's split and with 3
 * slices of K; those with a stream-K tail (the big family, v0.14) run the edge grid, multi-tile
 * shapes and the repeat check again with the tail forced onto 3, 5 and 7 blocks
 * (tsgemm_set_kernel_tail); then the rule itself runs everything.
 *
 *   test_gpu_kernel            the gpu tier (exit 77 when no GPU is usable)
 *   test_gpu_kernel --small    small shapes only, no cuBLAS: the compute-sanitizer run
 *   test_gpu_kernel --small-forced   only the forced configurations' part of --small (with
 *                              TSGEMM_KERNEL_CONFIG: racecheck on the big family within its limit)
 *   test_gpu_kernel --accuracy only the accuracy lines (below): cuBLAS, the rule and every
 *                              configuration forced, NN at each n
 *   TSGEMM_KERNEL_CONFIG=N[,N] (test knob) force configurations N only instead of each in turn
 *   TSGEMM_ACCURACY_N="1024 4096 16384"   the accuracy ratio at these n (default 4096; the gpu
 *                              tier and --accuracy)
 * The timings against cuBLAS are bench/tsgemm-kbench.c's.
 *
 * References: a double loop on the host for small shapes; cuBLAS DGEMM on the upcast inputs (and
 * on |A|, |B| for the bound) for large ones.
 */
#include <cblas-netlib.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsg_testutil.h"
#include "tsgemm.h"
#include "tsgemm_tuning.h" /* the kernel configuration and tail hooks (not the stable API) */

static int g_fail, g_checks;
static cublasHandle_t g_cublas;

#include "gpu_check.h"

static void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void failf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    g_fail++;
}

/* A host tt_mat mirrored on the device: the whole buffer, sentinels and guards included. */
typedef struct dmat {
    tt_mat h;
    float *d_mem, *d_p;
} dmat;

static void dmat_upload(dmat *m)
{
    CK(cudaMalloc((void **)&m->d_mem, m->h.total * sizeof(float)));
    CK(cudaMemcpy(m->d_mem, m->h.mem, m->h.total * sizeof(float), cudaMemcpyHostToDevice));
    m->d_p = m->d_mem + m->h.first;
}

static void dmat_download(dmat *m)
{
    CK(cudaMemcpy(m->h.mem, m->d_mem, m->h.total * sizeof(float), cudaMemcpyDeviceToHost));
}

static void dmat_free(dmat *m)
{
    cudaFree(m->d_mem);
    tt_mat_free(&m->h);
}

typedef struct kcase {
    char ta, tb;
    int64_t m, n, k;
    float alpha, beta;
    int pad, off; /* ld = rows + pad (pad varies per operand), pointers offset by off (+0/1/2) */
    int ints;
} kcase;

/* Reference through cuBLAS DGEMM on upcast inputs: R = alpha op(A) op(B) + beta C, S = bound. */
static void ref_dgemm(const kcase *c, const tt_mat *A, const tt_mat *B, const tt_mat *C, double *R,
                      double *S)
{
    const int64_t m = c->m, n = c->n, k = c->k;
    int64_t ar = c->ta == 'N' ? m : k, ac = c->ta == 'N' ? k : m;
    int64_t br = c->tb == 'N' ? k : n, bc = c->tb == 'N' ? n : k;
    size_t na = (size_t)(ar * ac), nb = (size_t)(br * bc), nc = (size_t)(m * n);
    double *ha = malloc(na * 8 * 2), *hb = malloc(nb * 8 * 2);
    for (int64_t j = 0; j < ac; ++j)
        for (int64_t i = 0; i < ar; ++i) {
            double v = A->p[i + j * A->ld];
            ha[i + j * ar] = v, ha[na + i + j * ar] = fabs(v);
        }
    for (int64_t j = 0; j < bc; ++j)
        for (int64_t i = 0; i < br; ++i) {
            double v = B->p[i + j * B->ld];
            hb[i + j * br] = v, hb[nb + i + j * br] = fabs(v);
        }
    double *da, *db, *dr;
    CK(cudaMalloc((void **)&da, na * 16));
    CK(cudaMalloc((void **)&db, nb * 16));
    CK(cudaMalloc((void **)&dr, nc * 16));
    CK(cudaMemcpy(da, ha, na * 16, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, nb * 16, cudaMemcpyHostToDevice));
    const double one = 1.0, zero = 0.0;
    cublasOperation_t oa = c->ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
    cublasOperation_t ob = c->tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
    CB(cublasDgemm(g_cublas, oa, ob, (int)m, (int)n, (int)k, &one, da, (int)ar, db, (int)br, &zero,
                   dr, (int)m));
    CB(cublasDgemm(g_cublas, oa, ob, (int)m, (int)n, (int)k, &one, da + na, (int)ar, db + nb,
                   (int)br, &zero, dr + nc, (int)m));
    CK(cudaMemcpy(R, dr, nc * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(S, dr + nc, nc * 8, cudaMemcpyDeviceToHost));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            size_t x = (size_t)(i + j * m);
            double cv = C->p[i + j * C->ld];
            R[x] = c->alpha * R[x] + (c->beta != 0 ? c->beta * cv : 0);
            S[x] = fabs(c->alpha) * S[x] + (c->beta != 0 ? fabs(c->beta * cv) : 0);
            if (c->alpha == 0 || k == 0) R[x] = c->beta != 0 ? c->beta * cv : 0, S[x] = fabs(R[x]);
        }
    cudaFree(da);
    cudaFree(db);
    cudaFree(dr);
    free(ha);
    free(hb);
}

/* Runs one case on the device and checks it. Returns the Frobenius relative error. */
static double run_case(const kcase *c, uint64_t seed, int use_cublas_ref)
{
    const int64_t m = c->m, n = c->n, k = c->k;
    int64_t ar = c->ta == 'N' ? m : k, ac = c->ta == 'N' ? k : m;
    int64_t br = c->tb == 'N' ? k : n, bc = c->tb == 'N' ? n : k;
    tt_rng rng;
    tt_seed(&rng, seed);
    dmat A, B, C;
    tt_mat_alloc(&A.h, ar, ac, (ar > 0 ? ar : 1) + c->pad, c->off);
    tt_mat_alloc(&B.h, br, bc, (br > 0 ? br : 1) + (c->pad ? c->pad + 1 : 0), c->off ? (c->off % 3) + 1 : 0);
    tt_mat_alloc(&C.h, m, n, (m > 0 ? m : 1) + (c->pad ? c->pad + 2 : 0), c->off ? 3 - c->off % 3 : 0);
    if (c->ints) {
        tt_mat_fill_int(&A.h, &rng, -8, 8);
        tt_mat_fill_int(&B.h, &rng, -8, 8);
        tt_mat_fill_int(&C.h, &rng, -8, 8);
    } else {
        tt_mat_fill_uniform(&A.h, &rng);
        tt_mat_fill_uniform(&B.h, &rng);
        tt_mat_fill_uniform(&C.h, &rng);
    }
    if (c->beta == 0.0f) tt_mat_fill_value(&C.h, NAN); /* beta = 0 must never read C */
    float *sa = tt_mat_snapshot(&A.h), *sb = tt_mat_snapshot(&B.h), *sc = tt_mat_snapshot(&C.h);
    size_t nc = (size_t)(m > 0 ? m : 1) * (size_t)(n > 0 ? n : 1);
    double *R = malloc(nc * 8), *S = malloc(nc * 8);
    if (use_cublas_ref && m > 0 && n > 0 && k > 0)
        ref_dgemm(c, &A.h, &B.h, &C.h, R, S);
    else
        tt_ref_gemm(c->ta, c->tb, m, n, k, c->alpha, A.h.p, A.h.ld, B.h.p, B.h.ld, c->beta, C.h.p,
                    C.h.ld, R, S);
    dmat_upload(&A);
    dmat_upload(&B);
    dmat_upload(&C);
    int st = tsgemm_sgemm_device(c->ta, c->tb, m, n, k, c->alpha, A.d_p, A.h.ld, B.d_p, B.h.ld,
                                 c->beta, C.d_p, C.h.ld, NULL);
    CK(cudaDeviceSynchronize());
    dmat_download(&A);
    dmat_download(&B);
    dmat_download(&C);
    g_checks++;
    char what[200];
    snprintf(what, sizeof what, "%c%c m=%lld n=%lld k=%lld alpha=%g beta=%g lds=%lld,%lld,%lld off=%d %s seed=%llu",
             c->ta, c->tb, (long long)m, (long long)n, (long long)k, c->alpha, c->beta,
             (long long)A.h.ld, (long long)B.h.ld, (long long)C.h.ld, c->off,
             c->ints ? "ints" : "uniform", (unsigned long long)seed);
    double rel = -1;
    if (st != 0) {
        failf("%s: tsgemm_sgemm_device returned %d", what, st);
    } else {
        tt_check ck = tt_compare(C.h.p, C.h.ld, m, n, k, R, S, c->ints ? 0.0 : TT_GAMMA);
        rel = ck.rel_fro;
        size_t ref_nonzero = 0;
        for (size_t i = 0; i < (size_t)(m * n); ++i) ref_nonzero += R[i] != 0;
        if (ck.bad)
            failf("%s: %zu elements out of bound, first (%lld,%lld): got %.9g want %.9g", what,
                  ck.bad, (long long)ck.first_i, (long long)ck.first_j,
                  C.h.p[ck.first_i + ck.first_j * C.h.ld], R[ck.first_i + ck.first_j * m]);
        if (ref_nonzero && !ck.nonzero) failf("%s: C is all zeros", what);
        size_t da = tt_mat_any_changed(&A.h, sa), db = tt_mat_any_changed(&B.h, sb);
        size_t dc = tt_mat_outside_changed(&C.h, sc);
        if (da || db || dc)
            failf("%s: A changed %zu, B changed %zu, outside C's window %zu", what, da, db, dc);
    }
    free(sa), free(sb), free(sc), free(R), free(S);
    dmat_free(&A), dmat_free(&B), dmat_free(&C);
    return rel;
}

static const char TR[2] = {'N', 'T'};

static void seed_shapes(void)
{
    const int64_t shapes[4][3] = {{1024, 1024, 1024}, {512, 1024, 256}, {1000, 1000, 1000}, {300, 200, 1001}};
    for (int s = 0; s < 4; ++s)
        for (int t = 0; t < 4; ++t) {
            kcase c = {TR[t / 2], TR[t % 2], shapes[s][0], shapes[s][1], shapes[s][2], 1.0f, 0.0f, 0, 0, 0};
            double rel = run_case(&c, 100 + s * 4 + t, 1);
            printf("seed shape %c%c %lldx%lldx%lld: rel_fro %.3g\n", c.ta, c.tb, (long long)c.m,
                   (long long)c.n, (long long)c.k, rel);
        }
}

/* The edge grid: each of m, n, k over the list while the others sit at 33 and 65 (and at 1),
 * plus k = 0 and 1, over all transposes and the alpha/beta/pad/offset variants. */
static void edge_grid(int small)
{
    static const int64_t full[] = {1, 2, 3, 7, 15, 16, 17, 31, 33, 63, 65, 127, 129, 255, 257};
    static const int64_t few[] = {1, 7, 16, 17, 33, 129}; /* sanitizers: edges, remainders */
    const int64_t *sizes = small ? few : full;
    const int ns = small ? (int)(sizeof few / sizeof few[0]) : (int)(sizeof full / sizeof full[0]);
    const float alphas[3] = {0.0f, 1.0f, -1.5f}, betas[3] = {0.0f, 1.0f, 0.5f};
    uint64_t seed = 1000;
    for (int t = 0; t < 4; ++t)
        for (int d = 0; d < 3; ++d)
            for (int i = 0; i < ns; ++i) {
                int64_t dims[3] = {small ? 17 : 33, small ? 31 : 65, small ? 9 : 129};
                dims[d] = sizes[i];
                int v = (int)(seed % 9);
                kcase c = {TR[t / 2], TR[t % 2], dims[0], dims[1], dims[2], alphas[v / 3], betas[v % 3],
                           (int)(seed % 4), (int)(seed % 4), (int)(seed % 2)};
                run_case(&c, seed++, 0);
            }
    for (int t = 0; t < 4; ++t)
        for (int k = 0; k <= 1; ++k)
            for (int v = 0; v < 9; v += small ? 4 : 1) {
                kcase c = {TR[t / 2], TR[t % 2], 129, 67, k, alphas[v / 3], betas[v % 3], 1, 1, 1};
                run_case(&c, seed++, 0);
            }
    /* a transposed A (TN, TT) with a 16-byte aligned base and lda % 4 == 0: the 16-byte copies
     * into a k-contiguous tile of configurations with BigConfig::AKC (the sample above hits it in
     * about one case of eight); k cuts a 4-float chunk in every way, m a warp's and a tile's rows */
    static const int64_t ks_full[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65},
                         ks_few[] = {1, 3, 4, 17, 33};
    for (int t = 2; t < 4; ++t)
        for (int i = 0; i < (small ? 5 : 15); ++i) {
            const int64_t k = small ? ks_few[i] : ks_full[i], m = small ? (i % 2 ? 17 : 33) : (i % 2 ? 257 : 65);
            const int v = (int)(seed % 9);
            kcase c = {TR[t / 2], TR[t % 2], m, small ? 31 : 65, k, alphas[v / 3], betas[v % 3],
                       (int)((4 - k % 4) % 4), 0, (int)(seed % 2)};
            run_case(&c, seed++, 0);
        }
    /* a random sample of the full cartesian product */
    tt_rng r;
    tt_seed(&r, 5);
    for (int i = 0; i < (small ? 8 : 120); ++i) {
        kcase c = {TR[tt_next(&r) % 2], TR[tt_next(&r) % 2], sizes[tt_next(&r) % ns],
                   sizes[tt_next(&r) % ns], sizes[tt_next(&r) % ns], -1.5f, 0.5f,
                   (int)(tt_next(&r) % 5), (int)(tt_next(&r) % 4), (int)(tt_next(&r) % 2)};
        if (small && c.m * c.n * c.k > 64 * 64 * 64) continue;
        run_case(&c, seed++, 0);
    }
}

static void special_shapes(int small)
{
    /* split-K: C grids far smaller than the GPU (integers: exact, so any split order is exact) */
    kcase c1 = {'N', 'T', 256, 192, small ? 3000 : 65536, 1.0f, 0.5f, 0, 0, 1};
    run_case(&c1, 7001, !small);
    kcase c2 = {'T', 'N', 1, 1, small ? 5000 : 1 << 22, 1.0f, 0.0f, 0, 0, 1};
    run_case(&c2, 7002, 0);
    kcase c3 = {'N', 'N', 512, 512, small ? 2048 : 65536, -1.5f, 0.0f, 3, 1, 0};
    run_case(&c3, 7003, !small);
    if (small) return;
    /* grids that would need more than 65535 blocks on one axis, both ways */
    kcase c4 = {'N', 'N', 65535LL * 128 + 1, 3, 5, 1.0f, 1.0f, 0, 0, 1};
    run_case(&c4, 7004, 0);
    kcase c5 = {'T', 'T', 3, 65535LL * 128 + 1, 5, 1.0f, 0.0f, 0, 0, 1};
    run_case(&c5, 7005, 0);
    /* the rule's stream-K tail (v0.14) on an H200-sized grid: 2304^3 is configuration 7 with 30
     * of its 243 tiles shared by 132 blocks, TT 3072^3 configuration 9 with 48 of 576 on 264 (on
     * another GPU the plan may have none; the check of the result holds either way) */
    const kcase tails[2] = {{'N', 'N', 2304, 2304, 2304, 1.0f, 0.5f, 0, 0, 0},
                            {'T', 'T', 3072, 3072, 3072, -1.0f, 1.0f, 0, 0, 1}};
    for (int i = 0; i < 2; ++i) {
        int64_t tt = 0, tb = 0;
        tsgemm_kernel_tail(tails[i].ta, tails[i].tb, tails[i].m, tails[i].n, tails[i].k, &tt, &tb);
        printf("%c%c %lld^3: the rule's tail %lld tiles on %lld blocks\n", tails[i].ta, tails[i].tb,
               (long long)tails[i].m, (long long)tt, (long long)tb);
        run_case(&tails[i], 7006 + i, 1);
    }
}

/* Class 16: a long-K problem repeated gives bit-identical results. */
static void repeats(int small)
{
    const int64_t m = 300, n = 200, k = small ? 4001 : 100003;
    int cfg = -1;
    int64_t splits = 0;
    tsgemm_kernel_plan('N', 'N', m, n, k, &cfg, &splits);
    tt_rng r;
    tt_seed(&r, 16);
    size_t na = (size_t)(m * k), nb = (size_t)(k * n), nc = (size_t)(m * n);
    float *h = malloc((na + nb) * 4), *c0 = malloc(nc * 4), *c1 = malloc(nc * 4);
    for (size_t i = 0; i < na + nb; ++i) h[i] = tt_uniform(&r);
    float *d, *dc;
    CK(cudaMalloc((void **)&d, (na + nb) * 4));
    CK(cudaMalloc((void **)&dc, nc * 4));
    CK(cudaMemcpy(d, h, (na + nb) * 4, cudaMemcpyHostToDevice));
    int differ = 0;
    for (int rep = 0; rep < (small ? 2 : 20); ++rep) {
        CK(cudaMemset(dc, 0xff, nc * 4)); /* NaN */
        if (tsgemm_sgemm_device('N', 'N', m, n, k, 1.0f, d, m, d + na, k, 0.0f, dc, m, NULL))
            failf("repeat: call failed");
        CK(cudaMemcpy(rep ? c1 : c0, dc, nc * 4, cudaMemcpyDeviceToHost));
        if (rep && memcmp(c0, c1, nc * 4)) differ++;
    }
    g_checks++;
    if (differ)
        failf("repeat (config %d, %lld splits): %d of the repeats differ bitwise from the first", cfg,
              (long long)splits, differ);
    cudaFree(d), cudaFree(dc), free(h), free(c0), free(c1);
}

/* docs/TESTING.md: ||C - C64||_F / ||C64||_F of tsgemm over the same for cuBLAS SGEMM, NN n^3
 * (issues 10-11: n = 1024, 4096, 16384; the gpu tier runs 4096 alone, TSGEMM_ACCURACY_N the
 * listed sizes). */
static void accuracy_ratio(int n)
{
    size_t nn = (size_t)n * n;
    tt_rng r;
    tt_seed(&r, (uint64_t)n);
    float *ha = malloc(nn * 4 * 2), *hc = malloc(nn * 4);
    double *hd = malloc(nn * 8 * 2), *ref = malloc(nn * 8);
    for (size_t i = 0; i < 2 * nn; ++i) ha[i] = tt_uniform(&r), hd[i] = ha[i];
    float *da, *dc;
    double *dd, *dr;
    CK(cudaMalloc((void **)&da, nn * 8));
    CK(cudaMalloc((void **)&dc, nn * 4));
    CK(cudaMalloc((void **)&dd, nn * 16));
    CK(cudaMalloc((void **)&dr, nn * 8));
    CK(cudaMemcpy(da, ha, nn * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dd, hd, nn * 16, cudaMemcpyHostToDevice));
    const double one = 1, zero = 0;
    CB(cublasDgemm(g_cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dd, n, dd + nn, n, &zero, dr, n));
    CK(cudaMemcpy(ref, dr, nn * 8, cudaMemcpyDeviceToHost));
    /* cuBLAS first, then the rule (-1) and every configuration forced */
    char info[256];
    const int ncfg = tsgemm_kernel_config_info(0, info, sizeof info);
    double cub = 0;
    for (int which = -2; which < ncfg; ++which) {
        CK(cudaMemset(dc, 0xff, nn * 4));
        if (which >= -1) {
            tsgemm_set_kernel_config(which, 0);
            if (tsgemm_sgemm_device('N', 'N', n, n, n, 1.0f, da, n, da + nn, n, 0.0f, dc, n, NULL))
                failf("accuracy: tsgemm call failed");
        } else {
            const float onef = 1, zerof = 0;
            CB(cublasSgemm(g_cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &onef, da, n, da + nn, n,
                           &zerof, dc, n));
        }
        CK(cudaMemcpy(hc, dc, nn * 4, cudaMemcpyDeviceToHost));
        double num = 0, den = 0;
        for (size_t i = 0; i < nn; ++i) {
            double d = hc[i] - ref[i];
            num += d * d, den += ref[i] * ref[i];
        }
        const double err = sqrt(num / den);
        if (which == -2) {
            cub = err;
            continue;
        }
        const double ratio = err / cub;
        char who[32];
        snprintf(who, sizeof who, which < 0 ? "the rule" : "config %d", which);
        printf("accuracy n=%d (%s): tsgemm %.3g, cuBLAS FP32 %.3g, ratio %.3f (limit 1.5)\n", n, who,
               err, cub, ratio);
        g_checks++;
        if (!(ratio <= 1.5)) failf("accuracy ratio %.3f > 1.5 (n = %d, config %d)", ratio, n, which);
    }
    tsgemm_set_kernel_config(-1, 0);
    cudaFree(da), cudaFree(dc), cudaFree(dd), cudaFree(dr);
    free(ha), free(hc), free(hd), free(ref);
}

/* The host-memory path (cblas_sgemm with the GPU forced): transfers at exact extents, the C
 * upload only for beta != 0, the staged download of C's window. Small, for the sanitizers too. */
static void host_path(void)
{
    tsgemm_set_mode(TSGEMM_MODE_GPU);
    const int64_t shapes[3][3] = {{17, 33, 9}, {130, 67, 45}, {1, 200, 513}};
    uint64_t seed = 9000;
    for (int s = 0; s < 3; ++s)
        for (int t = 0; t < 4; ++t)
            for (int b = 0; b < 2; ++b) {
                const int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
                const char ta = TR[t / 2], tb = TR[t % 2];
                tt_rng r;
                tt_seed(&r, seed++);
                tt_mat A, B, C;
                tt_mat_alloc(&A, ta == 'N' ? m : k, ta == 'N' ? k : m, (ta == 'N' ? m : k) + 1, 1);
                tt_mat_alloc(&B, tb == 'N' ? k : n, tb == 'N' ? n : k, (tb == 'N' ? k : n) + 2, 2);
                tt_mat_alloc(&C, m, n, m + 3, 3);
                tt_mat_fill_int(&A, &r, -8, 8);
                tt_mat_fill_int(&B, &r, -8, 8);
                tt_mat_fill_int(&C, &r, -8, 8);
                const float beta = b ? 0.5f : 0.0f;
                if (!b) tt_mat_fill_value(&C, NAN);
                float *sc = tt_mat_snapshot(&C);
                double *R = malloc(sizeof(double) * (size_t)(m * n));
                tt_ref_gemm(ta, tb, m, n, k, -1.5, A.p, A.ld, B.p, B.ld, beta, C.p, C.ld, R, NULL);
                cblas_sgemm(CblasColMajor, ta == 'N' ? CblasNoTrans : CblasTrans,
                            tb == 'N' ? CblasNoTrans : CblasTrans, (int)m, (int)n, (int)k, -1.5f,
                            A.p, (int)A.ld, B.p, (int)B.ld, beta, C.p, (int)C.ld);
                g_checks++;
                tt_check ck = tt_compare(C.p, C.ld, m, n, k, R, NULL, 0.0);
                if (strcmp(tsgemm_last_path(), "gpu"))
                    failf("host path %c%c %lldx%lldx%lld ran on %s", ta, tb, (long long)m,
                          (long long)n, (long long)k, tsgemm_last_path());
                if (ck.bad || tt_mat_outside_changed(&C, sc))
                    failf("host path %c%c %lldx%lldx%lld beta=%g: %zu wrong", ta, tb, (long long)m,
                          (long long)n, (long long)k, beta, ck.bad);
                free(sc), free(R);
                tt_mat_free(&A), tt_mat_free(&B), tt_mat_free(&C);
            }
    tsgemm_set_mode(TSGEMM_MODE_AUTO);
}

/* The stream-K tail forced onto few blocks, so that small grids exercise it: tiles shared by
 * blocks whose runs cross a tile boundary (two pieces), DP tiles beside tail tiles, long K,
 * transposes, padded and offset operands, beta applied by the fix-up. Integer inputs are exact
 * in any order; uniform ones are checked within the element bound. */
static void tail_shapes(int small)
{
    const int64_t blocks[] = {5, 7};
    for (int b = 0; b < 2; ++b) {
        tsgemm_set_kernel_tail(blocks[b]);
        kcase c1 = {'N', 'N', 700, 300, small ? 700 : 3001, 1.0f, 0.5f, 0, 0, 1};
        run_case(&c1, 8001 + b, 0);
        kcase c2 = {'T', 'N', 555, 333, small ? 333 : 4097, -1.5f, 0.0f, 3, 1, 0};
        run_case(&c2, 8011 + b, 0);
        kcase c3 = {'N', 'T', 1000, 129, 100, 1.0f, 1.0f, 1, 2, 1};
        run_case(&c3, 8021 + b, 0);
        kcase c4 = {'T', 'T', 257, 1000, small ? 40 : 999, 0.5f, -1.0f, 2, 0, 0};
        run_case(&c4, 8031 + b, 0);
    }
    tsgemm_set_kernel_tail(3);
}

/* The accuracy lines (accuracy_ratio) at TSGEMM_ACCURACY_N's sizes (n^3, NN; 4096 when unset). */
static void accuracy_sizes(void)
{
    const char *sizes = getenv("TSGEMM_ACCURACY_N");
    if (!sizes || !*sizes) accuracy_ratio(4096);
    for (const char *p = sizes; p && *p;) {
        char *end;
        const long v = strtol(p, &end, 10);
        if (end == p) break;
        if (v > 0 && v <= 16384) accuracy_ratio((int)v);
        p = end;
    }
}

/* Each configuration forced in turn (TSGEMM_KERNEL_CONFIG=N[,N...]: those only): the edge grid with
 * the rule's split for that configuration and with 3 slices of K, the split-K shapes, repeats. */
static void every_config(int small)
{
    char info[256];
    const int count = tsgemm_kernel_config_info(0, info, sizeof info);
    const char *only = getenv("TSGEMM_KERNEL_CONFIG");
    for (int c = 0; c < count; ++c) {
        if (only && *only && !tt_in_list(only, c)) continue;
        tsgemm_kernel_config_info(c, info, sizeof info);
        const int f0 = g_fail, c0 = g_checks;
        for (int splits = 0; splits <= 3; splits += 3) {
            if (tsgemm_set_kernel_config(c, splits) != 0) failf("tsgemm_set_kernel_config(%d, %d)", c, splits);
            edge_grid(small || splits);
        }
        tsgemm_set_kernel_config(c, 0);
        special_shapes(1);
        repeats(1);
        /* the stream-K tail forced (configurations that have one: the big family) */
        int64_t tt = 0, tb = 0;
        if (tsgemm_set_kernel_tail(3) != 0) failf("tsgemm_set_kernel_tail(3)");
        if (tsgemm_kernel_tail('N', 'N', 200, 100, 50, &tt, &tb) != 0) failf("tsgemm_kernel_tail");
        if (tt > 0) {
            const int c1 = g_checks;
            edge_grid(1);
            tail_shapes(small);
            repeats(1);
            printf("%s: stream-K tail forced: %d checks\n", info, g_checks - c1);
        }
        tsgemm_set_kernel_tail(0);
        printf("%s: %d checks, %d failures\n", info, g_checks - c0, g_fail - f0);
    }
    tsgemm_set_kernel_config(-1, 0);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run killed by a time limit keeps its finished lines */
    const int forced_only = argc > 1 && !strcmp(argv[1], "--small-forced");
    int small = forced_only || (argc > 1 && !strcmp(argv[1], "--small"));
    const int do_acc = argc > 1 && !strcmp(argv[1], "--accuracy"); /* the accuracy lines only */
    char info[256];
    if (tsgemm_kernel_info(info, sizeof info) != 0) {
        printf("SKIP: %s\n", info);
        return 77;
    }
    printf("kernel: %s\n", info);
    if (!small) CB(cublasCreate(&g_cublas));
    if (do_acc) {
        accuracy_sizes();
        printf("%d checks, %d failures\n", g_checks, g_fail);
    } else {
        every_config(small);
        if (!forced_only) { /* then everything under the rule */
            if (!small) seed_shapes();
            edge_grid(small);
            special_shapes(small);
            repeats(small);
            host_path();
            if (!small) accuracy_sizes();
        }
        printf("%d checks, %d failures\n", g_checks, g_fail);
    }
    if (g_cublas) cublasDestroy(g_cublas);
    tsgemm_release();
    return g_fail ? 1 : 0;
}
