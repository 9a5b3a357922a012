/*
 * test_gpu_large.c — fault class 15 (large sizes) through the host entry points:
 *   - ILP64 cblas_sgemm64_ with K = 2^31 + 8 (an operand of more than 2^31 elements, K beyond
 *     32 bits) on the GPU, and the same on the CPU path, where it must be split into blocks a
 *     32-bit OpenBLAS takes, never truncated;
 *   - LP64 cblas_sgemm with A of 65536 x 32769 (> 2^31 elements: 64-bit offsets everywhere);
 *   - M so large that a grid axis would need more than 65535 blocks;
 *   - a 64-bit size narrowed to a negative int: a clean error, C untouched, process alive.
 * Needs a GPU (exit 77 otherwise) and ~18 GB of host memory: a part whose malloc is refused
 * prints "SKIP part", the other parts still run, and the test then exits 77 (skipped) unless a
 * part failed (exit 1). Values are chosen so every partial sum is exact: results are compared bit for bit.
 */
#define _GNU_SOURCE
#include <cblas-netlib.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_cases.h"
#include "tsg_testutil.h"
#include "tsgemm.h"

void cblas_sgemm64_(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t,
                    const float *, int64_t, float, float *, int64_t);

static int g_fail;
static int g_skipped; /* parts not run for want of host memory */

/* C(1x1) = A(1xK) B(Kx1): a = 1, b = +1/-1 alternating plus 1 every 1000003rd element, so every
 * partial sum stays tiny (exact in float) and the result counts the extra ones exactly. */
static void ilp64_long_k(void)
{
    const int64_t k = ((int64_t)1 << 31) + 8;
    float *a = malloc((size_t)k * 4), *b = malloc((size_t)k * 4);
    if (!a || !b) {
        printf("SKIP part: cannot allocate 2 x %.1f GB of host memory\n", k * 4e-9);
        g_skipped++;
        free(a), free(b);
        return;
    }
    int64_t extra = 0;
    for (int64_t i = 0; i < k; ++i) {
        a[i] = 1.0f;
        b[i] = (i % 2 ? -1.0f : 1.0f) + (i % 1000003 == 0 ? 1.0f : 0.0f);
        extra += i % 1000003 == 0;
    }
    int64_t want = extra + (k % 2); /* the +/-1 pairs cancel; k is even here */
    const int modes[2] = {TSGEMM_MODE_GPU, TSGEMM_MODE_CPU};
    for (int mi = 0; mi < 2; ++mi) {
        tsgemm_set_mode(modes[mi]);
        float c = NAN;
        cblas_sgemm64_(CblasColMajor, CblasNoTrans, CblasNoTrans, 1, 1, k, 1.0f, a, 1, b, k, 0.0f,
                       &c, 1);
        const char *path = tsgemm_last_path();
        printf("ILP64 1x1x%lld on %s: got %.1f want %lld\n", (long long)k, path, c, (long long)want);
        EXPECT(c == (float)want, "ILP64 long K on %s: got %.1f want %lld", path, c, (long long)want);
        EXPECT(!strcmp(path, mi == 0 ? "gpu" : "cpu"), "ran on %s", path);
    }
    tsgemm_set_mode(TSGEMM_MODE_GPU);
    free(a), free(b);
}

/* LP64 call whose A has more than 2^31 elements; checked on sampled elements in double. */
static void big_operand(void)
{
    const int64_t m = 65536, k = 32769, n = 16;
    const size_t na = (size_t)m * k;
    float *a = malloc(na * 4), *b = malloc((size_t)(k * n) * 4), *c = malloc((size_t)(m * n) * 4);
    if (!a || !b || !c) {
        printf("SKIP part: cannot allocate %.1f GB of host memory\n", na * 4e-9);
        g_skipped++;
        free(a), free(b), free(c);
        return;
    }
    for (size_t i = 0; i < na; ++i) a[i] = (float)((int)(i % 7) - 3);
    for (int64_t i = 0; i < k * n; ++i) b[i] = (float)((int)((i * 5) % 9) - 4);
    for (int64_t i = 0; i < m * n; ++i) c[i] = NAN;
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, a, (int)m,
                b, (int)k, 0.0f, c, (int)m);
    EXPECT(!strcmp(tsgemm_last_path(), "gpu"), "big operand ran on %s", tsgemm_last_path());
    tt_rng r;
    tt_seed(&r, 15);
    int bad = 0;
    for (int s = 0; s < 200; ++s) {
        int64_t i = (int64_t)(tt_next(&r) % (uint64_t)m), j = (int64_t)(tt_next(&r) % (uint64_t)n);
        if (s == 0) i = m - 1, j = n - 1; /* the last element: the largest offsets */
        double ref = 0;
        for (int64_t l = 0; l < k; ++l) ref += (double)a[i + l * m] * b[l + j * k];
        bad += c[i + j * m] != (float)ref;
    }
    printf("A of %zu elements (> 2^31): %d of 200 sampled elements wrong\n", na, bad);
    EXPECT(bad == 0, "big operand: %d sampled elements wrong", bad);
    free(a), free(b), free(c);
}

/* C with a side needing more than 65535 tiles of 128: column-major M (the kernel's m) and
 * row-major M (which becomes the kernel's n after the row-major swap). */
static void huge_grid(void)
{
    const int64_t big = 65535LL * 128 + 1, k = 5;
    for (int layout = 0; layout < 2; ++layout) {
        const int64_t m = big, n = 3;
        float *a = malloc((size_t)(m * k) * 4), *b = malloc((size_t)(k * n) * 4);
        float *c = malloc((size_t)(m * n) * 4);
        for (int64_t i = 0; i < m * k; ++i) a[i] = (float)(i % 5) - 2;
        for (int64_t i = 0; i < k * n; ++i) b[i] = (float)(i % 3) - 1;
        for (int64_t i = 0; i < m * n; ++i) c[i] = NAN;
        CBLAS_LAYOUT lay = layout ? CblasRowMajor : CblasColMajor;
        /* row-major: A is m x k (lda k), B k x n (ldb n), C m x n (ldc n) */
        cblas_sgemm(lay, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, a,
                    layout ? (int)k : (int)m, b, layout ? (int)n : (int)k, 0.0f, c,
                    layout ? (int)n : (int)m);
        EXPECT(!strcmp(tsgemm_last_path(), "gpu"), "huge grid ran on %s", tsgemm_last_path());
        int64_t bad = 0;
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                double ref = 0;
                for (int64_t l = 0; l < k; ++l)
                    ref += layout ? (double)a[i * k + l] * b[l * n + j]
                                  : (double)a[i + l * m] * b[l + j * k];
                float got = layout ? c[i * n + j] : c[i + j * m];
                bad += got != (float)ref;
            }
        printf("grid with %lld x %lld C (%s-major): %lld wrong\n", (long long)m, (long long)n,
               layout ? "row" : "col", (long long)bad);
        EXPECT(bad == 0, "huge grid: %lld wrong", (long long)bad);
        free(a), free(b), free(c);
    }
}

static void narrowed_negative(void)
{
    float a[4] = {1, 2, 3, 4}, c[4] = {5, 6, 7, 8};
    int64_t m64 = 3000000000LL;
    int m = (int)m64; /* what a careless 32-bit caller passes: negative */
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, 2, 2, 1.0f, a, 2, a, 2, 0.0f, c, 2);
    EXPECT(!strcmp(tsgemm_last_path(), "illegal"), "narrowed M: path %s", tsgemm_last_path());
    EXPECT(c[0] == 5 && c[1] == 6 && c[2] == 7 && c[3] == 8, "narrowed M: C changed");
}

int main(void)
{
    char info[256];
    if (tsgemm_kernel_info(info, sizeof info) != 0) {
        printf("SKIP: %s\n", info);
        return 77;
    }
    tsgemm_set_mode(TSGEMM_MODE_GPU);
    narrowed_negative();
    huge_grid();
    big_operand();
    ilp64_long_k();
    tsgemm_release();
    if (g_fail) {
        printf("FAILED\n");
        return 1;
    }
    if (g_skipped) {
        printf("SKIP: %d part(s) not run (host memory); the others passed\n", g_skipped);
        return 77;
    }
    printf("all large-size checks passed\n");
    return 0;
}
