/*
 * bench_threads.h — CPU time of this process's threads by group, for --replay-threads: which
 * threads ran during a replay pass (issue 37: the auto pass's CPU calls are slower with a GPU
 * there, and which thread competes with the BLAS's workers is the question).
 *
 * Groups by thread name (/proc/self/task/TID/comm): the main thread; tsgemm's copy threads
 * ("tsg-copy"), its warm-up ("tsg-warm") and its other threads ("tsg-*"); the CUDA driver's
 * ("cuda*"); every other thread (the BLAS's workers among them: OpenBLAS does not name them).
 */
#ifndef BENCH_THREADS_H
#define BENCH_THREADS_H

#include <stdio.h>

enum { BT_MAIN, BT_COPY, BT_WARM, BT_TSG, BT_CUDA, BT_OTHER, BT_GROUPS };
enum { BT_MAX_THREADS = 1024 };

/* One sample: each thread's id, group and nanoseconds on a CPU so far. */
typedef struct bench_threads {
    int n;
    int tid[BT_MAX_THREADS];
    unsigned char group[BT_MAX_THREADS];
    double ns[BT_MAX_THREADS];
} bench_threads;

/* Reads every thread of this process (/proc/self/task: schedstat's first field, ns on a CPU;
 * where a kernel lacks schedstat, stat's utime + stime in clock ticks). Returns 0, or -1 when
 * /proc/self/task cannot be read (s->n is then 0). Threads past BT_MAX_THREADS are left out. */
int bench_threads_sample(bench_threads *s);

/* Prints one line to f: per group, the CPU milliseconds its threads ran between samples a and b
 * (a thread that started in between counts from 0; one that ended is left out) and how many
 * threads ran at all, after `label`; wall_s (seconds between the samples) for scale. */
void bench_threads_print(FILE *f, const char *label, const bench_threads *a, const bench_threads *b,
                         double wall_s);

#endif /* BENCH_THREADS_H */
