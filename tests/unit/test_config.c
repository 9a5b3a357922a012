/*
 * test_config.c — src/tsg_config.c: every knob's default, accepted values, and that a bad value
 * keeps the default with one warning line (never a crash, never a silent change).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tsg_config.h"

/* An environment as a NULL-terminated list of "NAME=value" strings. */
static const char *lookup(const char *name, void *ctx)
{
    size_t len = strlen(name);
    for (const char **e = ctx; *e; ++e)
        if (!strncmp(*e, name, len) && (*e)[len] == '=') return *e + len + 1;
    return NULL;
}

static tsg_config parse(const char **env)
{
    tsg_config c;
    tsg_config_parse(&c, lookup, env);
    return c;
}

static void test_defaults(void **state)
{
    (void)state;
    const char *env[] = {NULL};
    tsg_config c = parse(env);
    assert_int_equal(c.policy.mode, TSG_MODE_AUTO);
    assert_int_equal(c.log_level, 1);
    assert_int_equal(c.device, 0);
    assert_true(c.policy.threshold == 0);
    assert_string_equal(c.cpu_blas, "");
    assert_string_equal(c.cache_dir, "");
    assert_int_equal(c.nwarn, 0);
}

static void test_good_values(void **state)
{
    (void)state;
    const char *env[] = {"TSGEMM_MODE=GPU", "TSGEMM_LOG=3", "TSGEMM_DEVICE=2",
                         "TSGEMM_GPU_THRESHOLD=512.5", "TSGEMM_CPU_BLAS=/opt/blas/libblas.so.3",
                         "HOME=/home/u", NULL};
    tsg_config c = parse(env);
    assert_int_equal(c.policy.mode, TSG_MODE_GPU);
    assert_int_equal(c.log_level, 3);
    assert_int_equal(c.device, 2);
    assert_true(c.policy.threshold == 512.5);
    assert_string_equal(c.cpu_blas, "/opt/blas/libblas.so.3");
    assert_string_equal(c.cache_dir, "/home/u/.cache/tsgemm");
    assert_int_equal(c.nwarn, 0);
    assert_string_equal(tsg_mode_name(c.policy.mode), "gpu");
}

static void test_cache_dir_precedence(void **state)
{
    (void)state;
    const char *a[] = {"HOME=/h", "XDG_CACHE_HOME=/x", NULL};
    assert_string_equal(parse(a).cache_dir, "/x/tsgemm");
    const char *b[] = {"HOME=/h", "XDG_CACHE_HOME=relative", NULL}; /* XDG: relative ignored */
    assert_string_equal(parse(b).cache_dir, "/h/.cache/tsgemm");
    const char *c[] = {"HOME=/h", "XDG_CACHE_HOME=/x", "TSGEMM_CACHE_DIR=/t", NULL};
    assert_string_equal(parse(c).cache_dir, "/t");
}

static void test_bad_values_warn_and_keep_defaults(void **state)
{
    (void)state;
    const char *env[] = {"TSGEMM_MODE=fast", "TSGEMM_LOG=9", "TSGEMM_DEVICE=-1",
                         "TSGEMM_GPU_THRESHOLD=big", NULL};
    tsg_config c = parse(env);
    assert_int_equal(c.policy.mode, TSG_MODE_AUTO);
    assert_int_equal(c.log_level, 1);
    assert_int_equal(c.device, 0);
    assert_true(c.policy.threshold == 0);
    assert_int_equal(c.nwarn, 4);
    assert_non_null(strstr(c.warn[0], "TSGEMM_LOG=\"9\""));
    assert_non_null(strstr(c.warn[1], "TSGEMM_MODE=\"fast\""));
    assert_non_null(strstr(c.warn[2], "TSGEMM_DEVICE"));
    assert_non_null(strstr(c.warn[3], "TSGEMM_GPU_THRESHOLD"));
    const char *more[] = {"TSGEMM_LOG=1x", "TSGEMM_DEVICE=0.5", "TSGEMM_GPU_THRESHOLD=-3",
                          "TSGEMM_GPU_THRESHOLD=nan", NULL};
    c = parse(more);
    assert_int_equal(c.nwarn, 3); /* the lookup returns the first THRESHOLD only */
    const char *empty[] = {"TSGEMM_MODE=", "TSGEMM_LOG=", NULL}; /* empty = unset */
    c = parse(empty);
    assert_int_equal(c.nwarn, 0);
    assert_int_equal(c.log_level, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_good_values),
        cmocka_unit_test(test_cache_dir_precedence),
        cmocka_unit_test(test_bad_values_warn_and_keep_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
