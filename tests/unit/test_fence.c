/*
 * test_fence.c — the fence over the CPU BLAS's spinning workers during GPU calls
 * (shim/tsg_cpufence.h), through the real shim/ and src/ over the stand-in GPU backend
 * (libtsgemm_fake, whose calls sleep TSGEMM_FAKE_CALL_MS per part: CMake sets 150).
 *
 * The test loads OpenBLAS first (libopenblas.so.0), so that tsgemm's CPU BLAS is this very
 * instance, and reads its workers' CPU masks with OpenBLAS's own openblas_getaffinity while a GPU
 * call runs on another thread:
 *   hot   a 1280^3 call on the CPU (its workers spin from then on), then at once a GPU call:
 *         during it every worker's mask is the fence's CPUs (the highest-numbered eighth, at
 *         least one, of this process's); after it, each mask is what it was.
 *   cold  the same after a pause longer than the workers' spin window (0.27 s at most with
 *         OPENBLAS_THREAD_TIMEOUT unset): no fence, the masks stay as they were.
 * Every result is checked against a double-precision reference. Skipped (exit 77) where OpenBLAS
 * runs no worker thread (one CPU) or cannot be loaded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <cblas-netlib.h>

#include "tsg_testutil.h"
#include "tsgemm.h"

enum { N = 1280, MAX_W = 256 }; /* 2N^3 = 4.2e9 flops: above TSG_FENCE_MIN_FLOPS */

typedef int (*aff_fn)(int, size_t, cpu_set_t *);
static aff_fn g_getaff;
static int (*g_nthreads)(void);
static float *g_a, *g_b, *g_c;
static double *g_ref;

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0) {
    }
}

static void call(int mode)
{
    tsgemm_set_mode(mode);
    memset(g_c, 0xff, sizeof(float) * N * N); /* NaN */
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, g_a, N, g_b, N, 0.0f,
                g_c, N);
    double err = 0, mx = 0;
    for (int i = 0; i < N * N; ++i) {
        err = fmax(err, fabs(g_c[i] - g_ref[i]));
        mx = fmax(mx, fabs(g_ref[i]));
    }
    if (!(err <= 1e-5 * mx)) fail_msg("mode %d: error %g of %g", mode, err, mx);
}

static void *gpu_call(void *arg)
{
    (void)arg;
    call(TSGEMM_MODE_GPU);
    return NULL;
}

/* Worker masks 0..n-1 into m (n: OpenBLAS's threads less the caller's, at most MAX_W). */
static int masks(cpu_set_t *m)
{
    int n = g_nthreads() - 1;
    if (n > MAX_W) n = MAX_W;
    for (int i = 0; i < n; ++i)
        if (g_getaff(i, sizeof m[i], &m[i]) != 0) fail_msg("openblas_getaffinity(%d) failed", i);
    return n;
}

/* The fence's CPUs by its rule: the highest-numbered eighth (at least one) of this thread's. */
static void fence_set(cpu_set_t *s)
{
    cpu_set_t mine;
    CPU_ZERO(s);
    assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
    int want = CPU_COUNT(&mine) / 8 > 0 ? CPU_COUNT(&mine) / 8 : 1;
    for (int c = CPU_SETSIZE - 1; c >= 0 && want > 0; --c)
        if (CPU_ISSET(c, &mine)) CPU_SET(c, s), --want;
}

/* A GPU call on a thread of its own after `pause_ms`, the masks read 100 ms into it. */
static void run_case(long pause_ms, int expect_fence)
{
    static cpu_set_t before[MAX_W], during[MAX_W], after[MAX_W];
    cpu_set_t fs;
    fence_set(&fs);
    call(TSGEMM_MODE_AUTO); /* the GPU started (its first call) */
    call(TSGEMM_MODE_CPU);  /* OpenBLAS's workers spin from here */
    const int n = masks(before);
    if (pause_ms) sleep_ms(pause_ms);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, gpu_call, NULL), 0);
    sleep_ms(100);
    assert_int_equal(masks(during), n);
    pthread_join(t, NULL);
    assert_int_equal(masks(after), n);
    for (int i = 0; i < n; ++i) {
        if (expect_fence && !CPU_EQUAL(&during[i], &fs))
            fail_msg("worker %d: %d CPUs during the GPU call, not the fence's %d", i,
                     CPU_COUNT(&during[i]), CPU_COUNT(&fs));
        if (!expect_fence && !CPU_EQUAL(&during[i], &before[i]))
            fail_msg("worker %d fenced after a pause of %ld ms", i, pause_ms);
        if (!CPU_EQUAL(&after[i], &before[i]))
            fail_msg("worker %d: its mask not put back (%d CPUs, was %d)", i, CPU_COUNT(&after[i]),
                     CPU_COUNT(&before[i]));
    }
    struct tsgemm_stats st;
    tsgemm_get_stats(&st);
    assert_true(st.gpu >= 2 && st.cpu >= 1);
}

static void test_hot(void **state)
{
    (void)state;
    run_case(0, 1);
}

static void test_cold(void **state)
{
    (void)state;
    run_case(400, 0);
}

int main(int argc, char **argv)
{
    /* the instance tsgemm will use: its loader takes an OpenBLAS already in the process */
    void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        printf("SKIPPED: libopenblas.so.0: %s\n", dlerror());
        return 77;
    }
    g_getaff = (aff_fn)dlsym(h, "openblas_getaffinity");
    g_nthreads = (int (*)(void))dlsym(h, "openblas_get_num_threads");
    if (!g_getaff || !g_nthreads || g_nthreads() < 2) {
        printf("SKIPPED: OpenBLAS without worker threads here (%d threads)\n",
               g_nthreads ? g_nthreads() : 0);
        return 77;
    }
    g_a = malloc(sizeof(float) * N * N), g_b = malloc(sizeof(float) * N * N);
    g_c = malloc(sizeof(float) * N * N), g_ref = malloc(sizeof(double) * N * N);
    if (!g_a || !g_b || !g_c || !g_ref) return 1;
    tt_rng r;
    tt_seed(&r, 42);
    for (int i = 0; i < N * N; ++i) g_a[i] = tt_uniform(&r), g_b[i] = tt_uniform(&r);
    tt_ref_gemm('N', 'N', N, N, N, 1.0, g_a, N, g_b, N, 0.0, NULL, N, g_ref, NULL);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_hot), cmocka_unit_test(test_cold)};
    const char *only = argc > 1 ? argv[1] : NULL;
    if (only) cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
