/*
 * tsg_kernel_ws_launch.cu — the warp-specialized family's launcher (tsg_kernel_launch.h):
 * configuration 10 (tsg_kernel_ws_config.h) to its instance picker, launched by the shared steps
 * of tsg_kernel.cu. Where its sm_90a instances are not built the picker answers null and the
 * configuration is never available (tsg_kernel.cu runs configuration 7 in its place).
 */
#include "../tsg_kernel_launch.h"
#include "tsg_kernel_ws.cuh"

namespace tsg {

#ifndef TSG_HAVE_WS
/* Built by an nvcc without sm_90a (before 12.0; CMakeLists.txt): configuration 10 has no
 * instances, so it is never available (kernel_blocks_per_sm) and never launched. */
KernelFn pick_ws_256x128(bool, bool, bool, bool) { return nullptr; }
#endif

namespace {

KernelFn instance(int config, bool ta, bool tb, bool va, bool vb)
{
    return config == WS_256x128 ? pick_ws_256x128(ta, tb, va, vb) : nullptr;
}

cudaError_t sgemm(const KernelConfig &c, const Gemm &g, cudaStream_t s)
{
    return launch_units(instance(c.id, g.ta, g.tb, g.va, g.vb), c, g, s);
}

} /* namespace */

const FamilyLauncher ws_launcher = {instance, sgemm};

} /* namespace tsg */
