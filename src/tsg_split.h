/*
 * tsg_split.h — running a 64-bit-sized problem on a BLAS that takes 32-bit integers, and the
 * portable last-resort SGEMM used when no CPU BLAS can be loaded.
 *
 * Owns: the block decomposition (sizes beyond INT32_MAX are split, never truncated) and the
 * reference loop. Must not: call a BLAS, print, or allocate.
 */
#ifndef TSG_SPLIT_H
#define TSG_SPLIT_H

#include <stdint.h>

#include "tsg_problem.h"

/* Largest block edge handed to a 32-bit BLAS (2^30 keeps every int product in the callee's own
 * index arithmetic away from the sign bit for the edge itself). */
#define TSG_INT32_BLOCK ((int64_t)1 << 30)

/* True when every size and leading dimension of p fits a 32-bit BLAS argument. */
int tsg_fits_int32(const tsg_problem *p);

/*
 * Runs p through `run` in blocks whose m, n, k all fit 32 bits: C blocks are independent; along
 * k the first block uses p->beta and the next ones beta = 1 (so beta = 0 still never reads C).
 * Returns 0, or -1 without running anything when a leading dimension exceeds INT32_MAX (no block
 * decomposition can express it; use tsg_ref_sgemm).
 */
int tsg_split_int32(const tsg_problem *p, void (*run)(void *ctx, const tsg_problem *blk),
                    void *ctx, int64_t block);

/*
 * Portable SGEMM with 64-bit indexing (column-major, float accumulation in k order).
 * Slow; it exists so that a process with no loadable CPU BLAS still gets right answers.
 * Same contract as the backends: beta = 0 writes C without reading it.
 */
void tsg_ref_sgemm(const tsg_problem *p);

#endif /* TSG_SPLIT_H */
