/*
 * tsg_cpufence.h — keeping a CPU BLAS's spinning worker threads off the CPUs a GPU call needs
 * (tsg_cpufence.c).
 *
 * After each call, OpenBLAS's worker threads spin for 2^OPENBLAS_THREAD_TIMEOUT TSC cycles
 * (default 2^28, about 0.1 s) before they sleep; since 0.3.27 the spin is a loop of nops that never
 * yields. A GPU call made in that time shares the CPUs with them: its host copy threads wait for
 * time slices. numpy's GPU calls in the mlp-numpy replay ran 5-8x their time alone beside numpy's
 * own pool (H100 run 91), and 4096^3 right after a 1024^3 OpenBLAS call 1.42x (run 92).
 *
 * The fence: while a GPU call runs, each pool whose last call through tsgemm ended within its spin
 * window has its workers confined to a few CPUs (OpenBLAS's own public openblas_setaffinity, since
 * 0.3.10), and their masks are put back when the call ends, or at once when a call through tsgemm
 * needs that pool on the CPU. The calls that stay on the CPU run as they did: their workers are
 * never fenced while they compute. Calls the program makes into the library directly (not
 * through tsgemm) are not seen: their pool is not fenced.
 *
 * Owns: the table of pools (up to TSG_FENCE_POOLS loaded libraries, found by a function address in
 * each), the fence CPU set, the saved masks. Must not: load or start a library (only libraries
 * already loaded and whose pool is running: their blas_server_avail), touch the calling thread's
 * own affinity, or fail a call: every step that cannot be done is skipped.
 */
#ifndef TSG_CPUFENCE_H
#define TSG_CPUFENCE_H

/* Before a CPU call into the library that defines `fn` (entry: the exported name of fn, e.g.
 * "cblas_sgemm" or "scipy_cblas_sgemm64_", for the library's sibling names): lifts a fence over
 * its pool. The first call per library registers it. Cheap when nothing is fenced. */
void tsg_fence_cpu_enter(const void *fn, const char *entry);

/* After that CPU call: its pool's workers spin from now on. */
void tsg_fence_cpu_leave(const void *fn);

/* The smallest GPU call the runtime fences for (2mnk flops): about 1 ms from host memory on an
 * H100 (2048 x 1024 x 2048 in 0.9-1.2 ms). Fencing 15 workers and putting them back takes 45
 * system calls (18 us for one worker on the CPU VM; the first fence of a process logs its cost at
 * TSGEMM_LOG=2), which a shorter call would feel, while the copy threads' loss beside spinning
 * workers grows with the call (mlp-numpy, run 91: 3.2 -> 24.2 ms). */
#define TSG_FENCE_MIN_FLOPS 4e9

/* Around a GPU call: fences the pools that may be spinning (GPU calls of several threads nest:
 * the last tsg_fence_gpu_end puts the masks back). Returns the number of workers this call fenced,
 * or -1 when the fence is off or no pool is known; pass it to tsg_fence_gpu_end. */
int tsg_fence_gpu_begin(void);
void tsg_fence_gpu_end(int begun);

#endif /* TSG_CPUFENCE_H */
