/*
 * tsg_pool.c — the copy-thread pool. See tsg_pool.h.
 *
 * One mutex guards the FIFO and every job's counters: a part is a copy of a megabyte or more
 * (tens of microseconds), so claiming it under a lock costs nothing measurable, and one lock keeps
 * the fork handler and ThreadSanitizer's view simple. Polling threads (bursts) read a few atomics
 * without it (the count of unclaimed parts, the bursts open, a job's done flag, which is stored
 * with release order under the lock) and take it with trylock only when a part may be there; a
 * finished part counts itself down atomically, so only a job's last part takes the lock again.
 */
#define _GNU_SOURCE
#include "tsg_pool.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static struct {
    pthread_mutex_t mu;
    pthread_cond_t work;  /* a job was queued, or the pool is being re-made */
    pthread_cond_t done;  /* some job finished */
    tsg_job *head, *tail; /* jobs with unclaimed parts, FIFO */
    int threads;          /* workers running */
    int started;
    int atfork_set;
} g_pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
            NULL, NULL, 0, 0, 0};

/* Bursts open (tsg_pool_burst_begin), how long an idle thread polls inside one (microseconds,
 * 0: not at all), and the parts queued but not yet claimed; written under the lock (g_poll: at
 * any time), read without it by polling threads. */
static atomic_int g_bursts, g_poll, g_avail;
static atomic_long g_polls;  /* polls started (tsg_pool_polls) */
static atomic_long g_begins; /* bursts begun: a poll in progress restarts its clock at a new one */

/* The CPU's spin-wait hint. */
static void cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* One step of a poll loop: a pause, and every 64th step a yield of the CPU. */
static void relax(unsigned i)
{
    if ((i & 63) == 0)
        sched_yield();
    else
        cpu_pause();
}

/* Takes the lock, first by a bounded spin on trylock: the lock is held for a claim or a count
 * at a time (well under a microsecond), and a thread that sleeps on the mutex's futex instead
 * waits for a wake-up that took tens of microseconds on the H200 host while a dozen copy
 * threads polled (docs/NOTES.md "v0.11"). */
static void lock_mu(void)
{
    for (unsigned i = 1; i <= 1000; ++i) {
        if (pthread_mutex_trylock(&g_pool.mu) == 0) return;
        cpu_pause();
    }
    pthread_mutex_lock(&g_pool.mu);
}

static int polling(void)
{
    return atomic_load_explicit(&g_poll, memory_order_relaxed) &&
           atomic_load_explicit(&g_bursts, memory_order_acquire) > 0;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Takes the next unclaimed part of the queue's first job; the caller holds the lock. */
static tsg_job *claim_head(int *part)
{
    tsg_job *job = g_pool.head;
    if (!job) return NULL;
    *part = job->claimed++;
    atomic_fetch_sub_explicit(&g_avail, 1, memory_order_relaxed);
    if (job->claimed == job->nparts) { /* fully claimed: leaves the queue */
        g_pool.head = job->qnext;
        if (!g_pool.head) g_pool.tail = NULL;
        job->qnext = NULL;
    }
    return job;
}

/* Runs one claimed part; the lock is not held. Only the job's last part takes the lock (to
 * mark it done for the waiters); after its decrement no other part touches the job. */
static void run_part(tsg_job *job, int part)
{
    job->fn(job->ctx, part, job->nparts);
    if (__atomic_sub_fetch(&job->left, 1, __ATOMIC_ACQ_REL) == 0) {
        lock_mu();
        __atomic_store_n(&job->done, 1, __ATOMIC_RELEASE); /* tsg_pool_done reads it lock-free */
        pthread_cond_broadcast(&g_pool.done);
        pthread_mutex_unlock(&g_pool.mu);
    }
}

/* Inside a burst, called without the lock: waits without blocking until a part may be
 * claimable (then takes the lock with trylock, so that a dozen pollers never queue on the
 * mutex's futex), the bursts end or the poll's time is up. Returns with the lock held: 1 when a
 * part may be there, 0 when the caller should block. */
static int poll_for_work(void)
{
    atomic_fetch_add_explicit(&g_polls, 1, memory_order_relaxed);
    long epoch = atomic_load_explicit(&g_begins, memory_order_relaxed);
    double end = now_us() + atomic_load_explicit(&g_poll, memory_order_relaxed);
    for (unsigned i = 1; polling(); ++i) {
        if (atomic_load_explicit(&g_avail, memory_order_acquire) > 0 &&
            pthread_mutex_trylock(&g_pool.mu) == 0)
            return 1;
        if ((i & 63) == 0) {
            const long e = atomic_load_explicit(&g_begins, memory_order_relaxed);
            if (e != epoch) { /* a burst began meanwhile (its wake-up missed this thread): poll anew */
                epoch = e;
                end = now_us() + atomic_load_explicit(&g_poll, memory_order_relaxed);
                atomic_fetch_add_explicit(&g_polls, 1, memory_order_relaxed);
            } else if (now_us() >= end) {
                break;
            }
        }
        relax(i);
    }
    lock_mu();
    return 0;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "tsg-copy"); /* top -H, gdb, tsgemm-bench --replay-threads */
    int polled_out = 0; /* polled its full time since its last part or wake-up: block */
    lock_mu();
    for (;;) {
        int part;
        tsg_job *job = claim_head(&part);
        if (job) {
            pthread_mutex_unlock(&g_pool.mu);
            run_part(job, part);
            polled_out = 0;
            if (!polling()) lock_mu();
            else if (!poll_for_work()) polled_out = 1; /* the lock only when a part is there */
            continue;
        }
        if (polling() && !polled_out) { /* a burst is open: its next job comes within microseconds */
            pthread_mutex_unlock(&g_pool.mu);
            if (!poll_for_work()) polled_out = 1;
            continue;
        }
        pthread_cond_wait(&g_pool.work, &g_pool.mu);
        polled_out = 0;
    }
    return NULL; /* not reached: workers live as long as the process */
}

void tsg_pool_set_poll(int max_us) { atomic_store(&g_poll, max_us < 0 ? 0 : max_us > 100000 ? 100000 : max_us); }

long tsg_pool_polls(void) { return atomic_load_explicit(&g_polls, memory_order_relaxed); }

void tsg_pool_burst_begin(void)
{
    lock_mu();
    atomic_fetch_add(&g_bursts, 1);
    atomic_fetch_add(&g_begins, 1);
    if (atomic_load(&g_poll)) pthread_cond_broadcast(&g_pool.work); /* start polling now */
    pthread_mutex_unlock(&g_pool.mu);
}

void tsg_pool_burst_end(void)
{
    lock_mu();
    if (atomic_load(&g_bursts) > 0) atomic_fetch_sub(&g_bursts, 1);
    pthread_mutex_unlock(&g_pool.mu);
}

static void atfork_prepare(void) { pthread_mutex_lock(&g_pool.mu); }
static void atfork_parent(void) { pthread_mutex_unlock(&g_pool.mu); }
static void atfork_child(void)
{
    /* Only this thread exists in the child: the workers, and every job of the parent, are gone. */
    pthread_mutex_init(&g_pool.mu, NULL);
    pthread_cond_init(&g_pool.work, NULL);
    pthread_cond_init(&g_pool.done, NULL);
    g_pool.head = g_pool.tail = NULL;
    g_pool.threads = 0;
    g_pool.started = 0;
    atomic_store(&g_bursts, 0); /* the parent's calls in flight are not this process's */
    atomic_store(&g_avail, 0);
}

int tsg_pool_spawn(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits this mask */
    const int rc = pthread_create(thread, attr, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int tsg_pool_start(int nthreads)
{
    pthread_mutex_lock(&g_pool.mu);
    if (!g_pool.atfork_set) {
        pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
        g_pool.atfork_set = 1;
    }
    if (!g_pool.started) {
        g_pool.started = 1;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, (size_t)256 << 10); /* parts need little stack */
        for (int i = 0; i < nthreads; ++i) {
            pthread_t t;
            if (tsg_pool_spawn(&t, &attr, worker, NULL) != 0) break;
            g_pool.threads++;
        }
        pthread_attr_destroy(&attr);
    }
    int n = g_pool.threads;
    pthread_mutex_unlock(&g_pool.mu);
    return n;
}

int tsg_pool_threads(void)
{
    pthread_mutex_lock(&g_pool.mu);
    int n = g_pool.threads;
    pthread_mutex_unlock(&g_pool.mu);
    return n;
}

void tsg_pool_submit(tsg_job *job, tsg_pool_fn fn, void *ctx, int nparts)
{
    job->fn = fn;
    job->ctx = ctx;
    job->nparts = nparts < 1 ? 1 : nparts;
    job->claimed = 0;
    job->left = job->nparts;
    job->done = 0;
    job->qnext = NULL;
    lock_mu();
    if (g_pool.tail)
        g_pool.tail->qnext = job;
    else
        g_pool.head = job;
    g_pool.tail = job;
    atomic_fetch_add_explicit(&g_avail, job->nparts, memory_order_release);
    if (job->nparts == 1)
        pthread_cond_signal(&g_pool.work);
    else
        pthread_cond_broadcast(&g_pool.work);
    pthread_mutex_unlock(&g_pool.mu);
}

/* Removes a fully claimed-by-us job from the queue; the caller holds the lock. */
static void unlink_job(tsg_job *job)
{
    tsg_job **pp = &g_pool.head, *prev = NULL;
    while (*pp && *pp != job) {
        prev = *pp;
        pp = &(*pp)->qnext;
    }
    if (!*pp) return;
    *pp = job->qnext;
    if (g_pool.tail == job) g_pool.tail = prev;
    job->qnext = NULL;
}

void tsg_pool_wait(tsg_job *job)
{
    lock_mu();
    while (job->claimed < job->nparts) { /* help: this job's own parts, whatever its queue place */
        int part = job->claimed++;
        atomic_fetch_sub_explicit(&g_avail, 1, memory_order_relaxed);
        if (job->claimed == job->nparts) unlink_job(job);
        pthread_mutex_unlock(&g_pool.mu);
        run_part(job, part);
        lock_mu();
    }
    const double end = polling() ? now_us() + atomic_load_explicit(&g_poll, memory_order_relaxed) : 0;
    while (!job->done) {
        if (!polling() || now_us() >= end) {
            pthread_cond_wait(&g_pool.done, &g_pool.mu);
            continue;
        }
        /* inside a burst: the other parts are running now; polling sees their end without a
         * wake-up (rechecked under the lock, so a burst that ends or a poll that times out
         * meanwhile falls back to the condition variable, which the last part's broadcast
         * reaches under the same lock) */
        pthread_mutex_unlock(&g_pool.mu);
        atomic_fetch_add_explicit(&g_polls, 1, memory_order_relaxed);
        for (unsigned i = 1; !__atomic_load_n(&job->done, __ATOMIC_ACQUIRE) && polling(); ++i) {
            if ((i & 63) == 0 && now_us() >= end) break;
            relax(i);
        }
        lock_mu();
    }
    pthread_mutex_unlock(&g_pool.mu);
}

int tsg_pool_done(tsg_job *job) { return __atomic_load_n(&job->done, __ATOMIC_ACQUIRE); }

int tsg_pool_usable_cpus(void)
{
    int n = 1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
    /* cgroup v2: "max 100000" (no quota) or "200000 100000" (2 CPUs' worth of time) */
    FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
    if (f) {
        char quota[32];
        long period = 0;
        if (fscanf(f, "%31s %ld", quota, &period) == 2 && period > 0 && quota[0] != 'm') {
            long q = 0;
            if (sscanf(quota, "%ld", &q) == 1 && q > 0) {
                long cpus = (q + period - 1) / period;
                if (cpus < n) n = (int)cpus;
            }
        }
        fclose(f);
    }
    return n < 1 ? 1 : n;
}
