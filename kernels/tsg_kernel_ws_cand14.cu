/*
 * tsg_kernel_ws_cand14.cu — the instances of candidate Cand14 of the warp-specialized family
 * (tsg_kernel_ws.cuh), built only with -DTSGEMM_KERNEL_CANDIDATES=ON, for sm_90a only
 * (CMakeLists.txt), for a device run's A/B against the adopted configurations (docs/NOTES.md).
 * Nothing else lives here.
 */
#include "tsg_kernel_ws.cuh"

namespace tsg {

KernelFn pick_cand14(bool ta, bool tb, bool va, bool vb) { return ws::pick_ws<Cand14>(ta, tb, va, vb); }

} /* namespace tsg */
