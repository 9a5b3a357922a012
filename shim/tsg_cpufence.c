/*
 * tsg_cpufence.c — the fence over CPU BLAS pools during GPU calls (tsg_cpufence.h).
 *
 * OpenBLAS's pthreads server (driver/others/blas_server.c): a pool of blas_cpu_number - 1 worker
 * threads; the calling thread computes the last part itself. openblas_setaffinity(i, ...) and
 * openblas_getaffinity(i, ...) act on worker i for i < openblas_get_num_threads() - 1, and on the
 * *calling* thread for i = openblas_get_num_threads() - 1, which the fence never asks for. Both
 * read the pool's thread handles, which exist only while blas_server_avail is non-zero (the pool
 * starts at the library's first threaded call, and a fork handler shuts it down): checked before
 * every use. Worker threads of a pool running with fewer threads than it has (after
 * openblas_set_num_threads) are beyond reach and are left alone.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tsg_api.h"
#include "tsg_cpufence.h"
#include "tsg_log.h"

enum {
    TSG_FENCE_POOLS = 4,     /* libraries: tsgemm's CPU BLAS, numpy's, scipy's, one more  */
    TSG_FENCE_KEYS = 8,      /* function addresses remembered (two names per library)     */
    TSG_FENCE_WORKERS = 256, /* workers per pool whose masks are kept (OpenBLAS's default
                                MAX_CPU_NUMBER is the build machine's CPU count x2)     */
};

typedef int (*aff_fn)(int, size_t, cpu_set_t *);

typedef struct pool {
    const void *base;          /* the library's load address (dladdr's dli_fbase)        */
    const char *path;          /* its file name (the loader's string; the library stays)  */
    aff_fn setaff, getaff;     /* openblas_setaffinity / openblas_getaffinity            */
    int (*nthreads)(void);     /* its openblas_get_num_threads, by the entry's decoration */
    const int *avail;          /* its blas_server_avail                                   */
    _Atomic double last_end;   /* tsg_now_s() at the end of the last call through tsgemm  */
    atomic_int fenced;         /* workers whose masks are saved[] (0: none)               */
    unsigned char ok[TSG_FENCE_WORKERS];
    cpu_set_t saved[TSG_FENCE_WORKERS];
} pool;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER; /* table changes, fences, restores */
static pool g_pools[TSG_FENCE_POOLS];
static atomic_int g_npools;
static struct {
    const void *_Atomic fn;
    pool *_Atomic p; /* NULL: a library the fence cannot use */
} g_keys[TSG_FENCE_KEYS];
static atomic_int g_nkeys;
static int g_depth;              /* GPU calls inside a fence (under g_mu) */
static int g_set_ready;          /* 1: g_set computed, 2: too few CPUs to fence on (under g_mu) */
static cpu_set_t g_set;
static double g_window_s = -1;   /* the pools' spin window, seconds (under g_mu) */
static void child_after_fork(void);

/*
 * How long a pool may spin after a call: 2^t TSC cycles, t from OPENBLAS_THREAD_TIMEOUT as
 * OpenBLAS reads it (4..30, default 28; driver/others/blas_server.c blas_thread_init), at a TSC of
 * at least 1 GHz: an upper bound (2^28 cycles: 0.27 s at 1 GHz, 0.09 s at 3 GHz). The variable is
 * read as the pools saw it at their start: an OpenBLAS setting, not a tsgemm knob.
 */
static double spin_window_s(void)
{
    int t = 28;
    const char *v = getenv("OPENBLAS_THREAD_TIMEOUT");
    if (v && *v) {
        char *end;
        long x = strtol(v, &end, 10);
        if (*end == '\0' && x > 0) t = x < 4 ? 4 : x > 30 ? 30 : (int)x;
    }
    return (double)(1u << t) / 1e9;
}

/* The CPUs the fenced workers share: the highest-numbered eighth (at least one) of those this
 * thread may run on; none (2) with only one. */
static void make_set(void)
{
    cpu_set_t mine;
    CPU_ZERO(&g_set);
    g_set_ready = 2;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) return;
    const int n = CPU_COUNT(&mine);
    if (n < 2) return;
    int want = n / 8 > 0 ? n / 8 : 1;
    for (int c = CPU_SETSIZE - 1; c >= 0 && want > 0; --c)
        if (CPU_ISSET(c, &mine)) {
            CPU_SET(c, &g_set);
            --want;
        }
    g_set_ready = 1;
}

/* The symbol `name` of the library at `base`, only when that library itself defines it (dlsym
 * also searches a library's dependencies). */
static void *own_sym(void *h, const void *base, const char *name)
{
    void *s = dlsym(h, name);
    Dl_info info;
    return s && dladdr(s, &info) && info.dli_fbase == base ? s : NULL;
}

/* The pool of the library that defines fn (registering it), or NULL when it has no usable
 * OpenBLAS pool API. Under g_mu. */
static pool *register_pool(const void *fn, const char *entry)
{
    Dl_info info;
    if (!dladdr(fn, &info) || !info.dli_fbase || !info.dli_fname) return NULL;
    const int np = atomic_load_explicit(&g_npools, memory_order_relaxed);
    for (int i = 0; i < np; ++i)
        if (g_pools[i].base == info.dli_fbase) return g_pools[i].setaff ? &g_pools[i] : NULL;
    if (np == TSG_FENCE_POOLS) return NULL;
    if (np == 0) pthread_atfork(NULL, NULL, child_after_fork);
    pool *p = &g_pools[np];
    memset(p, 0, sizeof *p);
    p->base = info.dli_fbase;
    p->path = info.dli_fname;
    atomic_store_explicit(&g_npools, np + 1, memory_order_release);
    /* RTLD_NOLOAD: only a library already loaded; the reference keeps it for the process */
    void *h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
    if (!h) return NULL;
    char n_threads[128];
    void *nt = NULL;
    if (tsg_api_sibling_name(entry, "openblas_get_num_threads", n_threads, sizeof n_threads) == 0)
        nt = own_sym(h, p->base, n_threads);
    void *set = own_sym(h, p->base, "openblas_setaffinity");
    void *get = own_sym(h, p->base, "openblas_getaffinity");
    void *avail = own_sym(h, p->base, "blas_server_avail");
    if (!nt || !set || !get || !avail) {
        tsg_log(2, "%s: no fence for its worker threads (it lacks %s)", info.dli_fname,
                !nt ? n_threads : !set ? "openblas_setaffinity"
                                : !get ? "openblas_getaffinity" : "blas_server_avail");
        return NULL;
    }
    p->nthreads = (int (*)(void))nt;
    p->avail = (const int *)avail;
    p->getaff = (aff_fn)get;
    p->setaff = (aff_fn)set; /* last: a pool with setaff is complete */
    return p;
}

/* The pool behind fn: remembered per function address, registered at the first sight. */
static pool *pool_of(const void *fn, const char *entry)
{
    const int nk = atomic_load_explicit(&g_nkeys, memory_order_acquire);
    for (int i = 0; i < nk; ++i)
        if (atomic_load_explicit(&g_keys[i].fn, memory_order_relaxed) == fn)
            return atomic_load_explicit(&g_keys[i].p, memory_order_relaxed);
    if (!entry) return NULL; /* tsg_fence_cpu_leave of an unseen fn: nothing to note */
    pthread_mutex_lock(&g_mu);
    pool *p = NULL;
    int i, n = atomic_load_explicit(&g_nkeys, memory_order_relaxed);
    for (i = 0; i < n; ++i)
        if (atomic_load_explicit(&g_keys[i].fn, memory_order_relaxed) == fn) break;
    if (i < n) {
        p = atomic_load_explicit(&g_keys[i].p, memory_order_relaxed);
    } else {
        p = register_pool(fn, entry);
        if (n < TSG_FENCE_KEYS) {
            atomic_store_explicit(&g_keys[n].p, p, memory_order_relaxed);
            atomic_store_explicit(&g_keys[n].fn, fn, memory_order_relaxed);
            atomic_store_explicit(&g_nkeys, n + 1, memory_order_release);
        }
    }
    pthread_mutex_unlock(&g_mu);
    return p;
}

/* Puts back the saved masks of p's fenced workers. Under g_mu. Only the indexes that are still
 * workers: after openblas_set_num_threads lowered the count, index count - 1 names the calling
 * thread, and the workers beyond keep the fence until the next one. */
static void restore(pool *p)
{
    int n = atomic_load_explicit(&p->fenced, memory_order_relaxed);
    if (n == 0) return;
    if (*(volatile const int *)p->avail) { /* else the workers are gone: nothing to restore */
        const int now = p->nthreads() - 1;
        if (n > now) n = now;
        const int spread = tsg_rt_config()->test_fence != -2;
        for (int i = 0; i < n; ++i) {
            if (!p->ok[i]) continue;
            /* first off the fence's CPUs: the kernel moves a thread whose CPU it may no longer
             * use at once, each to another of the allowed ones (cpumask_any_and_distribute);
             * a mask that only widens moves nobody, and the workers would stay crowded on the
             * fence's CPUs until the load balancer spreads them, milliseconds later, while the
             * next CPU call hands them work */
            cpu_set_t away;
            CPU_AND(&away, &p->saved[i], &g_set);
            CPU_XOR(&away, &p->saved[i], &away);
            if (spread && CPU_COUNT(&away) > 0) p->setaff(i, sizeof away, &away);
            p->setaff(i, sizeof p->saved[i], &p->saved[i]);
        }
    }
    atomic_store_explicit(&p->fenced, 0, memory_order_release);
}

/* A child of fork() has none of its parent's worker threads, and no GPU call in flight: no
 * fence to put back, and the lock as new (another thread may have held it at the fork). */
static void child_after_fork(void)
{
    pthread_mutex_init(&g_mu, NULL);
    g_depth = 0;
    const int np = atomic_load_explicit(&g_npools, memory_order_relaxed);
    for (int i = 0; i < np; ++i) atomic_store_explicit(&g_pools[i].fenced, 0, memory_order_relaxed);
}

/* Confines p's workers to g_set, saving their masks; returns how many. Under g_mu. */
static int fence(pool *p)
{
    if (!*(volatile const int *)p->avail) return 0; /* no pool running: nothing spins */
    int n = p->nthreads() - 1; /* index n is the calling thread: never touched */
    if (n <= 0) return 0;
    if (n > TSG_FENCE_WORKERS) n = TSG_FENCE_WORKERS;
    int done = 0;
    for (int i = 0; i < n; ++i) {
        p->ok[i] = p->getaff(i, sizeof p->saved[i], &p->saved[i]) == 0 &&
                   p->setaff(i, sizeof g_set, &g_set) == 0;
        done += p->ok[i];
    }
    atomic_store_explicit(&p->fenced, n, memory_order_release);
    return done;
}

/* The fence's switch: the rule (on) unless the tests' twin library reads TSGEMM_TEST_FENCE=off
 * (-1; plain, -2: the masks put back without moving the workers off the fence's CPUs first). */
static int fence_on(void) { return tsg_rt_config()->test_fence >= 0; }

void tsg_fence_cpu_enter(const void *fn, const char *entry)
{
    if (!fn) return;
    pool *p = pool_of(fn, entry);
    if (!p || atomic_load_explicit(&p->fenced, memory_order_acquire) == 0) return;
    pthread_mutex_lock(&g_mu);
    restore(p);
    pthread_mutex_unlock(&g_mu);
}

void tsg_fence_cpu_leave(const void *fn)
{
    pool *p = fn ? pool_of(fn, NULL) : NULL;
    if (p) atomic_store_explicit(&p->last_end, tsg_now_s(), memory_order_relaxed);
}

int tsg_fence_gpu_begin(void)
{
    const int np = atomic_load_explicit(&g_npools, memory_order_acquire);
    if (np == 0 || !fence_on()) return -1;
    int done = 0;
    pthread_mutex_lock(&g_mu);
    if (g_depth++ == 0) {
        if (!g_set_ready) make_set();
        if (g_window_s < 0) g_window_s = spin_window_s();
        const double now = tsg_now_s();
        for (int i = 0; i < np && g_set_ready == 1; ++i) {
            pool *p = &g_pools[i];
            const double last = atomic_load_explicit(&p->last_end, memory_order_relaxed);
            if (p->setaff && last > 0 && now - last < g_window_s) {
                const int n = fence(p);
                static int said; /* the first fence, with its cost: once per process */
                if (n > 0 && !said) {
                    said = 1;
                    tsg_log(2, "fence: %d workers of %s on %d CPUs during the GPU call, %.1f ms "
                               "after its last call (%.0f us)", n, p->path, CPU_COUNT(&g_set),
                            (now - last) * 1e3, (tsg_now_s() - now) * 1e6);
                }
                done += n;
            }
        }
    }
    pthread_mutex_unlock(&g_mu);
    return done;
}

void tsg_fence_gpu_end(int begun)
{
    if (begun < 0) return;
    pthread_mutex_lock(&g_mu);
    if (--g_depth == 0) {
        const int np = atomic_load_explicit(&g_npools, memory_order_relaxed);
        for (int i = 0; i < np; ++i) restore(&g_pools[i]);
    }
    pthread_mutex_unlock(&g_mu);
}
