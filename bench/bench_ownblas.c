/*
 * bench_ownblas.c — the library that stands for a replayed trace's own BLAS (tsgemm-bench
 * --replay FILE --own-blas PATH).
 *
 * A program that called SGEMM through numpy's or scipy's names (scipy_cblas_sgemm64_,
 * cblas_sgemm64_, scipy_cblas_sgemm, scipy_sgemm_: src/tsg_trace.h tsg_trace_entry_own_blas) had
 * its wheel's OpenBLAS loaded, which defines the same names. Preloaded, tsgemm then runs the CPU
 * side of those calls on that library and, in auto mode, asks twice the CPU's speed of the GPU
 * (tsg_problem.own_pool, src/tsg_dispatch.h TSG_GPU_MARGIN_OWN_POOL). In the replaying process only
 * tsgemm defines them unless a library is loaded for them here: bench_own_blas_open loads it
 * (RTLD_LOCAL, as the program's extension module had it: the shim finds it all the same, since it
 * asks every loaded object), and bench_own_blas_fn says which function stands for an entry's
 * own, found as tsgemm's shim finds it: the replay's plain pass calls it (that is what the
 * program ran without tsgemm).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include "bench.h"
#include "tsg_trace.h"

/* The function `name` defined by the object behind h itself (not by one of its dependencies,
 * which dlsym on a handle also searches), or NULL. */
static void *own_symbol(void *h, const char *name)
{
    struct link_map *lm = NULL;
    void *fn = dlsym(h, name);
    Dl_info info;
    if (!fn || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !dladdr(fn, &info) || !info.dli_fname)
        return NULL;
    return strcmp(info.dli_fname, lm->l_name) == 0 ? fn : NULL;
}

/* 1 when the object behind handle h is itself a copy of tsgemm (it defines tsgemm_version): never
 * the caller's own BLAS, the shim skips it too (shim/tsg_cpublas.c find_in_object) */
static int is_tsgemm(void *h) { return own_symbol(h, "tsgemm_version") != NULL; }

int bench_own_blas_open(bench_own_blas *ob, const char *path, char *why, size_t len)
{
    if (getauxval(AT_SECURE)) { /* a privileged process loads no library a caller names */
        snprintf(why, len, "not in a privileged (AT_SECURE) process");
        return -1;
    }
    if (ob->n >= BENCH_OWN_BLAS_MAX) {
        snprintf(why, len, "at most %d libraries", BENCH_OWN_BLAS_MAX);
        return -1;
    }
    if (!strchr(path, '/')) { /* a bare name would be looked up on the loader's search path */
        snprintf(why, len, "a path with a '/' is needed (./%s for a file here)", path);
        return -1;
    }
    char *real = ob->path[ob->n];
    struct stat st;
    if (!realpath(path, real) || stat(real, &st) != 0) {
        snprintf(why, len, "%s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, len, "%s is not a regular file", real);
        return -1;
    }
    /* OpenBLAS starts its worker threads while it loads: with every signal blocked here they
     * start with every signal blocked too (as tsgemm loads its own, shim/tsg_cpublas.c) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!h) {
        snprintf(why, len, "cannot load it: %s", dlerror());
        return -1;
    }
    int names = 0;
    for (int e = 0; e < TSG_TRACE_ENTRY_COUNT; ++e)
        names += tsg_trace_entry_own_blas(e) && own_symbol(h, tsg_trace_entry_name(e)) != NULL;
    if (is_tsgemm(h) || names == 0) {
        snprintf(why, len, "%s", is_tsgemm(h) ? "it is a copy of tsgemm"
                                              : "it defines none of scipy_cblas_sgemm64_, "
                                                "cblas_sgemm64_, scipy_cblas_sgemm, scipy_sgemm_");
        dlclose(h);
        return -1;
    }
    ob->handle[ob->n++] = h;
    return 0;
}

struct find_query {
    const char *name;
    void *fn;
    const char *lib;
};

/* dl_iterate_phdr callback: the first loaded object, not a copy of tsgemm, defining q->name */
static int find_in_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct find_query *q = data;
    if (!info->dlpi_name || !info->dlpi_name[0]) return 0; /* the main program */
    void *h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
    if (!h) return 0;
    void *fn = is_tsgemm(h) ? NULL : own_symbol(h, q->name);
    dlclose(h); /* NOLOAD: only drops the reference taken above */
    if (!fn) return 0;
    q->fn = fn;
    q->lib = info->dlpi_name;
    return 1;
}

void *bench_own_blas_fn(int entry, const char **lib)
{
    *lib = NULL;
    if (!tsg_trace_entry_own_blas(entry)) return NULL;
    /* the shim's own search (shim/tsg_cpublas.c native_fn), so that the function named here is
     * the one tsgemm finds: the libraries given, in their order, or one the process loaded
     * otherwise (LD_PRELOAD) */
    struct find_query q = {tsg_trace_entry_name(entry), NULL, NULL};
    dl_iterate_phdr(find_in_object, &q);
    *lib = q.lib;
    return q.fn;
}
