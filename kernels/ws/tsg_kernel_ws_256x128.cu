/*
 * tsg_kernel_ws_cfg10.cu — the instances of configuration 10 (CfgWs), the warp-specialized family
 * (tsg_kernel_ws.cuh): the transpose pairs times the alignments that matter (9 kernels). Built for
 * sm_90a only (CMakeLists.txt: setmaxnreg). Nothing else lives here.
 */
#include "tsg_kernel_ws.cuh"

namespace tsg {

KernelFn pick_cfg10(bool ta, bool tb, bool va, bool vb) { return ws::pick_ws<CfgWs>(ta, tb, va, vb); }

} /* namespace tsg */
