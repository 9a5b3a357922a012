/*
 * tsg_measure.h — the rates the cost model reads (src/tsg_cost.h tsg_rates), per math, once per
 * process (tsg_measure.c).
 *
 * Owns: the rates of each math (tsg_math: the GPU's measured with that math's kernels, since
 * tsgemm_set_math may switch between calls), reading them from the on-disk cache or measuring
 * them (and caching the result), and the CPU BLAS's rates, measured once and copied into each:
 * those of the library the CPU path of the first asking call's entry point runs on (the caller's
 * own for the ILP64 and scipy_ names, tsg_cpublas.h), cached under that library's description.
 * The GPU's rates (transfers, kernel, call latency) belong to the card and its PCIe link: they
 * are cached per GPU (tsg_ratecache.h does the file work). The CPU BLAS's rate is measured in
 * every process (~10 ms): it depends on OPENBLAS_NUM_THREADS, the core type and the machine's
 * load right now, and one unlucky measurement must not stick (a cached 0.1 TFLOP/s once sent
 * 256^3 calls to the GPU; docs/NOTES.md).
 * Must not: start the GPU (the caller has, tsg_start.h), or hold the cache lock past the
 * measurement.
 */
#ifndef TSG_MEASURE_H
#define TSG_MEASURE_H

#include "../src/tsg_cost.h"
#include "tsg_api.h"

/*
 * Makes the rates of `math` (0 .. TSG_MATH_COUNT-1) ready, once per process per math: read from
 * the cache file of this GPU, these knobs and this math when a good one is there and this
 * process's spot check of the kernel (tsg_gpu_spot_kernel, about a millisecond) does not read the
 * kernel over 1.5x faster than the file (tsg_measure.c TSG_GPU_STALE_FACTOR), else measured
 * (~0.2-0.3 s on an H200) and cached when the folder and its lock allow. A failed measurement
 * disables the GPU (tsg_start_disable); rates outside their physical bounds are kept, uncached
 * (the model then keeps calls on the CPU). `api`: the entry point of the call that asks; the
 * first to ask in the process names the CPU library measured (tsg_cpu_measure), later ones are
 * ignored. Call only on a started GPU, with cancellation off (the per-call driver's state), so a
 * cancelled caller never leaves the lock held.
 */
void tsg_measure_once(int math, tsg_api api);

/* The rates of `math`: all zero until tsg_measure_once made them (the model then keeps calls on
 * the CPU). Static storage, written once. */
const tsg_rates *tsg_measure_rates(int math);

#endif /* TSG_MEASURE_H */
