/*
 * test_math.c — TSGEMM_MATH and tsgemm_set_math / tsgemm_get_math through the real shim/ and src/
 * over the stand-in GPU backend (libtsgemm_fake, tests/support/tsg_gpu_fake.c), issue 36.
 *
 * One process per case, since the knobs are read once (argv[1] names the case; CMake sets the
 * environment of each):
 *   api   TSGEMM_MATH unset: the default is fp32; set/get and their refusals; the CPU BLAS gives
 *         the same bits whatever the math; in auto mode each math's GPU rates are measured once
 *         and cached in a file of their own (fp32's name unchanged), and the per-call line
 *         (TSGEMM_LOG=3) names the call's math and the family it ran on.
 *   env   TSGEMM_MATH=3XTF32: the knob in any case is the starting value, no warning.
 *   bad   TSGEMM_MATH=tf16: exactly one warning line naming the value, and fp32.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <cblas-netlib.h>

#include "tsg_testutil.h"
#include "tsgemm.h"

/* ---- stderr of the library into a buffer */

static int g_saved_fd = -1;
static FILE *g_cap;
static char g_out[1 << 16];

static void capture_begin(void)
{
    fflush(stderr);
    g_cap = tmpfile();
    assert_non_null(g_cap);
    g_saved_fd = dup(2);
    assert_true(g_saved_fd >= 0);
    assert_true(dup2(fileno(g_cap), 2) == 2);
}

static const char *capture_end(void)
{
    fflush(stderr);
    assert_true(dup2(g_saved_fd, 2) == 2);
    close(g_saved_fd);
    rewind(g_cap);
    size_t n = fread(g_out, 1, sizeof g_out - 1, g_cap);
    g_out[n] = '\0';
    fclose(g_cap);
    return g_out;
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) ++n;
    return n;
}

/* ---- one call */

enum { N = 256 }; /* 2 * 256^3 flops: above the tiny floor, on the fake GPU in auto mode */

static float g_a[N * N], g_b[N * N];

static void fill_inputs(void)
{
    tt_rng r;
    tt_seed(&r, 36);
    for (int i = 0; i < N * N; ++i) g_a[i] = tt_uniform(&r), g_b[i] = tt_uniform(&r);
}

static void call(float *c)
{
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, g_a, N, g_b, N, 0.0f, c, N);
}

/* The files in the cache folder whose names end with `suffix`. */
static int cache_files_ending(const char *suffix)
{
    const char *dir = getenv("TSGEMM_CACHE_DIR");
    assert_non_null(dir);
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    const size_t ls = strlen(suffix);
    for (struct dirent *e; (e = readdir(d));) {
        const size_t l = strlen(e->d_name);
        if (!strncmp(e->d_name, "gpu-rates-", 10) && l > ls && !strcmp(e->d_name + l - ls, suffix)) ++n;
    }
    closedir(d);
    return n;
}

static void test_set_get(void **state)
{
    (void)state;
    assert_int_equal(TSGEMM_MATH_FP32, 0);
    assert_int_equal(TSGEMM_MATH_3XTF32, 1);
    assert_int_equal(TSGEMM_MATH_TF32, 2);
    assert_int_equal(tsgemm_get_math(), TSGEMM_MATH_FP32); /* TSGEMM_MATH unset */
    assert_int_equal(tsgemm_set_math(TSGEMM_MATH_3XTF32), TSGEMM_MATH_FP32);
    assert_int_equal(tsgemm_get_math(), TSGEMM_MATH_3XTF32);
    assert_int_equal(tsgemm_set_math(3), -1); /* refused: nothing changed */
    assert_int_equal(tsgemm_set_math(-1), -1);
    assert_int_equal(tsgemm_set_math(1000), -1);
    assert_int_equal(tsgemm_get_math(), TSGEMM_MATH_3XTF32);
    assert_int_equal(tsgemm_set_math(TSGEMM_MATH_TF32), TSGEMM_MATH_3XTF32);
    assert_int_equal(tsgemm_get_math(), TSGEMM_MATH_TF32);
    assert_int_equal(tsgemm_set_math(TSGEMM_MATH_FP32), TSGEMM_MATH_TF32);
    assert_int_equal(tsgemm_get_math(), TSGEMM_MATH_FP32);
}

/* The CPU BLAS computes in FP32 whatever the math: the same bits for each. */
static void test_cpu_ignores_math(void **state)
{
    (void)state;
    static float ref[N * N], c[N * N];
    assert_true(tsgemm_set_mode(TSGEMM_MODE_CPU) >= 0);
    tsgemm_set_math(TSGEMM_MATH_FP32);
    call(ref);
    assert_string_equal(tsgemm_last_path(), "cpu");
    for (int m = 1; m <= 2; ++m) {
        tsgemm_set_math(m);
        memset(c, 0xff, sizeof c);
        call(c);
        assert_string_equal(tsgemm_last_path(), "cpu");
        assert_memory_equal(c, ref, sizeof c);
    }
    tsgemm_set_math(TSGEMM_MATH_FP32);
    tsgemm_set_mode(TSGEMM_MODE_AUTO);
}

/* Auto mode: a math's rates are measured the first time a call of it wants the model, cached
 * under a name of their own, and never stand in for another math's. */
static void test_rates_per_math(void **state)
{
    (void)state;
    static float c[N * N];
    tsgemm_set_mode(TSGEMM_MODE_AUTO);
    assert_int_equal(cache_files_ending(".txt"), 0);

    tsgemm_set_math(TSGEMM_MATH_3XTF32);
    capture_begin();
    call(c);
    const char *out = capture_end();
    assert_string_equal(tsgemm_last_path(), "gpu");
    assert_int_equal(count_of(out, "fake-gpu: measured 1 (math 1)"), 1);
    assert_int_equal(count_of(out, "fake-gpu: measured"), 1);
    assert_int_equal(count_of(out, " math=3xtf32 kernels=3xtf32 -> gpu"), 1);
    assert_int_equal(cache_files_ending("-3xtf32.txt"), 1);
    assert_int_equal(cache_files_ending(".txt"), 1);

    tsgemm_set_math(TSGEMM_MATH_FP32);
    capture_begin();
    call(c);
    out = capture_end();
    assert_string_equal(tsgemm_last_path(), "gpu");
    assert_int_equal(count_of(out, "fake-gpu: measured 2 (math 0)"), 1);
    assert_int_equal(count_of(out, " math=fp32 kernels=fp32 -> gpu"), 1);
    assert_int_equal(count_of(out, "tf32"), 0);
    assert_int_equal(cache_files_ending(".txt"), 2);
    assert_int_equal(cache_files_ending("-3xtf32.txt"), 1);
    assert_int_equal(cache_files_ending("-tf32.txt"), 0);

    tsgemm_set_math(TSGEMM_MATH_3XTF32); /* measured already: no measurement, no new file */
    capture_begin();
    call(c);
    out = capture_end();
    assert_int_equal(count_of(out, "fake-gpu: measured"), 0);
    assert_int_equal(count_of(out, " math=3xtf32 kernels=3xtf32 -> gpu"), 1);

    tsgemm_set_math(TSGEMM_MATH_TF32);
    capture_begin();
    call(c);
    out = capture_end();
    assert_int_equal(count_of(out, "fake-gpu: measured 3 (math 2)"), 1);
    assert_int_equal(count_of(out, " math=tf32 kernels=tf32 (reduced precision) -> gpu"), 1);
    assert_int_equal(cache_files_ending("-tf32.txt"), 1);
    assert_int_equal(cache_files_ending(".txt"), 3);
    tsgemm_set_math(TSGEMM_MATH_FP32);
}

static void test_env_value(void **state)
{
    (void)state;
    capture_begin();
    const int m = tsgemm_get_math();
    const char *out = capture_end();
    assert_int_equal(m, TSGEMM_MATH_3XTF32);
    assert_int_equal(count_of(out, "TSGEMM_MATH"), 0);
    assert_int_equal(tsgemm_set_math(TSGEMM_MATH_FP32), TSGEMM_MATH_3XTF32); /* the knob's value */
}

static void test_bad_value(void **state)
{
    (void)state;
    capture_begin();
    const int m = tsgemm_get_math();
    const char *out = capture_end();
    assert_int_equal(m, TSGEMM_MATH_FP32);
    assert_int_equal(count_of(out, "\n"), 1);
    assert_int_equal(count_of(out, "tsgemm: TSGEMM_MATH=\"tf16\" is not one of fp32, 3xtf32, tf32; using fp32\n"), 1);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "api";
    fill_inputs();
    if (!strcmp(which, "env")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(test_env_value)};
        return cmocka_run_group_tests(t, NULL, NULL);
    }
    if (!strcmp(which, "bad")) {
        const struct CMUnitTest t[] = {cmocka_unit_test(test_bad_value)};
        return cmocka_run_group_tests(t, NULL, NULL);
    }
    /* a fresh cache folder of our own (0700) before the library reads its knobs */
    char dir[] = "/tmp/tsg-test-math-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("TSGEMM_CACHE_DIR", dir, 1);
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_set_get),
        cmocka_unit_test(test_cpu_ignores_math),
        cmocka_unit_test(test_rates_per_math),
    };
    const int rc = cmocka_run_group_tests(t, NULL, NULL);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
    rmdir(dir);
    return rc;
}
