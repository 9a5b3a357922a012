/*
 * tsg_runtime.h — the per-call driver of the ABI layer (tsg_runtime.c): process-wide GPU state,
 * counters, and the join of src/ decisions to the backends.
 */
#ifndef TSG_RUNTIME_H
#define TSG_RUNTIME_H

#include "../src/tsg_problem.h"
#include "tsg_api.h"

/* Runs a read call to completion: illegal -> report; else scalar rules, dispatch, backends,
 * counters and trace. */
void tsg_rt_sgemm(tsg_api api, const tsg_call *call);

#endif /* TSG_RUNTIME_H */
