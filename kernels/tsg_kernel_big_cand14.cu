/*
 * tsg_kernel_big_cand14.cu — the instances of candidate Cand14, the warp-specialized kernel
 * (tsg_kernel_ws.cuh: a producer warp, mbarriers per stage), built only with
 * -DTSGEMM_KERNEL_CANDIDATES=ON (CMakeLists.txt's glob of kernels/tsg_kernel_big_cand*.cu picks
 * this file up) for a device run's A/B against configuration 7 (docs/NOTES.md). Nothing else
 * lives here.
 */
#include "tsg_kernel_ws.cuh"

namespace tsg {

KernelFn pick_cand14(bool ta, bool tb, bool va, bool vb) { return ws::pick_ws<Cand14>(ta, tb, va, vb); }

} /* namespace tsg */
