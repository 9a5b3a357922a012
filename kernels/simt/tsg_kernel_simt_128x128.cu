/*
 * tsg_kernel_simt_cfg0.cu — the instances of configuration Cfg0 of the SIMT family
 * (tsg_kernel_simt.cuh): four transpose pairs times aligned/unaligned loads of each operand.
 * One file per configuration so the build compiles them in parallel. Nothing else lives here.
 */
#include "tsg_kernel_simt.cuh"

namespace tsg {

KernelFn pick_cfg0(bool ta, bool tb, bool va, bool vb) { return pick_instance<Cfg0>(ta, tb, va, vb); }

} /* namespace tsg */
