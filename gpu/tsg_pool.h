/*
 * tsg_pool.h — the library's own host threads that copy user memory into pinned staging and back
 * (the transfer pipeline, docs/DESIGN.md "Calls from host memory").
 *
 * Owns: a process-wide pool of worker threads and a FIFO of jobs, each split into parts that any
 * worker (or the thread waiting for the job) runs. Must not: know CUDA, BLAS or the environment;
 * it is plain C and pthreads so that its unit test runs under ThreadSanitizer without CUDA or
 * OpenBLAS (tests/unit/test_pool.c).
 *
 * Life cycle:
 *   - nothing happens at load time; tsg_pool_start() creates the threads (the executor calls it at
 *     the first GPU call from host memory), each named "tsg-copy" (top -H, gdb, tsgemm-bench
 *     --replay-threads);
 *   - idle workers block on a condition variable (no spinning), except inside a burst with
 *     polling on (below), which a caller opens only for the length of one call;
 *   - fork: the child gets an empty pool with no threads (threads do not survive fork()); its
 *     next tsg_pool_start() starts new ones. A job in flight in the parent is not seen in the child;
 *   - exit: workers are detached and never joined, so exit() never waits for them; a job still
 *     running when the process ends simply stops with it. Callers that must not have workers touch
 *     their buffers after a point wait for their own jobs (tsg_pool_wait) first.
 * Progress is guaranteed whatever the number of workers (0 included): tsg_pool_wait runs the
 * unclaimed parts of the job it waits for itself before it blocks.
 */
#ifndef TSG_POOL_H
#define TSG_POOL_H

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One part of a job: part in [0, nparts). Must not call tsg_pool_wait on another job that could
 * be queued behind the current one (a part never waits for other work of the pool). */
typedef void (*tsg_pool_fn)(void *ctx, int part, int nparts);

/* A job, owned by the caller (typically on its stack) from tsg_pool_submit until tsg_pool_wait
 * returns. The fields after ctx are the pool's. */
typedef struct tsg_job {
    tsg_pool_fn fn;
    void *ctx;
    int nparts;
    /* pool state */
    int claimed, left, done;
    struct tsg_job *qnext;
} tsg_job;

/*
 * Starts the pool with `nthreads` workers (>= 0), once per process (and once again in a forked
 * child); later calls return the size already running. Returns the number of workers running
 * (fewer than asked when thread creation failed; the pool then still works, with the waiting
 * threads doing the parts).
 */
int tsg_pool_start(int nthreads);

/*
 * pthread_create with every signal blocked in the new thread (the caller's mask is unchanged):
 * the library's threads must never run a program's signal handler (on a 256 KiB stack, in the
 * middle of a copy), so process-directed signals are always delivered to the program's own
 * threads. Every thread the library creates starts through here. Returns pthread_create's code.
 */
int tsg_pool_spawn(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

/* Workers running now (0 before tsg_pool_start). */
int tsg_pool_threads(void);

/*
 * Bursts: a caller that will queue a quick succession of jobs and wait on them (one pipelined
 * call: units of a megabyte, each needed tens of microseconds after it is queued) brackets them
 * with tsg_pool_burst_begin / tsg_pool_burst_end. While at least one burst is open and polling is
 * on (tsg_pool_set_poll), an idle worker polls the queue instead of blocking, for at most
 * `max_us` microseconds after its last part (or its wake-up) and then blocks until the next job
 * is queued; tsg_pool_wait likewise polls for its job's end for at most `max_us` before it
 * blocks. Begin wakes the sleeping workers at once. A blocked worker took 50-130 us to start a
 * queued part on the H200 host (docs/NOTES.md "v0.11"), longer than the part itself (a worker
 * still polling from an earlier burst restarts its clock at begin); the bound
 * keeps a long call that waits on its GPU (or many processes sharing the CPUs, each in a call)
 * from keeping every copy thread spinning. Bursts nest and may overlap between threads (a
 * counter); end without a matching begin is ignored. max_us = 0 (the default): no polling, bursts
 * change nothing; at most 100000.
 */
void tsg_pool_set_poll(int max_us);
void tsg_pool_burst_begin(void);
void tsg_pool_burst_end(void);

/* How many times an idle worker or a waiter has started to poll (or restarted its poll at a new
 * burst) since the process began (tests: whether bursts poll at all, without timing anything). */
long tsg_pool_polls(void);

/* Queues job (fn, ctx, nparts >= 1) behind the jobs already queued; workers start on it as they
 * become free. */
void tsg_pool_submit(tsg_job *job, tsg_pool_fn fn, void *ctx, int nparts);

/* Runs the job's unclaimed parts on this thread, then blocks until every part has finished. After
 * it returns no worker touches the job (or its ctx) again. */
void tsg_pool_wait(tsg_job *job);

/* 1 when every part of the job has finished (never blocks). */
int tsg_pool_done(tsg_job *job);

/*
 * CPUs this process may run on: the affinity mask (sched_getaffinity), capped by the cgroup v2
 * CPU quota (/sys/fs/cgroup/cpu.max "quota period", rounded up) when one is set. At least 1.
 */
int tsg_pool_usable_cpus(void);

#ifdef __cplusplus
}
#endif

#endif /* TSG_POOL_H */
