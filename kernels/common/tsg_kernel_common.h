/*
 * tsg_kernel_common.h — what the three FP32 kernel families (simt/, big/, ws/) share on the host
 * side as well as in device code: their launch signature and the padding of their shared tiles.
 * No CUDA keyword here, so the configuration headers that use it stay plain C++.
 */
#ifndef TSG_KERNEL_COMMON_H
#define TSG_KERNEL_COMMON_H

#include <stdint.h>

namespace tsg {

/* Floats of padding after each k row of a k-major shared tile (row stride W + PAD): keeps every
 * row 16-byte aligned (LDS.128 / 16-byte cp.async) and puts consecutive rows 4 banks apart, which
 * spreads an operand stored transposed over the banks (each family's loader says how far). */
constexpr int PAD = 4;

/*
 * The launch signature of every FP32 family's kernel (simt/, big/, ws/):
 *   (m, n, k, kchunk, splits, alpha, A, lda, B, ldb, beta, C, ldc, split_stride)
 * C = alpha*op(A)*op(B) + beta*C, column-major, over a 1-D grid striding across the
 * ceil(m/BM) * ceil(n/BN) tiles times `splits` slices of K; unit s of a tile computes the k range
 * [s*kchunk, min(k, (s+1)*kchunk)) into C + s*split_stride (the launcher then passes alpha = 1,
 * beta = 0 and a workspace as C, and sums the slices itself).
 */
using KernelFn = void (*)(int64_t, int64_t, int64_t, int64_t, int64_t, float, const float *, int64_t,
                          const float *, int64_t, float, float *, int64_t, int64_t);

} /* namespace tsg */

#endif /* TSG_KERNEL_COMMON_H */
