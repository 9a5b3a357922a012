/*
 * test_gpu_residency.c — fault class 19: a CUDA program calling cblas_sgemm on its own CUDA
 * memory (linked to libtsgemm_fi and to the CUDA runtime, as such a program would be).
 *   - device (cudaMalloc), managed (cudaMallocManaged), pinned (cudaHostAlloc) and pageable
 *     operands, each alone and mixed, x both layouts x the four transpose pairs x beta in
 *     {0 (C poisoned with NaN), 0.75}, padded leading dimensions, against a double reference;
 *   - the calling thread's current device (and context) is the same after the call as before,
 *     also on a thread that never used CUDA;
 *   - work the caller queued on the legacy default stream right before the call (a long copy,
 *     then the new values of A) is seen by the call;
 *   - device operands with TSGEMM_MODE=cpu, with an injected GPU failure, and under the tiny-call
 *     rule: refused or run on the GPU, never touched by the CPU — C untouched, process alive,
 *     the refusal counted.
 *
 *   test_gpu_residency            the gpu tier (exit 77 when no GPU is usable)
 *   test_gpu_residency --small    fewer shapes (the compute-sanitizer run)
 *   test_gpu_residency --bench    4096^3 on device operands through cblas_sgemm against the
 *                                 kernel alone (tsgemm_sgemm_device), and the cost of a 2x2 call
 *                                 on host memory in a process that uses CUDA
 */
#define _GNU_SOURCE
#include <cblas-netlib.h>
#include <dlfcn.h>
#include <cuda_runtime.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_cases.h"
#include "gpu_check.h"
#include "tsg_testutil.h"
#include "tsgemm.h"

int tsgemm_test_fault(const char *spec); /* libtsgemm_fi only */

static int g_fail, g_checks;

enum { HOST = 0, PINNED, MANAGED, DEVICE };
static const char *const kind_name[4] = {"host", "pinned", "managed", "device"};

/* A matrix whose values live on the host (for setting and checking) and whose operand lives in
 * memory of kind `kind` (a copy of the whole buffer, padding and guards included). */
typedef struct xmat {
    tt_mat h;
    int kind;
    float *mem, *p; /* the operand's buffer and first element */
} xmat;

static void xmat_make(xmat *x, int kind, int64_t rows, int64_t cols, int64_t ld)
{
    if (tt_mat_alloc(&x->h, rows, cols, ld, 0)) exit(1);
    x->kind = kind;
    const size_t bytes = x->h.total * sizeof(float);
    switch (kind) {
    case PINNED: CK(cudaHostAlloc((void **)&x->mem, bytes, cudaHostAllocDefault)); break;
    case MANAGED: CK(cudaMallocManaged((void **)&x->mem, bytes, cudaMemAttachGlobal)); break;
    case DEVICE: CK(cudaMalloc((void **)&x->mem, bytes)); break;
    default: x->mem = x->h.mem; break;
    }
    x->p = x->mem + x->h.first;
}

/* host values -> operand memory */
static void xmat_put(xmat *x)
{
    if (x->kind == HOST) return;
    CK(cudaMemcpy(x->mem, x->h.mem, x->h.total * sizeof(float), cudaMemcpyDefault));
}

/* operand memory -> a host copy (returned; free it) */
static float *xmat_get(const xmat *x)
{
    float *out = malloc(x->h.total * sizeof(float));
    CK(cudaMemcpy(out, x->mem, x->h.total * sizeof(float), cudaMemcpyDefault));
    return out;
}

static void xmat_free(xmat *x)
{
    if (x->kind == PINNED) cudaFreeHost(x->mem);
    else if (x->kind == MANAGED || x->kind == DEVICE) cudaFree(x->mem);
    tt_mat_free(&x->h);
}

typedef struct rcase {
    int row, ka, kb, kc; /* layout, kinds of A, B, C */
    char ta, tb;
    int64_t m, n, k;
    float beta;
} rcase;

/* Runs one call; checks C (whole buffer: the window against the reference, the rest unchanged)
 * and A, B unchanged. want: expected tsgemm_last_path(). */
static void run(const rcase *g, const char *want, uint64_t seed)
{
    tt_rng r;
    tt_seed(&r, seed);
    const int64_t ar = g->ta == 'N' ? g->m : g->k, ac = g->ta == 'N' ? g->k : g->m;
    const int64_t br = g->tb == 'N' ? g->k : g->n, bc = g->tb == 'N' ? g->n : g->k;
    xmat A, B, C;
    xmat_make(&A, g->ka, ar, ac, ar + 3);
    xmat_make(&B, g->kb, br, bc, br + 1);
    xmat_make(&C, g->kc, g->m, g->n, g->m + 2);
    tt_mat_fill_uniform(&A.h, &r);
    tt_mat_fill_uniform(&B.h, &r);
    tt_mat_fill_uniform(&C.h, &r);
    float *c0 = tt_mat_snapshot(&C.h);
    if (g->beta == 0.0f) tt_mat_fill_value(&C.h, NAN);
    float *snapC = tt_mat_snapshot(&C.h);
    xmat_put(&A), xmat_put(&B), xmat_put(&C);
    const CBLAS_TRANSPOSE ta = g->ta == 'N' ? CblasNoTrans : CblasTrans;
    const CBLAS_TRANSPOSE tb = g->tb == 'N' ? CblasNoTrans : CblasTrans;
    if (!g->row)
        cblas_sgemm(CblasColMajor, ta, tb, (int)g->m, (int)g->n, (int)g->k, 1.0f, A.p, (int)A.h.ld,
                    B.p, (int)B.h.ld, g->beta, C.p, (int)C.h.ld);
    else
        cblas_sgemm(CblasRowMajor, tb, ta, (int)g->n, (int)g->m, (int)g->k, 1.0f, B.p, (int)B.h.ld,
                    A.p, (int)A.h.ld, g->beta, C.p, (int)C.h.ld);
    char d[200];
    snprintf(d, sizeof d, "%s A=%s B=%s C=%s %c%c %lldx%lldx%lld beta=%g", g->row ? "row" : "col",
             kind_name[g->ka], kind_name[g->kb], kind_name[g->kc], g->ta, g->tb, (long long)g->m,
             (long long)g->n, (long long)g->k, g->beta);
    EXPECT(!strcmp(tsgemm_last_path(), want), "%s: ran on %s, expected %s", d, tsgemm_last_path(), want);
    g_checks++;
    float *got = xmat_get(&C), *ga = xmat_get(&A), *gb = xmat_get(&B);
    tt_mat view = C.h;
    view.mem = got;
    view.p = got + C.h.first;
    if (!strcmp(want, "refused")) {
        EXPECT(tt_mat_any_changed(&view, snapC) == 0, "%s: refused, but C changed", d);
    } else {
        double *ref = malloc(sizeof(double) * (size_t)(g->m * g->n)), *ab = malloc(sizeof(double) * (size_t)(g->m * g->n));
        tt_ref_gemm(g->ta, g->tb, g->m, g->n, g->k, 1.0, A.h.p, A.h.ld, B.h.p, B.h.ld, g->beta,
                    c0 + C.h.first, C.h.ld, ref, ab);
        tt_check ck = tt_compare(view.p, C.h.ld, g->m, g->n, g->k, ref, ab, TT_GAMMA);
        EXPECT(ck.bad == 0 && ck.nonzero > 0, "%s: %zu elements outside the bound, first (%lld, %lld)", d,
               ck.bad, (long long)ck.first_i, (long long)ck.first_j);
        EXPECT(tt_mat_outside_changed(&view, snapC) == 0, "%s: written outside C's window", d);
        free(ref), free(ab);
    }
    tt_mat va = A.h, vb = B.h;
    float *sa = tt_mat_snapshot(&A.h), *sb = tt_mat_snapshot(&B.h);
    va.mem = ga, va.p = ga + A.h.first;
    vb.mem = gb, vb.p = gb + B.h.first;
    EXPECT(tt_mat_any_changed(&va, sa) == 0 && tt_mat_any_changed(&vb, sb) == 0, "%s: A or B changed", d);
    free(sa), free(sb), free(got), free(ga), free(gb), free(c0), free(snapC);
    xmat_free(&A), xmat_free(&B), xmat_free(&C);
}

static void kinds_grid(int small)
{
    tsgemm_set_mode(TSGEMM_MODE_GPU); /* host-readable combos would go to the CPU at these sizes */
    /* every residency of A, B, C alone against host memory, and mixed ones */
    const int combos[][3] = {
        {DEVICE, DEVICE, DEVICE}, {MANAGED, MANAGED, MANAGED}, {PINNED, PINNED, PINNED},
        {DEVICE, HOST, HOST},     {HOST, DEVICE, HOST},        {HOST, HOST, DEVICE},
        {PINNED, DEVICE, HOST},   {MANAGED, HOST, PINNED},     {DEVICE, MANAGED, PINNED},
        {HOST, PINNED, MANAGED},
    };
    const char tr[4][2] = {{'N', 'N'}, {'N', 'T'}, {'T', 'N'}, {'T', 'T'}};
    int idx = 0;
    for (size_t c = 0; c < sizeof combos / sizeof combos[0]; ++c)
        for (int row = 0; row < 2; ++row)
            for (int t = 0; t < 4; ++t)
                for (int b = 0; b < 2; ++b, ++idx) {
                    if (small && idx % 7) continue;
                    rcase g = {row, combos[c][0], combos[c][1], combos[c][2], tr[t][0], tr[t][1],
                               257 + 3 * t, 131 + 5 * c, 300 + 7 * row, b ? 0.75f : 0.0f};
                    run(&g, "gpu", 100 + (uint64_t)idx);
                }
    /* a large mixed call goes through the pipeline's pieces */
    rcase big = {0, DEVICE, HOST, PINNED, 'N', 'T', 1500, 1300, 900, 0.75f};
    run(&big, "gpu", 7);
    tsgemm_set_mode(TSGEMM_MODE_AUTO);
}

/* ---- the caller's CUDA state ---- */

/* The driver's current-context query, from the libcuda the CUDA runtime loaded (not linked:
 * the test must start, and skip, on machines without a driver). */
typedef int (*ctx_get_fn)(void **);
static ctx_get_fn g_ctx_get;

typedef struct ctx_probe {
    float *dA, *dB, *dC;
    void *before, *after;
} ctx_probe;

/* A thread that never used CUDA: only the BLAS call, between two looks at its context. */
static void *no_cuda_thread(void *arg)
{
    ctx_probe *c = arg;
    c->before = c->after = (void *)1;
    g_ctx_get(&c->before);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 64, 64, 64, 1.0f, c->dA, 64, c->dB, 64,
                0.0f, c->dC, 64);
    g_ctx_get(&c->after);
    return NULL;
}

/* A thread that never used CUDA asks tsgemm to describe its kernels: it must keep no context. */
static void *info_thread(void *arg)
{
    ctx_probe *c = arg;
    c->before = c->after = (void *)1;
    g_ctx_get(&c->before);
    char info[512];
    tsgemm_kernel_info(info, sizeof info);
    g_ctx_get(&c->after);
    return NULL;
}

static void caller_state(void)
{
    int dev_before = -1, dev_after = -1;
    void *ctx_before = NULL, *ctx_after = NULL;
    CK(cudaGetDevice(&dev_before));
    g_ctx_get(&ctx_before);
    rcase g = {1, DEVICE, PINNED, DEVICE, 'T', 'N', 400, 300, 200, 0.5f};
    run(&g, "gpu", 1);
    CK(cudaGetDevice(&dev_after));
    g_ctx_get(&ctx_after);
    EXPECT(dev_before == dev_after, "current device changed from %d to %d", dev_before, dev_after);
    EXPECT(ctx_before == ctx_after, "current context changed");
    ctx_probe c;
    float h[64 * 64];
    for (int i = 0; i < 64 * 64; ++i) h[i] = (float)(i % 5) - 2.0f;
    CK(cudaMalloc((void **)&c.dA, sizeof h));
    CK(cudaMalloc((void **)&c.dB, sizeof h));
    CK(cudaMalloc((void **)&c.dC, sizeof h));
    CK(cudaMemcpy(c.dA, h, sizeof h, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(c.dB, h, sizeof h, cudaMemcpyHostToDevice));
    pthread_t t;
    pthread_create(&t, NULL, no_cuda_thread, &c);
    pthread_join(t, NULL);
    EXPECT(c.before == NULL && c.after == NULL,
           "a thread with no current context got one from tsgemm (%p -> %p)", c.before, c.after);
    ctx_probe ci;
    pthread_create(&t, NULL, info_thread, &ci);
    pthread_join(t, NULL);
    EXPECT(ci.before == NULL && ci.after == NULL,
           "a thread with no current context got one from tsgemm_kernel_info (%p -> %p)", ci.before,
           ci.after);
    g_checks++;
    float got[64 * 64];
    CK(cudaMemcpy(got, c.dC, sizeof got, cudaMemcpyDeviceToHost));
    double s = 0;
    for (int l = 0; l < 64; ++l) s += (double)h[5 + l * 64] * h[l + 9 * 64];
    EXPECT(got[5 + 9 * 64] == (float)s, "the call from a fresh thread computed %g, expected %g",
           got[5 + 9 * 64], s);
    g_checks++;
    cudaFree(c.dA), cudaFree(c.dB), cudaFree(c.dC);
}

/* Work queued on the legacy default stream just before the call: a long copy, then the real
 * values of A over a stale A. A call that does not wait computes with the stale A. */
static void default_stream_order(void)
{
    const int64_t n = 1024;
    const size_t bytes = (size_t)n * n * 4;
    float *hA = malloc(bytes), *hB = malloc(bytes), *hC = malloc(bytes), *pinnedA;
    tt_rng r;
    tt_seed(&r, 9);
    for (int64_t i = 0; i < n * n; ++i) hA[i] = tt_small_int(&r, -4, 4), hB[i] = tt_small_int(&r, -4, 4);
    CK(cudaHostAlloc((void **)&pinnedA, bytes, cudaHostAllocDefault));
    memcpy(pinnedA, hA, bytes);
    float *dA, *dB, *dC, *big0, *big1;
    const size_t big = (size_t)2 << 30; /* ~1 ms of device copy ahead of A's values */
    CK(cudaMalloc((void **)&dA, bytes));
    CK(cudaMalloc((void **)&dB, bytes));
    CK(cudaMalloc((void **)&dC, bytes));
    CK(cudaMalloc((void **)&big0, big));
    CK(cudaMalloc((void **)&big1, big));
    CK(cudaMemset(dA, 0, bytes)); /* the stale A: zeros would give C = 0 */
    CK(cudaMemcpy(dB, hB, bytes, cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize());
    for (int rep = 0; rep < 3; ++rep) {
        CK(cudaMemcpyAsync(big1, big0, big, cudaMemcpyDeviceToDevice, 0));
        CK(cudaMemcpyAsync(dA, pinnedA, bytes, cudaMemcpyHostToDevice, 0));
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, dA,
                    (int)n, dB, (int)n, 0.0f, dC, (int)n);
        CK(cudaMemcpy(hC, dC, bytes, cudaMemcpyDeviceToHost));
        /* integer inputs: exact; check a column */
        int bad = 0;
        for (int64_t i = 0; i < n; ++i) {
            double s = 0;
            for (int64_t l = 0; l < n; ++l) s += (double)hA[i + l * n] * hB[l + 7 * n];
            bad += hC[i + 7 * n] != (float)s;
        }
        EXPECT(bad == 0, "the call did not see A written on the default stream (%d wrong)", bad);
        CK(cudaMemset(dA, 0, bytes));
        CK(cudaDeviceSynchronize());
    }
    g_checks++;
    cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(big0), cudaFree(big1), cudaFreeHost(pinnedA);
    free(hA), free(hB), free(hC);
}

/* ---- device operands the CPU cannot take ---- */

static void refusals(void)
{
    struct tsgemm_stats s0, s1;
    tsgemm_get_stats(&s0);
    tsgemm_set_mode(TSGEMM_MODE_CPU);
    rcase g = {0, DEVICE, HOST, HOST, 'N', 'N', 200, 100, 50, 0.5f};
    run(&g, "refused", 21);
    rcase g2 = {1, HOST, HOST, DEVICE, 'T', 'T', 64, 64, 64, 0.0f};
    run(&g2, "refused", 22);
    tsgemm_set_mode(TSGEMM_MODE_AUTO);
    /* tiny calls with a device operand run on the GPU (the CPU cannot read it) */
    rcase tiny = {0, HOST, DEVICE, HOST, 'N', 'T', 3, 2, 4, 0.5f};
    run(&tiny, "gpu", 23);
    /* alpha = 0 on a device C: the scalar rule runs on the GPU */
    /* an injected failure: refused, C untouched */
    EXPECT(tsgemm_test_fault("kernel:1") == 0, "cannot arm the fault");
    rcase f = {0, DEVICE, DEVICE, DEVICE, 'N', 'N', 300, 300, 300, 0.5f};
    run(&f, "refused", 24);
    tsgemm_test_fault("");
    run(&f, "gpu", 25); /* and the GPU works again */
    tsgemm_get_stats(&s1);
    EXPECT(s1.refused - s0.refused == 3, "refused count +%llu, expected 3",
           (unsigned long long)(s1.refused - s0.refused));
}

/* ---- speed ---- */

static void bench(void)
{
    const int64_t n = 4096;
    const size_t bytes = (size_t)n * n * 4;
    float *dA, *dB, *dC, *h = malloc(bytes);
    for (int64_t i = 0; i < n * n; ++i) h[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
    CK(cudaMalloc((void **)&dA, bytes));
    CK(cudaMalloc((void **)&dB, bytes));
    CK(cudaMalloc((void **)&dC, bytes));
    CK(cudaMemcpy(dA, h, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, h, bytes, cudaMemcpyHostToDevice));
    enum { R = 15 };
    double tc[R], tk[R];
    for (int r = 0; r < R + 2; ++r) {
        double t0 = tt_now_s();
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, dA,
                    (int)n, dB, (int)n, 0.0f, dC, (int)n);
        double t1 = tt_now_s();
        tsgemm_sgemm_device('N', 'N', n, n, n, 1.0f, dA, n, dB, n, 0.0f, dC, n, NULL);
        CK(cudaDeviceSynchronize());
        double t2 = tt_now_s();
        if (r >= 2) tc[r - 2] = t1 - t0, tk[r - 2] = t2 - t1;
    }
    tt_median(tc, R); /* sorts it */
    tt_median(tk, R); /* sorts it */
    printf("device operands 4096^3: cblas_sgemm %.3f ms, kernel alone %.3f ms: ratio %.3f "
           "(target >= 0.95), path %s\n", tc[R / 2] * 1e3, tk[R / 2] * 1e3, tk[R / 2] / tc[R / 2],
           tsgemm_last_path());
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
    /* tiny host calls in a process with CUDA: the residency check's cost */
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4];
    const int N = 200000;
    double best = 1e30;
    for (int r = 0; r < 5; ++r) {
        double t0 = tt_now_s();
        for (int i = 0; i < N; ++i)
            cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
        double t = (tt_now_s() - t0) / N;
        if (t < best) best = t;
    }
    printf("2x2x2 host call in a CUDA process: %.1f ns per call (path %s)\n", best * 1e9, tsgemm_last_path());
    /* what the driver's pointer queries cost (the residency check's candidates) */
    void *cu = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    typedef int (*attrs_fn)(unsigned, int *, void **, unsigned long long);
    typedef int (*attr_fn)(void *, int, unsigned long long);
    attrs_fn attrs = cu ? (attrs_fn)dlsym(cu, "cuPointerGetAttributes") : NULL;
    attr_fn attr1 = cu ? (attr_fn)dlsym(cu, "cuPointerGetAttribute") : NULL;
    if (attrs && attr1 && g_ctx_get) {
        const int M = 100000;
        unsigned mt = 0, mg = 0;
        int ord = 0;
        int ids3[3] = {2, 8, 9}, ids1[1] = {2};
        void *d3[3] = {&mt, &mg, &ord}, *d1[1] = {&mt};
        double t0 = tt_now_s();
        for (int i = 0; i < M; ++i) attrs(3, ids3, d3, (unsigned long long)(uintptr_t)a);
        double t1 = tt_now_s();
        for (int i = 0; i < M; ++i) attrs(1, ids1, d1, (unsigned long long)(uintptr_t)a);
        double t2 = tt_now_s();
        for (int i = 0; i < M; ++i) attr1(&mt, 2, (unsigned long long)(uintptr_t)a);
        double t3 = tt_now_s();
        void *ctx;
        for (int i = 0; i < M; ++i) g_ctx_get(&ctx);
        double t4 = tt_now_s();
        printf("driver per call: cuPointerGetAttributes(3) %.1f ns, (1) %.1f ns, "
               "cuPointerGetAttribute %.1f ns, cuCtxGetCurrent %.1f ns (host pointer)\n",
               (t1 - t0) / M * 1e9, (t2 - t1) / M * 1e9, (t3 - t2) / M * 1e9, (t4 - t3) / M * 1e9);
    }
    free(h);
}

int main(int argc, char **argv)
{
    char info[512];
    setvbuf(stdout, NULL, _IONBF, 0); /* nothing lost if the test crashes */
    if (tsgemm_kernel_info(info, sizeof info) != 0) {
        printf("SKIP: %s\n", info);
        return 77;
    }
    CK(cudaFree(NULL)); /* the program's own context (the primary context, shared with tsgemm) */
    void *cu = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    g_ctx_get = cu ? (ctx_get_fn)dlsym(cu, "cuCtxGetCurrent") : NULL;
    if (!g_ctx_get) {
        fprintf(stderr, "libcuda's cuCtxGetCurrent not found\n");
        return 1;
    }
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "--bench")) {
        bench();
        return 0;
    }
    const int small = !strcmp(mode, "--small");
    kinds_grid(small);
    caller_state();
    if (!small) default_stream_order();
    refusals();
    printf("%d checks, %d failures\n", g_checks, g_fail);
    tsgemm_release();
    return g_fail ? 1 : 0;
}
