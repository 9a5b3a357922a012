/*
 * tsg_kernel.h — host-side entry points of tsgemm's kernels on device pointers (CUDA C++).
 *
 * Owns: the launch interface between the executor (tsg_exec.cu) and the kernel family
 * (tsg_kernel_simt.cu / .cuh): which template instance serves a transpose pair and alignment,
 * the grid, split-K with its fixed-order reduction, the beta-only scale. The executor never sees
 * a template or a grid. Every function enqueues on `stream` and returns the launch's
 * cudaError_t (as int, so this header needs no CUDA include).
 */
#ifndef TSG_KERNEL_H
#define TSG_KERNEL_H

#include <stddef.h>
#include <stdint.h>

namespace tsg {

/* C tile of one thread block, threads per block, K step. */
int kernel_tile_m();
int kernel_tile_n();

/* Thread blocks of the sgemm kernel resident per SM on the current device (occupancy). */
int kernel_blocks_per_sm(int *per_sm);

/*
 * C = alpha*op(A)*op(B) + beta*C on device pointers, column-major; m, n, k >= 1, alpha != 0.
 * splits > 1: k is cut into slices of kslice (a multiple of 8) and W (splits * m * n floats, ld
 * m, slice s at W + s*m*n) receives the partial products, then a reduction sums the slices in
 * order s = 0, 1, ... and applies alpha and beta — the same arithmetic for every element whatever
 * the tile it falls in, so results are bit-identical from run to run. beta == 0 never reads C.
 */
int kernel_sgemm(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t kslice,
                 int64_t splits, float alpha, const float *A, int64_t lda, const float *B,
                 int64_t ldb, float beta, float *C, int64_t ldc, float *W, void *stream);

/* C = beta*C over the m x n window (alpha = 0 or k = 0); beta == 0 writes zeros unread. */
int kernel_scale(int64_t m, int64_t n, float beta, float *C, int64_t ldc, void *stream);

/* Fills x[0, count) with hashed values in [-1, 1) (the rate measurement never times zeros). */
int kernel_fill(float *x, int64_t count, uint32_t seed, void *stream);

/* The configuration as text: tile, threads, shared memory, registers, binary architecture. */
int kernel_describe(char *buf, size_t len);

} /* namespace tsg */

#endif /* TSG_KERNEL_H */
