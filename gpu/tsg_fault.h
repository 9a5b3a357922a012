/*
 * tsg_fault.h — fault injection (CUDA C++, gpu/ only): the stages of a call that the tests' twin
 * library tsgemm_fi can make fail as a CUDA error would (TSGEMM_TEST_FAULT, tsg_gpu_set_fault).
 *
 * Owns: the stages, the hook each stage's CUDA call goes through (TSG_STAGE) and the armed fault
 * (State's fault_* fields). Built without TSG_FAULT_INJECTION (the release library) the hook is
 * an inline `cudaSuccess` the compiler removes: no stage can fail on purpose there.
 */
#ifndef TSG_FAULT_H
#define TSG_FAULT_H

#include <cuda_runtime.h>

namespace tsg {
namespace gpu {

enum Stage { ST_ALLOC, ST_PINNED, ST_UPLOAD, ST_KERNEL, ST_DOWNLOAD, ST_SYNC, ST_COUNT };

/* The error a stage reports when the hook fires: out of memory for the allocations, an invalid
 * value (a CUDA error that leaves the context usable) for the others. */
inline cudaError_t injected_error(Stage s)
{
    return (s == ST_ALLOC || s == ST_PINNED) ? cudaErrorMemoryAllocation : cudaErrorInvalidValue;
}

#ifdef TSG_FAULT_INJECTION
/* Counts stage s (when the armed fault counts it: its stage or "any", and its device slot, read
 * from t_slot) and returns injected_error(s) when this is the time it fires, else cudaSuccess. */
cudaError_t injected(Stage s);

/* Arms the fault of spec (tsg_gpu.h tsg_gpu_set_fault: "STAGE:N", "STAGE:N:every", "@SLOT"
 * suffix); NULL, "" or a spec that does not parse disarms. */
void arm_fault(const char *spec);
#else
inline cudaError_t injected(Stage) { return cudaSuccess; }
#endif

/* Runs `call` unless the stage's hook fires; either way the expression's value is the error. */
#define TSG_STAGE(stage, call) (injected(stage) != cudaSuccess ? injected_error(stage) : (call))

} /* namespace gpu */
} /* namespace tsg */

#endif /* TSG_FAULT_H */
