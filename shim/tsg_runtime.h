/*
 * tsg_runtime.h — the per-call driver of the ABI layer (tsg_runtime.c): the join of src/
 * decisions to the backends, the mode and math in force, and the tiny-call path's gate.
 */
#ifndef TSG_RUNTIME_H
#define TSG_RUNTIME_H

#include <stdatomic.h>

#include "../src/tsg_problem.h"
#include "tsg_api.h"
#include "tsg_cpublas.h"

/* Runs a read call to completion: illegal -> report; else scalar rules, dispatch, backends,
 * counters and trace. */
void tsg_rt_sgemm(tsg_api api, const tsg_call *call);

/* The math GPU calls get now (tsg_math): tsgemm_set_math's last value, else TSGEMM_MATH's. */
int tsg_rt_math(void);

/* tsgemm_set_math's store (math already checked to be a tsg_math): returns the previous math. */
int tsg_rt_set_math(int math);

/* tsgemm_set_mode's store (mode already checked to be a tsg_mode): from now on calls follow
 * `mode`; the tiny path's gate is decided again; a mode other than auto drops the warm-up's spot
 * check of the GPU rates if it has not begun (tsg_gpu_spot_cancel: no rates are read). Returns
 * the previous mode. */
int tsg_rt_set_mode(int mode);

/* The mode calls follow now (tsg_mode): tsgemm_set_mode's last value, else TSGEMM_MODE's. */
int tsg_rt_mode(void);

/*
 * The tiny-call path of tsg_entry.c: a legal host call with m*n*k below the GPU floor
 * (TSG_GPU_FLOOR_FLOPS) and alpha != 0, k > 0 goes straight to the CPU BLAS's own entry point
 * when that pointer is set here (NULL: the path is closed; one load opens or closes it). They
 * are set only while such a call could not end anywhere else nor need anything else:
 * TSGEMM_LOG < 2 (no timing, summary or per-call line), TSGEMM_MODE / tsgemm_set_mode not gpu,
 * and in auto mode no TSGEMM_GPU_THRESHOLD; the CPU BLAS is loaded (a name it lacks stays NULL);
 * membarrier is registered (tsg_thread_enter_blas_outer relies on it; without it, e.g. on
 * kernels before 4.14, every call takes the full path).
 * Every entry point has its gate: cblas_sgemm's and sgemm_'s open on tsgemm's own CPU BLAS, the
 * others' (cblas_sgemm64_, the scipy_ names) on the caller's own library of the same name, or
 * for the LP64 scipy_ names on tsgemm's own when the caller has none (tsg_cpu_tiny_fn; the ILP64
 * names without a library of their own keep the full path). An entry point's first call takes
 * the full path, which then decides its gate: only a call through cblas_sgemm or sgemm_ loads
 * tsgemm's own CPU BLAS for it, so a process whose calls all come through the caller's own names
 * (a numpy or scipy wheel's) never loads a second BLAS. tsgemm_set_mode decides again without
 * loading or looking up: it closes every gate at once when the mode forbids it, and leaves a gate
 * closed and undecided when only a load or a lookup is missing (the next full-path call through
 * that entry point decides). Residency is the caller's check (tsg_entry.c tiny_host_only).
 */
typedef struct tsg_fast {
    _Atomic(tsg_cblas_sgemm_fn) cblas;
    _Atomic(tsg_f77_sgemm_fn) f77;
    /* the other entry points' (indexed by tsg_api; NULL for cblas_sgemm and sgemm_): the caller's
     * own library's function of the same name, or for the LP64 scipy_ names tsgemm's own CPU
     * BLAS's (tsg_cpu_tiny_fn); the prototype is the entry point's */
    _Atomic(void *) own[TSG_API_COUNT];
} tsg_fast;

extern tsg_fast tsg_rt_fast __attribute__((visibility("hidden")));

#endif /* TSG_RUNTIME_H */
