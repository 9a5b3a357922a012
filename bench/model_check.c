/*
 * model_check.c — tsgemm-model-check GPU_RATES CPU_RATES CLASSES.csv: the cost model against what
 * a replay measured, class by class (issue 37's "<= 1.10x per call class" is mostly the model's
 * choice of side).
 *
 * GPU_RATES and CPU_RATES are the rates cache's files of the machine the replay ran on
 * (gpu-rates-v17-*.txt and cpu-rates-v3-*.txt in TSGEMM_CACHE_DIR; scripts/device-run.sh's replay
 * stage copies them next to its results), joined as the library joins them (shim/tsg_measure.c).
 * CLASSES.csv is `tsgemm-bench --replay TRACE --replay-csv FILE`'s output: per call class the
 * median milliseconds of the OpenBLAS pass, the auto pass and the forced-GPU pass.
 *
 * For each class, the problem as the library maps it (src/tsg_problem.h; the first call's leading
 * dimensions, scalars and fresh C), the model's seconds on the CPU and on the GPU
 * (src/tsg_cost.h tsg_estimate_cpu_s, src/tsg_dispatch.h tsg_estimate_gpus_s), its side in auto
 * mode (tsg_wants_gpu), and against them the measured per-call times. A class is "wrong" when
 * the side the model picks was measured over 10% slower than the other side. Printed: one row per
 * class, then the wrong classes' count and the time they lost (measured, all their calls), and
 * the median ratio of predicted to measured time on each side (the model's calibration on this
 * machine). Classes that only the scalar rules touch (m or n 0, k 0, alpha 0) are listed, not
 * priced: the dispatcher never prices them. Exit status: 0, 2 on unusable input (a message says
 * which line).
 *
 * A class through numpy's and scipy's names (src/tsg_trace.h tsg_trace_entry_own_blas) is decided
 * as the replay's auto pass decided it: with tsg_problem.own_pool as the CSV's own_pool column
 * says (1 when `tsgemm-bench --replay --own-blas` had the program's library stand behind that
 * name, so the shim asked twice the CPU's speed of the GPU, src/tsg_dispatch.h
 * TSG_GPU_MARGIN_OWN_POOL), 0 in files without the column (replays made before it, which had no
 * such library). --own-pool 0 or 1 overrides the column for those names: --own-pool 1 asks what
 * the program itself, its own library loaded, gets. Beside the own pool the same rule judges the
 * measurement: kept on the CPU is wrong only when the GPU was measured over
 * 1.10 / TSG_GPU_MARGIN_OWN_POOL times faster; a class the margin alone kept on the CPU (the
 * estimates had the GPU faster by TSG_GPU_MARGIN) is marked "own-pool margin", and the time the
 * GPU was measured faster on such classes is summed apart (the margin's price as the replay
 * measured it: its forced-GPU pass ran beside no spinning pool of the program's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsg_dispatch.h"
#include "tsg_problem.h"
#include "tsg_rates.h"
#include "tsg_trace.h"

enum { MAX_CLASSES = 100000, LINE_MAX_LEN = 1024 };

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        fprintf(stderr, "tsgemm-model-check: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(65536);
    *len = buf ? fread(buf, 1, 65535, f) : 0;
    if (buf) buf[*len] = '\0';
    fclose(f);
    return buf;
}

static int load_rates(const char *gpu_path, const char *cpu_path, tsg_rates *r)
{
    size_t gl = 0, cl = 0;
    char *g = slurp(gpu_path, &gl), *c = slurp(cpu_path, &cl);
    const char *why = "";
    tsg_cpu_rates cpu;
    int rc = 0;
    if (!g || !c) rc = -1;
    else if (tsg_rates_parse(g, gl, r, &why) != 0) {
        fprintf(stderr, "tsgemm-model-check: %s: %s\n", gpu_path, why);
        rc = -1;
    } else if (tsg_cpu_rates_parse(c, cl, &cpu, &why) != 0) {
        fprintf(stderr, "tsgemm-model-check: %s: %s\n", cpu_path, why);
        rc = -1;
    } else { /* as shim/tsg_measure.c joins them, for one device */
        tsg_rates_set_cpu(r, &cpu);
        r->gpu_count = 1;
    }
    free(g);
    free(c);
    return rc;
}

static int entry_of(const char *name)
{
    for (int e = 0; e < TSG_TRACE_DEVICE; ++e)
        if (!strcmp(tsg_trace_entry_name(e), name)) return e;
    return -1;
}

static float scalar_of(int cls, float other) { return cls == TSG_TRACE_ZERO ? 0.0f : cls == TSG_TRACE_ONE ? 1.0f : other; }

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    if (n == 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    int own_pool = -1; /* -1: the CSV's column */
    if (argc == 6 && !strcmp(argv[1], "--own-pool") && (!strcmp(argv[2], "0") || !strcmp(argv[2], "1"))) {
        own_pool = argv[2][0] - '0';
        argv += 2, argc -= 2;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: %s [--own-pool 0|1] GPU_RATES CPU_RATES CLASSES.csv\n", argv[0]);
        return 2;
    }
    tsg_rates r;
    memset(&r, 0, sizeof r);
    if (load_rates(argv[1], argv[2], &r) != 0) return 2;
    FILE *f = fopen(argv[3], "re");
    if (!f) {
        fprintf(stderr, "tsgemm-model-check: %s: %s\n", argv[3], strerror(errno));
        return 2;
    }
    static float dummy[1]; /* the mapping checks pointers for NULL only; nothing is read */
    double *cpu_ratio = malloc(sizeof(double) * MAX_CLASSES), *gpu_ratio = malloc(sizeof(double) * MAX_CLASSES);
    if (!cpu_ratio || !gpu_ratio) goto bad;
    int ncpu = 0, ngpu = 0, rows = 0, wrong = 0, lineno = 0, margin = 0, has_own = 0;
    double lost_ms = 0, margin_ms = 0;
    char line[LINE_MAX_LEN];
    if (own_pool >= 0)
        printf("the own-BLAS names (scipy_cblas_sgemm64_, cblas_sgemm64_, scipy_cblas_sgemm, "
               "scipy_sgemm_) decided with own_pool %d (--own-pool), margin %.2g\n",
               own_pool, own_pool ? TSG_GPU_MARGIN_OWN_POOL : TSG_GPU_MARGIN);
    while (fgets(line, sizeof line, f)) {
        ++lineno;
        if (lineno == 1) {
            if (strncmp(line, "entry,layout,", 13) != 0) {
                fprintf(stderr, "tsgemm-model-check: %s:1: not a --replay-csv file\n", argv[3]);
                goto bad;
            }
            has_own = strstr(line, ",tsgemm_on_gpu,own_pool") != NULL;
            if (own_pool < 0)
                printf("the own-BLAS names (scipy_cblas_sgemm64_, cblas_sgemm64_, scipy_cblas_sgemm, "
                       "scipy_sgemm_) decided with own_pool %s\n",
                       has_own ? "as the file's own_pool column says (the replay's --own-blas)"
                               : "0 (the file has no own_pool column)");
            printf("%-32s %6s %10s %10s %10s %10s %6s %6s %5s %8s %s\n", "class", "calls", "cpu ms", "gpu ms",
                   "model cpu", "model gpu", "c p/m", "g p/m", "model", "auto gpu", "");
            continue;
        }
        char name[64], layout[8], ta, tb, cob[32] = "", cau[32] = "", cgp[32] = "";
        long long m, n, k, lda, ldb, ldc;
        int alpha, beta, fresh, calls, on_gpu;
        double rec;
        /* the time cells may be empty (a way that did not run): read them as strings */
        if (sscanf(line, "%63[^,],%7[^,],%c,%c,%lld,%lld,%lld,%lld,%lld,%lld,%d,%d,%d,%d,%lf,%31[^,],%31[^,],%31[^,],%d",
                   name, layout, &ta, &tb, &m, &n, &k, &lda, &ldb, &ldc, &alpha, &beta, &fresh, &calls,
                   &rec, cob, cau, cgp, &on_gpu) != 19 &&
            sscanf(line, "%63[^,],%7[^,],%c,%c,%lld,%lld,%lld,%lld,%lld,%lld,%d,%d,%d,%d,%lf,%31[^,],%31[^,],,%d",
                   name, layout, &ta, &tb, &m, &n, &k, &lda, &ldb, &ldc, &alpha, &beta, &fresh, &calls,
                   &rec, cob, cau, &on_gpu) != 18) {
            fprintf(stderr, "tsgemm-model-check: %s:%d: not a class row\n", argv[3], lineno);
            goto bad;
        }
        const int e = entry_of(name);
        if (e < 0 || calls <= 0) {
            fprintf(stderr, "tsgemm-model-check: %s:%d: unknown entry %s or no calls\n", argv[3], lineno, name);
            goto bad;
        }
        tsg_call call;
        const float fa = scalar_of(alpha, 0.75f), fb = scalar_of(beta, -0.5f);
        const int bad = tsg_trace_entry_is_cblas(e)
                            ? tsg_map_cblas(strcmp(layout, "row") ? 102 : 101, ta == 'N' ? 111 : 112,
                                            tb == 'N' ? 111 : 112, m, n, k, fa, dummy, lda, dummy, ldb, fb,
                                            dummy, ldc, &call)
                            : tsg_map_fortran(ta, tb, m, n, k, fa, dummy, lda, dummy, ldb, fb, dummy, ldc, &call);
        if (bad || call.info) {
            fprintf(stderr, "tsgemm-model-check: %s:%d: an illegal call (position %d)\n", argv[3], lineno, call.info);
            goto bad;
        }
        tsg_problem *p = &call.p;
        p->fresh_c = (unsigned char)fresh;
        /* the replay's own_pool (the last cell), unless --own-pool says */
        const char *last = strrchr(line, ',');
        const int col = has_own && last ? atoi(last + 1) == 1 : 0;
        p->own_pool = (unsigned char)(tsg_trace_entry_own_blas(e) && (own_pool >= 0 ? own_pool : col));
        char label[64], mark[48] = "";
        snprintf(label, sizeof label, "%.6s %s %c%c %lldx%lldx%lld", name, layout, ta, tb, m, n, k);
        if (tsg_scalar_rule(p) != TSG_RULE_COMPUTE) { /* no product: the dispatcher prices nothing */
            printf("%-32s %6d %10s %10s %10s %10s %6s %6s %5s %8d scalar rule\n", label, calls, "-", "-",
                   "-", "-", "-", "-", "-", on_gpu);
            rows++;
            continue;
        }
        const double pc = tsg_estimate_cpu_s(p, &r) * 1e3, pg = tsg_estimate_gpus_s(p, &r) * 1e3;
        const tsg_policy pol = {TSG_MODE_AUTO, 0.0};
        tsg_why why;
        const int side_gpu = tsg_wants_gpu(p, &pol, 1, &r, &why);
        const double mc = cob[0] ? atof(cob) / calls : NAN, mg = cgp[0] ? atof(cgp) / calls : NAN;
        if (isfinite(mc) && mc > 0 && pc > 0) cpu_ratio[ncpu++] = pc / mc;
        if (isfinite(mg) && mg > 0 && pg > 0) gpu_ratio[ngpu++] = pg / mg;
        if (isfinite(mc) && isfinite(mg)) {
            const double chosen = side_gpu ? mg : mc, other = side_gpu ? mc : mg;
            /* kept on the CPU beside the caller's own BLAS: wrong only past the margin's factor */
            const double allowed = !side_gpu && p->own_pool ? 1.10 / TSG_GPU_MARGIN_OWN_POOL : 1.10;
            if (chosen > allowed * other) {
                wrong++;
                lost_ms += (chosen - other) * calls;
                snprintf(mark, sizeof mark, "WRONG SIDE (%.2fx%s)", chosen / other,
                         why == TSG_WHY_OWN_POOL ? ", own-pool margin" : "");
            } else if (why == TSG_WHY_OWN_POOL) {
                margin++;
                if (chosen > other) margin_ms += (chosen - other) * calls;
                snprintf(mark, sizeof mark, "own-pool margin (%.2fx)", chosen / other);
            }
        } else if (why == TSG_WHY_OWN_POOL) {
            margin++;
            snprintf(mark, sizeof mark, "own-pool margin");
        }
        printf("%-32s %6d %10.4f %10.4f %10.4f %10.4f %6.2f %6.2f %5s %8d %s\n", label, calls, mc, mg, pc,
               pg, pc / mc, pg / mg, side_gpu ? "gpu" : "cpu", on_gpu, mark);
        rows++;
        if (ncpu >= MAX_CLASSES || ngpu >= MAX_CLASSES) break;
    }
    fclose(f);
    printf("%d classes; the model's side over 10%% slower than the other in %d, %.3f ms lost over their "
           "calls; predicted / measured, median: CPU %.2f (%d classes), GPU %.2f (%d classes); "
           "the own-pool margin kept %d more on the CPU, not wrong, the GPU measured %.3f ms faster over their calls\n",
           rows, wrong, lost_ms, median(cpu_ratio, ncpu), ncpu, median(gpu_ratio, ngpu), ngpu, margin,
           margin_ms);
    free(cpu_ratio);
    free(gpu_ratio);
    return 0;
bad:
    fclose(f);
    free(cpu_ratio);
    free(gpu_ratio);
    return 2;
}
