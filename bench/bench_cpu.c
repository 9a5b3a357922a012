/*
 * bench_cpu.c — the real OpenBLAS and the host it runs on.
 *
 * The bench links libtsgemm, so the global cblas_sgemm is ours: OpenBLAS is reached only through
 * its own dlopen(RTLD_LOCAL) handle. The same soname is what tsgemm's CPU path loads, so both
 * share one OpenBLAS instance (and thread pool) in this process.
 * Must not: call any BLAS by global name.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bench.h"
#include "tsgemm.h"

static void read_cpu_model(bench_cpu *cpu)
{
    snprintf(cpu->model, sizeof cpu->model, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10)) {
                char *v = strchr(line, ':');
                if (v) {
                    v += 1 + strspn(v + 1, " \t");
                    v[strcspn(v, "\n")] = '\0';
                    snprintf(cpu->model, sizeof cpu->model, "%s", v);
                }
                break;
            }
        }
        fclose(f);
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cpu->online_cpus = n > 0 ? (int)n : 0;
}

int bench_cpu_load(bench_cpu *cpu, const char *name)
{
    memset(cpu, 0, sizeof *cpu);
    read_cpu_model(cpu);
    const char *names[] = {name, "libopenblas.so.0", "libopenblas.so"};
    char tried[256] = "";
    for (size_t i = name ? 0 : 1; i < sizeof names / sizeof *names; ++i) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            size_t l = strlen(tried);
            snprintf(tried + l, sizeof tried - l, "%s%s", l ? ", " : "", names[i]);
            if (name) break; /* an explicit choice is not silently replaced */
            continue;
        }
        bench_cblas_sgemm_fn f = (bench_cblas_sgemm_fn)dlsym(h, "cblas_sgemm");
        Dl_info mine, theirs;
        if (!f) {
            snprintf(cpu->why, sizeof cpu->why, "%s has no cblas_sgemm", names[i]);
            dlclose(h);
            return -1;
        }
        if (dladdr((void *)&tsgemm_version, &mine) && dladdr((void *)f, &theirs) &&
            mine.dli_fbase == theirs.dli_fbase) {
            snprintf(cpu->why, sizeof cpu->why, "%s resolves cblas_sgemm to tsgemm itself",
                     names[i]);
            return -1;
        }
        cpu->handle = h;
        cpu->sgemm = f;
        snprintf(cpu->path, sizeof cpu->path, "%s",
                 dladdr((void *)f, &theirs) && theirs.dli_fname ? theirs.dli_fname : names[i]);
        char *(*conf)(void) = (char *(*)(void))dlsym(h, "openblas_get_config");
        char *(*core)(void) = (char *(*)(void))dlsym(h, "openblas_get_corename");
        int (*threads)(void) = (int (*)(void))dlsym(h, "openblas_get_num_threads");
        snprintf(cpu->config, sizeof cpu->config, "%s", conf ? conf() : "(no openblas_get_config)");
        snprintf(cpu->corename, sizeof cpu->corename, "%s", core ? core() : "?");
        cpu->threads = threads ? threads() : 0;
        return 0;
    }
    snprintf(cpu->why, sizeof cpu->why, "OpenBLAS not found (tried %.200s)", tried);
    return -1;
}

int bench_cpu_core_suspicious(const bench_cpu *cpu)
{
    const char *env = getenv("OPENBLAS_CORETYPE");
    if (env && *env) return 0;
    /* Cores OpenBLAS falls back to when it does not recognise the CPU (e.g. under a hypervisor
     * that hides the model): SSE-era kernels, ~6x below an AVX-512 server. */
    static const char *const generic[] = {"prescott", "core2",   "katmai",   "coppermine",
                                          "northwood", "banias", "penryn",   "dunnington",
                                          "atom",      "athlon", "opteron",  "barcelona",
                                          "nano",      "generic", "unknown"};
    for (size_t i = 0; i < sizeof generic / sizeof *generic; ++i)
        if (!strcasecmp(cpu->corename, generic[i])) return 1;
    return 0;
}
