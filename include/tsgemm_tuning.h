/*
 * tsgemm_tuning.h — tuning hooks of libtsgemm.so's GPU kernel family: NOT PART OF THE STABLE API.
 *
 * These functions let the tests and the kernel benchmarks ask which kernel configuration and
 * stream-K tail a shape gets, and force another one. They are exported (the tests and
 * bench/ call them) but may change or go away in any release, with no version bump; programs
 * that only want SGEMM need nothing from here (include/tsgemm.h is the stable interface).
 *
 * Every function starts the GPU if this process has not yet, and answers -1 without a usable
 * GPU. Thread safety: any thread, any time; a forced setting applies to calls that start after
 * it. Shapes are column-major as in sgemm_: op(A) is m x k, op(B) is k x n, C is m x n.
 */
#ifndef TSGEMM_TUNING_H
#define TSGEMM_TUNING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Test and tuning knob for the GPU kernel family (issue 11): from now on, calls on the GPU use
 * configuration `config` (0 .. tsgemm_kernel_config_info's count - 1) with `splits` slices of K
 * (0: the rule's split for that configuration; capped by k and a 1 GiB workspace), instead of
 * the configuration and split the measured rule picks per shape. config = -1 restores the rule.
 * The host-memory pipeline plans for configuration 0's tile and takes only `config` from here.
 * Results stay bit-identical run to run for a fixed setting; a different configuration may
 * round differently. Returns 0, or -1 (nothing changed) without a usable GPU or for a value out
 * of range.
 */
int tsgemm_set_kernel_config(int config, int64_t splits);

/*
 * Describes configuration `config` of the kernel family (tile, threads, register tile, shared
 * memory, registers, resident blocks per SM) into buf (at most len bytes, NUL-terminated).
 * Returns the number of configurations, or -1 without a usable GPU or for a config out of range.
 */
int tsgemm_kernel_config_info(int config, char *buf, int len);

/*
 * The configuration and split count a GPU call of shape m x n x k gets now (the rule, or what
 * tsgemm_set_kernel_config forces), into *config and *splits. transa / transb: 'N' or 'T' (any
 * case; 'C' counts as 'T'), column-major op(A) and op(B) as in sgemm_ — the rule depends on the
 * pair (TT may take another configuration than NN). Returns 0, or -1 without a usable GPU or for
 * a transpose character out of range.
 */
int tsgemm_kernel_plan(char transa, char transb, int64_t m, int64_t n, int64_t k, int *config,
                       int64_t *splits);

/*
 * Test and A/B knob for the stream-K tail (docs/NOTES.md "v0.14"): when a large grid's last round
 * of thread blocks would leave SMs idle, the big kernel family shares that round's tiles among
 * every resident block, each taking an equal run of K slices, and a second launch sums the
 * partial tiles in a fixed order. blocks = 0: the rule decides per shape (the default); -1: never;
 * > 0: the grid's remainder modulo `blocks` is shared by `blocks` blocks on every big-family call
 * that is not split along K (the test knob that runs the tail on small grids). Calls on device
 * data only (the host-memory pipeline never uses a tail). Results stay bit-identical run to run
 * for a fixed setting; a tail's tiles round differently from the same tiles without it. Returns
 * 0, or -1 (nothing changed) without a usable GPU or for blocks < -1.
 */
int tsgemm_set_kernel_tail(int64_t blocks);

/*
 * The stream-K tail a call on device data of shape m x n x k (transa / transb as in
 * tsgemm_kernel_plan) gets now: *tiles tiles of C's grid shared by *blocks thread blocks, or 0
 * and 0 for none. Returns 0, or -1 without a usable GPU or for a transpose character out of range.
 */
int tsgemm_kernel_tail(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t *tiles,
                       int64_t *blocks);

#ifdef __cplusplus
}
#endif

#endif /* TSGEMM_TUNING_H */
