/*
 * tsg_device.h — the device, the caller's context and CUDA errors (CUDA C++, gpu/ only).
 *
 * Owns: starting tsgemm's device (tsg_gpu_init's work: context, properties, budgets, knobs into
 * gpu/tsg_state.h), how a cudaError_t becomes a status (tsg_gpu.h TSG_GPU_*), the guard that
 * leaves the calling thread's current context as it was, where device operands may live, the
 * prefetch of managed operands, and the one product launch every unit goes through (FP32 or
 * tensor-core family). Must not: print, read the environment, or hold state of its own.
 */
#ifndef TSG_DEVICE_H
#define TSG_DEVICE_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "tsg_gpu.h"
#include "tsg_state.h"

namespace tsg {
namespace gpu {

/* The status of CUDA error e (TSG_GPU_OK, _ENOMEM, _ENODEV, _EFATAL for the sticky errors that
 * poison the context, else _EFAIL). */
int classify(cudaError_t e);

/* A failed CUDA call: msg (len bytes, may be NULL) receives "what: the error's text (its name)",
 * a non-sticky error is cleared (cudaGetLastError), and the status of e is returned. */
int fail(cudaError_t e, const char *what, char *msg, size_t len);

/* Seconds on the monotonic clock. */
double now_s();

/* The caller's thread: its current context saved at construction, restored at destruction
 * (State::ctx_get / ctx_set; nothing when libcuda's calls were not found). */
struct ContextGuard {
    void *saved = nullptr;
    bool have = false;
    ContextGuard() { have = state.ctx_get && state.ctx_get(&saved) == 0; }
    ~ContextGuard()
    {
        if (have && state.ctx_set) state.ctx_set(saved);
    }
    ContextGuard(const ContextGuard &) = delete;
    ContextGuard &operator=(const ContextGuard &) = delete;
};

/*
 * tsg_gpu_init's work (tsg_gpu.h): creates the context on `device` (or device 0 when it does not
 * exist; *used says which), fills State's device, budget and knob fields from cfg (NULL: every
 * default), starts the kernels' occupancy table and the tensor-core family, makes the split-K
 * memory pool and sets the copy threads' polling rule. info (len bytes) receives the device's
 * description or, on failure, the reason. Call once, before any call.
 */
int start_device(int device, const tsg_gpu_config *cfg, int *used, char *info, size_t len);

/* Device operands of p (where_* == TSG_DEVICE) must be memory of tsgemm's device: TSG_GPU_OK, or
 * TSG_GPU_EPLACE with the operand and the two devices named in msg. */
int check_placement(const tsg_problem *p, char *msg, size_t len);

/* Moves p's managed operands to tsgemm's device ahead of the first launch on stream s: A and B
 * when ab, C when c (where they are managed memory). Only where the device supports concurrent
 * managed access; a refused prefetch only costs speed (its error is cleared). */
void prefetch_managed(const tsg_problem *p, bool ab, bool c, cudaStream_t s);

/*
 * One product launch of a call (issue 36): on the tensor-core family when the call's math asks
 * for it and the family takes this launch as given (tsg::tf32_takes: the family present on this
 * device, the operands' alignment), else on the FP32 family with the FP32 plan the caller made
 * (config, kslice, splits, tail, workspace W). Same stream, same C semantics (C = alpha*op(A)op(B)
 * + beta*C, beta == 0 never reads C), so a pipeline's K chunks (beta, then 1) and a device call
 * accumulate alike. The tensor-core family splits K by its own rule (tsg::tf32_call_kslice) within
 * the workspace the plan gave (splits x m x n floats at W when splits > 1; none otherwise); the
 * configuration and the tail are the FP32 kernels' only. *fam receives the family's bit
 * (1u << math, src/tsg_plan.h tsg_done.families). Returns the launch's cudaError_t.
 */
cudaError_t launch_product(int math, int config, char ta, char tb, int64_t m, int64_t n, int64_t k,
                           int64_t kslice, int64_t splits, int64_t tail_tiles, int64_t tail_blocks,
                           float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                           float beta, float *C, int64_t ldc, float *W, cudaStream_t s, unsigned *fam);

} /* namespace gpu */
} /* namespace tsg */

#endif /* TSG_DEVICE_H */
