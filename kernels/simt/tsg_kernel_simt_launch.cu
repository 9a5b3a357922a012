/*
 * tsg_kernel_simt_launch.cu — the SIMT family's launcher (tsg_kernel_launch.h): configurations 0-6
 * (tsg_kernel_simt_config.h) by name to their instance pickers (one file each), each launched by
 * the shared steps of tsg_kernel.cu (the grid over all tiles; split-K and its reduction).
 */
#include "../tsg_kernel_launch.h"
#include "tsg_kernel_simt.cuh"

namespace tsg {

namespace {

KernelFn instance(int config, bool ta, bool tb, bool va, bool vb)
{
    switch (config) {
    case SIMT_128x128: return pick_simt_128x128(ta, tb, va, vb);
    case SIMT_128x64: return pick_simt_128x64(ta, tb, va, vb);
    case SIMT_64x128: return pick_simt_64x128(ta, tb, va, vb);
    case SIMT_64x64: return pick_simt_64x64(ta, tb, va, vb);
    case SIMT_64x64_BK16: return pick_simt_64x64_bk16(ta, tb, va, vb);
    case SIMT_32x32: return pick_simt_32x32(ta, tb, va, vb);
    case SIMT_128x128_1BLOCK: return pick_simt_128x128_1block(ta, tb, va, vb);
    default: return nullptr;
    }
}

cudaError_t sgemm(const KernelConfig &c, const Gemm &g, cudaStream_t s)
{
    return launch_units(instance(c.id, g.ta, g.tb, g.va, g.vb), c, g, s);
}

} /* namespace */

const FamilyLauncher simt_launcher = {instance, sgemm};

} /* namespace tsg */
