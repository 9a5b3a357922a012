/*
 * test_thread.c — shim/tsg_thread.c, the per-thread counters and the exit drain, on their own
 * (plain C and pthreads: no CUDA, no OpenBLAS), so the same source also runs under
 * ThreadSanitizer (unit.thread_tsan).
 *
 * Proves: totals are exact once the counting threads are joined — threads that exited included
 * (their blocks are adopted by later threads, counts and all), a call made from a key destructor
 * after the thread's block was retired included; a reader summing while writers count sees every
 * counter only grow and never beyond the final value; blocks are reused (no growth with the
 * number of threads that ever ran); the exit drain waits for a thread inside the CPU BLAS and
 * afterwards no call enters it; in a child forked while another thread was inside, the drain
 * does not wait for that thread.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tsg_thread.h"

enum { THREADS = 8, PER_THREAD = 100000 };

static void totals(uint64_t c[TSG_COUNT_N], double s[TSG_SUM_N]) { tsg_thread_totals(c, s); }

/* thread i counts CPU once per call, TINY_FLOPS by 2i+1, and adds i to CPU_SECONDS each 1000 */
static void *counter(void *arg)
{
    const uint64_t i = (uint64_t)(uintptr_t)arg;
    for (int r = 0; r < PER_THREAD; ++r) {
        tsg_thread *t = tsg_thread_self();
        tsg_thread_count(t, TSG_COUNT_CPU, 1);
        tsg_thread_count(t, TSG_COUNT_TINY_FLOPS, 2 * i + 1);
        if (r % 1000 == 0) tsg_thread_add(t, TSG_SUM_CPU_SECONDS, (double)i);
    }
    return NULL;
}

static void run_wave(void)
{
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; ++i)
        assert_int_equal(pthread_create(&th[i], NULL, counter, (void *)(uintptr_t)i), 0);
    for (int i = 0; i < THREADS; ++i) pthread_join(th[i], NULL);
}

/* what one wave adds */
static uint64_t wave_flops(void)
{
    uint64_t f = 0;
    for (int i = 0; i < THREADS; ++i) f += (uint64_t)PER_THREAD * (2u * i + 1);
    return f;
}

static double wave_seconds(void)
{
    double s = 0;
    for (int i = 0; i < THREADS; ++i) s += (PER_THREAD / 1000) * (double)i;
    return s;
}

static void test_exact_after_join(void **state)
{
    (void)state;
    uint64_t c0[TSG_COUNT_N], c1[TSG_COUNT_N];
    double s0[TSG_SUM_N], s1[TSG_SUM_N];
    totals(c0, s0);
    run_wave();
    totals(c1, s1);
    assert_int_equal(c1[TSG_COUNT_CPU] - c0[TSG_COUNT_CPU], (uint64_t)THREADS * PER_THREAD);
    assert_int_equal(c1[TSG_COUNT_TINY_FLOPS] - c0[TSG_COUNT_TINY_FLOPS], wave_flops());
    assert_true(s1[TSG_SUM_CPU_SECONDS] - s0[TSG_SUM_CPU_SECONDS] == wave_seconds());
    /* the others untouched */
    assert_int_equal(c1[TSG_COUNT_GPU], c0[TSG_COUNT_GPU]);
    assert_int_equal(c1[TSG_COUNT_ILLEGAL], c0[TSG_COUNT_ILLEGAL]);
    /* a second wave adopts the retired blocks: still exact, nothing lost with the exited threads */
    run_wave();
    totals(c1, s1);
    assert_int_equal(c1[TSG_COUNT_CPU] - c0[TSG_COUNT_CPU], 2ull * THREADS * PER_THREAD);
    assert_int_equal(c1[TSG_COUNT_TINY_FLOPS] - c0[TSG_COUNT_TINY_FLOPS], 2 * wave_flops());
}

/* blocks are handed on: sequential threads all get the block the first one had */
static void *block_of(void *arg)
{
    *(tsg_thread **)arg = tsg_thread_self();
    return NULL;
}

static void test_blocks_reused(void **state)
{
    (void)state;
    tsg_thread *first = NULL;
    for (int i = 0; i < 50; ++i) {
        tsg_thread *b = NULL;
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, block_of, &b), 0);
        pthread_join(th, NULL);
        assert_non_null(b);
        if (i == 0) first = b;
        /* every block is free between these threads, so each new thread adopts the same one
         * (the first free one in the list) instead of allocating */
        assert_ptr_equal(b, first);
    }
}

/* a reader summing while writers count: monotonic, bounded by the final totals */
static atomic_int g_stop;
static void *reader(void *arg)
{
    uint64_t *max_seen = arg, last = 0;
    int monotonic = 1;
    while (!atomic_load(&g_stop)) {
        uint64_t c[TSG_COUNT_N];
        double s[TSG_SUM_N];
        tsg_thread_totals(c, s);
        if (c[TSG_COUNT_CPU] < last) monotonic = 0;
        last = c[TSG_COUNT_CPU];
    }
    *max_seen = monotonic ? last : UINT64_MAX;
    return NULL;
}

static void test_concurrent_reader(void **state)
{
    (void)state;
    uint64_t c0[TSG_COUNT_N], c1[TSG_COUNT_N], seen = 0;
    double s[TSG_SUM_N];
    totals(c0, s);
    pthread_t r;
    atomic_store(&g_stop, 0);
    assert_int_equal(pthread_create(&r, NULL, reader, &seen), 0);
    run_wave();
    totals(c1, s);
    atomic_store(&g_stop, 1);
    pthread_join(r, NULL);
    assert_true(seen != UINT64_MAX); /* never went backwards */
    assert_true(seen <= c1[TSG_COUNT_CPU]);
    assert_int_equal(c1[TSG_COUNT_CPU] - c0[TSG_COUNT_CPU], (uint64_t)THREADS * PER_THREAD);
}

/* a call made from a key destructor that runs after tsgemm's own (the thread's block is already
 * retired): it enrolls again and is counted */
static pthread_key_t g_late_key;
static void late_destructor(void *arg)
{
    (void)arg;
    tsg_thread_count(tsg_thread_self(), TSG_COUNT_QUICK, 7);
}

static void *late_counter(void *arg)
{
    (void)arg;
    tsg_thread_count(tsg_thread_self(), TSG_COUNT_QUICK, 1);
    pthread_setspecific(g_late_key, (void *)1);
    return NULL;
}

static void test_count_in_key_destructor(void **state)
{
    (void)state;
    tsg_thread_self(); /* tsgemm's key first: it then runs before the late one */
    assert_int_equal(pthread_key_create(&g_late_key, late_destructor), 0);
    uint64_t c0[TSG_COUNT_N], c1[TSG_COUNT_N];
    double s[TSG_SUM_N];
    totals(c0, s);
    for (int i = 0; i < 4; ++i) {
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, late_counter, NULL), 0);
        pthread_join(th, NULL);
    }
    totals(c1, s);
    assert_int_equal(c1[TSG_COUNT_QUICK] - c0[TSG_COUNT_QUICK], 4u * 8u);
}

/* exit drain: waits for a thread inside the BLAS; after it, nobody enters */
static atomic_int g_inside, g_release;
static void *in_blas(void *arg)
{
    (void)arg;
    tsg_thread_self(); /* a block: the drain sees this thread */
    tsg_tls *t = &tsg_tl;
    if (!tsg_thread_enter_blas(t)) return (void *)1;
    if (!tsg_thread_in_blas(t)) return (void *)2;
    atomic_store(&g_inside, 1);
    while (!atomic_load(&g_release)) {
        struct timespec d = {0, 1000000};
        nanosleep(&d, NULL);
    }
    tsg_thread_leave_blas(t);
    return NULL;
}

/* the tiny path's entry mark: enters from depth 0 only (a re-entering call is refused) */
static void test_enter_outer(void **state)
{
    (void)state;
    tsg_thread_self();
    if (!tsg_thread_asymmetric()) skip(); /* the tiny path is closed without membarrier */
    tsg_tls *t = &tsg_tl;
    assert_false(tsg_thread_in_blas(t));
    assert_int_equal(tsg_thread_enter_blas_outer(t), 1);
    assert_true(tsg_thread_in_blas(t));
    assert_int_equal(tsg_thread_enter_blas_outer(t), 0); /* re-entry: nothing changed */
    assert_int_equal(tsg_thread_enter_blas(t), 1);        /* the full path nests */
    tsg_thread_leave_blas(t);
    assert_true(tsg_thread_in_blas(t));
    tsg_thread_leave_blas(t);
    assert_false(tsg_thread_in_blas(t));
}

/* fork while another thread is inside the BLAS: the child has only the forking thread, so its
 * exit drain must not wait for the other one; the parent's counts stay in the child's totals */
static void test_fork_child_drain(void **state)
{
    (void)state;
    atomic_store(&g_inside, 0);
    atomic_store(&g_release, 0);
    tsg_thread_count(tsg_thread_self(), TSG_COUNT_GPU, 3);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, in_blas, NULL), 0);
    while (!atomic_load(&g_inside)) {
        struct timespec d = {0, 100000};
        nanosleep(&d, NULL);
    }
    pid_t pid = fork();
    if (pid == 0) {
        uint64_t c[TSG_COUNT_N];
        double s[TSG_SUM_N];
        tsg_thread_totals(c, s);
        int still = tsg_thread_exit_drain(2000);
        _exit(still != 0 ? 1 : c[TSG_COUNT_GPU] < 3 ? 2 : 0);
    }
    assert_true(pid > 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    atomic_store(&g_release, 1);
    pthread_join(th, NULL);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_exit_drain(void **state)
{
    (void)state;
    printf("membarrier (asymmetric barrier): %s\n", tsg_thread_asym ? "yes" : "no, fences");
    atomic_store(&g_inside, 0);
    atomic_store(&g_release, 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, in_blas, NULL), 0);
    while (!atomic_load(&g_inside)) {
        struct timespec d = {0, 100000};
        nanosleep(&d, NULL);
    }
    assert_int_equal(tsg_thread_exit_drain(30), 1); /* gave up after 30 ms: still inside */
    atomic_store(&g_release, 1);
    void *rc;
    pthread_join(th, &rc);
    assert_null(rc);
    assert_int_equal(tsg_thread_exit_drain(1000), 0);
    tsg_thread_self();
    tsg_tls *t = &tsg_tl;
    assert_int_equal(tsg_thread_enter_blas(t), 0); /* exiting: the BLAS is closed */
    assert_false(tsg_thread_in_blas(t));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_after_join),
        cmocka_unit_test(test_blocks_reused),
        cmocka_unit_test(test_concurrent_reader),
        cmocka_unit_test(test_count_in_key_destructor),
        cmocka_unit_test(test_enter_outer),
        cmocka_unit_test(test_fork_child_drain),
        cmocka_unit_test(test_exit_drain), /* last: sets the exiting flag for good */
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
