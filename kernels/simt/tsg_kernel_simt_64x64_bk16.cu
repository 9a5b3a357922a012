/*
 * tsg_kernel_simt_64x64_bk16.cu — the instances of configuration 4, Simt64x64Bk16, of the SIMT family
 * (tsg_kernel_simt.cuh): four transpose pairs times aligned / unaligned loads of each operand. One
 * file per configuration so the build compiles them in parallel. Nothing else lives here.
 */
#include "tsg_kernel_simt.cuh"

namespace tsg {

KernelFn pick_simt_64x64_bk16(bool ta, bool tb, bool va, bool vb) { return pick_instance<Simt64x64Bk16>(ta, tb, va, vb); }

} /* namespace tsg */
