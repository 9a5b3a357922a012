/*
 * test_knob_gate.c — shim/tsg_log.c's view of the environment, compiled into this test twice:
 * as the release library has it (unit.knob_gate: every TSGEMM_TEST_* reads as unset, the user
 * knobs as set) and as the tests' twin tsgemm_fi has it (unit.knob_gate_fi, -DTSG_FAULT_INJECTION:
 * the same environment reaches the tuning and fault-injection knobs). The environment is set
 * before the first tsg_rt_config(), which parses it once per process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tsg_log.h"

static void test_gate(void **state)
{
    (void)state;
    /* user knobs beside them, so a lookup that answered nothing at all would fail too */
    setenv("TSGEMM_LOG", "2", 1);
    setenv("TSGEMM_COPY_THREADS", "3", 1);
    setenv("TSGEMM_PINNED_MEMORY", "1M", 1);
    setenv("TSGEMM_TEST_TOUCH", "off", 1);
    setenv("TSGEMM_TEST_TIMELINE", "1", 1);
    setenv("TSGEMM_TEST_FAULT", "kernel:1", 1);
    setenv("TSGEMM_TEST_ORDER", "chunk", 1);
    setenv("TSGEMM_TEST_BLOCK", "64K", 1);
    setenv("TSGEMM_TEST_RAMP", "x", 1); /* a bad value: warns only where it is read */
    const tsg_config *c = tsg_rt_config();
    assert_int_equal(tsg_rt_privileged(), 0); /* else every knob reads as unset */
    assert_int_equal(c->log_level, 2);
    assert_int_equal(c->copy_threads, 3);
    assert_true(c->pinned_memory == 1 << 20);
#ifdef TSG_FAULT_INJECTION
    assert_int_equal(c->test_touch, -1);
    assert_int_equal(c->test_timeline, 1);
    assert_string_equal(c->test_fault, "kernel:1");
    assert_int_equal(c->test_order, 2);
    assert_true(c->test_block == 65536);
    assert_int_equal(c->nwarn, 1);
    assert_non_null(strstr(c->warn[0], "TSGEMM_TEST_RAMP=\"x\""));
#else
    assert_int_equal(c->test_touch, 0);
    assert_int_equal(c->test_timeline, 0);
    assert_string_equal(c->test_fault, "");
    assert_int_equal(c->test_order, 0);
    assert_true(c->test_block == 0);
    assert_int_equal(c->test_ramp, 0);
    assert_int_equal(c->nwarn, 0);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
