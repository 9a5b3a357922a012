/*
 * tsg_kernel_ws_256x128.cu — the instances of configuration 10, Ws256x128, of the warp-specialized
 * family (tsg_kernel_ws.cuh): the transpose pairs times the alignments that matter (9 kernels).
 * Built for sm_90a only (CMakeLists.txt: setmaxnreg). Nothing else lives here.
 */
#include "tsg_kernel_ws.cuh"

namespace tsg {

KernelFn pick_ws_256x128(bool ta, bool tb, bool va, bool vb) { return ws::pick_ws<Ws256x128>(ta, tb, va, vb); }

} /* namespace tsg */
