/*
 * tsg_cpublas.c — the CPU backend: TSGEMM_CPU_BLAS, else an OpenBLAS the process already loaded
 * (one instance, one thread pool), else libopenblas.so.0 — always reached through its own dlopen
 * handle, never by global symbol name (under LD_PRELOAD the global cblas_sgemm is ourselves).
 *
 * The calls that came through the caller's own names (the ILP64 and scipy_ ones) run on the library
 * that defines them, when one is loaded (the caller's own); that library is also the one they
 * describe and measure, so a process whose calls all come that way never loads tsgemm's own.
 *
 * Owns: loading and validating the CPU BLAS, finding the caller's own, the re-entrancy guard,
 * 32-bit block splitting of ILP64 calls (through src/tsg_split.c), the description of either and
 * the CPU rate measurement. Must not: dispatch, print anything but the load warnings and the
 * caller's own library found, or touch the GPU.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <unistd.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../src/tsg_cost.h" /* TSG_CPU_SMALL_N, TSG_CPU_MID_N, TSG_CPU_BIG_N */
#include "../src/tsg_split.h"
#include "../src/tsg_trace.h"
#include "tsg_cpublas.h"
#include "tsg_log.h"
#include "tsg_thread.h"

#ifndef TSGEMM_DEFAULT_CPU_BLAS
#define TSGEMM_DEFAULT_CPU_BLAS "libopenblas.so.0"
#endif

typedef tsg_cblas_sgemm_fn cblas_sgemm_fn;
typedef tsg_f77_sgemm_fn f77_sgemm_fn;

static void drain_at_exit(void);

static struct {
    pthread_once_t once;
    void *handle;
    cblas_sgemm_fn cblas;
    f77_sgemm_fn f77;
    char path[512];
    char describe[768];
} fb = {.once = PTHREAD_ONCE_INIT};
/* Set (release) once load_once has finished, whatever it found: fb is then read-only. */
static atomic_int fb_loaded;

/* 1 when fn is defined in this very library (a fallback that resolved to ourselves). */
static int is_ours(void *fn)
{
    Dl_info mine, theirs;
    if (!fn) return 0;
    if (!dladdr((void *)&is_ours, &mine) || !dladdr(fn, &theirs)) return 1; /* cannot tell: refuse */
    return mine.dli_fbase == theirs.dli_fbase;
}

/* 1 when the object at `path` (its handle h) is itself a copy of tsgemm: it defines
 * tsgemm_version, not through one of its dependencies (which dlsym on a handle also searches) */
static int is_tsgemm_copy(void *h, const char *path)
{
    void *v = dlsym(h, "tsgemm_version");
    Dl_info info;
    return v && dladdr(v, &info) && info.dli_fname && strcmp(info.dli_fname, path) == 0;
}

/* 1 when the object that defines fn is a copy of tsgemm (is_tsgemm_copy), or cannot be told:
 * dlsym on a handle also searches the object's dependencies, so a plugin linked to another
 * tsgemm would otherwise pass its name through */
static int defined_by_tsgemm_copy(void *fn)
{
    Dl_info info;
    if (!dladdr(fn, &info) || !info.dli_fname || !info.dli_fname[0]) return 1;
    void *h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
    if (!h) return 1;
    const int copy = is_tsgemm_copy(h, info.dli_fname);
    dlclose(h); /* NOLOAD: only drops the reference taken above */
    return copy;
}

struct find_query {
    const char *name; /* the symbol wanted                              */
    const char *also; /* and a second one the object must define, or NULL */
    void *fn;
    char path[512];
};

/* dl_iterate_phdr callback: the first loaded object, other than tsgemm, defining q->name (and
 * q->also). Objects
 * loaded RTLD_LOCAL (numpy's extension modules and their bundled OpenBLAS) are invisible to
 * dlsym(RTLD_DEFAULT/RTLD_NEXT), so each object is asked through its own handle. Any copy of
 * tsgemm (one that defines tsgemm_version: a program linked to one and preloaded with another,
 * as the tests run tsgemm-bench over libtsgemm_fake) is skipped as this one is, and so is a name
 * an object finds in such a copy among its dependencies (defined_by_tsgemm_copy): its scipy_
 * names are not the caller's own BLAS. */
static int find_in_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct find_query *q = data;
    if (!info->dlpi_name || !info->dlpi_name[0]) return 0; /* the main program: not a BLAS */
    void *h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
    if (!h) return 0;
    void *fn = is_tsgemm_copy(h, info->dlpi_name) ? NULL : dlsym(h, q->name);
    int also = !q->also || dlsym(h, q->also);
    dlclose(h); /* NOLOAD: only drops the reference taken above */
    if (fn && also && !is_ours(fn) && !defined_by_tsgemm_copy(fn)) {
        q->fn = fn;
        snprintf(q->path, sizeof q->path, "%s", info->dlpi_name);
        return 1;
    }
    return 0;
}

/* Loads `name` as the CPU BLAS. On failure returns 0 and says why in why[]. */
static int try_load(const char *name, char *why, size_t len)
{
    /* OpenBLAS starts its worker threads while it loads: with every signal blocked here they
     * start with every signal blocked too, so none of them runs the program's handlers */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!h) {
        snprintf(why, len, "cannot load it: %s", dlerror());
        return 0;
    }
    cblas_sgemm_fn cb = (cblas_sgemm_fn)dlsym(h, "cblas_sgemm");
    f77_sgemm_fn f = (f77_sgemm_fn)dlsym(h, "sgemm_");
    if (is_ours((void *)cb) || is_ours((void *)f)) {
        snprintf(why, len, "it resolves to tsgemm itself");
        return 0; /* keep the handle: dlclose of ourselves would be pointless */
    }
    if (!cb && !f) {
        snprintf(why, len, "it has neither cblas_sgemm nor sgemm_");
        dlclose(h);
        return 0;
    }
    fb.handle = h;
    fb.cblas = cb;
    fb.f77 = f;
    Dl_info info;
    const char *where = dladdr(cb ? (void *)cb : (void *)f, &info) && info.dli_fname
                            ? info.dli_fname : name;
    snprintf(fb.path, sizeof fb.path, "%s", where);
    return 1;
}

/*
 * Writes into buf[len] the description of the library behind handle h (at `path`): "PATH (CONFIG),
 * N threads, core CORE", from its OpenBLAS info functions when it has them — their names decorated
 * as `entry`, the name the library was found by (tsg_api_sibling_name): openblas_get_config for
 * cblas_sgemm, scipy_openblas_get_config64_ for scipy_cblas_sgemm64_. Thread count and core type
 * matter for its speed; N is 0 and the config and core are left out when it lacks them.
 */
/* The thread count of the library behind handle h, found by `entry` (describe_library's naming):
 * its openblas_get_num_threads, or 0 when it has none. */
static int library_threads(void *h, const char *entry)
{
    char n_threads[128];
    int (*threads)(void) = NULL;
    if (tsg_api_sibling_name(entry, "openblas_get_num_threads", n_threads, sizeof n_threads) == 0)
        threads = (int (*)(void))dlsym(h, n_threads);
    return threads ? threads() : 0;
}

static void describe_library(void *h, const char *path, const char *entry, char *buf, size_t len)
{
    char n_core[128], n_conf[128];
    char *(*core)(void) = NULL, *(*conf)(void) = NULL;
    if (tsg_api_sibling_name(entry, "openblas_get_corename", n_core, sizeof n_core) == 0)
        core = (char *(*)(void))dlsym(h, n_core);
    if (tsg_api_sibling_name(entry, "openblas_get_config", n_conf, sizeof n_conf) == 0)
        conf = (char *(*)(void))dlsym(h, n_conf);
    const int nt = library_threads(h, entry);
    const char *cn = core ? core() : NULL;
    const char *cf = conf ? conf() : NULL;
    snprintf(buf, len, "%s%s%s%s, %d threads", path, cf ? " (" : "", cf ? cf : "", cf ? ")" : "", nt);
    if (cn && cn[0]) {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, ", core %s", cn);
    }
}

/* Finds and loads tsgemm's own CPU BLAS into fb (load_once runs it once per process). */
static void load(void)
{
    const tsg_config *cfg = tsg_rt_config();
    char why_user[512] = "", why_default[512] = "";
    int ok = 0;
    if (cfg->cpu_blas[0]) ok = try_load(cfg->cpu_blas, why_user, sizeof why_user);
    if (!ok && !cfg->cpu_blas[0]) {
        /* An OpenBLAS the process already loaded (Debian numpy's libblas.so.3, a program linked
         * to OpenBLAS): use that instance rather than start a second one with its own threads
         * and buffers. */
        struct find_query q = {"cblas_sgemm", "openblas_get_config", NULL, ""};
        dl_iterate_phdr(find_in_object, &q);
        if (q.fn) ok = try_load(q.path, why_default, sizeof why_default);
    }
    if (!ok) {
        ok = try_load(TSGEMM_DEFAULT_CPU_BLAS, why_default, sizeof why_default);
        if (cfg->cpu_blas[0]) /* one line: what was refused, why, and what is used instead */
            tsg_log(1, "TSGEMM_CPU_BLAS=%s not used (%s); using %s", cfg->cpu_blas, why_user,
                    ok ? fb.path : "tsgemm's portable loop");
    }
    if (ok) atexit(drain_at_exit);
    if (!ok) {
        tsg_log(1, "CPU BLAS %s not used (%s); CPU calls use tsgemm's portable loop (slow)",
                TSGEMM_DEFAULT_CPU_BLAS, why_default);
        snprintf(fb.describe, sizeof fb.describe, "portable loop (no CPU BLAS loaded)");
        return;
    }
    describe_library(fb.handle, fb.path, "cblas_sgemm", fb.describe, sizeof fb.describe);
}

static void load_once(void)
{
    load();
    atomic_store_explicit(&fb_loaded, 1, memory_order_release);
}

static void ensure_loaded(void) { pthread_once(&fb.once, load_once); }

void tsg_cpu_entry_points(tsg_cblas_sgemm_fn *cblas, tsg_f77_sgemm_fn *f77)
{
    ensure_loaded();
    *cblas = fb.cblas;
    *f77 = fb.f77;
}

int tsg_cpu_loaded_entry_points(tsg_cblas_sgemm_fn *cblas, tsg_f77_sgemm_fn *f77)
{
    const int loaded = atomic_load_explicit(&fb_loaded, memory_order_acquire);
    if (cblas) *cblas = loaded ? fb.cblas : NULL;
    if (f77) *f77 = loaded ? fb.f77 : NULL;
    return loaded;
}

const char *tsg_cpu_describe(void)
{
    ensure_loaded();
    return fb.describe;
}

/*
 * exit() while another thread is inside the CPU BLAS: atexit handlers run before any library
 * destructor, and OpenBLAS's destructor (gotoblas_quit) joins its threads and frees its buffers —
 * with a call still running that hangs (0.3.21: a busy worker loses the shutdown request) or
 * crashes. So at exit we let the calls in flight finish (bounded) and send calls that start
 * afterwards to the portable loop. Each thread marks itself inside the BLAS in its own block
 * (tsg_thread.h: no locked instruction per call); the exit side sets the flag and then reads
 * every block.
 */
static void drain_at_exit(void) { tsg_thread_exit_drain(20000); /* <= 20 s */ }

/* Marks this thread inside the CPU BLAS (its re-entry guard too); 0 once exit() began. */
static int enter_blas(void)
{
    tsg_thread_self(); /* a block, so that the exit drain sees this thread */
    return tsg_thread_enter_blas(&tsg_tl);
}

static void leave_blas(void) { tsg_thread_leave_blas(&tsg_tl); }

/* One block whose sizes fit 32 bits. */
static void run_block(void *ctx, const tsg_problem *p)
{
    (void)ctx;
    if ((fb.cblas || fb.f77) && !enter_blas()) {
        tsg_ref_sgemm(p);
        return;
    }
    if (fb.cblas) {
        fb.cblas(TSG_CBLAS_COL_MAJOR, p->transa == 'N' ? TSG_CBLAS_NO_TRANS : TSG_CBLAS_TRANS,
                 p->transb == 'N' ? TSG_CBLAS_NO_TRANS : TSG_CBLAS_TRANS, (int)p->m, (int)p->n,
                 (int)p->k, p->alpha, p->a, (int)p->lda, p->b, (int)p->ldb, p->beta, p->c,
                 (int)p->ldc);
    } else if (fb.f77) {
        int m = (int)p->m, n = (int)p->n, k = (int)p->k;
        int lda = (int)p->lda, ldb = (int)p->ldb, ldc = (int)p->ldc;
        fb.f77(&p->transa, &p->transb, &m, &n, &k, &p->alpha, p->a, &lda, p->b, &ldb, &p->beta,
               p->c, &ldc, 1, 1);
    } else {
        tsg_ref_sgemm(p);
        return;
    }
    leave_blas();
}

void tsg_cpu_sgemm(const tsg_problem *p)
{
    ensure_loaded();
    if (!fb.cblas && !fb.f77) {
        tsg_ref_sgemm(p);
    } else if (tsg_fits_int32(p)) {
        run_block(NULL, p);
    } else if (tsg_split_int32(p, run_block, NULL, TSG_INT32_BLOCK) != 0) {
        tsg_ref_sgemm(p); /* a leading dimension beyond 32 bits: no BLAS call can express it */
    }
}

/* ---- the caller's own BLAS: the wheel's OpenBLAS behind the ILP64 and scipy_ names ---- */

typedef tsg_cblas64_sgemm_fn cblas64_fn;

/*
 * The loaded library (not tsgemm) that defines the name a call came through, looked up once per
 * name at the first call through it: the caller's own BLAS is necessarily loaded by then (the
 * extension module calling scipy_sgemm_ links it), while a lookup made earlier — at numpy's first
 * product, before scipy was imported — would miss it for good. No lock is held across
 * dl_iterate_phdr (it takes the loader's lock, and a library constructor calling SGEMM under it
 * must not wait for us): threads racing here each find the same answer, the first to publish it
 * logs it.
 */
static struct {
    _Atomic(void *) fn[TSG_API_COUNT];
    atomic_int done[TSG_API_COUNT]; /* set (release) after fn is stored */
} native;

/* the names that have one (tsg_trace_entry follows tsg_api: shim/tsg_runtime.c asserts it) */
static int has_native(tsg_api api) { return tsg_trace_entry_own_blas((int)api); }

static void *native_fn(tsg_api api)
{
    if (atomic_load_explicit(&native.done[api], memory_order_acquire))
        return atomic_load_explicit(&native.fn[api], memory_order_relaxed);
    struct find_query q = {tsg_api_name(api), NULL, NULL, ""};
    dl_iterate_phdr(find_in_object, &q);
    atomic_store_explicit(&native.fn[api], q.fn, memory_order_relaxed);
    if (atomic_exchange_explicit(&native.done[api], 1, memory_order_acq_rel) == 0 && q.fn) {
        Dl_info info;
        tsg_log(2, "CPU path of %s: the caller's own %s", q.name,
                dladdr(q.fn, &info) && info.dli_fname ? info.dli_fname : "library");
    }
    return q.fn;
}

int tsg_cpu_own_pool(tsg_api api) { return has_native(api) && native_fn(api) != NULL; }

void tsg_cpu_native_lookup(tsg_api api)
{
    if (has_native(api)) (void)native_fn(api);
}

void *tsg_cpu_tiny_fn(tsg_api api, int *decided)
{
    *decided = 1;
    if (!has_native(api)) return NULL; /* the ILP64 Fortran names: the full path */
    if (!atomic_load_explicit(&native.done[api], memory_order_acquire)) {
        *decided = 0;
        return NULL;
    }
    void *fn = atomic_load_explicit(&native.fn[api], memory_order_relaxed);
    if (fn) return fn;
    if (api != TSG_API_SCIPY_CBLAS && api != TSG_API_SCIPY_F77) return NULL; /* ILP64: blocks */
    tsg_cblas_sgemm_fn cblas;
    tsg_f77_sgemm_fn f77;
    if (!tsg_cpu_loaded_entry_points(&cblas, &f77)) {
        *decided = 0; /* tsgemm's own, once a call's CPU path loads it */
        return NULL;
    }
    return api == TSG_API_SCIPY_CBLAS ? (void *)cblas : (void *)f77;
}

/* Runs p on the library behind `fn` with the calling convention of `api`. */
static void run_native(tsg_api api, void *fn, const tsg_problem *p)
{
    int ta = p->transa == 'N' ? TSG_CBLAS_NO_TRANS : TSG_CBLAS_TRANS;
    int tb = p->transb == 'N' ? TSG_CBLAS_NO_TRANS : TSG_CBLAS_TRANS;
    if (api == TSG_API_SCIPY_CBLAS) {
        ((cblas_sgemm_fn)fn)(TSG_CBLAS_COL_MAJOR, ta, tb, (int)p->m, (int)p->n, (int)p->k,
                             p->alpha, p->a, (int)p->lda, p->b, (int)p->ldb, p->beta, p->c,
                             (int)p->ldc);
    } else if (api == TSG_API_SCIPY_F77) {
        int m = (int)p->m, n = (int)p->n, k = (int)p->k;
        int lda = (int)p->lda, ldb = (int)p->ldb, ldc = (int)p->ldc;
        ((f77_sgemm_fn)fn)(&p->transa, &p->transb, &m, &n, &k, &p->alpha, p->a, &lda, p->b, &ldb,
                           &p->beta, p->c, &ldc, 1, 1);
    } else {
        ((cblas64_fn)fn)(TSG_CBLAS_COL_MAJOR, ta, tb, p->m, p->n, p->k, p->alpha, p->a, p->lda,
                         p->b, p->ldb, p->beta, p->c, p->ldc);
    }
}

void tsg_cpu_sgemm_api(tsg_api api, const tsg_problem *p)
{
    if (has_native(api)) {
        void *fn = native_fn(api);
        /* the LP64 names take 32-bit sizes: a call through them always fits (a CPU retry of a
         * GPU call's remaining columns is smaller still), checked all the same */
        int fits = api == TSG_API_SCIPY_CBLAS64 || api == TSG_API_CBLAS64 || tsg_fits_int32(p);
        if (fn && fits && enter_blas()) {
            run_native(api, fn, p);
            leave_blas();
            return;
        }
    }
    tsg_cpu_sgemm(p);
}

void tsg_cpu_describe_api(tsg_api api, char *buf, size_t len)
{
    void *fn = has_native(api) ? native_fn(api) : NULL;
    if (!fn) {
        snprintf(buf, len, "%s", tsg_cpu_describe());
        return;
    }
    Dl_info info;
    const char *path = dladdr(fn, &info) && info.dli_fname && info.dli_fname[0] ? info.dli_fname : NULL;
    void *h = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL) : NULL;
    if (!h) { /* not expected of a loaded library: its name alone */
        snprintf(buf, len, "%s (the library of %s), 0 threads", path ? path : "?", tsg_api_name(api));
        return;
    }
    describe_library(h, path, tsg_api_name(api), buf, len);
    dlclose(h); /* NOLOAD: only drops the reference taken above */
}

/* The thread count of the CPU BLAS behind `api` (the caller's own library or tsgemm's), 0 when it
 * does not say (no openblas_get_num_threads) */
static int api_threads(tsg_api api)
{
    void *fn = has_native(api) ? native_fn(api) : NULL;
    if (!fn) {
        ensure_loaded();
        return fb.handle ? library_threads(fb.handle, "cblas_sgemm") : 0;
    }
    Dl_info info;
    const char *path = dladdr(fn, &info) && info.dli_fname && info.dli_fname[0] ? info.dli_fname : NULL;
    void *h = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL) : NULL;
    if (!h) return 0;
    const int nt = library_threads(h, tsg_api_name(api));
    dlclose(h); /* NOLOAD: only drops the reference taken above */
    return nt;
}

void tsg_cpu_forward_cblas(int layout, int transa, int transb, int m, int n, int k, float alpha,
                           const float *a, int lda, const float *b, int ldb, float beta, float *c,
                           int ldc)
{
    ensure_loaded();
    if (fb.cblas) {
        fb.cblas(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    tsg_call call; /* no library cblas_sgemm: our own rules + loop, still without recursion */
    if (tsg_map_cblas(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &call))
        return;
    if (tsg_apply_scalar_rules(&call.p) == TSG_RULE_COMPUTE) tsg_ref_sgemm(&call.p);
}

void tsg_cpu_forward_f77(const char *transa, const char *transb, const int *m, const int *n,
                         const int *k, const float *alpha, const float *a, const int *lda,
                         const float *b, const int *ldb, const float *beta, float *c,
                         const int *ldc)
{
    ensure_loaded();
    if (fb.f77) {
        fb.f77(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
        return;
    }
    tsg_call call;
    if (tsg_map_fortran(*transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc,
                        &call))
        return;
    if (tsg_apply_scalar_rules(&call.p) == TSG_RULE_COMPUTE) tsg_ref_sgemm(&call.p);
}


/* Seconds of one call of p through `api`'s CPU path (tsg_cpu_sgemm_api). */
static double time_call(tsg_api api, const tsg_problem *p)
{
    double t0 = tsg_now_s();
    tsg_cpu_sgemm_api(api, p);
    return tsg_now_s() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of `reps` timed calls of p through `api` after one untimed one (reps <= 9). */
static double median_call(tsg_api api, const tsg_problem *p, int reps)
{
    double t[9];
    time_call(api, p); /* warm-up: starts OpenBLAS's threads, faults the pages in */
    for (int r = 0; r < reps; ++r) t[r] = time_call(api, p);
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    return t[reps / 2];
}

/* The fastest of `reps` timed calls of p through `api`, after one untimed one: what a one-way
 * check needs (a call cannot run faster than the machine allows, so the fastest is the reading
 * least disturbed by load). */
static double best_call(tsg_api api, const tsg_problem *p, int reps)
{
    time_call(api, p);
    double best = 0;
    for (int r = 0; r < reps; ++r) {
        const double t = time_call(api, p);
        if (r == 0 || t < best) best = t;
    }
    return best;
}

/* Mean of `reps` timed calls of p through `api` less the slowest, after one untimed one
 * (reps <= 16). */
static double mean_call(tsg_api api, const tsg_problem *p, int reps)
{
    double t[16];
    time_call(api, p);
    for (int r = 0; r < reps; ++r) t[r] = time_call(api, p);
    return tsg_mean_less_slowest(t, reps);
}

/* Median seconds of the two thin calls (src/tsg_cost.h TSG_CPU_THIN) through `api`: m thin, then
 * n thin; 0, 0 when the buffers cannot be had. */
static void thin_calls(tsg_api api, double *thin_m_s, double *thin_n_s)
{
    enum { L = TSG_CPU_THIN_LONG, T = TSG_CPU_THIN };
    *thin_m_s = *thin_n_s = 0;
    float *big = malloc(sizeof(float) * ((size_t)L * L + 2u * (size_t)L * T));
    if (!big) return;
    float *const thin1 = big + (size_t)L * L, *const thin2 = thin1 + (size_t)L * T;
    for (size_t i = 0; i < (size_t)L * L + 2u * (size_t)L * T; ++i) big[i] = (float)(i & 1023) / 512.0f - 1;
    /* m thin: C (T x L) = A (T x L) B (L x L); n thin: C (L x T) = A (L x L) B (L x T) */
    tsg_problem pm = {'N', 'N', T, L, L, 1.0f, 0.0f, thin1, T, big, L, thin2, T, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    *thin_m_s = median_call(api, &pm, 3);
    tsg_problem pn = {'N', 'N', L, T, L, 1.0f, 0.0f, big, L, thin1, L, thin2, L, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    *thin_n_s = median_call(api, &pn, 3);
    free(big);
}

static double touch_bps(int threads);
enum { TOUCH_MAX_THREADS = 64 }; /* touch_bps's threads at most */

void tsg_cpu_measure(tsg_api api, tsg_cpu_rates *out)
{
    double *const flops = &out->flops, *const mid_s = &out->mid_s, *const small_s = &out->small_s;
    int touch_threads = api_threads(api); /* 0: the library does not say */
    touch_threads = touch_threads < 1 ? 1 : touch_threads > TOUCH_MAX_THREADS ? TOUCH_MAX_THREADS : touch_threads;
    out->touch_bps = touch_bps(touch_threads); /* a fresh C's first touch (src/tsg_cost.h) */
    tsg_log(2, "first touch of fresh memory by up to %d thread%s at once (the CPU BLAS's count): %.3g GB/s",
            touch_threads, touch_threads > 1 ? "s" : "", out->touch_bps * 1e-9);
    out->samples = 1;
    /* TSG_CPU_BIG_N^3 (1024^3): big enough for OpenBLAS's threads to reach their large-problem
     * rate (the rate the decisions above it need: rank-k updates, n ~ 1000 and up), small enough
     * to take a few ms; TSG_CPU_MID_N^3 (512^3): near the crossover, where OpenBLAS's threaded
     * calls still pay a fixed cost of their own (src/tsg_cost.h). Medians, not the best of a few:
     * a call in auto mode takes the usual time, not the luckiest (v0.9 run 3: 1024^3's best was
     * 0.92 TFLOP/s, the bench's median 0.51). TSG_CPU_SMALL_N^3 (256^3): the crossover on the
     * H200 host, priced as the mean less the slowest call (src/tsg_cost.h says why). */
    enum { N = TSG_CPU_BIG_N, M = TSG_CPU_MID_N, Q = TSG_CPU_SMALL_N, S = 8 };
    float *buf = malloc(sizeof(float) * 3 * N * N);
    if (!buf) {
        *flops = 1e11; /* 100 GFLOP/s: a modest guess that still keeps small calls on the CPU */
        *mid_s = 0;    /* the one-rate model */
        *small_s = 0;
        out->latency_s = 2e-6;
        out->thin_m_s = out->thin_n_s = 0; /* not measured: no thinness factor */
        return;
    }
    for (size_t i = 0; i < 3u * N * N; ++i) buf[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1;
    tsg_problem p = {'N', 'N', N, N, N, 1.0f, 0.0f, buf, N, buf + N * N, N, buf + 2 * N * N, N, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    *flops = tsg_flops(&p) / median_call(api, &p, 5);
    tsg_problem mid = {'N', 'N', M, M, M, 1.0f, 0.0f, buf, M, buf + N * N, M, buf + 2 * N * N, M, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    *mid_s = median_call(api, &mid, 7);
    tsg_problem quarter = {'N', 'N', Q, Q, Q, 1.0f, 0.0f, buf, Q, buf + N * N, Q, buf + 2 * N * N, Q, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    *small_s = mean_call(api, &quarter, 15);
    tsg_problem small = {'N', 'N', S, S, S, 1.0f, 0.0f, buf, S, buf + N * N, S, buf + 2 * N * N, S, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    double lat = 1e30;
    for (int r = 0; r < 5; ++r) {
        double t = time_call(api, &small);
        if (t < lat) lat = t;
    }
    out->latency_s = lat;
    free(buf);
    thin_calls(api, &out->thin_m_s, &out->thin_n_s);
}

double tsg_cpu_spot_s(tsg_api api)
{
    enum { Q = TSG_CPU_SMALL_N };
    float *buf = malloc(sizeof(float) * 3 * Q * Q);
    if (!buf) return 0;
    for (size_t i = 0; i < 3u * Q * Q; ++i) buf[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1;
    tsg_problem p = {'N', 'N', Q, Q, Q, 1.0f, 0.0f, buf, Q, buf + Q * Q, Q, buf + 2 * Q * Q, Q, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    const double t = best_call(api, &p, 2);
    free(buf);
    return t;
}

/* One thread's part of touch_bps's mapping: one byte written per 4 KiB page of [lo, hi) once
 * *go is set; *ready counts the threads waiting for it */
struct touch_part {
    char *lo, *hi;
    atomic_int *go, *ready;
};

static void touch_range(char *lo, char *hi)
{
    for (char *q = lo; q < hi; q += 4096) *(volatile char *)q = 1;
}

static void *touch_part_run(void *arg)
{
    const struct touch_part *t = (const struct touch_part *)arg;
    pthread_setname_np(pthread_self(), "tsg-touch");
    atomic_fetch_add(t->ready, 1);
    while (!atomic_load(t->go)) sched_yield();
    touch_range(t->lo, t->hi);
    return NULL;
}

/*
 * The first touch of a new mapping, parts of TOUCH_BYTES / threads (512 KiB to 2 MiB each), by
 * `threads` threads (1 to TOUCH_MAX_THREADS) at once, each writing its own contiguous part as a BLAS's
 * threads write their parts of C: bytes per second from the start (every thread made and
 * waiting) to the last join; 0 when no mapping can be had. A thread that cannot be made (a
 * process or memory limit) leaves the measurement to those that were. The threads start with
 * every signal blocked (none runs the program's handlers) and small stacks; cancellation is off
 * in here, so the threads never outlive the stack their parts live on.
 */
enum { TOUCH_BYTES = 32 << 20, TOUCH_MIN_PART = 512 << 10, TOUCH_MAX_PART = 2 << 20 };
static double touch_once(int threads)
{
    size_t part = TOUCH_BYTES / (size_t)threads;
    part = part < TOUCH_MIN_PART ? TOUCH_MIN_PART : part > TOUCH_MAX_PART ? TOUCH_MAX_PART : part & ~(size_t)4095;
    char *m = mmap(NULL, part * (size_t)threads, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return 0;
    int cs;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cs);
    atomic_int go = 0, ready = 0;
    struct touch_part parts[TOUCH_MAX_THREADS];
    pthread_t tid[TOUCH_MAX_THREADS];
    for (int i = 0; i < threads; ++i)
        parts[i] = (struct touch_part){m + (size_t)i * part, m + (size_t)(i + 1) * part, &go, &ready};
    pthread_attr_t attr;
    const int have_attr = pthread_attr_init(&attr) == 0;
    if (have_attr) (void)pthread_attr_setstacksize(&attr, 64 << 10);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int made = 0; /* threads 1 .. made exist; this one touches part 0 */
    while (made < threads - 1 &&
           pthread_create(&tid[made + 1], have_attr ? &attr : NULL, touch_part_run, &parts[made + 1]) == 0)
        ++made;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (have_attr) pthread_attr_destroy(&attr);
    while (atomic_load(&ready) < made) sched_yield();
    const double t0 = tsg_now_s();
    atomic_store(&go, 1);
    touch_range(parts[0].lo, parts[0].hi);
    for (int i = 1; i <= made; ++i) pthread_join(tid[i], NULL);
    const double t = tsg_now_s() - t0;
    munmap(m, part * (size_t)threads);
    pthread_setcancelstate(cs, NULL);
    /* the parts of threads never made were not touched: only the made ones count */
    return t > 0 ? (double)part * (double)(made + 1) / t : 0;
}

/* a fresh C's first touch by `threads` threads (the CPU BLAS's count, 1 to TOUCH_MAX_THREADS),
 * the fastest of 3 touch_once, in bytes per second; 0 when not measured */
static double touch_bps(int threads)
{
    if (threads < 1) threads = 1;
    if (threads > TOUCH_MAX_THREADS) threads = TOUCH_MAX_THREADS;
    double best = 0;
    for (int r = 0; r < 3; ++r) {
        const double b = touch_once(threads);
        if (b > best) best = b;
    }
    return best >= 1e6 && best <= 1e13 ? best : 0;
}
