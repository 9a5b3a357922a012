/*
 * test_api.c — shim/tsg_api.h: the names of the entry points, and tsg_api_sibling_name, which
 * gives a library's OpenBLAS info functions the decoration of the name it was found by (the
 * names below are those `nm -D` lists in the numpy and scipy wheels' libscipy_openblas64_ and
 * libscipy_openblas, and in OpenBLAS's own INTERFACE64 builds); a name too long for the buffer or
 * without an SGEMM stem gives -1 and "".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tsg_api.h"

/* Every entry point's sibling of the three info functions tsg_cpublas.c asks for. */
static void test_sibling_every_api(void **state)
{
    (void)state;
    static const struct {
        tsg_api api;
        const char *config, *threads, *core;
    } want[] = {
        {TSG_API_CBLAS, "openblas_get_config", "openblas_get_num_threads", "openblas_get_corename"},
        {TSG_API_F77, "openblas_get_config", "openblas_get_num_threads", "openblas_get_corename"},
        {TSG_API_CBLAS64, "openblas_get_config64_", "openblas_get_num_threads64_",
         "openblas_get_corename64_"},
        {TSG_API_F77_64, "openblas_get_config64_", "openblas_get_num_threads64_",
         "openblas_get_corename64_"},
        {TSG_API_SCIPY_CBLAS64, "scipy_openblas_get_config64_", "scipy_openblas_get_num_threads64_",
         "scipy_openblas_get_corename64_"},
        {TSG_API_SCIPY_F77_64, "scipy_openblas_get_config64_", "scipy_openblas_get_num_threads64_",
         "scipy_openblas_get_corename64_"},
        {TSG_API_SCIPY_CBLAS, "scipy_openblas_get_config", "scipy_openblas_get_num_threads",
         "scipy_openblas_get_corename"},
        {TSG_API_SCIPY_F77, "scipy_openblas_get_config", "scipy_openblas_get_num_threads",
         "scipy_openblas_get_corename"},
    };
    assert_int_equal(sizeof want / sizeof want[0], TSG_API_COUNT);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        char buf[64];
        const char *name = tsg_api_name(want[i].api);
        assert_int_equal(tsg_api_sibling_name(name, "openblas_get_config", buf, sizeof buf), 0);
        assert_string_equal(buf, want[i].config);
        assert_int_equal(tsg_api_sibling_name(name, "openblas_get_num_threads", buf, sizeof buf), 0);
        assert_string_equal(buf, want[i].threads);
        assert_int_equal(tsg_api_sibling_name(name, "openblas_get_corename", buf, sizeof buf), 0);
        assert_string_equal(buf, want[i].core);
    }
}

/* "cblas_sgemm" is the stem before "sgemm_": a CBLAS name's suffix is what follows the whole stem. */
static void test_sibling_stems(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(tsg_api_sibling_name("my_cblas_sgemm_x", "f", buf, sizeof buf), 0);
    assert_string_equal(buf, "my_f_x");
    assert_int_equal(tsg_api_sibling_name("sgemm_", "f", buf, sizeof buf), 0);
    assert_string_equal(buf, "f");
    assert_int_equal(tsg_api_sibling_name("pre_sgemm_post", "f", buf, sizeof buf), 0);
    assert_string_equal(buf, "pre_fpost");
}

/* Refusals: no stem, a buffer one byte short (then exactly long enough), no buffer, NULLs. */
static void test_sibling_refusals(void **state)
{
    (void)state;
    char buf[64];
    memset(buf, 'x', sizeof buf);
    assert_int_equal(tsg_api_sibling_name("dgemm_", "openblas_get_config", buf, sizeof buf), -1);
    assert_string_equal(buf, "");
    assert_int_equal(tsg_api_sibling_name("sgemm", "f", buf, sizeof buf), -1); /* no underscore */
    assert_string_equal(buf, "");
    const char *want = "scipy_openblas_get_config64_"; /* 28 characters */
    memset(buf, 'x', sizeof buf);
    assert_int_equal(tsg_api_sibling_name("scipy_cblas_sgemm64_", "openblas_get_config", buf, 28), -1);
    assert_string_equal(buf, "");
    assert_int_equal(tsg_api_sibling_name("scipy_cblas_sgemm64_", "openblas_get_config", buf, 29), 0);
    assert_string_equal(buf, want);
    assert_int_equal(tsg_api_sibling_name("sgemm_", "f", buf, 0), -1);
    assert_int_equal(tsg_api_sibling_name("sgemm_", "f", NULL, 8), -1);
    assert_int_equal(tsg_api_sibling_name(NULL, "f", buf, sizeof buf), -1);
    assert_string_equal(buf, "");
    assert_int_equal(tsg_api_sibling_name("sgemm_", NULL, buf, sizeof buf), -1);
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sibling_every_api),
        cmocka_unit_test(test_sibling_stems),
        cmocka_unit_test(test_sibling_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
