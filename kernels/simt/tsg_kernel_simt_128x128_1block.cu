/*
 * tsg_kernel_simt_cfg6.cu — the instances of configuration Cfg6 of the SIMT family
 * (tsg_kernel_simt.cuh): four transpose pairs times aligned/unaligned loads of each operand.
 * One file per configuration so the build compiles them in parallel. Nothing else lives here.
 */
#include "tsg_kernel_simt.cuh"

namespace tsg {

KernelFn pick_cfg6(bool ta, bool tb, bool va, bool vb) { return pick_instance<Cfg6>(ta, tb, va, vb); }

} /* namespace tsg */
