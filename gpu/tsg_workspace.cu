/*
 * tsg_workspace.cu — the pooled workspaces. See tsg_workspace.h.
 */
#include "tsg_workspace.h"

#include <pthread.h>

#include <algorithm>

#include <new>

#include "tsg_device.h"
#include "tsg_exec.h" /* spot_ahead */
#include "tsg_fault.h"
#include "tsg_pool.h"

namespace tsg {
namespace gpu {

namespace {

void free_pinned(Workspace *w)
{
    if (w->pinned) {
        cudaFreeHost(w->pinned);
        state.pinned_held -= (long long)((NS + ND) * w->slot_bytes);
    }
    w->pinned = nullptr;
    w->slot_bytes = 0;
}

/* Frees everything of w (its device must be current) and w itself. */
void destroy(Workspace *w)
{
    free_arena(w);
    free_pinned(w);
    for (auto &e : w->ev_up) if (e) cudaEventDestroy(e);
    for (auto &e : w->ev_dn) if (e) cudaEventDestroy(e);
    for (auto &e : w->ev_block) if (e) cudaEventDestroy(e);
    for (auto &e : w->ev_launch) if (e) cudaEventDestroy(e);
    for (auto &e : w->ev_cfree) if (e) cudaEventDestroy(e);
    if (w->ev_ready) cudaEventDestroy(w->ev_ready);
    if (w->ev_join) cudaEventDestroy(w->ev_join);
    if (w->s_up) cudaStreamDestroy(w->s_up);
    if (w->s_comp) cudaStreamDestroy(w->s_comp);
    if (w->s_comp2) cudaStreamDestroy(w->s_comp2);
    if (w->s_down) cudaStreamDestroy(w->s_down);
    delete w;
}

cudaError_t make_events(Workspace *w)
{
    cudaError_t e = cudaSuccess;
    auto mk = [&](cudaEvent_t *ev) {
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(ev, cudaEventDisableTiming);
    };
    for (auto &ev : w->ev_up) mk(&ev);
    for (auto &ev : w->ev_dn) mk(&ev);
    for (auto &ev : w->ev_block) mk(&ev);
    for (auto &ev : w->ev_launch) mk(&ev);
    for (auto &ev : w->ev_cfree) mk(&ev);
    mk(&w->ev_ready);
    mk(&w->ev_join);
    return e;
}

/* A new workspace of CUDA device `device` (the current one): its streams and events. */
cudaError_t make_ws(int device, Workspace **out)
{
    Workspace *w = new (std::nothrow) Workspace;
    if (!w) return cudaErrorMemoryAllocation;
    w->device = device;
    cudaError_t e = cudaStreamCreateWithFlags(&w->s_up, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&w->s_comp, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&w->s_comp2, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&w->s_down, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = make_events(w);
    if (e != cudaSuccess) {
        destroy(w);
        return e;
    }
    *out = w;
    return cudaSuccess;
}

/* Under State::pool_lock, after workspaces came back: with several device slots waiters want one
 * or several workspaces (reserve_ws), so all of them look again — a signal could wake only one
 * that still cannot proceed while another that could sleeps on. */
void wake_waiters()
{
    if (state.nslots > 1) pthread_cond_broadcast(&state.pool_cv);
    else pthread_cond_signal(&state.pool_cv);
}

} /* namespace */

void reserve_ws(int n)
{
    pthread_mutex_lock(&state.pool_lock);
    while (state.warming.load() || state.ws_out + n > state.max_ws)
        pthread_cond_wait(&state.pool_cv, &state.pool_lock);
    state.ws_out += n;
    pthread_mutex_unlock(&state.pool_lock);
}

void unreserve_ws()
{
    pthread_mutex_lock(&state.pool_lock);
    state.ws_out--;
    wake_waiters();
    pthread_mutex_unlock(&state.pool_lock);
}

int take_ws(int device, Workspace **out, char *msg, size_t len)
{
    Workspace *w = nullptr, *evict = nullptr;
    pthread_mutex_lock(&state.pool_lock);
    for (Workspace **pp = &state.free_list; *pp; pp = &(*pp)->next)
        if ((*pp)->device == device) {
            w = *pp;
            *pp = w->next;
            break;
        }
    if (!w && state.free_list && state.ws_made >= state.max_ws) { /* its budget is ours */
        evict = state.free_list;
        state.free_list = evict->next;
        state.ws_made--;
    }
    pthread_mutex_unlock(&state.pool_lock);
    if (evict) {
        cudaSetDevice(evict->device);
        destroy(evict);
        cudaSetDevice(device);
        (void)cudaGetLastError();
    }
    if (!w) {
        const cudaError_t e = make_ws(device, &w);
        if (e != cudaSuccess) {
            unreserve_ws();
            return fail(e, "cudaStreamCreate", msg, len);
        }
        pthread_mutex_lock(&state.pool_lock);
        state.ws_made++;
        pthread_mutex_unlock(&state.pool_lock);
    }
    *out = w;
    return TSG_GPU_OK;
}

int acquire(Workspace **out, char *msg, size_t len)
{
    reserve_ws(1);
    return take_ws(state.device, out, msg, len);
}

void give_back(Workspace *w, int status)
{
    pthread_mutex_lock(&state.pool_lock);
    state.ws_out--;
    if (status == TSG_GPU_EFATAL) { /* nothing in a poisoned context is worth keeping */
        state.ws_made--;
        wake_waiters();
        pthread_mutex_unlock(&state.pool_lock);
        return;
    }
    if (status == TSG_GPU_ENOMEM) free_arena(w), free_pinned(w);
    w->next = state.free_list;
    state.free_list = w;
    wake_waiters();
    pthread_mutex_unlock(&state.pool_lock);
}

void quiesce(Workspace *w)
{
    cudaStreamSynchronize(w->s_comp);
    cudaStreamSynchronize(w->s_comp2);
    (void)cudaGetLastError();
}

int ensure_arena(Workspace *w, size_t bytes, char *msg, size_t len)
{
    if (w->arena_cap >= bytes) return TSG_GPU_OK;
    /* at least 1.5x the old arena, within one call's budget: a program whose calls grow a little
     * each time (LAPACK's panels: 2 MiB more per call) pays a cudaMalloc every few calls, not
     * at each (0.3 ms each on the H100, docs/NOTES.md "2026-12-06 the first GPU call") */
    const size_t g = (size_t)2 << 20;
    const size_t budget = (size_t)call_budget() & ~(g - 1);
    const size_t grown = std::min(w->arena_cap + w->arena_cap / 2, budget);
    free_arena(w);
    const size_t want = (std::max(bytes, grown) + g - 1) & ~(g - 1);
    const cudaError_t e = TSG_STAGE(ST_ALLOC, cudaMalloc((void **)&w->arena, want));
    if (e != cudaSuccess) return fail(e, "cudaMalloc (device arena)", msg, len);
    w->arena_cap = want;
    state.device_held += (long long)want;
    return TSG_GPU_OK;
}

void free_arena(Workspace *w)
{
    if (w->arena) {
        cudaFree(w->arena);
        state.device_held -= (long long)w->arena_cap;
    }
    w->arena = nullptr;
    w->arena_cap = 0;
}

namespace {

/* Pins w's NS + ND slots afresh at `want` bytes each; through the fault hook unless `direct`. */
int pin_slots(Workspace *w, size_t want, bool direct, char *msg, size_t len)
{
    free_pinned(w);
    const size_t bytes = (NS + ND) * want;
    const cudaError_t e = direct ? cudaMallocHost((void **)&w->pinned, bytes)
                                 : TSG_STAGE(ST_PINNED, cudaMallocHost((void **)&w->pinned, bytes));
    if (e != cudaSuccess) {
        w->pinned = nullptr;
        return fail(e, "cudaMallocHost (pinned slots)", msg, len);
    }
    w->slot_bytes = want;
    state.pinned_held += (long long)bytes;
    return TSG_GPU_OK;
}

void *warm_main(void *)
{
    const double t0 = now_s();
    char msg[256];
    Workspace *w = nullptr;
    pthread_setname_np(pthread_self(), "tsg-warm");
    spot_ahead_run(); /* before the pinning, which would slow it */
    const cudaError_t e = cudaSetDevice(state.device);
    int st = e == cudaSuccess ? take_ws(state.device, &w, msg, sizeof msg) /* gives the reservation
                                                                                back on failure */
                              : (unreserve_ws(), fail(e, "cudaSetDevice", msg, sizeof msg));
    if (st == TSG_GPU_OK) {
        if (!w->pinned || w->slot_bytes < state.slot_bytes) st = pin_slots(w, state.slot_bytes, true, msg, sizeof msg);
        give_back(w, st == TSG_GPU_OK ? TSG_GPU_OK : TSG_GPU_ENOMEM); /* ENOMEM: frees what it holds */
    }
    (void)cudaGetLastError();
    state.warm_ns.store((long long)((now_s() - t0) * 1e9) + 1);
    state.warm_status.store(st);
    pthread_mutex_lock(&state.pool_lock);
    state.warming.store(0);
    pthread_cond_broadcast(&state.pool_cv);
    pthread_mutex_unlock(&state.pool_lock);
    return nullptr;
}

} /* namespace */

int warm_start(int spot_math)
{
    pthread_mutex_lock(&state.pool_lock);
    if (state.warming.load() || state.warm_ns.load()) { /* running, or ran before */
        pthread_mutex_unlock(&state.pool_lock);
        return 0;
    }
    /* its reservation first, so no call can take the budget in between; warming keeps the
     * calls' reserve_ws waiting until the thread is done */
    while (state.ws_out + 1 > state.max_ws) pthread_cond_wait(&state.pool_cv, &state.pool_lock);
    state.ws_out++;
    state.warm_t0 = now_s();
    state.warm_expect_s = (double)((NS + ND) * state.slot_bytes) / (1 << 20) * PIN_S_PER_MIB;
    state.warming.store(1); /* seq_cst: orders the two writes above before any reader's load */
    pthread_mutex_unlock(&state.pool_lock);
    spot_ahead(spot_math);
    pthread_attr_t attr;
    pthread_t thread;
    int rc = pthread_attr_init(&attr);
    if (rc == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        rc = tsg_pool_spawn(&thread, &attr, warm_main, nullptr);
        pthread_attr_destroy(&attr);
    }
    if (rc == 0) return 0;
    spot_ahead(-1);
    pthread_mutex_lock(&state.pool_lock);
    state.ws_out--;
    state.warming.store(0);
    pthread_cond_broadcast(&state.pool_cv);
    pthread_mutex_unlock(&state.pool_lock);
    return -1;
}

int ensure_pinned(Workspace *w, size_t need, char *msg, size_t len)
{
    const size_t cap = state.slot_bytes;
    need = std::min(cap, std::max(need, SLOT_MIN));
    if (w->pinned && w->slot_bytes >= need && w->slot_bytes <= cap) return TSG_GPU_OK;
    /* grown at least twofold, so a program whose calls grow pays at most about twice the
     * largest call's slots in allocations */
    const size_t g = (size_t)64 << 10;
    size_t want = std::max(need, 2 * w->slot_bytes);
    want = std::min(cap, (want + g - 1) & ~(g - 1));
    return pin_slots(w, want, false, msg, len);
}

void release_workspaces()
{
    pthread_mutex_lock(&state.pool_lock);
    Workspace *w = state.free_list;
    state.free_list = nullptr;
    pthread_mutex_unlock(&state.pool_lock);
    if (!w) return;
    ContextGuard guard;
    while (w) {
        Workspace *next = w->next;
        cudaSetDevice(w->device);
        pthread_mutex_lock(&state.pool_lock);
        state.ws_made--;
        pthread_mutex_unlock(&state.pool_lock);
        destroy(w);
        w = next;
    }
}

int workspaces_made()
{
    pthread_mutex_lock(&state.pool_lock);
    const int n = state.ws_made;
    pthread_mutex_unlock(&state.pool_lock);
    return n;
}

} /* namespace gpu */
} /* namespace tsg */
