/*
 * tsg_thread.h — each calling thread's own state, written on every call without locked
 * instructions, and the registry through which other threads read it (tsg_thread.c).
 *
 * Owns: the call counters (each thread counts into its own block; tsg_thread_totals sums all
 * blocks), the "inside the CPU BLAS" depth — both the re-entry guard and what exit() waits for —
 * and the last path; turning cancellation off around a call into the library. Plain C with
 * pthreads only: imports nothing else of shim/, so the unit test (and its ThreadSanitizer twin)
 * compile it on its own. Must not: print, dispatch, or free a block (blocks
 * are handed from an exited thread to the next new one, so a reader never sees freed memory).
 *
 * Why per thread: a locked read-modify-write (atomic_fetch_add) costs 5-10 ns on the VMs we
 * measure, and a tiny call made four of them; a block with one writer needs only a relaxed
 * load and store per counter (plain mov on x86-64), and a relaxed atomic store is still a
 * well-defined value for the reader on another thread.
 */
#ifndef TSG_THREAD_H
#define TSG_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* The integer counters of struct tsgemm_stats (include/tsgemm.h), plus the flops of tiny CPU
 * calls, which are added as integers (exact below 2^53; not timed). */
typedef enum tsg_count {
    TSG_COUNT_ILLEGAL = 0,
    TSG_COUNT_QUICK,
    TSG_COUNT_GPU,
    TSG_COUNT_CPU,
    TSG_COUNT_GPU_FAILED,
    TSG_COUNT_REFUSED,
    TSG_COUNT_TINY_FLOPS,
    TSG_COUNT_CLASSIFIED, /* calls whose operands were asked of the CUDA driver (a process with CUDA) */
    TSG_COUNT_N
} tsg_count;

/* The floating-point sums of struct tsgemm_stats. */
typedef enum tsg_sum {
    TSG_SUM_GPU_FLOPS = 0,
    TSG_SUM_CPU_FLOPS,
    TSG_SUM_GPU_SECONDS,
    TSG_SUM_CPU_SECONDS,
    TSG_SUM_CLASSIFY_SECONDS, /* their time in those questions, measured at TSGEMM_LOG >= 2 only */
    TSG_SUM_N
} tsg_sum;

/*
 * One thread's block. Written only by the thread that owns it (relaxed load + relaxed store),
 * read by any thread (relaxed loads). Blocks live in an append-only list and are never freed: at
 * thread exit the block is marked free and the next new thread adopts it, counts and all, so
 * totals stay exact without folding anything.
 */
typedef struct tsg_thread {
    _Atomic uint64_t count[TSG_COUNT_N];
    _Atomic double sum[TSG_SUM_N];
    atomic_int *depth;                 /* the owner's tsg_tl.depth; NULL when free (both under
                                          the registry lock: the exit drain reads it there)  */
    atomic_int free;                   /* 1: no thread owns it (under the registry lock)     */
    struct tsg_thread *_Atomic next;   /* the registry; append-only                          */
} tsg_thread;

/* Per-thread words the per-call path reads first; one thread-local access reaches them all. */
typedef struct tsg_tls {
    tsg_thread *self;      /* this thread's block, NULL until its first call (tsg_thread_self) */
    atomic_int depth;      /* CPU BLAS calls this thread is inside (tsg_thread_enter_blas).
                              Nonzero: a call arriving now re-enters from the CPU BLAS (netlib's
                              cblas_sgemm calls sgemm_ through the PLT) and goes straight to
                              that library. Read by the exit drain through the thread's block. */
    const char *last_path; /* tsgemm_last_path(): "none", "cpu", "gpu", ...                   */
    int retired;           /* the thread-exit hook ran: this thread is ending               */
} tsg_tls;

extern _Thread_local tsg_tls tsg_tl __attribute__((visibility("hidden")));

/* Set once exit() started (tsg_thread_exit_drain); CPU BLAS calls then use the portable loop. */
extern atomic_int tsg_thread_exiting __attribute__((visibility("hidden")));
/* 1 when membarrier(PRIVATE_EXPEDITED) is registered: tsg_thread_enter_blas then needs only a
 * compiler barrier (the exit side issues the full barrier on every thread). Set before the first
 * block exists and never changed. */
extern int tsg_thread_asym __attribute__((visibility("hidden")));

/* 1 once membarrier(PRIVATE_EXPEDITED) is registered for this process (after the first
 * tsg_thread_enroll; never changes afterwards). */
static inline int tsg_thread_asymmetric(void) { return tsg_thread_asym; }

/* Adopts a free block or allocates one for the calling thread, registers a thread-exit hook that
 * frees it again, and returns it. NULL only when memory is exhausted. */
tsg_thread *tsg_thread_enroll(void);

/* The calling thread's block (enrolled on first use); NULL only when memory is exhausted. */
static inline tsg_thread *tsg_thread_self(void)
{
    tsg_thread *t = tsg_tl.self;
    return __builtin_expect(t != NULL, 1) ? t : tsg_thread_enroll();
}

/* count[c] += v by the owning thread (t not NULL). */
static inline void tsg_thread_count_own(tsg_thread *t, tsg_count c, uint64_t v)
{
    atomic_store_explicit(&t->count[c], atomic_load_explicit(&t->count[c], memory_order_relaxed) + v,
                          memory_order_relaxed);
}

/* count[c] += v by the owning thread (t may be NULL: then nothing is counted). */
static inline void tsg_thread_count(tsg_thread *t, tsg_count c, uint64_t v)
{
    if (t) tsg_thread_count_own(t, c, v);
}

/* sum[s] += v by the owning thread (t may be NULL). */
static inline void tsg_thread_add(tsg_thread *t, tsg_sum s, double v)
{
    if (!t) return;
    atomic_store_explicit(&t->sum[s], atomic_load_explicit(&t->sum[s], memory_order_relaxed) + v,
                          memory_order_relaxed);
}

/* 1 while the calling thread is inside the CPU BLAS (tl is its tsg_tl). */
static inline int tsg_thread_in_blas(tsg_tls *tl)
{
    return atomic_load_explicit(&tl->depth, memory_order_relaxed) != 0;
}

/*
 * Marks the calling thread (tl: its tsg_tl) as inside the CPU BLAS. Returns 1, or 0 when the
 * process is exiting (nothing marked: the caller must not enter the BLAS). The depth is raised
 * before tsg_thread_exiting is read and the exit side sets the flag before reading the depths,
 * with a full barrier in between on both sides — on ours a compiler barrier suffices when the
 * exit side's membarrier() is available (tsg_thread_asym), else a seq_cst exchange — so no call
 * slips into the BLAS unseen by exit (the asymmetric Dekker pattern; a seq_cst load is a plain
 * load on x86-64). The exit side sees the depth only of threads that have a block.
 */
static inline int tsg_thread_enter_blas(tsg_tls *tl)
{
    int d = atomic_load_explicit(&tl->depth, memory_order_relaxed);
    if (__builtin_expect(tsg_thread_asym, 1)) {
        atomic_store_explicit(&tl->depth, d + 1, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst); /* the compiler keeps the store first */
    } else {
        atomic_exchange(&tl->depth, d + 1); /* seq_cst read-modify-write: a full barrier */
    }
    if (__builtin_expect(!atomic_load(&tsg_thread_exiting), 1)) return 1;
    atomic_store_explicit(&tl->depth, d, memory_order_relaxed);
    return 0;
}

/*
 * tsg_thread_enter_blas for a call from outside any CPU BLAS call, on a process where membarrier
 * is registered (tsg_thread_asym: the caller checked it once, e.g. before opening its path): 1
 * when the thread was not inside the BLAS and the process is not exiting (depth now 1); 0
 * otherwise, nothing changed (a re-entering call, or exit began: the caller takes its full
 * path). One load of the depth, a store, a compiler barrier, one load of the exit flag.
 */
static inline int tsg_thread_enter_blas_outer(tsg_tls *tl)
{
    if (atomic_load_explicit(&tl->depth, memory_order_relaxed) != 0) return 0;
    atomic_store_explicit(&tl->depth, 1, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst); /* the compiler keeps the store first */
    if (__builtin_expect(!atomic_load(&tsg_thread_exiting), 1)) return 1;
    atomic_store_explicit(&tl->depth, 0, memory_order_relaxed);
    return 0;
}

/* Ends what tsg_thread_enter_blas began (release: the call's effects before the depth drops). */
static inline void tsg_thread_leave_blas(tsg_tls *tl)
{
    atomic_store_explicit(&tl->depth, atomic_load_explicit(&tl->depth, memory_order_relaxed) - 1,
                          memory_order_release);
}

/*
 * Every exported function that may block runs with cancellation disabled (restored on return):
 * a caller cancelled at a cancellation point inside the library (a condition wait of the copy
 * threads' pool, a sleep of the cache lock, a write of the log) would leave a mutex, the lock or
 * a pthread_once half done and the copy threads writing into its dead stack. A cancellation
 * request made meanwhile acts at the caller's next cancellation point after the call.
 * tsg_cancel_off returns the state to hand back to tsg_cancel_restore.
 */
static inline int tsg_cancel_off(void)
{
    int old = PTHREAD_CANCEL_ENABLE;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    return old;
}

static inline void tsg_cancel_restore(int old)
{
    int ignored;
    pthread_setcancelstate(old, &ignored);
}

/* Totals over every block: count[] and sum[] of all threads that ever called, living or
 * exited. Exact for every call that happened before this one (a join, a lock, ...). */
void tsg_thread_totals(uint64_t count[TSG_COUNT_N], double sum[TSG_SUM_N]);

/* At exit(): sets tsg_thread_exiting, then waits (up to max_ms) until no thread is inside the
 * CPU BLAS. Returns the number of threads still inside when it gave up (0 normally). */
int tsg_thread_exit_drain(int max_ms);

#endif /* TSG_THREAD_H */
