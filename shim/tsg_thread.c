/*
 * tsg_thread.c — per-thread blocks and their registry. See tsg_thread.h.
 *
 * The registry is an append-only list (readers walk it without a lock: tsg_thread_totals,
 * tsg_thread_exit_drain). Enrolling and retiring take one mutex; a pthread key's destructor
 * retires a thread's block at thread exit. The thread-local words use the default (general
 * dynamic) TLS model: the library is dlopen'able and the static CUDA runtime has TLS of its own,
 * so initial-exec is not possible (docs/NOTES.md "Small calls").
 */
#define _GNU_SOURCE
#include "tsg_thread.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

_Thread_local tsg_tls tsg_tl = {NULL, 0, "none", 0};
atomic_int tsg_thread_exiting;
int tsg_thread_asym;

static tsg_thread *_Atomic g_head;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_key;
static int g_key_ok;

static void lock_before_fork(void) { pthread_mutex_lock(&g_lock); }
static void unlock_after_fork(void) { pthread_mutex_unlock(&g_lock); }

/* In a forked child only the forking thread lives on: the other blocks become free (their counts
 * stay in the totals), so the child's exit never waits for a thread that was inside the BLAS in
 * the parent. */
static void child_after_fork(void)
{
    for (tsg_thread *b = atomic_load_explicit(&g_head, memory_order_acquire); b;
         b = atomic_load_explicit(&b->next, memory_order_acquire))
        if (b != tsg_tl.self) {
            b->depth = NULL;
            atomic_store_explicit(&b->free, 1, memory_order_relaxed);
        }
    pthread_mutex_unlock(&g_lock);
}

static void retire(void *arg)
{
    tsg_thread *t = arg;
    pthread_mutex_lock(&g_lock);
    t->depth = NULL; /* this thread's TLS goes away after the destructors */
    atomic_store_explicit(&t->free, 1, memory_order_relaxed);
    pthread_mutex_unlock(&g_lock);
    /* a call from a later key destructor of this thread enrolls again (and sets the key
     * again, so this destructor runs once more); past the last destructor round the block simply
     * stays with the dead thread: never freed, still counted, and without a depth pointer (see
     * tsg_thread_enroll), so the exit drain never reads this thread's freed TLS */
    tsg_tl.self = NULL;
    tsg_tl.retired = 1;
}

static long membarrier(int cmd) { return syscall(__NR_membarrier, cmd, 0, 0); }

static void init_once(void)
{
    g_key_ok = pthread_key_create(&g_key, retire) == 0;
    /* fork while another thread holds the lock: the child must not inherit it locked; and the
     * child has one thread */
    pthread_atfork(lock_before_fork, unlock_after_fork, child_after_fork);
    long cmds = membarrier(MEMBARRIER_CMD_QUERY);
    if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
        (cmds & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) &&
        membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
        tsg_thread_asym = 1;
}

tsg_thread *tsg_thread_enroll(void)
{
    pthread_once(&g_once, init_once);
    tsg_thread *t = NULL;
    pthread_mutex_lock(&g_lock);
    for (tsg_thread *b = atomic_load_explicit(&g_head, memory_order_acquire); b;
         b = atomic_load_explicit(&b->next, memory_order_acquire))
        if (atomic_load_explicit(&b->free, memory_order_relaxed)) {
            atomic_store_explicit(&b->free, 0, memory_order_relaxed);
            t = b;
            break;
        }
    if (!t) {
        /* a cache line of its own, so that threads counting at once never share one */
        size_t size = (sizeof(tsg_thread) + 63) & ~(size_t)63;
        t = aligned_alloc(64, size);
        if (t) {
            memset(t, 0, size);
            atomic_store_explicit(&t->next, atomic_load_explicit(&g_head, memory_order_relaxed),
                                  memory_order_relaxed);
            atomic_store_explicit(&g_head, t, memory_order_release);
        }
    }
    if (t && !tsg_tl.retired) t->depth = &tsg_tl.depth;
    pthread_mutex_unlock(&g_lock);
    if (!t) return NULL;
    if (g_key_ok) pthread_setspecific(g_key, t);
    tsg_tl.self = t;
    return t;
}

void tsg_thread_totals(uint64_t count[TSG_COUNT_N], double sum[TSG_SUM_N])
{
    memset(count, 0, sizeof(uint64_t) * TSG_COUNT_N);
    for (int i = 0; i < TSG_SUM_N; ++i) sum[i] = 0;
    for (tsg_thread *b = atomic_load_explicit(&g_head, memory_order_acquire); b;
         b = atomic_load_explicit(&b->next, memory_order_acquire)) {
        for (int i = 0; i < TSG_COUNT_N; ++i)
            count[i] += atomic_load_explicit(&b->count[i], memory_order_relaxed);
        for (int i = 0; i < TSG_SUM_N; ++i)
            sum[i] += atomic_load_explicit(&b->sum[i], memory_order_relaxed);
    }
}

static int inside_blas(void)
{
    int n = 0;
    pthread_mutex_lock(&g_lock); /* a block's depth pointer is valid only under it */
    for (tsg_thread *b = atomic_load_explicit(&g_head, memory_order_acquire); b;
         b = atomic_load_explicit(&b->next, memory_order_acquire))
        if (b->depth) n += atomic_load(b->depth) != 0;
    pthread_mutex_unlock(&g_lock);
    return n;
}

int tsg_thread_exit_drain(int max_ms)
{
    pthread_once(&g_once, init_once); /* tsg_thread_asym as the enrolled threads saw it */
    atomic_store(&tsg_thread_exiting, 1); /* seq_cst, as the loads below */
    /* the other half of tsg_thread_enter_blas's barrier: a full barrier on every thread of the
     * process, so each one either has its depth visible here or will see the flag. Without
     * membarrier the callers' seq_cst exchanges pair with the seq_cst accesses here. */
    if (tsg_thread_asym) membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
    int n = inside_blas();
    /* bounded by the clock, not by a count of sleeps (each sleep takes longer than asked on a
     * loaded machine, and the registry lock can be slow to get) */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (n > 0) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        const double ms = 1e3 * (double)(t.tv_sec - t0.tv_sec) + 1e-6 * (double)(t.tv_nsec - t0.tv_nsec);
        if (ms >= (double)max_ms) break;
        struct timespec d = {0, 1000000};
        nanosleep(&d, NULL);
        n = inside_blas();
    }
    return n;
}
