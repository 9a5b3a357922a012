/*
 * tsg_exec.h — the calls the executor runs (CUDA C++, gpu/ only): one entry point per kind of
 * call, each in its own unit, as the face (tsg_gpu.cu) and the other units call them. How a call
 * runs and its plans come with it (src/tsg_dispatch.h tsg_gpu_work); only the rate measurement's
 * own calls are planned here.
 *
 *   tsg_call.cu      a call on tsgemm's device: its context, placement and workspace, in place
 *                    or through the pipeline
 *   tsg_pipeline.cu  a call from host memory on one device, through the transfer pipeline
 *   tsg_inplace.cu   a call whose operands the GPU computes where they are (device, managed), and
 *                    calls on device pointers enqueued on the caller's stream
 *   tsg_devices.cu   the device slots, and a call split over several of them
 *   tsg_measure.cu   the rates the cost model needs
 *
 * Each returns a TSG_GPU_* status and, on failure, its reason in msg (len bytes), as the matching
 * function of tsg_gpu.h says; none of them prints or reads the environment.
 */
#ifndef TSG_EXEC_H
#define TSG_EXEC_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "tsg_gpu.h"
#include "tsg_workspace.h"
#include "../src/tsg_plan.h"
#include "../src/tsg_problem.h"

namespace tsg {
namespace gpu {

/* ---- tsg_pipeline.cu ---- */

/* What one pipelined call on tsgemm's device may take (src/tsg_plan.h): a workspace's share of
 * the device memory cap, the FP32 kernels' tile and wave, the split-K floor, a pinned slot's
 * floats, and the TSGEMM_TEST_BLOCK / _CHUNK sizes. */
tsg_plan_limits plan_limits();

/* p (m, n, k > 0, alpha != 0; at least one operand in host memory) through the pipeline with
 * plan pl on workspace w of the current device: tsg_gpu_sgemm's contract (tsg_gpu.h), *done the
 * final prefix of C on failure. pl = NULL (none fits the budget of lim, the limits it was
 * planned under): TSG_GPU_ENOMEM, nothing done. */
int sgemm_pipeline(Workspace *w, const tsg_problem *p, const tsg_plan *pl, const tsg_plan_limits *lim,
                   tsg_done *done, char *msg, size_t len);

/* ---- tsg_inplace.cu ---- */

/* p with every operand device-accessible (device, managed; C device, or managed with beta = 0),
 * or only the scalar rules to apply (k = 0 or alpha = 0) on a device C: one launch on s_comp of
 * workspace w, synchronised. Nothing of a host C is written, so on failure a retry redoes all. */
int sgemm_in_place(Workspace *w, const tsg_problem *p, tsg_done *done, char *msg, size_t len);

/* tsg_gpu_sgemm_device's work (tsg_gpu.h): device pointers, enqueued on `stream`. */
int sgemm_on_stream(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                    int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc,
                    cudaStream_t stream, int math, char *msg, size_t len);

/* The configuration, split count and stream-K tail a call on device data of shape m x n x k gets
 * now (State's kernel_* overrides applied). */
void device_call_plan(char transa, char transb, int64_t m, int64_t n, int64_t k, int *config, int64_t *splits,
                      int64_t *tail_tiles, int64_t *tail_blocks);

/* Gives the split-K pool's unused memory back to the driver. */
void trim_split_pool();

/* ---- tsg_devices.cu ---- */

/* tsg_gpu_set_devices's work (tsg_gpu.h). */
int set_devices(const int *ordinals, int n, int *slots, char *info, size_t len);

/* The device slots one call may be split over now (tsg_gpu.h tsg_gpu_get_limits). */
int usable_slots();

/* tsg_gpu_sgemm's work for TSG_GPU_PANELS: work->split's panels on the live slots at once. */
int sgemm_panels(const tsg_problem *p, const tsg_gpu_work *work, tsg_done *done, char *msg, size_t len);

/* ---- tsg_measure.cu ---- */

/* tsg_gpu_measure's work (tsg_gpu.h). */
int measure(int math, tsg_gpu_rates *out, char *msg, size_t len);

/* tsg_gpu_spot_kernel's work (tsg_gpu.h): the warm-up's result when it timed `math` (waiting
 * for it), else timed now. */
int spot_kernel(int math, double *gpu_flops, char *msg, size_t len);

/* The warm-up's spot check: spot_ahead(math) names the math it will time (-1: none; before the
 * thread starts, and -1 again if it could not start), spot_ahead_run times it on the warm-up's
 * thread before the pinning, whose driver calls would slow it (51-99 ms beside the pinning
 * against 3 ms alone, device run 83, H100). */
void spot_ahead(int math);
void spot_ahead_run();
/* The warm-up's spot check dropped if it has not begun (tsg_gpu_spot_cancel); a later
 * spot_kernel times the kernel itself. */
void spot_ahead_cancel();

/* ---- tsg_call.cu ---- */

/* tsg_gpu_sgemm's work for TSG_GPU_IN_PLACE and TSG_GPU_PIPELINE, on tsgemm's device. */
int sgemm_one_device(const tsg_problem *p, const tsg_gpu_work *work, tsg_done *done, char *msg, size_t len);

} /* namespace gpu */
} /* namespace tsg */

#endif /* TSG_EXEC_H */
