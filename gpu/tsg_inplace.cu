/*
 * tsg_inplace.cu — calls the GPU computes where their operands are: device and managed memory
 * (sgemm_in_place, synchronised, from a workspace), device pointers on the caller's stream
 * (sgemm_on_stream, enqueued only), and the scalar rules (alpha = 0 or k = 0) on a device C.
 * One launch each, planned by the kernels' own rule (tsg::kernel_plan, with its stream-K tail);
 * the pipeline plans its launches itself.
 */
#include "tsg_device.h"
#include "tsg_exec.h"
#include "tsg_fault.h"
#include "../kernels/tsg_kernel.h"
#include "../kernels/tf32/tsg_kernel_tf32.h"

namespace tsg {
namespace gpu {

namespace {

/* The split-K partials of one launch may take this much device memory at most. */
constexpr int64_t PARTIALS_MAX_FLOATS = ((int64_t)1 << 30) / (int64_t)sizeof(float);

/* Configuration, split-K and stream-K tail of a single launch on device data; ws: the workspace
 * it needs, in floats (tsg::kernel_ws_floats). */
struct SplitPlan {
    tsg::KernelPlan kp;
    int64_t ws;
};

/* va / vb: whether A / B allow 16-byte loads (tsg::kernel_vec_ok; kernel_plan's rule) */
SplitPlan plan_split(char ta, char tb, int64_t m, int64_t n, int64_t k, bool va = true, bool vb = true)
{
    const tsg::KernelPlan kp = tsg::kernel_plan(ta, tb, m, n, k, state.sms, PARTIALS_MAX_FLOATS,
                                                state.kernel_config.load(std::memory_order_relaxed),
                                                state.kernel_splits.load(std::memory_order_relaxed),
                                                state.kernel_tail.load(std::memory_order_relaxed), va, vb);
    return SplitPlan{kp, tsg::kernel_ws_floats(kp.config, m, n, kp)};
}

/* An unsplit plan without a tail on configuration `config`: the plan of a call that launches no
 * product (m, n or k zero, alpha zero; config 0), or a plan whose workspace could not be had. */
SplitPlan plain_plan(int config, int64_t k)
{
    tsg::KernelPlan kp;
    kp.config = config, kp.splits = 1, kp.kslice = k;
    return SplitPlan{kp, 0};
}

/* The plan of a call of shape m x n x k with this alpha on A (lda) and B (ldb) in this math: the
 * tensor-core family's split (tsg::tf32_call_kslice) where that family takes the call, the FP32 rule's
 * for a real product otherwise. launch_product asks tf32_call_kslice again with the workspace sized
 * here and gets the same slices (the rule is idempotent under its own cap). */
SplitPlan plan_call(int math, char ta, char tb, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                    int64_t lda, const float *b, int64_t ldb, const float *c, int64_t ldc)
{
    if (!(m > 0 && n > 0 && k > 0 && alpha != 0.0f)) return plain_plan(0, k);
    if (math != TSG_MATH_FP32 && tsg::tf32_takes(math, ta, tb, m, n, k, a, lda, b, ldb, c, ldc)) {
        SplitPlan sp = plain_plan(0, k);
        const int64_t ks = tsg::tf32_call_kslice(math, ta, tb, m, n, k, state.sms, PARTIALS_MAX_FLOATS);
        if (ks < k) {
            sp.kp.splits = (k + ks - 1) / ks, sp.kp.kslice = ks;
            sp.ws = sp.kp.splits * m * n;
        }
        return sp;
    }
    return plan_split(ta, tb, m, n, k, tsg::kernel_vec_ok(a, lda), tsg::kernel_vec_ok(b, ldb));
}

/* Enqueues the whole product on device-accessible operands (any sizes, scalar rules too). */
int launch_in_place(int math, char ta, char tb, int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                    int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                    cudaStream_t s, float *W, SplitPlan sp, unsigned *fam, char *msg, size_t len)
{
    if (m == 0 || n == 0) return TSG_GPU_OK;
    if (k == 0 || alpha == 0.0f) {
        if (beta == 1.0f) return TSG_GPU_OK;
        const cudaError_t e = TSG_STAGE(ST_KERNEL, (cudaError_t)tsg::kernel_scale(m, n, beta, C, ldc, s));
        return e == cudaSuccess ? TSG_GPU_OK : fail(e, "kernel launch (beta * C)", msg, len);
    }
    const cudaError_t e = TSG_STAGE(ST_KERNEL, launch_product(math, sp.kp.config, ta, tb, m, n, k, sp.kp.kslice,
                                                              sp.kp.splits, sp.kp.tail_tiles, sp.kp.tail_blocks,
                                                              alpha, A, lda, B, ldb, beta, C, ldc, W, s, fam));
    return e == cudaSuccess ? TSG_GPU_OK : fail(e, "kernel launch", msg, len);
}

} /* namespace */

int sgemm_in_place(Workspace *w, const tsg_problem *p, tsg_done *done, char *msg, size_t len)
{
    const bool product = p->k > 0 && p->alpha != 0.0f;
    SplitPlan sp = plan_call(p->math, p->transa, p->transb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b, p->ldb,
                             p->c, p->ldc);
    float *W = nullptr;
    if (sp.ws > 0) {
        if (ensure_arena(w, (size_t)sp.ws * 4, msg, len) == TSG_GPU_OK) {
            W = w->arena;
        } else {
            (void)cudaGetLastError();
            sp = plain_plan(sp.kp.config, p->k);
        }
    }
    prefetch_managed(p, product, true, w->s_comp);
    int st = launch_in_place(p->math, p->transa, p->transb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b,
                             p->ldb, p->beta, p->c, p->ldc, w->s_comp, W, sp, &done->families, msg, len);
    if (st != TSG_GPU_OK) return st;
    const cudaError_t e = TSG_STAGE(ST_SYNC, cudaStreamSynchronize(w->s_comp));
    return e == cudaSuccess ? TSG_GPU_OK : fail(e, "kernel (sync)", msg, len);
}

int sgemm_on_stream(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                    int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc,
                    cudaStream_t s, int math, char *msg, size_t len)
{
    SplitPlan sp = plan_call(math, transa, transb, m, n, k, alpha, a, lda, b, ldb, c, ldc);
    float *W = nullptr;
    /* stream-ordered allocation: the partials live exactly as long as the caller's stream needs */
    const size_t bytes = (size_t)sp.ws * sizeof(float);
    if (sp.ws > 0 && (state.split_pool ? cudaMallocFromPoolAsync((void **)&W, bytes, state.split_pool, s)
                                       : cudaMallocAsync((void **)&W, bytes, s)) != cudaSuccess) {
        (void)cudaGetLastError();
        sp = plain_plan(sp.kp.config, k);
        W = nullptr;
    }
    unsigned fam = 0;
    const int st = launch_in_place(math, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, s, W, sp,
                                   &fam, msg, len);
    if (W) cudaFreeAsync(W, s);
    return st;
}

void device_call_plan(char transa, char transb, int64_t m, int64_t n, int64_t k, int *config, int64_t *splits,
                      int64_t *tail_tiles, int64_t *tail_blocks)
{
    const SplitPlan sp = plan_split(transa, transb, m, n, k);
    *config = sp.kp.config;
    *splits = sp.kp.splits;
    *tail_tiles = sp.kp.tail_tiles;
    *tail_blocks = sp.kp.tail_blocks;
}

void trim_split_pool()
{
    if (!state.split_pool) return;
    ContextGuard guard; /* what no call holds now goes back to the driver */
    if (cudaSetDevice(state.device) == cudaSuccess) cudaMemPoolTrimTo(state.split_pool, 0);
    (void)cudaGetLastError();
}

} /* namespace gpu */
} /* namespace tsg */
