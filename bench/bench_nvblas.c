/*
 * bench_nvblas.c — NVBLAS columns. NVBLAS reads its configuration (NVBLAS_CONFIG_FILE) once per
 * process, so each configuration runs in a child: this executable re-exec'd with the hidden
 * option --nvblas-worker CONFIG, which regenerates the same inputs, times NVBLAS's sgemm_ (loaded
 * by dlopen RTLD_LOCAL, called through its own handle) and writes one line per shape to its
 * stdout, a pipe read here.
 *
 * Owns: the run's temporary directory, the two configuration files, spawning (posix_spawn of
 * /proc/self/exe's target, with NVBLAS_CONFIG_FILE added to the environment) and reading the
 * worker, the worker's line format, finding libnvblas. Must not: load NVBLAS in the parent.
 *
 * Line format (worker -> parent), tab-separated:
 *   TSGB <index> <status> <reps> <median_ms> <min_ms> <max_ms> <max_rel_err> <reason>
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* ------------------------------------------------------------------ temporary directory */

static char g_tmpdir[512];

const char *bench_tmpdir(void)
{
    if (g_tmpdir[0]) return g_tmpdir;
    const char *base = getenv("TMPDIR");
    snprintf(g_tmpdir, sizeof g_tmpdir, "%s/tsgemm-bench-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(g_tmpdir)) {
        g_tmpdir[0] = '\0';
        return NULL;
    }
    return g_tmpdir;
}

void bench_tmpdir_cleanup(int keep)
{
    if (!g_tmpdir[0]) return;
    if (keep) {
        fprintf(stderr, "tsgemm-bench: temporary files kept in %s\n", g_tmpdir);
        return;
    }
    DIR *dir = opendir(g_tmpdir);
    if (dir) {
        struct dirent *e;
        while ((e = readdir(dir))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", g_tmpdir, e->d_name);
            unlink(p);
        }
        closedir(dir);
    }
    rmdir(g_tmpdir);
    g_tmpdir[0] = '\0';
}

/* ------------------------------------------------------------------ configurations */

const char *bench_nvblas_describe(int impl)
{
    return impl == BI_NVBLAS_TUNED ? "NVBLAS_AUTOPIN_MEM_ENABLED + NVBLAS_TILE_DIM 4096"
                                   : "defaults (only NVBLAS_CPU_BLAS_LIB set)";
}

static const char *tag(int impl) { return impl == BI_NVBLAS_TUNED ? "tuned" : "default"; }

static int write_config(int impl, const bench_opts *o, const char *cpu_blas, char *path,
                        size_t len)
{
    const char *dir = bench_tmpdir();
    if (!dir) return -1;
    snprintf(path, len, "%s/nvblas-%s.conf", dir, tag(impl));
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "# written by tsgemm-bench for the %s column\n", bench_impl_name(impl));
    fprintf(f, "NVBLAS_LOGFILE %s/nvblas-%s.log\n", dir, tag(impl));
    fprintf(f, "NVBLAS_CPU_BLAS_LIB %s\n", cpu_blas);
    if (o->device != 0) fprintf(f, "NVBLAS_GPU_LIST %d\n", o->device);
    if (impl == BI_NVBLAS_TUNED) fprintf(f, "NVBLAS_AUTOPIN_MEM_ENABLED\nNVBLAS_TILE_DIM 4096\n");
    return fclose(f);
}

/* Echoes the first lines of the worker's NVBLAS log to stderr (it explains most failures). */
static void show_log(int impl)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/nvblas-%s.log", g_tmpdir, tag(impl));
    FILE *f = fopen(p, "r");
    if (!f) return;
    char line[512];
    for (int i = 0; i < 6 && fgets(line, sizeof line, f); ++i)
        fprintf(stderr, "tsgemm-bench: nvblas log (%s): %s%s", tag(impl), line,
                line[strlen(line) - 1] == '\n' ? "" : "\n");
    fclose(f);
}

/* ------------------------------------------------------------------ parent side */

static void mark_rest(bench_result *res, int nshapes, int impl, const int *got, const char *why)
{
    for (int i = 0; i < nshapes; ++i)
        if (!got[i]) bench_result_set(&res[i * BI_COUNT + impl], BS_FAIL, "%s", why);
}

static int parse_line(char *line, int nshapes, bench_result *out, int *index)
{
    line[strcspn(line, "\n")] = '\0';
    char *f[9];
    int n = 0;
    char *s = line;
    while (n < 8) { /* eight tab-terminated fields, then the reason (the rest of the line) */
        f[n++] = s;
        char *t = strchr(s, '\t');
        if (!t) return -1;
        *t = '\0';
        s = t + 1;
    }
    f[n++] = s;
    if (n != 9 || strcmp(f[0], "TSGB")) return -1;
    *index = atoi(f[1]);
    if (*index < 0 || *index >= nshapes) return -1;
    int st = bench_status_from_name(f[2]);
    if (st < 0) return -1;
    out->status = st;
    out->reps = atoi(f[3]);
    out->median_ms = strtod(f[4], NULL);
    out->min_ms = strtod(f[5], NULL);
    out->max_ms = strtod(f[6], NULL);
    out->err = strtod(f[7], NULL);
    snprintf(out->reason, sizeof out->reason, "%s", f[8]);
    return 0;
}

void bench_nvblas_run(int impl, const bench_opts *o, const bench_shape *shapes, int nshapes,
                      const char *cpu_blas_path, bench_result *res)
{
    int *got = calloc((size_t)nshapes, sizeof *got);
    char cfg[1024];
    if (!got) return;
    if (write_config(impl, o, cpu_blas_path, cfg, sizeof cfg) != 0) {
        mark_rest(res, nshapes, impl, got, "cannot write the NVBLAS config file");
        free(got);
        return;
    }
    size_t slen = (size_t)nshapes * 64 + 16;
    char *stext = malloc(slen);
    if (!stext || bench_format_shapes(shapes, nshapes, stext, slen) != 0) {
        mark_rest(res, nshapes, impl, got, "out of memory");
        free(stext);
        free(got);
        return;
    }
    char a_impl[16], a_reps[32], a_warm[32], a_alpha[48], a_beta[48], a_seed[32], a_tol[48],
        a_budget[48];
    snprintf(a_impl, sizeof a_impl, "%d", impl);
    snprintf(a_reps, sizeof a_reps, "%d", o->reps);
    snprintf(a_warm, sizeof a_warm, "%d", o->warmup);
    snprintf(a_alpha, sizeof a_alpha, "%.9g", (double)o->alpha);
    snprintf(a_beta, sizeof a_beta, "%.9g", (double)o->beta);
    snprintf(a_seed, sizeof a_seed, "%llu", (unsigned long long)o->seed);
    snprintf(a_tol, sizeof a_tol, "%.17g", o->tol);
    snprintf(a_budget, sizeof a_budget, "%.17g", o->budget_s);
    const char *argv[32];
    int ac = 0;
    argv[ac++] = "tsgemm-bench";
    argv[ac++] = "--nvblas-worker";
    argv[ac++] = cfg;
    argv[ac++] = "--worker-impl";
    argv[ac++] = a_impl;
    argv[ac++] = "--shapes";
    argv[ac++] = stext;
    if (o->reps_given) argv[ac++] = "--reps", argv[ac++] = a_reps;
    argv[ac++] = "--warmup", argv[ac++] = a_warm;
    argv[ac++] = "--alpha", argv[ac++] = a_alpha;
    argv[ac++] = "--beta", argv[ac++] = a_beta;
    argv[ac++] = "--seed", argv[ac++] = a_seed;
    argv[ac++] = "--budget", argv[ac++] = a_budget;
    if (o->tol > 0) argv[ac++] = "--tol", argv[ac++] = a_tol;
    if (o->openblas) argv[ac++] = "--openblas", argv[ac++] = o->openblas;
    if (o->nvblas_lib) argv[ac++] = "--nvblas-lib", argv[ac++] = o->nvblas_lib;
    argv[ac] = NULL;

    /* The child's environment: ours plus NVBLAS_CONFIG_FILE, built before spawning (nothing
     * that allocates runs between fork and exec; posix_spawn does both). */
    extern char **environ;
    size_t nenv = 0;
    while (environ[nenv]) ++nenv;
    char **envp = malloc(sizeof *envp * (nenv + 2));
    char envcfg[1100];
    snprintf(envcfg, sizeof envcfg, "NVBLAS_CONFIG_FILE=%s", cfg);
    char self[1024];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    int fds[2] = {-1, -1};
    if (!envp || sl <= 0 || pipe(fds) != 0) {
        mark_rest(res, nshapes, impl, got, "cannot prepare the nvblas worker (memory, pipe)");
        if (fds[0] >= 0) close(fds[0]), close(fds[1]);
        free(envp);
        free(stext);
        free(got);
        return;
    }
    self[sl] = '\0';
    size_t ne = 0;
    for (size_t i = 0; i < nenv; ++i)
        if (strncmp(environ[i], "NVBLAS_CONFIG_FILE=", 19)) envp[ne++] = environ[i];
    envp[ne++] = envcfg;
    envp[ne] = NULL;
    /* Child: results on stdout (the pipe); stderr shared with us. */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    fflush(NULL);
    pid_t pid;
    int se = posix_spawn(&pid, self, &fa, NULL, (char *const *)argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    if (se != 0) {
        close(fds[0]);
        close(fds[1]);
        char why[300];
        snprintf(why, sizeof why, "cannot start the nvblas worker %.200s: %s", self, strerror(se));
        mark_rest(res, nshapes, impl, got, why);
        free(stext);
        free(got);
        return;
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    char *line = NULL;
    size_t cap = 0;
    while (in && getline(&line, &cap, in) > 0) {
        bench_result r;
        int idx;
        if (!strncmp(line, "TSGB\t", 5) && parse_line(line, nshapes, &r, &idx) == 0) {
            res[idx * BI_COUNT + impl] = r;
            got[idx] = 1;
        } else {
            fputs(line, stderr); /* anything else NVBLAS or the worker printed */
        }
    }
    free(line);
    if (in) fclose(in);
    else close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    char why[160];
    if (WIFSIGNALED(status))
        snprintf(why, sizeof why, "nvblas worker killed by signal %d (%s)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        snprintf(why, sizeof why, "nvblas worker exited with status %d",
                 WEXITSTATUS(status));
    else
        snprintf(why, sizeof why, "nvblas worker gave no result");
    mark_rest(res, nshapes, impl, got, why);
    int any_trouble = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    for (int i = 0; i < nshapes; ++i)
        any_trouble |= res[i * BI_COUNT + impl].status == BS_FAIL ||
                       res[i * BI_COUNT + impl].status == BS_WRONG;
    if (any_trouble) show_log(impl);
    free(stext);
    free(got);
}

/* ------------------------------------------------------------------ worker side */

bench_f77_sgemm_fn bench_nvblas_load(const char *explicit_path, char *path_out, size_t plen,
                                     char *why, size_t wlen)
{
    void *h = NULL;
    if (explicit_path) {
        h = dlopen(explicit_path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            snprintf(why, wlen, "n/a: %s", dlerror());
            return NULL;
        }
        struct link_map *lm = NULL;
        snprintf(path_out, plen, "%s",
                 dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name[0] ? lm->l_name
                                                                             : explicit_path);
    } else {
        char err[200];
        if (!(h = bench_cuda_dlopen("libnvblas", path_out, plen, err, sizeof err))) {
            if (err[0]) snprintf(why, wlen, "n/a: cannot load libnvblas: %s", err);
            else snprintf(why, wlen, "n/a: libnvblas.so not found");
            return NULL;
        }
    }
    bench_f77_sgemm_fn f = (bench_f77_sgemm_fn)dlsym(h, "sgemm_");
    if (!f) snprintf(why, wlen, "n/a: %s has no sgemm_", path_out);
    return f;
}

void bench_nvblas_emit(int index, const bench_result *r)
{
    char reason[sizeof r->reason];
    snprintf(reason, sizeof reason, "%s", r->reason);
    for (char *s = reason; *s; ++s)
        if (*s == '\t' || *s == '\n') *s = ' ';
    printf("TSGB\t%d\t%s\t%d\t%.17g\t%.17g\t%.17g\t%.17g\t%s\n", index,
           bench_status_name(r->status), r->reps, r->median_ms, r->min_ms, r->max_ms, r->err,
           reason);
    fflush(stdout);
}
