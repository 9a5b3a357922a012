/*
 * tsg_state.cu — the one instance of the executor's state (gpu/tsg_state.h says who writes what).
 */
#include "tsg_state.h"

namespace tsg {
namespace gpu {

State state;
thread_local int t_slot = -1;
thread_local bool t_rates_memcpy = false;

} /* namespace gpu */
} /* namespace tsg */
