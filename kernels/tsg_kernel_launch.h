/*
 * tsg_kernel_launch.h — between the face of the kernels (tsg_kernel.cu, behind tsg_kernel.h) and
 * the three FP32 families' launchers (simt/, big/, ws/ tsg_kernel_<family>_launch.cu): one
 * launch's arguments, what a family's launcher offers, and the launch steps they share. Host code
 * (CUDA runtime API); the executor never sees it.
 */
#ifndef TSG_KERNEL_LAUNCH_H
#define TSG_KERNEL_LAUNCH_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "common/tsg_kernel_common.h" /* KernelFn */
#include "tsg_kernel_configs.h"

namespace tsg {

/* One call of kernel_sgemm (tsg_kernel.h says what each argument means). ta / tb: op(A) = A^T,
 * op(B) = B^T; va / vb: A / B allow 16-byte loads (kernel_vec_ok, tsg_kernel.h). */
struct Gemm {
    bool ta, tb, va, vb;
    int64_t m, n, k, kslice, splits, tail_tiles, tail_blocks;
    float alpha;
    const float *A;
    int64_t lda;
    const float *B;
    int64_t ldb;
    float beta;
    float *C;
    int64_t ldc;
    float *W;
};

/*
 * A family's launcher. instance: the kernel of configuration `config` (one of the family's) for a
 * transpose pair and whether A / B allow 16-byte loads (kernel_vec_ok, tsg_kernel.h), or null
 * where the family's kernels were not built; the face measures occupancy and attributes on it. sgemm: kernel_sgemm
 * for configuration `config` of the family (available on this device), every launch enqueued on
 * s; returns the first launch error.
 */
struct FamilyLauncher {
    KernelFn (*instance)(int config, bool ta, bool tb, bool va, bool vb);
    cudaError_t (*sgemm)(const KernelConfig &c, const Gemm &g, cudaStream_t s);
};
extern const FamilyLauncher simt_launcher, big_launcher, ws_launcher;

/* ---- shared by the launchers (tsg_kernel.cu) ---- */

/* Raises kernel fn's dynamic shared memory limit to what configuration c needs where that is
 * past the default 48 KB (per kernel; cheap and idempotent, so done before every launch and
 * occupancy query of such a kernel). */
cudaError_t prepare(const KernelConfig &c, const void *fn);

/*
 * The launch of fn (configuration c's kernel for g's pair and alignment; prepared here) over the
 * whole grid: unsplit, C = alpha op(A) op(B) + beta C directly; split (g.splits > 1), the partial
 * products into W (slice s at W + s m n, ld m), then their sum in the order s = 0, 1, ... with
 * alpha and beta applied (bit-identical from run to run).
 */
cudaError_t launch_units(KernelFn fn, const KernelConfig &c, const Gemm &g, cudaStream_t s);

} /* namespace tsg */

#endif /* TSG_KERNEL_LAUNCH_H */
