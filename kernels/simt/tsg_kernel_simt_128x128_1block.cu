/*
 * tsg_kernel_simt_128x128_1block.cu — the instances of configuration 6, Simt128x128OneBlock, of the SIMT family
 * (tsg_kernel_simt.cuh): four transpose pairs times aligned / unaligned loads of each operand. One
 * file per configuration so the build compiles them in parallel. Nothing else lives here.
 */
#include "tsg_kernel_simt.cuh"

namespace tsg {

KernelFn pick_simt_128x128_1block(bool ta, bool tb, bool va, bool vb) { return pick_instance<Simt128x128OneBlock>(ta, tb, va, vb); }

} /* namespace tsg */
