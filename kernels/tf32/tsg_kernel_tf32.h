/*
 * tsg_kernel_tf32.h — host-side entry points of the tensor-core family (CUDA C++): SGEMM on
 * Hopper's TF32 tensor cores, either error-compensated (3xTF32: FP32-class accuracy) or plain
 * (1xTF32: reduced precision, labelled so). Issue 36.
 * Owns: the interface between the executor (tsg_exec.cu) and the family's kernels
 * (kernels/tf32/). The executor never sees a template, a grid or a tile.
 *
 * Layout and arithmetic: column-major like kernel_sgemm (kernels/tsg_kernel.h):
 * C = alpha*op(A)*op(B) + beta*C on device pointers, op(A) m x k, op(B) k x n, C m x n with leading
 * dimension ldc >= m; transa / transb 'N' or 'T' (op(X) = X or X^T; transposes handled by the
 * loader, not by a transpose pass); beta == 0 never reads C. Results are a pure function of the
 * inputs and the shape (fixed reduction order: bit-identical repeats).
 *
 * 3xTF32: each operand x is split into big = x rounded to nearest TF32 and small = x - big
 * (exact in FP32, then rounded to TF32); the product is small*big + big*small + big*big with the
 * tensor-core partial sums promoted into FP32 registers at short k intervals. Error: see the
 * doc comment of tsgemm_set_math in include/tsgemm.h and docs/ACCURACY.md. Non-finite inputs:
 * a tile whose slices hold an Inf or NaN (or a finite value that TF32 rounds to Inf) is
 * recomputed in FP32 by the kernel itself, so NaN and Inf come out as the FP32 kernels give them.
 */
#ifndef TSG_KERNEL_TF32_H
#define TSG_KERNEL_TF32_H

#include <stddef.h>
#include <stdint.h>

namespace tsg {

/* The math of a call (TSGEMM_MATH / tsgemm_set_math): the values match include/tsgemm.h. */
enum TensorMath { MATH_FP32 = 0, MATH_3XTF32 = 1, MATH_TF32 = 2 };

/* The family's C tile (rows x columns) and k-tile, in elements: the kernels' geometry
 * (tsg_tf32_slices.cuh) and the split rule's unit (tf32_kslice); 1xTF32's NN, TN and TT run a
 * tile twice as wide (tf32_call_tile). */
constexpr int TF32_TILE_M = 128, TF32_TILE_N = 128, TF32_TILE_K = 32;

/* Whether this device runs the family's code (sm_90a image loaded: Hopper). Measured once at
 * initialisation (tf32_init); false before it and in builds without the family. */
bool tf32_available();

/* Call once per device at initialisation, with that device current: checks that the family's
 * kernels load (cudaFuncGetAttributes), sets their shared-memory attributes. Returns 0 (also
 * when the family is simply not present for this device: tf32_available() then says false) or
 * a cudaError_t for a real CUDA failure. */
int tf32_init();

/* Whether the family takes this call as given (the executor otherwise runs the FP32 family):
 * math is MATH_3XTF32 or MATH_TF32, tf32_available(), and the operands meet the loader's
 * alignment (pointers and leading dimensions as the family's doc comment says). Pure apart from
 * tf32_available(). */
bool tf32_takes(int math, char transa, char transb, int64_t m, int64_t n, int64_t k,
                const float *A, int64_t lda, const float *B, int64_t ldb, const float *C,
                int64_t ldc);

/* The family's split of K (split-K) for an m x n x k launch on a GPU of `sms` multiprocessors,
 * with a workspace of at most ws_max_floats floats: the length of a K slice, a multiple of 32
 * (the k-tile), or k for no split. Pure (a shape's split, hence its bits, never depends on load).
 * The rule: a grid of tile_rows x tile_cols tiles of C (128 x 128 unless given; a call's own by
 * tf32_call_kslice) that fills at most half the GPU (2 tiles <= sms, one block per
 * multiprocessor) is cut into s = min(sms / tiles, k / 256, ws_max_floats / (m n), 16) >= 2
 * slices, so that tiles x s blocks fill at most one wave, each slice at least 256 k long (8
 * k-tiles: the pipeline's fill and a tile's write-back to the workspace stay a small part of it;
 * the FP32 families' SIMT split_min_k is the same), kslice = 32 ceil(ceil(k / s) / 32). Slicing
 * also shortens each running sum (docs/ACCURACY.md: the error of 3xTF32's promotions grows with
 * the number of k-tiles summed into one register). Host code only (tsg_kernel_tf32_plan.cu: the
 * unit tier tests it without a GPU). */
int64_t tf32_kslice(int64_t m, int64_t n, int64_t k, int64_t sms, int64_t ws_max_floats,
                    int64_t tile_rows = TF32_TILE_M, int64_t tile_cols = TF32_TILE_N);

/* The C tile of the instance tf32_sgemm runs for a call of `math` with (transa, transb), as rows
 * x columns of the call's C: 1xTF32's NN and TN 128 x 256, its TT 256 x 128 (run as C^T through
 * the NN instance), everything else 128 x 128 (tsg_kernel_tf32.cu default_variant). 0 x 0 for
 * another math or where the family is not built. Pure. */
void tf32_call_tile(int math, char transa, char transb, int64_t *rows, int64_t *cols);

/* tf32_kslice for a call of `math` with (transa, transb), with tf32_call_tile's tile, so that a
 * split fills the GPU as the rule means for the tiles that really run. What the executor asks
 * (gpu/tsg_device.cu launch_product, gpu/tsg_inplace.cu plan_call). Pure; k where the family is
 * not built. */
int64_t tf32_call_kslice(int math, char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t sms,
                         int64_t ws_max_floats);

/* Enqueues the product on `stream` (a cudaStream_t) and returns the first failing launch's
 * cudaError_t as int (0 when both launched); m, n, k >= 1, alpha != 0, and tf32_takes() true for
 * the same arguments. kslice >= k: one launch, W unused. kslice < k (a multiple of 32, e.g.
 * tf32_call_kslice's; else cudaErrorInvalidValue, nothing launched): split-K, W (device memory,
 * s m n floats for s = ceil(k / kslice) slices) receives slice i's partial product at W + i m n
 * (ld m, alpha and beta not applied), then kernels/common/tsg_reduce_splits.cuh sums the slices
 * in order i = 0, 1, ... into C = alpha sum + beta C. Results are a pure function of the
 * arguments; a split call's bits differ from the unsplit call's (another summation order, the
 * same error bound). */
int tf32_sgemm(int math, char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
               const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
               int64_t ldc, int64_t kslice, float *W, void *stream);

/* The family's kernel for `math` as text (tile, threads, shared memory, registers). */
int tf32_describe(int math, char *buf, size_t len);

} /* namespace tsg */

#endif /* TSG_KERNEL_TF32_H */
