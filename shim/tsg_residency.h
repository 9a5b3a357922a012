/*
 * tsg_residency.h — where a caller's operands live, for programs that use CUDA themselves
 * (tsg_residency.c).
 *
 * Owns: knowing whether the CUDA driver is in this process at all (cheaply, on every call), the
 * pointer attributes of A, B and C when it is, and waiting for the work the caller queued on its
 * default streams. Talks to the driver (libcuda) through dlsym only when some other part of the
 * process already loaded it: never loads it, never creates a context, works the same in a build
 * without CUDA. Must not: dispatch, print, or call the CUDA runtime.
 */
#ifndef TSG_RESIDENCY_H
#define TSG_RESIDENCY_H

#include <link.h>
#include <stdatomic.h>

#include "../src/tsg_problem.h"

/*
 * 1 when libcuda is loaded in this process (by the program, a library, or tsgemm's own GPU
 * start), else 0. Cost when it is not: two loads and a compare (the tail of the dynamic linker's
 * object list has not changed since the last look), so a process that never touches CUDA pays
 * nothing measurable per call (docs/TESTING.md fault class 19; tiny-call budget, docs/NOTES.md).
 */
int tsg_cuda_present(void);

/* The object list's tail at the last look while libcuda has never been seen, else NULL. */
extern struct link_map *_Atomic tsg_res_quiet_tail __attribute__((visibility("hidden")));

/*
 * 1 when libcuda is certainly not in this process: it was absent at the last look and nothing
 * has been loaded since (the tail of the loader's list has no successor). Two loads, no call:
 * the tiny-call path's residency check, so a process without CUDA pays nothing more. 0 means
 * "ask tsg_cuda_may_pass_operands" (also before the first look).
 */
static inline int tsg_cuda_surely_absent(void)
{
    struct link_map *t = atomic_load_explicit(&tsg_res_quiet_tail, memory_order_acquire);
    return t != NULL && __atomic_load_n(&t->l_next, __ATOMIC_ACQUIRE) == NULL;
}

/*
 * Whether this call's operands may be CUDA memory, cheaply: no when libcuda is not loaded; yes
 * when the program itself brought CUDA in (libcuda was there before tsgemm started its GPU);
 * otherwise (only tsgemm's own GPU start loaded it, as in a numpy program) yes only when the
 * calling thread has a current CUDA context, i.e. uses CUDA itself — tsgemm leaves a caller's
 * thread without one as it found it, so such a process's calls pay nothing (docs/USING.md "From CUDA
 * programs" states the rule).
 */
int tsg_cuda_may_pass_operands(void);

/* The runtime calls this just before tsgemm starts its own GPU (which loads libcuda). */
void tsg_residency_gpu_starting(void);

/*
 * Fills p->where_a/b/c from the driver's pointer attributes (cuPointerGetAttributes) for the
 * operands the call will touch (A and B only when alpha != 0 and k != 0; C when m, n > 0).
 * Pointers the driver does not know are ordinary host memory (TSG_HOST). *device receives the
 * ordinal of the device operands' GPU (-1 when there is none, -2 when they are on different
 * GPUs). Requires tsg_cuda_present().
 */
void tsg_classify_operands(tsg_problem *p, int *device);

/* 1 when some operand is CUDA memory of any kind (pinned, managed or device). */
static inline int tsg_any_cuda_memory(const tsg_problem *p)
{
    return p->where_a != TSG_HOST || p->where_b != TSG_HOST || p->where_c != TSG_HOST;
}

/*
 * Waits until the work this thread queued before the call on the legacy default stream and on its
 * per-thread default stream has finished (cuStreamSynchronize on CU_STREAM_LEGACY and
 * CU_STREAM_PER_THREAD in the thread's current context), as a synchronous BLAS call that reads
 * CUDA memory must (NVBLAS behaves the same). Nothing when the thread has no current context.
 */
void tsg_cuda_wait_caller_streams(void);

#endif /* TSG_RESIDENCY_H */
