/*
 * tsg_kernel.h — host-side entry points of tsgemm's FP32 kernels on device pointers (CUDA C++).
 *
 * Owns: the launch interface between the executor and the kernel families: the configurations
 * (tile shapes; the table, named: tsg_kernel_configs.h), the rule that picks a configuration and a
 * split-K for a shape (tsg_kernel_plan.cu), which template instance serves a transpose pair and
 * alignment, the grid, split-K with its fixed-order reduction, the stream-K tail, the beta-only
 * scale (tsg_kernel.cu and the families' launchers). The families, one folder each: simt/
 * (configurations 0-6), big/ (7-9), ws/ (10, sm_90a); what they share in common/. The executor
 * never sees a template or a grid. Every launching function enqueues on `stream` and returns the
 * launch's cudaError_t (as int, so this header needs no CUDA include).
 */
#ifndef TSG_KERNEL_H
#define TSG_KERNEL_H

#include <stddef.h>
#include <stdint.h>

namespace tsg {

/* C tile of one thread block of configuration 0 (the big-grid configuration the pipeline uses). */
int kernel_tile_m();
int kernel_tile_n();

/* Number of configurations of the three families (SIMT 0-6, big 7-9, warp-specialized 10);
 * configuration numbers are 0 .. kernel_configs()-1 (tsg_kernel_configs.h names them). */
int kernel_configs();

/* Measures (occupancy API) the resident blocks per SM of every configuration on the current
 * device and keeps them for kernel_plan; *per_sm receives configuration 0's. A configuration of
 * sm_90a code (10) that this device cannot load is marked unavailable, not an error. Call once,
 * at initialisation, before any kernel_plan. Returns 0 or a cudaError_t. */
int kernel_blocks_per_sm(int *per_sm);

/* Sets the occupancy table (entries 0 .. count-1) kernel_plan uses: kernel_blocks_per_sm's
 * measurement lands here, and the unit tests give the table of a GPU so the rule can be checked on
 * a machine with none. An entry is raised to at least 1; an sm_90a configuration counts as
 * available where its entry is > 0. */
void kernel_set_blocks_per_sm(const int *per_config, int count);

/* Whether configuration `config` runs its own kernels on this device (false for 10 where no
 * sm_90a code loads: kernel_sgemm then runs configuration 7, the same tile). */
bool kernel_available(int config);

/* A configuration and a split of K for one launch. */
struct KernelPlan {
    int config;
    int64_t splits, kslice; /* splits == 1: kslice == k */
    /* the stream-K tail (big family, splits == 1; big/tsg_kernel_big.cuh, TailPlan): the grid's
     * last tail_tiles tiles shared by tail_blocks blocks (0, 0: none) */
    int64_t tail_tiles = 0, tail_blocks = 0;
};

/*
 * The rule (docs/NOTES.md, "v0.3 kernel configurations", "v0.4"): for C = m x n with inner dimension k on
 * a GPU of `sms` SMs, the configuration and split-K of least modelled time — whole waves of
 * resident blocks at each configuration's measured rate, plus the split-K reduction's traffic.
 * A pure function of its arguments and of the occupancy table (never of load), so a shape gets
 * the same plan, and bit-identical results, in every run. max_ws_floats caps splits * m * n.
 * config >= 0 forces that configuration (splits > 0 forces the split count too, capped by k and
 * by max_ws_floats): the test knob that runs the edge grid on every configuration.
 * transa / transb ('N' or 'T', op(A) and op(B) as in kernel_sgemm): the rule's one pair-dependent
 * choice, TT on configuration 9 where 7 would run unsplit (tsg_kernel_plan.cu, TT_EFF).
 * Where configuration 10 is available (sm_90a), it replaces 7 wherever 7 would run unsplit
 * without a tail (docs/NOTES.md "v0.19"), unless an operand that is contiguous along m or n
 * (op(A) with transa 'N', op(B) with transb 'T') does not allow 16-byte loads: va / vb false
 * (kernel_vec_ok of A, lda / B, ldb). 10's copies of such an operand go 4 bytes at a time
 * (H100, docs/results/h100-2026-12-06-run1-kbench.txt: NN 4095^3 33.96 TFLOP/s on 10, 46.15 on
 * 7, cuBLAS 48.72); a k-contiguous unaligned one is no slower there (TN 4095^3, ld + 1: 46.84).
 * tail: the stream-K tail of an unsplit big-family plan (docs/NOTES.md "v0.14"): 0 the rule's
 * (where the grid's last round of resident blocks is part-empty and a tail models at least 5%
 * faster than the same configuration without, the partial tiles' traffic included; weighed in
 * the choice of configuration too; its workspace, 2 x blocks x tile floats, within
 * max_ws_floats), -1 never, > 0 the test knob: the grid's remainder modulo `tail` onto `tail`
 * blocks whatever the grid, on an unsplit big-family plan.
 */
KernelPlan kernel_plan(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t sms,
                       int64_t max_ws_floats, int config, int64_t splits, int64_t tail = 0, bool va = true,
                       bool vb = true);

/* Whether an operand at p with leading dimension ld allows the families' 16-byte loads: p 16-byte
 * aligned and ld a multiple of 4 floats (kernel_plan's va / vb, kernel_sgemm's instances). */
inline bool kernel_vec_ok(const float *p, int64_t ld) { return ((uintptr_t)p % 16) == 0 && ld % 4 == 0; }

/* The workspace kernel_sgemm needs for plan p of configuration `config` on an m x n C, in floats:
 * the split-K partials (splits x m x n), the tail's partial tiles (2 x tail_blocks x tile), or 0. */
int64_t kernel_ws_floats(int config, int64_t m, int64_t n, const KernelPlan &p);

/*
 * C = alpha*op(A)*op(B) + beta*C on device pointers, column-major; m, n, k >= 1, alpha != 0,
 * with configuration `config`. splits > 1: k is cut into slices of kslice (a multiple of 8) and
 * W (splits * m * n floats, ld m, slice s at W + s*m*n) receives the partial products, then a
 * reduction sums the slices in order s = 0, 1, ... and applies alpha and beta — the same
 * arithmetic for every element whatever the tile it falls in, so results are bit-identical from
 * run to run. tail_tiles > 0 (a plan's stream-K tail; big family, splits == 1, tail_tiles <
 * tail_blocks, else ignored): W holds 2 x tail_blocks partial tiles (kernel_ws_floats), which a
 * second launch sums in a fixed order into the tail tiles of C. beta == 0 never reads C.
 */
int kernel_sgemm(int config, char transa, char transb, int64_t m, int64_t n, int64_t k,
                 int64_t kslice, int64_t splits, int64_t tail_tiles, int64_t tail_blocks, float alpha,
                 const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                 int64_t ldc, float *W, void *stream);

/* C = beta*C over the m x n window (alpha = 0 or k = 0); beta == 0 writes zeros unread. */
int kernel_scale(int64_t m, int64_t n, float beta, float *C, int64_t ldc, void *stream);

/* Fills x[0, count) with hashed values in [-1, 1) (the rate measurement never times zeros). */
int kernel_fill(float *x, int64_t count, uint32_t seed, void *stream);

/* Configuration `config` as text: tile, threads, register tile, shared memory, registers, blocks
 * per SM, binary architecture. */
int kernel_describe(int config, char *buf, size_t len);

} /* namespace tsg */

#endif /* TSG_KERNEL_H */
