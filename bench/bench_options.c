/*
 * bench_options.c — tsgemm-bench's command line: the usage text and the option parser (getopt_long)
 * into bench_opts (bench.h), each value range-checked with a clear message.
 * Owns: the options' names, defaults that depend on other options (--quick), their checks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench.h"

static void usage(FILE *f)
{
    fprintf(f,
"usage: tsgemm-bench [options]\n"
"Times end-to-end cblas_sgemm on host memory side by side: tsgemm (auto), tsgemm (GPU forced),\n"
"OpenBLAS, cuBLAS + plain copies, NVBLAS (two configurations), plus kernel-only tsgemm vs cuBLAS\n"
"on device data. Columns this machine cannot run are shown as n/a with the reason.\n"
"\n"
"  --quick             short sweep (sizes up to 2048), 3 repeats: fine on a CPU-only machine\n"
"  --shapes LIST       shapes to run, separated by spaces or ';':  n | m,n,k[:TA,TB[:row|col]]\n"
"                      e.g. \"1024 4096,4096,4096:N,T 1000,1000,1000:T,N:row\" (TA/TB: N T C)\n"
"  --reps N            timed repeats per end-to-end column (default 5, --quick 3; without this\n"
"                      option repeats stop after 2 once one column spent %.0f s on a shape)\n"
"  --kernel-reps N     timed repeats per kernel-only column (default 20, --quick 10)\n"
"  --warmup N          untimed calls before the repeats (default 1; kernel-only: 3)\n"
"  --settle MS         after every call in which OpenBLAS ran (its column, the reference,\n"
"                      tsgemm calls it sent to the CPU), wait MS milliseconds before the next\n"
"                      call, so that OpenBLAS's spinning workers are asleep, then makes\n"
"                      untimed calls of that column (see --rewarm) (default 300; 0: off)\n"
"  --rewarm MS         after such a pause, untimed calls until they took MS milliseconds, at\n"
"                      least one (default 20): the GPU's and CPUs' clocks and the copy threads\n"
"                      are back from idle before the timed call; the OpenBLAS column makes\n"
"                      them too when a pause happened since its last call (its threads slept)\n"
"  --alpha A --beta B  scalars (default 1 and 0; beta != 0 also uploads C)\n"
"  --seed N            input seed (default 42)\n"
"  --tol X             error bound on max|c-ref|/max|ref| (default 1e-4, x sqrt(k/65536) above)\n"
"  --replay FILE       no sweep: replay a TSGEMM_TRACE file with its gaps and fresh C's on\n"
"                      OpenBLAS, tsgemm auto and tsgemm with the GPU forced (skipped without a\n"
"                      GPU), every result checked; totals and a per-call-class table (no\n"
"                      --settle/--rewarm between its calls); exit 1 on a wrong result\n"
"  --replay-rounds N   with --replay: the passes N times (1-9, default 1), their order rotated\n"
"                      each round (each pass first once in 3 rounds); totals and classes are\n"
"                      the medians over the rounds, each round's totals listed\n"
"  --replay-csv FILE   with --replay: every call class (not only the table's 25) with its\n"
"                      median times per way, one CSV row each (bench/model_check.c reads it)\n"
"  --replay-calls FILE with --replay: every call of every pass and round, one CSV row each\n"
"                      (its time, whether it ran on the GPU, whether the pass's previous call did)\n"
"  --replay-threads    with --replay: after each pass, the CPU time its threads took, by group\n"
"                      (main, tsgemm's copy threads, its warm-up, the CUDA driver's, the rest:\n"
"                      the BLAS's workers), gaps included\n"
"  --own-blas PATH     with --replay (repeatable, up to 4): the library that stands for the\n"
"                      program's own BLAS behind numpy's and scipy's names (scipy_cblas_sgemm64_,\n"
"                      cblas_sgemm64_, scipy_cblas_sgemm, scipy_sgemm_), e.g. the wheel's\n"
"                      libscipy_openblas64_*.so in numpy.libs: loaded before the first call, so\n"
"                      tsgemm runs those calls' CPU side on it with auto mode's own-pool margin,\n"
"                      as in the program; the openblas pass calls its functions. Without it the\n"
"                      replay says for which calls the program's library was not loaded\n"
"  --csv FILE          one row per shape x implementation\n"
"  --plot FILE.png     TFLOP/s plots (needs gnuplot; the CSV is written anyway)\n"
"  --plot-from CSV     no benchmark: print the tables of an earlier CSV (and --plot it)\n"
"  --math LIST         after the tables, a math table (kernel only, device data): tsgemm with\n"
"                      each math of LIST (fp32,3xtf32,tf32; tsgemm_set_math), cuBLAS FP32 and\n"
"                      cuBLAS FAST_TF32 (cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32, the TF32\n"
"                      anchor), each with ||C - C64|| / ||C64|| against a double reference (all\n"
"                      of C when small, sampled rows otherwise) and its ratio to cuBLAS FP32's\n"
"  --no-nvblas --no-cublas --no-kernel --no-gpu   leave those columns out (--no-gpu: all\n"
"                      GPU columns; tsgemm's auto column may still use the GPU)\n"
"  --openblas LIB      OpenBLAS to compare with (default libopenblas.so.0)\n"
"  --nvblas-lib LIB    libnvblas to load (default: libnvblas.so.13, .so, /usr/local/cuda/lib64)\n"
"  --keep-tmp          keep the temporary directory (NVBLAS configs and logs, plot data)\n"
"  -h, --help          this text\n"
"Environment: TSGEMM_DEVICE picks the GPU for every column; OPENBLAS_CORETYPE and\n"
"OPENBLAS_NUM_THREADS set up the CPU baseline (see the header's warning).\n",
            8.0);
}

enum {
    OPT_SHAPES = 1000, OPT_REPS, OPT_KREPS, OPT_WARMUP, OPT_ALPHA, OPT_BETA, OPT_SEED, OPT_TOL,
    OPT_CSV, OPT_PLOT, OPT_PLOT_FROM, OPT_NO_NVBLAS, OPT_NO_CUBLAS, OPT_NO_KERNEL, OPT_NO_GPU,
    OPT_OPENBLAS, OPT_NVBLAS_LIB, OPT_KEEP_TMP, OPT_MATH, OPT_WORKER, OPT_WORKER_IMPL, OPT_BUDGET, OPT_QUICK,
    OPT_SETTLE,
    OPT_REWARM, OPT_REPLAY, OPT_REPLAY_ROUNDS, OPT_REPLAY_CSV, OPT_REPLAY_CALLS, OPT_REPLAY_THREADS, OPT_OWN_BLAS
};

static int parse_int(const char *s, const char *what, int lo, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > 1000000) {
        fprintf(stderr, "tsgemm-bench: %s must be an integer >= %d, not \"%s\"\n", what, lo, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int parse_double(const char *s, const char *what, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v)) {
        fprintf(stderr, "tsgemm-bench: %s must be a number, not \"%s\"\n", what, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* --math LIST: comma-separated fp32, 3xtf32, tf32 (any case, each at most once). */
static int parse_math(const char *s, unsigned *mask)
{
    static const char *const names[3] = {"fp32", "3xtf32", "tf32"};
    *mask = 0;
    for (const char *p = s;;) {
        const char *comma = strchr(p, ',');
        const size_t n = comma ? (size_t)(comma - p) : strlen(p);
        int m = -1;
        for (int i = 0; i < 3; ++i)
            if (n == strlen(names[i]) && !strncasecmp(p, names[i], n)) m = i;
        if (m < 0 || (*mask & (1u << m))) {
            fprintf(stderr, "tsgemm-bench: --math: \"%s\" is not a list of fp32, 3xtf32, tf32\n", s);
            return -1;
        }
        *mask |= 1u << m;
        if (!comma) return 0;
        p = comma + 1;
    }
}

/* bench.h: returns 0 to run, 1 to exit 0 (help), -1 to exit 2 (bad usage) */
int bench_parse_options(int argc, char **argv, bench_opts *o)
{
    static const struct option longopts[] = {
        {"quick", no_argument, NULL, OPT_QUICK},
        {"shapes", required_argument, NULL, OPT_SHAPES},
        {"reps", required_argument, NULL, OPT_REPS},
        {"kernel-reps", required_argument, NULL, OPT_KREPS},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"settle", required_argument, NULL, OPT_SETTLE},
        {"rewarm", required_argument, NULL, OPT_REWARM},
        {"replay", required_argument, NULL, OPT_REPLAY},
        {"replay-rounds", required_argument, NULL, OPT_REPLAY_ROUNDS},
        {"replay-csv", required_argument, NULL, OPT_REPLAY_CSV},
        {"replay-calls", required_argument, NULL, OPT_REPLAY_CALLS},
        {"replay-threads", no_argument, NULL, OPT_REPLAY_THREADS},
        {"own-blas", required_argument, NULL, OPT_OWN_BLAS},
        {"alpha", required_argument, NULL, OPT_ALPHA},
        {"beta", required_argument, NULL, OPT_BETA},
        {"seed", required_argument, NULL, OPT_SEED},
        {"tol", required_argument, NULL, OPT_TOL},
        {"csv", required_argument, NULL, OPT_CSV},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"plot-from", required_argument, NULL, OPT_PLOT_FROM},
        {"no-nvblas", no_argument, NULL, OPT_NO_NVBLAS},
        {"no-cublas", no_argument, NULL, OPT_NO_CUBLAS},
        {"no-kernel", no_argument, NULL, OPT_NO_KERNEL},
        {"no-gpu", no_argument, NULL, OPT_NO_GPU},
        {"openblas", required_argument, NULL, OPT_OPENBLAS},
        {"nvblas-lib", required_argument, NULL, OPT_NVBLAS_LIB},
        {"keep-tmp", no_argument, NULL, OPT_KEEP_TMP},
        {"math", required_argument, NULL, OPT_MATH},
        {"help", no_argument, NULL, 'h'},
        /* hidden: the NVBLAS child process (bench_nvblas.c) */
        {"nvblas-worker", required_argument, NULL, OPT_WORKER},
        {"worker-impl", required_argument, NULL, OPT_WORKER_IMPL},
        {"budget", required_argument, NULL, OPT_BUDGET},
        {NULL, 0, NULL, 0}};
    int kreps_given = 0, c;
    double v;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_QUICK: o->quick = 1; break;
        case OPT_SHAPES: {
            size_t add = strlen(optarg), have = o->shapes_text ? strlen(o->shapes_text) : 0;
            char *t = realloc(o->shapes_text, have + add + 2);
            if (!t) return -1;
            if (!have) t[0] = '\0';
            strcat(strcat(t, have ? ";" : ""), optarg);
            o->shapes_text = t;
            break;
        }
        case OPT_REPS:
            if (parse_int(optarg, "--reps", 1, &o->reps)) return -1;
            o->reps_given = 1;
            break;
        case OPT_KREPS:
            if (parse_int(optarg, "--kernel-reps", 1, &o->kernel_reps)) return -1;
            kreps_given = 1;
            break;
        case OPT_WARMUP:
            if (parse_int(optarg, "--warmup", 0, &o->warmup)) return -1;
            break;
        case OPT_SETTLE:
            if (parse_int(optarg, "--settle", 0, &o->settle_ms)) return -1;
            break;
        case OPT_REWARM:
            if (parse_int(optarg, "--rewarm", 0, &o->rewarm_ms)) return -1;
            break;
        case OPT_ALPHA:
            if (parse_double(optarg, "--alpha", &v)) return -1;
            o->alpha = (float)v;
            break;
        case OPT_BETA:
            if (parse_double(optarg, "--beta", &v)) return -1;
            o->beta = (float)v;
            break;
        case OPT_SEED:
            if (parse_double(optarg, "--seed", &v) || v < 0) return -1;
            o->seed = (uint64_t)v;
            break;
        case OPT_TOL:
            if (parse_double(optarg, "--tol", &o->tol) || o->tol <= 0) return -1;
            break;
        case OPT_BUDGET:
            if (parse_double(optarg, "--budget", &o->budget_s)) return -1;
            break;
        case OPT_REPLAY: o->replay = optarg; break;
        case OPT_REPLAY_CSV: o->replay_csv = optarg; break;
        case OPT_REPLAY_CALLS: o->replay_calls = optarg; break;
        case OPT_REPLAY_THREADS: o->replay_threads = 1; break;
        case OPT_OWN_BLAS:
            if (o->n_own_blas == BENCH_OWN_BLAS_MAX) {
                fprintf(stderr, "tsgemm-bench: --own-blas at most %d times\n", BENCH_OWN_BLAS_MAX);
                return -1;
            }
            o->own_blas[o->n_own_blas++] = optarg;
            break;
        case OPT_REPLAY_ROUNDS:
            if (parse_int(optarg, "--replay-rounds", 1, &o->replay_rounds) || o->replay_rounds > 9) {
                fprintf(stderr, "tsgemm-bench: --replay-rounds takes 1 to 9\n");
                return -1;
            }
            break;
        case OPT_CSV: o->csv = optarg; break;
        case OPT_PLOT: o->plot = optarg; break;
        case OPT_PLOT_FROM: o->plot_from = optarg; break;
        case OPT_NO_NVBLAS: o->no_nvblas = 1; break;
        case OPT_NO_CUBLAS: o->no_cublas = 1; break;
        case OPT_NO_KERNEL: o->no_kernel = 1; break;
        case OPT_NO_GPU: o->no_gpu = 1; break;
        case OPT_OPENBLAS: o->openblas = optarg; break;
        case OPT_NVBLAS_LIB: o->nvblas_lib = optarg; break;
        case OPT_KEEP_TMP: o->keep_tmp = 1; break;
        case OPT_MATH:
            if (parse_math(optarg, &o->math_mask)) return -1;
            break;
        case OPT_WORKER: o->worker_config = optarg; break;
        case OPT_WORKER_IMPL:
            if (parse_int(optarg, "--worker-impl", 0, &o->worker_impl)) return -1;
            break;
        case 'h': usage(stdout); return 1;
        default: usage(stderr); return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "tsgemm-bench: unexpected argument \"%s\"\n", argv[optind]);
        return -1;
    }
    if (o->n_own_blas && !o->replay) {
        fprintf(stderr, "tsgemm-bench: --own-blas goes with --replay\n");
        return -1;
    }
    if (o->quick && !o->reps_given) o->reps = 3;
    if (o->quick && !kreps_given) o->kernel_reps = 10;
    const char *dev = getenv("TSGEMM_DEVICE");
    if (dev && *dev) o->device = atoi(dev); /* the same GPU tsgemm uses */
    return 0;
}
