/*
 * test_pool.c — gpu/tsg_pool.c, the copy-thread pool, on its own: no CUDA, no OpenBLAS, so
 * the same source also runs under ThreadSanitizer (unit.pool_tsan).
 *
 * Proves: every part of every job runs exactly once; jobs from many submitting threads at once;
 * a waiter whose job is queued behind others still finishes (it runs its own parts); a pool with
 * no workers still makes progress; tsg_pool_done never blocks and turns 1 exactly when the job
 * ended; fork() while workers exist: the child gets a fresh pool that works, the parent's keeps
 * working; idle workers sleep (the process uses no CPU time while nothing is queued); bursts
 * with polling on keep every part exactly once, poll no longer than their bound and end in sleep
 * again; a child forked inside a burst starts with none open.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tsg_pool.h"

enum { PARTS = 64 };

typedef struct counts {
    int hits[PARTS]; /* each part writes only its own slot: no race if each runs once */
    int nparts_seen;
} counts;

static void count_part(void *ctx, int part, int nparts)
{
    counts *c = ctx;
    c->hits[part]++;
    if (part == 0) c->nparts_seen = nparts;
}

static void check_once(const counts *c, int nparts)
{
    for (int i = 0; i < nparts; ++i) assert_int_equal(c->hits[i], 1);
    for (int i = nparts; i < PARTS; ++i) assert_int_equal(c->hits[i], 0);
    assert_int_equal(c->nparts_seen, nparts);
}

static void test_parts_once(void **state)
{
    (void)state;
    assert_true(tsg_pool_start(4) >= 1);
    for (int nparts = 1; nparts <= PARTS; nparts = nparts * 2 + 1) {
        counts c;
        memset(&c, 0, sizeof c);
        tsg_job job;
        tsg_pool_submit(&job, count_part, &c, nparts);
        tsg_pool_wait(&job);
        assert_true(tsg_pool_done(&job));
        check_once(&c, nparts);
    }
}

/* A part that sleeps: lets a test hold the workers busy. */
static void slow_part(void *ctx, int part, int nparts)
{
    (void)nparts;
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    count_part(ctx, part, nparts);
}

/* CPU seconds of this process during `fn(arg)`. */
static double cpu_during(void (*fn)(void *), void *arg)
{
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    fn(arg);
    getrusage(RUSAGE_SELF, &r1);
    return (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
           1e-6 * (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) +
           (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
           1e-6 * (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec);
}

static void sleep_ms(void *arg)
{
    const long ms = *(const long *)arg;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000 * 1000};
    nanosleep(&ts, NULL);
}

/* CPU seconds this process spends while the calling thread sleeps `ms` milliseconds: the
 * workers' share, when they ought to be blocked. */
static double cpu_while_sleeping(long ms) { return cpu_during(sleep_ms, &ms); }

/* Workers that poll a while after a part (a burst with a 300 us bound) run every part exactly
 * once too, jobs submitted while they poll included, and the pool still finishes with polling
 * off. */
static void test_poll_rounds(void **state)
{
    (void)state;
    tsg_pool_start(4);
    tsg_pool_set_poll(300);
    tsg_pool_burst_begin();
    for (int round = 0; round < 200; ++round) {
        const int nparts = 1 + round % PARTS;
        counts c;
        memset(&c, 0, sizeof c);
        tsg_job job;
        tsg_pool_submit(&job, count_part, &c, nparts);
        if (round % 3 == 0) { /* let the workers reach their poll before the next job */
            struct timespec ts = {0, 50 * 1000};
            nanosleep(&ts, NULL);
        }
        tsg_pool_wait(&job);
        check_once(&c, nparts);
    }
    /* the poll is bounded: an idle pool sleeps again, the burst still open (4 workers polling for
     * 200 ms would burn ~0.8 s of CPU; the polls after the last job take about 4 x 0.3 ms) */
    assert_true(cpu_while_sleeping(200) < 0.05);
    tsg_pool_burst_end();
    tsg_pool_set_poll(0);
    counts c;
    memset(&c, 0, sizeof c);
    tsg_job job;
    tsg_pool_submit(&job, count_part, &c, PARTS);
    tsg_pool_wait(&job);
    check_once(&c, PARTS);
}

/* Bursts with polling on: every part runs exactly once (jobs queued while workers poll, waits
 * that poll for their job's end, several submitting threads' bursts overlapping); inside a burst
 * the workers do poll (CPU time is spent while nothing is queued), and once the last burst ends
 * an idle pool sleeps again. */
typedef struct burst_arg {
    int rounds;
    int ok;
} burst_arg;

static void *burst_thread(void *p)
{
    burst_arg *a = p;
    a->ok = 1;
    for (int round = 0; round < a->rounds; ++round) {
        tsg_pool_burst_begin();
        for (int j = 0; j < 4; ++j) {
            const int nparts = 1 + (round * 7 + j) % PARTS;
            counts c;
            memset(&c, 0, sizeof c);
            tsg_job job;
            tsg_pool_submit(&job, count_part, &c, nparts);
            if (j == 2) { /* let the job run without this thread's help: the wait only polls */
                struct timespec ts = {0, 100 * 1000};
                nanosleep(&ts, NULL);
            }
            tsg_pool_wait(&job);
            for (int i = 0; i < nparts; ++i) a->ok &= c.hits[i] == 1;
            for (int i = nparts; i < PARTS; ++i) a->ok &= c.hits[i] == 0;
        }
        tsg_pool_burst_end();
    }
    return NULL;
}

static void wait_slow_job(void *arg)
{
    counts *c = arg;
    tsg_job job;
    tsg_pool_submit(&job, slow_part, c, 1); /* one 20 ms part: the others idle, the waiter waits */
    tsg_pool_wait(&job);
}

static void test_bursts(void **state)
{
    (void)state;
    tsg_pool_start(4);
    tsg_pool_set_poll(1000);
    burst_arg args[3] = {{150, 0}, {100, 0}, {50, 0}};
    pthread_t t[3];
    for (int i = 0; i < 3; ++i) assert_int_equal(pthread_create(&t[i], NULL, burst_thread, &args[i]), 0);
    for (int i = 0; i < 3; ++i) assert_int_equal(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < 3; ++i) assert_true(args[i].ok);
    /* an open burst wakes the idle workers and they poll (counted, not timed: on a loaded CI
     * machine the CPU time pollers get says little) */
    tsg_pool_set_poll(100000);
    long polls = tsg_pool_polls();
    tsg_pool_burst_begin();
    for (int ms = 0; ms < 5000 && tsg_pool_polls() == polls; ++ms) {
        struct timespec ts = {0, 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    tsg_pool_burst_end();
    assert_true(tsg_pool_polls() > polls);
    assert_true(cpu_while_sleeping(200) < 0.05); /* no burst: asleep again */
    tsg_pool_burst_end(); /* unmatched: ignored */
    assert_true(cpu_while_sleeping(100) < 0.05);
    /* with a 1 ms bound, idle workers block after it, inside a burst too ... */
    tsg_pool_set_poll(1000);
    tsg_pool_burst_begin();
    assert_true(cpu_while_sleeping(100) < 0.05);
    /* ... and so does a waiter whose job runs long (unbounded: ~0.02 s for the waiter and ~0.06
     * for three idle workers during the 20 ms part) */
    counts slow;
    memset(&slow, 0, sizeof slow);
    assert_true(cpu_during(wait_slow_job, &slow) < 0.015);
    check_once(&slow, 1);
    tsg_pool_burst_end();
    tsg_pool_set_poll(0);
    struct timespec settle = {0, 20 * 1000 * 1000}; /* a poll that began before is over */
    nanosleep(&settle, NULL);
    polls = tsg_pool_polls();
    tsg_pool_burst_begin(); /* polling off: a burst changes nothing */
    assert_true(cpu_while_sleeping(100) < 0.05);
    tsg_pool_burst_end();
    assert_int_equal(tsg_pool_polls(), polls);
}

static void test_done_is_nonblocking(void **state)
{
    (void)state;
    tsg_pool_start(4);
    counts c;
    memset(&c, 0, sizeof c);
    tsg_job job;
    tsg_pool_submit(&job, slow_part, &c, 1);
    assert_false(tsg_pool_done(&job)); /* 20 ms part: cannot have finished yet */
    tsg_pool_wait(&job);
    assert_true(tsg_pool_done(&job));
    check_once(&c, 1);
}

/* The waiter's job sits behind a job that keeps every worker busy: it still finishes, because
 * tsg_pool_wait runs its own parts. */
static void test_wait_helps(void **state)
{
    (void)state;
    int workers = tsg_pool_start(4);
    counts busy, mine;
    memset(&busy, 0, sizeof busy);
    memset(&mine, 0, sizeof mine);
    tsg_job jb, jm;
    tsg_pool_submit(&jb, slow_part, &busy, workers > 0 ? workers * 4 : 4);
    tsg_pool_submit(&jm, count_part, &mine, 16);
    tsg_pool_wait(&jm);
    check_once(&mine, 16);
    tsg_pool_wait(&jb);
    check_once(&busy, workers > 0 ? workers * 4 : 4);
}

typedef struct submitter {
    counts c[8];
    int ok;
} submitter;

static void *submit_many(void *arg)
{
    submitter *s = arg;
    tsg_job jobs[8];
    for (int r = 0; r < 8; ++r) {
        memset(&s->c[r], 0, sizeof s->c[r]);
        tsg_pool_submit(&jobs[r], count_part, &s->c[r], 1 + (r * 7) % PARTS);
    }
    s->ok = 1;
    for (int r = 7; r >= 0; --r) { /* wait out of order */
        tsg_pool_wait(&jobs[r]);
        for (int i = 0; i < 1 + (r * 7) % PARTS; ++i) s->ok &= s->c[r].hits[i] == 1;
    }
    return NULL;
}

static void test_many_submitters(void **state)
{
    (void)state;
    tsg_pool_start(4);
    enum { T = 16 };
    pthread_t t[T];
    static submitter s[T];
    for (int i = 0; i < T; ++i) assert_int_equal(pthread_create(&t[i], NULL, submit_many, &s[i]), 0);
    for (int i = 0; i < T; ++i) {
        pthread_join(t[i], NULL);
        assert_true(s[i].ok);
    }
}

/* 1 when a job of `nparts` parts runs each part exactly once (also in a forked child, where a
 * failed assertion cannot report). */
static int job_runs_once(int nparts)
{
    counts c;
    memset(&c, 0, sizeof c);
    tsg_job j;
    tsg_pool_submit(&j, count_part, &c, nparts);
    tsg_pool_wait(&j);
    int ok = c.nparts_seen == nparts;
    for (int i = 0; i < PARTS; ++i) ok &= c.hits[i] == (i < nparts);
    return ok;
}

/* The forked child `pid` ran to its end and exited with status 0. */
static void assert_child_ok(pid_t pid)
{
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* fork() while workers exist and a job is running: the child's pool starts empty and works (with
 * new workers); the parent's job completes and its pool keeps working. */
static void test_fork(void **state)
{
    (void)state;
    tsg_pool_start(4);
    counts busy;
    memset(&busy, 0, sizeof busy);
    tsg_job jb;
    tsg_pool_submit(&jb, slow_part, &busy, 8);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int ok = tsg_pool_threads() == 0; /* the parent's workers do not exist here */
        ok &= tsg_pool_start(2) == 2;
        ok &= job_runs_once(32);
        _exit(ok ? 0 : 1);
    }
    assert_child_ok(pid);
    tsg_pool_wait(&jb);
    check_once(&busy, 8);
    counts c;
    memset(&c, 0, sizeof c);
    tsg_job j;
    tsg_pool_submit(&j, count_part, &c, 5);
    tsg_pool_wait(&j);
    check_once(&c, 5);
}

/* fork() inside an open burst with polling on (a call in flight in the parent): the child's pool
 * has no burst open, so its new workers run its jobs and then sleep; the parent's burst goes on. */
static void test_fork_in_burst(void **state)
{
    (void)state;
    tsg_pool_start(4);
    tsg_pool_set_poll(100000);
    tsg_pool_burst_begin();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int ok = tsg_pool_threads() == 0 && tsg_pool_start(2) == 2;
        ok &= job_runs_once(16);
        ok &= cpu_while_sleeping(100) < 0.05; /* 2 workers polling would take ~0.2 s */
        tsg_pool_burst_end(); /* the parent's burst is not the child's: ignored */
        _exit(ok ? 0 : 1);
    }
    assert_child_ok(pid);
    assert_true(job_runs_once(9));
    tsg_pool_burst_end();
    tsg_pool_set_poll(0);
    assert_true(cpu_while_sleeping(100) < 0.05);
}

/* Idle workers block: 200 ms with nothing queued costs (almost) no CPU time. */
static void test_idle_sleeps(void **state)
{
    (void)state;
    tsg_pool_start(4);
    assert_true(cpu_while_sleeping(200) < 0.05); /* 4 spinning workers would burn ~0.8 s here */
}

static void test_usable_cpus(void **state)
{
    (void)state;
    int n = tsg_pool_usable_cpus();
    assert_true(n >= 1);
    assert_true(n <= sysconf(_SC_NPROCESSORS_CONF));
}

/* Run first in a fresh process image: a pool of zero workers still completes jobs. */
static void test_zero_workers(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* a fresh pool in the child (no workers yet): start it with 0 */
        int ok = tsg_pool_start(0) == 0;
        ok &= job_runs_once(9);
        _exit(ok ? 0 : 1);
    }
    assert_child_ok(pid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parts_once),
        cmocka_unit_test(test_poll_rounds),           cmocka_unit_test(test_bursts),
        cmocka_unit_test(test_done_is_nonblocking),
        cmocka_unit_test(test_wait_helps),     cmocka_unit_test(test_many_submitters),
        cmocka_unit_test(test_fork),           cmocka_unit_test(test_fork_in_burst),
        cmocka_unit_test(test_idle_sleeps),
        cmocka_unit_test(test_usable_cpus),    cmocka_unit_test(test_zero_workers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
