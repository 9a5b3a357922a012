/*
 * tsgemm-tinybench.c — the fixed cost of a tiny SGEMM call: libraries loaded by path, timed side
 * by side in one process against plain OpenBLAS (docs/BENCH.md, "tsgemm-tinybench").
 *
 * Owns: loading each library through its own dlopen handle (RTLD_LOCAL, so two builds of
 * libtsgemm can sit in one process next to the OpenBLAS they fall back to), timing n x n x n
 * calls (one thread) in rounds that interleave the libraries, and printing per n the median
 * ns/call of each and its overhead over OpenBLAS. Must not: assert a speed (the smoke test checks
 * only that results exist and are right), link libtsgemm, or call cblas_sgemm by global name.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*cblas_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
typedef void (*f77_fn)(const char *, const char *, const int *, const int *, const int *,
                       const float *, const float *, const int *, const float *, const int *,
                       const float *, float *, const int *, size_t, size_t);
/* the counters' leading fields (include/tsgemm.h, struct tsgemm_stats): enough for "intercepted" */
typedef struct {
    uint64_t calls, illegal, quick, gpu, cpu, gpu_failed;
    double rest[32];
} stats_head;
typedef void (*stats_fn)(void *, size_t);
typedef int (*info_fn)(char *, int);
typedef int (*mode_fn)(int);
typedef int (*ctx_get_fn)(void **);

enum { MAX_LIBS = 8, MAX_SIZES = 16, API_CBLAS = 0, API_F77 = 1 };
enum { CBLAS_COL_MAJOR = 102, CBLAS_NO_TRANS = 111 };

typedef struct lib {
    const char *path, *label;
    void *handle;
    cblas_fn cblas;
    f77_fn f77;
    stats_fn stats; /* tsgemm_get_stats_v, when the library is a tsgemm */
} lib;

static lib g_libs[MAX_LIBS];
static int g_nlibs;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tsgemm-tinybench [--openblas PATH] [--lib PATH --label NAME]... [--global NAME]\n"
            "                        [--rounds N]\n"
            "                        [--sizes 2,3,4,8,16] [--target-us US] [--f77] [--cpu N]\n"
            "                        [--check] [--csv FILE] [--start-gpu]\n"
            "Times cblas_sgemm (and sgemm_ with --f77) on n x n x n, one thread, libraries\n"
            "interleaved round by round; prints the median ns/call and the overhead over the\n"
            "first library (OpenBLAS, loaded by --openblas, default libopenblas.so.0).\n"
            "--global NAME times the process's global cblas_sgemm/sgemm_ (a preloaded library).\n"
            "--start-gpu: each tsgemm starts its GPU first (one GPU call of 64^3, forced), so that\n"
            "the tiny calls are timed as in a program whose GPU calls came before; also times\n"
            "libcuda's cuCtxGetCurrent alone, which the tiny path asks then.\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the q-quantile (0..1) of v[0..n) (sorts v) */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double pos = q * (n - 1);
    int i = (int)pos;
    double f = pos - i;
    return i + 1 < n ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

static int load(lib *l)
{
    l->handle = l->path ? dlopen(l->path, RTLD_NOW | RTLD_LOCAL) : RTLD_DEFAULT;
    if (l->path && !l->handle) {
        fprintf(stderr, "tsgemm-tinybench: cannot load %s: %s\n", l->path, dlerror());
        return -1;
    }
    l->cblas = (cblas_fn)dlsym(l->handle, "cblas_sgemm");
    l->f77 = (f77_fn)dlsym(l->handle, "sgemm_");
    l->stats = (stats_fn)dlsym(l->handle, "tsgemm_get_stats_v");
    if (!l->cblas) {
        fprintf(stderr, "tsgemm-tinybench: %s has no cblas_sgemm%s\n",
                l->path ? l->path : "the global scope",
                l->path ? "" : " (--global: run under LD_PRELOAD=libtsgemm.so)");
        return -1;
    }
    return 0;
}

static void call(const lib *l, int api, int n, const float *a, const float *b, float *c)
{
    if (api == API_CBLAS) {
        l->cblas(CBLAS_COL_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, n, n, n, 1.0f, a, n, b, n, 0.0f,
                 c, n);
    } else {
        const float one = 1.0f, zero = 0.0f;
        l->f77("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
    }
}

/* C = A*B exactly: small-integer inputs keep every product and partial sum exact in float. */
static int check(const lib *l, int api, int n, const float *a, const float *b, float *c)
{
    for (int i = 0; i < n * n; ++i) c[i] = NAN;
    call(l, api, n, a, b, c);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            double r = 0;
            for (int p = 0; p < n; ++p) r += (double)a[i + p * n] * (double)b[p + j * n];
            if ((double)c[i + j * n] != r) {
                fprintf(stderr, "tsgemm-tinybench: %s %s n=%d: C(%d,%d) = %g, expected %g\n",
                        l->label, api == API_CBLAS ? "cblas_sgemm" : "sgemm_", n, i, j,
                        (double)c[i + j * n], r);
                return -1;
            }
        }
    return 0;
}

/* ns per call over `calls` back-to-back calls */
static double time_calls(const lib *l, int api, int n, long calls, const float *a, const float *b,
                         float *c)
{
    double t0 = now_ns();
    for (long i = 0; i < calls; ++i) call(l, api, n, a, b, c);
    return (now_ns() - t0) / (double)calls;
}

/* --start-gpu: each tsgemm library (the ones exporting tsgemm_kernel_info) runs one forced GPU
 * call of 64^3 on its own operands (the start and its warm-up done), then goes back to auto mode.
 * Prints what each says; returns how many started. */
static int start_gpus(void)
{
    static float a[64 * 64], b[64 * 64], c[64 * 64];
    int started = 0;
    for (int l = 0; l < g_nlibs; ++l) {
        info_fn info = (info_fn)dlsym(g_libs[l].handle, "tsgemm_kernel_info");
        mode_fn mode = (mode_fn)dlsym(g_libs[l].handle, "tsgemm_set_mode");
        if (!info || !mode) continue;
        char text[512] = "";
        const int ok = info(text, (int)sizeof text) == 0;
        if (ok) {
            const int was = mode(2); /* TSGEMM_MODE_GPU (include/tsgemm.h) */
            g_libs[l].cblas(CBLAS_COL_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, 64, 64, 64, 1.0f, a, 64, b, 64,
                            0.0f, c, 64);
            mode(was >= 0 ? was : 0);
        }
        printf("  %-10s GPU %s: %.300s\n", g_libs[l].label, ok ? "started" : "not started", text);
        started += ok;
    }
    return started;
}

/* ns per call of libcuda's cuCtxGetCurrent on this thread (the median of 9 runs of 10^5), or a
 * negative value when libcuda is not in the process */
static double time_ctx_get(void)
{
    void *cu = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    ctx_get_fn get = cu ? (ctx_get_fn)dlsym(cu, "cuCtxGetCurrent") : NULL;
    if (!get) return -1;
    double v[9];
    for (int r = 0; r < 9; ++r) {
        void *ctx = NULL;
        double t0 = now_ns();
        for (int i = 0; i < 100000; ++i) get(&ctx);
        v[r] = (now_ns() - t0) / 1e5;
    }
    dlclose(cu);
    return quantile(v, 9, 0.5);
}

static int parse_sizes(const char *s, int *sizes)
{
    int count = 0;
    while (*s && count < MAX_SIZES) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 512) return -1;
        sizes[count++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return count;
}

int main(int argc, char **argv)
{
    const char *openblas = "libopenblas.so.0", *csv = NULL;
    int rounds = 41, nsizes = 5, f77 = 0, cpu = -1, check_only = 0, start_gpu = 0;
    double target_us = 500;
    int sizes[MAX_SIZES] = {2, 3, 4, 8, 16};
    const char *paths[MAX_LIBS], *labels[MAX_LIBS];
    int nuser = 0;
    for (int i = 1; i < argc; ++i) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(o, "--f77")) {
            f77 = 1;
        } else if (!strcmp(o, "--check")) {
            check_only = 1;
        } else if (!strcmp(o, "--start-gpu")) {
            start_gpu = 1;
        } else if (!v) {
            usage(stderr);
            return 2;
        } else if (!strcmp(o, "--openblas")) {
            openblas = v, ++i;
        } else if (!strcmp(o, "--global")) {
            if (nuser + 1 >= MAX_LIBS) return 2;
            paths[nuser] = NULL, labels[nuser] = v, ++nuser, ++i;
        } else if (!strcmp(o, "--lib")) {
            if (nuser + 1 >= MAX_LIBS) return 2;
            paths[nuser] = v, labels[nuser] = NULL, ++nuser, ++i;
        } else if (!strcmp(o, "--label")) {
            if (nuser == 0) {
                usage(stderr);
                return 2;
            }
            labels[nuser - 1] = v, ++i;
        } else if (!strcmp(o, "--rounds")) {
            rounds = atoi(v), ++i;
        } else if (!strcmp(o, "--target-us")) {
            target_us = atof(v), ++i;
        } else if (!strcmp(o, "--cpu")) {
            cpu = atoi(v), ++i;
        } else if (!strcmp(o, "--csv")) {
            csv = v, ++i;
        } else if (!strcmp(o, "--sizes")) {
            nsizes = parse_sizes(v, sizes), ++i;
            if (nsizes <= 0) {
                usage(stderr);
                return 2;
            }
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (rounds < 1 || target_us <= 0) {
        usage(stderr);
        return 2;
    }
    /* one thread, for OpenBLAS and for tsgemm's fallback to it (read when OpenBLAS starts) */
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0)
            fprintf(stderr, "tsgemm-tinybench: --cpu %d: %s\n", cpu, strerror(errno));
    }
    /* OpenBLAS first: libtsgemm then falls back to this very instance (it reuses an OpenBLAS
     * already in the process), so every column runs the same OpenBLAS code */
    g_libs[g_nlibs++] = (lib){.path = openblas, .label = "openblas"};
    for (int i = 0; i < nuser; ++i) {
        const char *base = paths[i] ? strrchr(paths[i], '/') : NULL;
        g_libs[g_nlibs++] =
            (lib){.path = paths[i], .label = labels[i] ? labels[i] : base ? base + 1 : paths[i]};
    }
    for (int i = 0; i < g_nlibs; ++i)
        if (load(&g_libs[i]) != 0) return 1;
    const int napis = f77 ? 2 : 1;
    for (int i = 0; i < g_nlibs; ++i)
        if (f77 && !g_libs[i].f77) {
            fprintf(stderr, "tsgemm-tinybench: %s has no sgemm_\n",
                    g_libs[i].path ? g_libs[i].path : "the global scope");
            return 1;
        }

    int nmax = 1;
    for (int s = 0; s < nsizes; ++s) nmax = sizes[s] > nmax ? sizes[s] : nmax;
    float *a = malloc(sizeof(float) * nmax * nmax), *b = malloc(sizeof(float) * nmax * nmax),
          *c = malloc(sizeof(float) * nmax * nmax);
    if (!a || !b || !c) return 1;
    uint32_t x = 12345;
    for (int i = 0; i < nmax * nmax; ++i) { /* integers in [-4, 4], never all zero */
        x = x * 1664525u + 1013904223u;
        a[i] = (float)((int)(x >> 28) % 9 - 4);
        x = x * 1664525u + 1013904223u;
        b[i] = (float)((int)(x >> 28) % 9 - 4);
    }
    a[0] = b[0] = 3.0f;

    if (start_gpu) {
        printf("tsgemm-tinybench: --start-gpu\n");
        if (start_gpus() == 0) printf("  no tsgemm started a GPU: the tiny calls are timed as without one\n");
        const double ns = time_ctx_get();
        if (ns >= 0) printf("  cuCtxGetCurrent: %.1f ns/call on this thread\n", ns);
        else printf("  cuCtxGetCurrent: libcuda is not in the process\n");
    }

    /* results first: every library, every size and name, exact (also warms everything up) */
    stats_head before[MAX_LIBS];
    for (int l = 0; l < g_nlibs; ++l)
        if (g_libs[l].stats) g_libs[l].stats(&before[l], sizeof(uint64_t) * 6);
    long checked = 0;
    for (int l = 0; l < g_nlibs; ++l)
        for (int api = 0; api < napis; ++api)
            for (int s = 0; s < nsizes; ++s, ++checked)
                if (check(&g_libs[l], api, sizes[s], a, b, c) != 0) return 1;
    for (int l = 0; l < g_nlibs; ++l) {
        if (!g_libs[l].stats) continue;
        stats_head after;
        g_libs[l].stats(&after, sizeof(uint64_t) * 6);
        uint64_t want = (uint64_t)(napis * nsizes);
        if (after.cpu - before[l].cpu != want) { /* the library really took the calls */
            fprintf(stderr, "tsgemm-tinybench: %s counted %llu CPU calls, expected %llu\n",
                    g_libs[l].label, (unsigned long long)(after.cpu - before[l].cpu),
                    (unsigned long long)want);
            return 1;
        }
    }
    printf("tsgemm-tinybench: %d libraries, results exact (%ld checks)\n", g_nlibs, checked);
    for (int l = 0; l < g_nlibs; ++l)
        printf("  %-10s %s%s\n", g_libs[l].label,
               g_libs[l].path ? g_libs[l].path : "(the global scope: a preloaded library)",
               g_libs[l].stats ? " (tsgemm: counters confirm the calls)" : "");

    /* calls per measurement: about target_us each, from a calibration run */
    long calls[2][MAX_SIZES];
    for (int api = 0; api < napis; ++api)
        for (int s = 0; s < nsizes; ++s) {
            double t = 1e30;
            for (int r = 0; r < 3; ++r) {
                double v = time_calls(&g_libs[0], api, sizes[s], 200, a, b, c);
                t = v < t ? v : t;
            }
            long k = (long)(target_us * 1e3 / (t > 1 ? t : 1));
            calls[api][s] = k < 10 ? 10 : k;
        }
    if (check_only) rounds = rounds < 3 ? rounds : 3;

    /* t[l][api][s][round] */
    size_t cells = (size_t)g_nlibs * napis * nsizes * rounds;
    double *t = malloc(sizeof(double) * cells);
    if (!t) return 1;
#define T(l, api, s, r) t[(((size_t)(l) * napis + (api)) * nsizes + (s)) * rounds + (r)]
    for (int r = 0; r < rounds; ++r)
        for (int api = 0; api < napis; ++api)
            for (int s = 0; s < nsizes; ++s)
                for (int i = 0; i < g_nlibs; ++i) { /* rotate so no library always goes first */
                    int l = (i + r + s) % g_nlibs;
                    T(l, api, s, r) = time_calls(&g_libs[l], api, sizes[s], calls[api][s], a, b, c);
                }

    FILE *out = csv ? fopen(csv, "w") : NULL;
    if (csv && !out) {
        fprintf(stderr, "tsgemm-tinybench: cannot write %s: %s\n", csv, strerror(errno));
        return 1;
    }
    if (out)
        fprintf(out, "api,n,lib,rounds,calls,median_ns,q1_ns,q3_ns,over_ns,over_q1_ns,over_q3_ns,"
                     "ratio\n");
    double *v = malloc(sizeof(double) * rounds), *d = malloc(sizeof(double) * rounds),
           *q = malloc(sizeof(double) * rounds);
    if (!v || !d || !q) return 1;
    printf("\nmedian ns/call over %d rounds; +x = the median over rounds of (library - openblas) in"
           " the same round,\n[q1, q3] its quartiles; xr = the median over rounds of library /"
           " openblas\n",
           rounds);
    for (int api = 0; api < napis; ++api) {
        printf("\n%-12s %3s", api == API_CBLAS ? "cblas_sgemm" : "sgemm_", "n");
        for (int l = 0; l < g_nlibs; ++l) printf(" %34s", g_libs[l].label);
        printf("\n");
        for (int s = 0; s < nsizes; ++s) {
            printf("%-12s %3d", "", sizes[s]);
            for (int l = 0; l < g_nlibs; ++l) {
                for (int r = 0; r < rounds; ++r) {
                    v[r] = T(l, api, s, r);
                    d[r] = T(l, api, s, r) - T(0, api, s, r);
                    q[r] = T(l, api, s, r) / T(0, api, s, r);
                }
                double q1 = quantile(v, rounds, 0.25), q3 = quantile(v, rounds, 0.75);
                double med = quantile(v, rounds, 0.5);
                double o = quantile(d, rounds, 0.5), o1 = quantile(d, rounds, 0.25),
                       o3 = quantile(d, rounds, 0.75);
                double ratio = quantile(q, rounds, 0.5);
                if (l == 0)
                    printf(" %17.1f [%5.1f,%5.1f]     ", med, q1, q3);
                else
                    printf(" %7.1f %+6.1f [%+5.1f,%+5.1f] x%.2f", med, o, o1, o3, ratio);
                if (out)
                    fprintf(out, "%s,%d,%s,%d,%ld,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.3f\n",
                            api == API_CBLAS ? "cblas_sgemm" : "sgemm_", sizes[s], g_libs[l].label,
                            rounds, calls[api][s], med, q1, q3, l ? o : 0, l ? o1 : 0, l ? o3 : 0,
                            l ? ratio : 1.0);
            }
            printf("\n");
        }
    }
    if (out) fclose(out);
    /* the last timed call's C must still be right (no state leaked between libraries) */
    for (int l = 0; l < g_nlibs; ++l)
        if (check(&g_libs[l], API_CBLAS, sizes[nsizes - 1], a, b, c) != 0) return 1;
    free(v), free(d), free(q), free(t), free(a), free(b), free(c);
    return 0;
}
