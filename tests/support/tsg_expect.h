/*
 * tsg_expect.h — the check macro of the host-only rule tests (tests/unit/test_kernel_plan.cu,
 * test_tf32_plan.cu: built with nvcc, no test framework): EXPECT(cond, fmt, ...) counts a check
 * and, when cond is false, a failure, printing the condition, its file and line and the message
 * to stderr; tt_expect_report() prints the tally and returns the exit status (0 when nothing
 * failed). One test executable per translation unit: the counters are that file's.
 * Test-only code: never linked into libtsgemm.so.
 */
#ifndef TSG_EXPECT_H
#define TSG_EXPECT_H

#include <stdio.h>

static int g_fail, g_checks;

#define EXPECT(cond, ...)                                                                        \
    do {                                                                                         \
        g_checks++;                                                                              \
        if (!(cond)) {                                                                           \
            g_fail++;                                                                            \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                      \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fputc('\n', stderr);                                                                 \
        }                                                                                        \
    } while (0)

static inline int tt_expect_report(void)
{
    printf("%d checks, %d failures\n", g_checks, g_fail);
    return g_fail ? 1 : 0;
}

#endif /* TSG_EXPECT_H */
