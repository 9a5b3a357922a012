/*
 * tsg_call.cu — one call on tsgemm's device (tsg_exec.h sgemm_one_device): the caller's context
 * kept, device operands checked to be on this GPU, a workspace taken from the pool, the call run
 * in place or through the pipeline as its work says, the workspace given back.
 */
#include "tsg_device.h"
#include "tsg_exec.h"
#include "tsg_pool.h"

namespace tsg {
namespace gpu {

int sgemm_one_device(const tsg_problem *p, const tsg_gpu_work *work, tsg_done *done, char *msg, size_t len)
{
    done->bm = done->bn = 1;
    done->blocks = done->cols = 0;
    done->nparts = 0;
    done->families = 0;
    ContextGuard guard;
    cudaError_t e = cudaSetDevice(state.device);
    if (e != cudaSuccess) return fail(e, "cudaSetDevice", msg, len);
    int st = check_placement(p, msg, len);
    if (st != TSG_GPU_OK) return st;
    const bool in_place = work->how == TSG_GPU_IN_PLACE;
    if (!in_place) tsg_pool_start(state.copy_threads); /* once; blocked when idle */
    state.inflight++;
    Workspace *w;
    st = acquire(&w, msg, len);
    if (st == TSG_GPU_OK) {
        st = in_place ? sgemm_in_place(w, p, done, msg, len)
                      : sgemm_pipeline(w, p, work->planned ? &work->plan : nullptr, &work->limits, done, msg, len);
        if (st != TSG_GPU_OK && st != TSG_GPU_EFATAL) quiesce(w); /* idle streams for the next call */
        give_back(w, st);
    }
    state.inflight--;
    return st;
}

} /* namespace gpu */
} /* namespace tsg */
