/*
 * tsg_devices.cu — several devices (TSGEMM_DEVICE=0,1 / all / 0,0; src/tsg_multi.h): the device
 * slots, and one call over several of them.
 *
 * A call's panels run at once, one host thread per slot (the calling thread takes the first),
 * each with a workspace of its own device — its own streams, pinned slots and arena — through
 * sgemm_pipeline, unchanged: a panel is a one-device call on a window of C. The copy-thread pool
 * is shared. A slot that got several tasks (round 2 of tsg_multi_run) runs them one after the
 * other on one workspace, so a round never needs more workspaces than slots, and never more than
 * it reserved. A slot whose device had a sticky error is dead (State::slot_dead): later calls
 * leave it out.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <atomic>

#include "tsg_device.h"
#include "tsg_exec.h"
#include "tsg_pool.h"
#include "../kernels/tf32/tsg_kernel_tf32.h"
#include "../src/tsg_multi.h"

namespace tsg {
namespace gpu {

namespace {

/* Device d is of the first device's kind (same name, compute capability and SM count: one plan
 * and one set of rates serve every slot). */
bool same_kind(int d)
{
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) return false;
    return prop.multiProcessorCount == state.prop.multiProcessorCount && prop.major == state.prop.major &&
           prop.minor == state.prop.minor && strcmp(prop.name, state.prop.name) == 0;
}

/* Makes device d current and creates its context, and the tensor-core family's per-device set-up
 * there (a failure of the family's own leaves it unavailable, as on the first device); false
 * when the device cannot start. */
bool start_slot_device(int d)
{
    if (cudaSetDevice(d) == cudaSuccess && cudaFree(nullptr) == cudaSuccess && tsg::tf32_init() != 0)
        (void)cudaGetLastError();
    if (cudaSetDevice(d) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return true;
}

/* What the slots of one call share: its kernel families (tsg_done.families) and the limits its
 * tasks were planned under. */
struct PanelCall {
    std::atomic<unsigned> fam{0};
    const tsg_plan_limits *lim = nullptr;
};

struct SlotGroup {
    int slot = 0;
    int n = 0;
    PanelCall *call = nullptr;
    tsg_multi_task *task[3 * TSG_MAX_DEVICES] = {};
};

/* A task its slot cannot run (no workspace, or the device is dead): nothing done in its window. */
void task_not_run(tsg_multi_task *t, int st, const char *why)
{
    t->status = st != TSG_GPU_OK ? st : TSG_GPU_EFATAL;
    t->done.bm = t->p.m, t->done.bn = t->p.n, t->done.blocks = t->done.cols = 0;
    t->done.nparts = 0;
    snprintf(t->msg, sizeof t->msg, "%s", st != TSG_GPU_OK && why[0] ? why : "device disabled");
}

/* Every task of one slot, on one workspace of its device. */
void run_group(SlotGroup *g)
{
    t_slot = g->slot;
    const int dev = state.slot_dev[g->slot];
    char msg[160] = "";
    Workspace *w = nullptr;
    cudaError_t e = cudaSetDevice(dev);
    int st = e == cudaSuccess ? take_ws(dev, &w, msg, sizeof msg) : fail(e, "cudaSetDevice", msg, sizeof msg);
    if (e != cudaSuccess) unreserve_ws(); /* take_ws was not reached: give its reservation back */
    int worst = st;
    for (int i = 0; i < g->n; ++i) {
        tsg_multi_task *t = g->task[i];
        if (st != TSG_GPU_OK || state.slot_dead[g->slot].load()) {
            task_not_run(t, st, msg);
            continue;
        }
        t->done.families = 0;
        t->status = sgemm_pipeline(w, &t->p, t->planned ? &t->plan : nullptr, g->call->lim, &t->done, t->msg,
                                   sizeof t->msg);
        g->call->fam.fetch_or(t->done.families);
        if (t->status != TSG_GPU_OK && t->status != TSG_GPU_EFATAL) quiesce(w); /* idle streams for the next task */
        if (t->status == TSG_GPU_EFATAL) { /* this device is poisoned: no slot of it again */
            for (int s = 0; s < state.nslots; ++s)
                if (state.slot_dev[s] == dev) state.slot_dead[s].store(true);
            st = TSG_GPU_EFATAL;
        }
        if (t->status != TSG_GPU_OK && worst != TSG_GPU_EFATAL) worst = t->status;
    }
    if (w) give_back(w, worst);
    t_slot = -1;
}

void *group_thread(void *arg)
{
    pthread_setname_np(pthread_self(), "tsg-panels");
    run_group((SlotGroup *)arg);
    return nullptr;
}

/* tsg_multi_round_fn: every slot's tasks at once. */
void run_round(void *ctx, tsg_multi_task *tasks, int count)
{
    SlotGroup groups[TSG_MAX_DEVICES];
    for (auto &g : groups) g.call = (PanelCall *)ctx;
    int ng = 0;
    for (int i = 0; i < count; ++i) {
        int g = 0;
        while (g < ng && groups[g].slot != tasks[i].slot) ++g;
        if (g == ng) groups[ng++].slot = tasks[i].slot;
        groups[g].task[groups[g].n++] = &tasks[i];
    }
    reserve_ws(ng);
    pthread_t th[TSG_MAX_DEVICES];
    bool started[TSG_MAX_DEVICES] = {};
    for (int g = 1; g < ng; ++g) started[g] = tsg_pool_spawn(&th[g], nullptr, group_thread, &groups[g]) == 0;
    run_group(&groups[0]);
    for (int g = 1; g < ng; ++g) {
        if (started[g]) pthread_join(th[g], nullptr);
        else run_group(&groups[g]); /* no thread: one after the other, still right */
    }
}

/* The panels of `split` (slots mapped to live ones) run by tsg_multi_run, its tasks planned under
 * lim. */
int run_panels(const tsg_problem *p, const tsg_multi_split *split, const tsg_plan_limits *lim, tsg_done *done,
               char *msg, size_t len)
{
    done->bm = done->bn = 1;
    done->blocks = done->cols = 0;
    done->nparts = 0;
    /* 3 tasks per slot: large, so on the heap */
    tsg_multi_task *tasks = (tsg_multi_task *)malloc(sizeof(tsg_multi_task) * 3 * TSG_MAX_DEVICES);
    if (!tasks) {
        snprintf(msg, len, "host allocation failed");
        return TSG_GPU_ENOMEM;
    }
    ContextGuard guard;
    tsg_pool_start(state.copy_threads);
    state.inflight++;
    tsg_multi_stats st;
    PanelCall call;
    call.lim = lim;
    const int rc = tsg_multi_run(p, split, lim, run_round, &call, tasks, done, &st, msg, len);
    done->families = call.fam.load();
    state.inflight--;
    free(tasks);
    state.multi_calls++;
    state.handoffs += st.failed;
    return rc;
}

} /* namespace */

int set_devices(const int *ordinals, int n, int *slots, char *info, size_t len)
{
    ContextGuard guard;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    (void)cudaGetLastError();
    int ns = 1;
    size_t pos = 0;
    if (info && len) info[0] = '\0';
    auto note = [&](const char *fmt, int a) {
        if (info && pos < len) {
            int w = snprintf(info + pos, len - pos, fmt, a);
            if (w > 0) pos += (size_t)w;
        }
    };
    for (int i = 1; i < n && ns < TSG_MAX_DEVICES; ++i) {
        const int d = ordinals[i];
        if (d < 0 || d >= count) {
            note("device %d does not exist; ", d);
            continue;
        }
        if (d != state.device && !same_kind(d)) {
            (void)cudaGetLastError();
            note("device %d is not of the first device's kind; ", d);
            continue;
        }
        if (d != state.device && !start_slot_device(d)) {
            note("device %d cannot start; ", d);
            continue;
        }
        state.slot_dev[ns++] = d;
    }
    state.slot_dev[0] = state.device;
    for (int s = 0; s < TSG_MAX_DEVICES; ++s) state.slot_dead[s].store(false);
    /* the default pinned cap holds a workspace for every slot (512 MiB holds 3 of 160 MiB); a
     * cap the user set is kept, and then bounds how many slots one call uses (sgemm_split) */
    if (state.pinned_default && ns > state.max_ws) {
        state.max_ws = ns;
        state.pinned_cap = (double)ns * (double)((NS + ND) * state.slot_bytes);
    }
    state.nslots = ns;
    *slots = ns;
    return TSG_GPU_OK;
}

int usable_slots()
{
    if (state.nslots <= 1) return 1;
    int live = 0;
    for (int s = 0; s < state.nslots; ++s) live += !state.slot_dead[s].load();
    return std::min(live, state.max_ws);
}

int sgemm_panels(const tsg_problem *p, const tsg_gpu_work *work, tsg_done *done, char *msg, size_t len)
{
    /* panel i on the i-th live slot (the work has at most as many panels as usable_slots said);
     * should a slot have died since, the dead ones follow the live: a panel there fails as
     * "device disabled" (run_group) and is handed to the slots that finished */
    bool dead[TSG_MAX_DEVICES];
    for (int s = 0; s < state.nslots; ++s) dead[s] = state.slot_dead[s].load();
    int order[TSG_MAX_DEVICES], n = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (int s = 0; s < state.nslots; ++s)
            if (dead[s] == (pass == 1)) order[n++] = s;
    tsg_multi_split split = work->split;
    for (int i = 0; i < split.count; ++i) split.panel[i].slot = order[i < n ? i : n - 1];
    return run_panels(p, &split, &work->limits, done, msg, len);
}

} /* namespace gpu */
} /* namespace tsg */
