/*
 * test_warm.c — the warm-up after the GPU's start (gpu/tsg_gpu.h tsg_gpu_warm, TSGEMM_PIN_AT_START)
 * through the real shim/ and src/ over the stand-in GPU backend (libtsgemm_fake, whose warm-up
 * sleeps TSGEMM_FAKE_WARM_MS; CMake sets it to 4000 for both cases).
 *
 * One process per case (the knobs are read once; argv[1] names it):
 *   prime    TSGEMM_PIN_AT_START=0: one auto call, so that the CPU rates' cache fills (three
 *            processes: tests/unit/warm_prime.sh runs it three times in the folder unit.warm_on
 *            uses, then sets the cache's 256^3 time below any spot check's).
 *   on       TSGEMM_PIN_AT_START unset, the CPU rates cached: the start begins the warm-up; an
 *            auto call the model sends to the GPU runs on the CPU meanwhile (its TSGEMM_LOG=3 line
 *            gives the reason), a forced call waits for the warm-up and runs on the GPU, and once
 *            it is over auto calls go to the GPU.
 *   measure  TSGEMM_PIN_AT_START unset, an empty cache: the CPU rate measurement of the first auto
 *            call waits for the warm-up (a precaution: the pinning may slow its page faults), so
 *            that call ends after the warm-up, on the GPU.
 *   off      TSGEMM_PIN_AT_START=0: no warm-up; the first auto call goes to the GPU.
 *   forced   TSGEMM_MODE=gpu with a rates cache: the warm-up is given no math to spot-check (a
 *            forced process reads no rates, and its calls would wait for the check).
 *   setmath  tsgemm_set_math(3xtf32) before the first call, TSGEMM_MATH unset: the warm-up
 *            spot-checks 3xTF32's kernel, the math the call reads rates of.
 * In `on`, the warm-up of an auto-mode process with a cache spot-checks TSGEMM_MATH's kernel, and
 * tsgemm_set_mode(gpu) drops that check while it has not begun (the stand-in never begins it).
 * Every result is checked against a double-precision reference.
 */
#define _GNU_SOURCE
#include <math.h>
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

enum { N = 512 }; /* on the fake GPU in auto mode; the CPU priced by the cache's 512^3 time (mid_s) */

static float g_a[N * N], g_b[N * N], g_c[N * N];
static double g_ref[N * N];
static int g_fd = -1;
static FILE *g_cap;
static char g_out[1 << 16];

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void capture_begin(void)
{
    fflush(stderr);
    g_cap = tmpfile();
    assert_non_null(g_cap);
    g_fd = dup(2);
    assert_true(g_fd >= 0 && dup2(fileno(g_cap), 2) == 2);
}

static const char *capture_end(void)
{
    fflush(stderr);
    assert_true(dup2(g_fd, 2) == 2);
    close(g_fd);
    rewind(g_cap);
    const size_t n = fread(g_out, 1, sizeof g_out - 1, g_cap);
    g_out[n] = '\0';
    fclose(g_cap);
    fputs(g_out, stderr); /* the library's lines stay in the test log */
    return g_out;
}

/* One auto or forced call of N^3 through cblas_sgemm; C checked against the double reference.
 * Returns tsgemm's path for it. */
static const char *call_checked(void)
{
    memset(g_c, 0xff, sizeof g_c); /* NaN: every element must be written */
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, g_a, N, g_b, N, 0.0f, g_c, N);
    double worst = 0, scale = 0;
    for (int i = 0; i < N * N; ++i) {
        const double d = fabs((double)g_c[i] - g_ref[i]);
        worst = isnan(d) ? INFINITY : (d > worst ? d : worst);
        scale = fabs(g_ref[i]) > scale ? fabs(g_ref[i]) : scale;
    }
    assert_true(worst <= 1e-5 * scale);
    return tsgemm_last_path();
}

/* call_checked with the library's stderr captured into *out. */
static const char *captured_call(const char **out)
{
    capture_begin();
    const char *path = call_checked();
    *out = capture_end();
    return path;
}

static int setup(void **state)
{
    (void)state;
    tt_rng r;
    tt_seed(&r, 37);
    for (int i = 0; i < N * N; ++i) g_a[i] = tt_uniform(&r), g_b[i] = tt_uniform(&r);
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i) {
            double s = 0;
            for (int l = 0; l < N; ++l) s += (double)g_a[i + l * N] * (double)g_b[l + j * N];
            g_ref[i + j * N] = s;
        }
    return 0;
}

static void test_on(void **state)
{
    (void)state;
    const double t0 = now_s();
    const char *out;
    const char *first = captured_call(&out);
    assert_string_equal(first, "cpu");
    assert_non_null(strstr(out, "fake-gpu: warm-up 4000 ms, spot check ahead: math 0"));
    assert_non_null(strstr(out, "model: GPU faster, but not after waiting for its workspace's pinning"));
    /* forced: the spot check is dropped; the call waits for the warm-up, then the GPU */
    capture_begin();
    assert_true(tsgemm_set_mode(TSGEMM_MODE_GPU) >= 0);
    assert_non_null(strstr(capture_end(), "fake-gpu: spot check dropped"));
    assert_string_equal(call_checked(), "gpu");
    const double waited = now_s() - t0;
    printf("the forced call ended %.3f s after the first call began (warm-up 4 s)\n", waited);
    assert_true(waited >= 3.9);
    /* auto after the warm-up: the model's choice stands */
    tsgemm_set_mode(TSGEMM_MODE_AUTO);
    const char *after = captured_call(&out);
    assert_string_equal(after, "gpu");
    assert_non_null(strstr(out, "model: GPU faster"));
    assert_null(strstr(out, "waiting for its workspace"));
}

static void test_prime(void **state)
{
    (void)state;
    assert_string_equal(call_checked(), "gpu");
}

static void test_measure(void **state)
{
    (void)state;
    const double t0 = now_s();
    const char *out;
    const char *first = captured_call(&out);
    const double took = now_s() - t0;
    printf("the first auto call took %.3f s (warm-up 4 s)\n", took);
    assert_non_null(strstr(out, "CPU rate measured"));
    assert_true(took >= 3.9);
    assert_string_equal(first, "gpu");
}

static void test_forced(void **state)
{
    (void)state;
    const char *out;
    assert_string_equal(captured_call(&out), "gpu");
    assert_non_null(strstr(out, "spot check ahead: math -1"));
}

static void test_setmath(void **state)
{
    (void)state;
    assert_true(tsgemm_set_math(TSGEMM_MATH_3XTF32) >= 0);
    const char *out;
    (void)captured_call(&out); /* either side: a cached CPU runs it meanwhile, a measured one waits */
    assert_non_null(strstr(out, "spot check ahead: math 1"));
}

static void test_off(void **state)
{
    (void)state;
    const char *out;
    const char *first = captured_call(&out);
    assert_string_equal(first, "gpu");
    assert_null(strstr(out, "fake-gpu: warm-up"));
    assert_null(strstr(out, "waiting for its workspace"));
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    const struct CMUnitTest on[] = {cmocka_unit_test(test_on)};
    const struct CMUnitTest off[] = {cmocka_unit_test(test_off)};
    const struct CMUnitTest prime[] = {cmocka_unit_test(test_prime)};
    const struct CMUnitTest measure[] = {cmocka_unit_test(test_measure)};
    const struct CMUnitTest forced[] = {cmocka_unit_test(test_forced)};
    const struct CMUnitTest setmath[] = {cmocka_unit_test(test_setmath)};
    if (!strcmp(which, "prime")) return cmocka_run_group_tests(prime, setup, NULL);
    if (!strcmp(which, "measure")) return cmocka_run_group_tests(measure, setup, NULL);
    if (!strcmp(which, "on")) return cmocka_run_group_tests(on, setup, NULL);
    if (!strcmp(which, "off")) return cmocka_run_group_tests(off, setup, NULL);
    if (!strcmp(which, "forced")) return cmocka_run_group_tests(forced, setup, NULL);
    if (!strcmp(which, "setmath")) return cmocka_run_group_tests(setmath, setup, NULL);
    fprintf(stderr, "usage: %s prime|on|measure|off|forced|setmath\n", argv[0]);
    return 2;
}
