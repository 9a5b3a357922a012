/*
 * tsg_fault.cu — fault injection of the tests' twin library. See tsg_fault.h. Empty in the
 * release library (built without TSG_FAULT_INJECTION).
 */
#include "tsg_fault.h"

#ifdef TSG_FAULT_INJECTION
#include <stdio.h>
#include <string.h>

#include "tsg_state.h"

namespace tsg {
namespace gpu {

namespace {
const char *const stage_names[ST_COUNT] = {"alloc", "pinned", "upload", "kernel", "download", "sync"};
}

cudaError_t injected(Stage s)
{
    const int want = state.fault_stage.load(std::memory_order_relaxed);
    if (want == -2 || (want >= 0 && want != (int)s)) return cudaSuccess;
    const int slot = state.fault_slot.load(std::memory_order_relaxed);
    if (slot >= 0 && slot != t_slot) return cudaSuccess;
    const long long c = ++state.fault_count, n = state.fault_n.load();
    const bool fire = state.fault_every.load() ? (n > 0 && c % n == 0) : c == n;
    return fire ? injected_error(s) : cudaSuccess;
}

void arm_fault(const char *spec)
{
    state.fault_stage = -2;
    state.fault_count = 0;
    state.fault_slot = -1;
    if (!spec || !*spec) return;
    char name[32] = "", body[64];
    long long n = 0;
    char every[16] = "";
    snprintf(body, sizeof body, "%s", spec);
    int slot = -1;
    if (char *at = strchr(body, '@')) { /* STAGE:N[:every]@SLOT */
        if (sscanf(at + 1, "%d", &slot) != 1 || slot < 0) return;
        *at = '\0';
    }
    if (sscanf(body, "%31[a-z]:%lld:%15s", name, &n, every) < 2 || n <= 0) return;
    state.fault_slot = slot;
    int stage = -2;
    if (!strcmp(name, "any")) stage = -1;
    for (int i = 0; i < ST_COUNT; ++i)
        if (!strcmp(name, stage_names[i])) stage = i;
    state.fault_n = n;
    state.fault_every = !strcmp(every, "every");
    state.fault_stage = stage;
}

} /* namespace gpu */
} /* namespace tsg */
#endif
