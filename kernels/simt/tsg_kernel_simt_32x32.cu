/*
 * tsg_kernel_simt_cfg5.cu — the instances of configuration Cfg5 of the SIMT family
 * (tsg_kernel_simt.cuh): four transpose pairs times aligned/unaligned loads of each operand.
 * One file per configuration so the build compiles them in parallel. Nothing else lives here.
 */
#include "tsg_kernel_simt.cuh"

namespace tsg {

KernelFn pick_cfg5(bool ta, bool tb, bool va, bool vb) { return pick_instance<Cfg5>(ta, tb, va, vb); }

} /* namespace tsg */
