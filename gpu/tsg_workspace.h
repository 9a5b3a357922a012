/*
 * tsg_workspace.h — the pooled workspaces (CUDA C++, gpu/ only): what one call on the GPU holds
 * (streams, events, a device arena, pinned slots) and the pool they come from and go back to.
 *
 * Owns: struct Workspace, the budget of workspaces (State::max_ws, bought by the pinned cap: more
 * callers than that wait for one, so concurrent calls queue for the GPU instead of each pinning
 * memory) and the pool (State's pool fields, under State::pool_lock). Allocations grow per call
 * and are kept across calls (cudaMalloc / cudaMallocHost cost milliseconds); tsg_gpu_release gives
 * back what no call holds. Must not: know what a call does with its workspace.
 */
#ifndef TSG_WORKSPACE_H
#define TSG_WORKSPACE_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "tsg_state.h"

namespace tsg {
namespace gpu {

struct Workspace {
    /* s_comp2: the second compute stream of a pipelined call (Pipeline::comp); calls on device
     * data and the rate measurement use s_comp only */
    cudaStream_t s_up = nullptr, s_comp = nullptr, s_comp2 = nullptr, s_down = nullptr;
    cudaEvent_t ev_up[NS] = {}, ev_dn[ND] = {}, ev_block[NB] = {}, ev_launch[RING] = {};
    cudaEvent_t ev_ready = nullptr, ev_cfree[2] = {}, ev_join = nullptr;
    float *arena = nullptr; /* device memory of the call: pieces, C blocks, split-K partials */
    size_t arena_cap = 0;
    float *pinned = nullptr; /* NS upload slots then ND download slots */
    size_t slot_bytes = 0;
    int device = 0; /* the CUDA device its streams, events and arena belong to */
    Workspace *next = nullptr;
};

/* Reserves n of the State::max_ws workspaces for the caller, waiting while they are out. A call
 * over several devices reserves its workspaces at once, so two such calls never hold part of
 * them each. */
void reserve_ws(int n);

/* Gives back one reservation that take_ws was never reached for. */
void unreserve_ws();

/* Takes one reserved workspace of CUDA device `device` (the current device): a pooled one, or a
 * new one (streams and events made), first destroying a pooled one of another device when the
 * budget is all made. On failure the reservation is given back and the status returned. */
int take_ws(int device, Workspace **out, char *msg, size_t len);

/* reserve_ws(1), then take_ws on tsgemm's device (State::device, the current one). */
int acquire(Workspace **out, char *msg, size_t len);

/* Returns a workspace to the pool after a call that ended with `status`: after TSG_GPU_EFATAL it
 * is dropped (nothing in a poisoned context is worth keeping), after TSG_GPU_ENOMEM its arena and
 * pinned slots are freed first. */
void give_back(Workspace *w, int status);

/* After a call that failed with a status other than TSG_GPU_EFATAL: waits for the work still
 * queued on the compute streams, so the next call on the workspace starts on idle streams. */
void quiesce(Workspace *w);

/* Grows the device arena to at least `bytes` and at least 1.5x its old size within
 * call_budget() (2 MiB granularity). */
int ensure_arena(Workspace *w, size_t bytes, char *msg, size_t len);

/* Frees the device arena (the rate measurement's sizes are not the callers'). */
void free_arena(Workspace *w);

/* Makes the NS + ND pinned slots hold at least `need` bytes each (within [SLOT_MIN,
 * State::slot_bytes]): a call pins what its units need, not the cap (cudaMallocHost of the cap's
 * 10 x 16 MiB costs tens of ms, a small program's whole BLAS time; docs/NOTES.md "2026-12-06
 * the first GPU call"). Slots grow at least twofold and are kept; slots above the cap (a lowered
 * pinned cap) are made again. */
int ensure_pinned(Workspace *w, size_t need, char *msg, size_t len);

/* The warm-up after the start (tsg_gpu.h tsg_gpu_warm): a thread of its own (signals blocked,
 * detached) takes one workspace of tsgemm's device and pins its slots at State::slot_bytes, the
 * size a large call grows them to, then gives it back; State::warming is 1 until then, and
 * reserve_ws waits for it (a call would otherwise make and pin a second workspace). The
 * allocation bypasses fault injection (TSG_STAGE): the tests' armed faults fall on calls. A
 * failure leaves the slots unpinned (calls grow them as before). Before the pinning the
 * thread times the kernel of math spot_math (-1: none) for tsg_gpu_spot_kernel (tsg_exec.h
 * spot_ahead). Returns 0 when the thread started or the warm-up ran before, -1 when it could
 * not start (nothing changed). */
int warm_start(int spot_math);

/* Upload slot i (0 <= i < NS) and download slot i (0 <= i < ND). */
inline float *up_slot(Workspace *w, int i) { return w->pinned + (size_t)i * (w->slot_bytes / 4); }
inline float *dn_slot(Workspace *w, int i) { return w->pinned + (size_t)(NS + i) * (w->slot_bytes / 4); }

/* The device memory budget of one call: the cap shared by the workspaces that may exist. */
inline double call_budget() { return state.device_cap / (double)state.max_ws; }

/* Destroys every pooled workspace (on its own device); the caller's context is restored. */
void release_workspaces();

/* Workspaces that exist now (pooled or held). */
int workspaces_made();

} /* namespace gpu */
} /* namespace tsg */

#endif /* TSG_WORKSPACE_H */
