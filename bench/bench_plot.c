/*
 * bench_plot.c — the PNG: gnuplot run as a child process on data files written into the run's
 * temporary directory.
 *
 * Panel 1: TFLOP/s against n for the square, NN, column-major shapes, one line per
 * implementation (log-log; kernel-only dashed). Panel 2: TFLOP/s bars (log scale) for every other
 * shape. A panel with no data is left out; implementations with no ok result are not drawn.
 * Must not: fail the run when gnuplot is missing (the caller then keeps the CSV).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static int is_square(const bench_shape *s)
{
    return s->m == s->n && s->n == s->k && s->ta == 'N' && s->tb == 'N' && !s->row;
}

static int cmp_n(const void *a, const void *b)
{
    const bench_shape *x = *(const bench_shape *const *)a, *y = *(const bench_shape *const *)b;
    return (x->n > y->n) - (x->n < y->n);
}

/* Writes s into f as a gnuplot single-quoted string ('' stands for '). */
static void gp_string(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; ++s) {
        if (*s == '\'') fputc('\'', f);
        if (*s != '\n') fputc(*s, f);
    }
    fputc('\'', f);
}

static void write_row(FILE *f, const bench_result *row, const bench_shape *s)
{
    for (int j = 0; j < BI_COUNT; ++j) {
        double t = bench_result_tflops(&row[j], s);
        if (t > 0) fprintf(f, " %.6g", t);
        else fprintf(f, " NaN");
    }
    fprintf(f, "\n");
}

static void plot_lines(FILE *gp, const char *dat, const unsigned has, int histogram)
{
    int first = 1;
    fprintf(gp, "plot ");
    for (int j = 0; j < BI_COUNT; ++j) {
        if (!(has & (1u << j))) continue;
        fprintf(gp, "%s", first ? "" : ", \\\n     ");
        if (first) gp_string(gp, dat);
        else fprintf(gp, "''");
        if (histogram)
            fprintf(gp, " using %d%s title '%s' lc %d", j + 2, first ? ":xtic(1)" : "",
                    bench_impl_name(j), j + 1);
        else
            fprintf(gp, " using 1:%d with linespoints lw 2 pt %d lc %d dt %d title '%s'", j + 2,
                    j + 4, j + 1, j >= BI_FIRST_KERNEL ? 2 : 1, bench_impl_name(j));
        first = 0;
    }
    fprintf(gp, "\n");
}

int bench_plot(const char *png, const char *title, const bench_shape *shapes, int nshapes,
               const bench_result *res, char *why, size_t len)
{
    const char *dir = bench_tmpdir();
    if (!dir) {
        snprintf(why, len, "cannot create a temporary directory: %s", strerror(errno));
        return -1;
    }
    char sq[1024], other[1024], script[1024];
    snprintf(sq, sizeof sq, "%s/plot-square.dat", dir);
    snprintf(other, sizeof other, "%s/plot-other.dat", dir);
    snprintf(script, sizeof script, "%s/plot.gp", dir);

    /* Square shapes sorted by n; the rest in sweep order. */
    const bench_shape **order = malloc(sizeof *order * (size_t)(nshapes ? nshapes : 1));
    if (!order) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    int nsq = 0;
    for (int i = 0; i < nshapes; ++i)
        if (is_square(&shapes[i])) order[nsq++] = &shapes[i];
    qsort(order, (size_t)nsq, sizeof *order, cmp_n);
    unsigned has_sq = 0, has_other = 0;
    int nother = 0;
    double other_min = 1e30; /* smallest TFLOP/s among the bars: the log axis starts below it */
    FILE *a = fopen(sq, "w"), *b = fopen(other, "w");
    if (!a || !b) {
        if (a) fclose(a);
        if (b) fclose(b);
        free(order);
        snprintf(why, len, "cannot write plot data in %s", dir);
        return -1;
    }
    fprintf(a, "# n, then TFLOP/s per implementation (NaN = no ok result)\n");
    for (int q = 0; q < nsq; ++q) {
        int i = (int)(order[q] - shapes);
        fprintf(a, "%lld", (long long)shapes[i].n);
        write_row(a, &res[i * BI_COUNT], &shapes[i]);
        for (int j = 0; j < BI_COUNT; ++j)
            if (bench_result_tflops(&res[i * BI_COUNT + j], &shapes[i]) > 0) has_sq |= 1u << j;
    }
    fprintf(b, "# shape, then TFLOP/s per implementation (NaN = no ok result)\n");
    for (int i = 0; i < nshapes; ++i) {
        if (is_square(&shapes[i])) continue;
        char label[96];
        fprintf(b, "\"%s\"", bench_shape_label(&shapes[i], label, sizeof label));
        write_row(b, &res[i * BI_COUNT], &shapes[i]);
        for (int j = 0; j < BI_COUNT; ++j) {
            double t = bench_result_tflops(&res[i * BI_COUNT + j], &shapes[i]);
            if (t > 0) has_other |= 1u << j;
            if (t > 0 && t < other_min) other_min = t;
        }
        ++nother;
    }
    fclose(a);
    fclose(b);
    free(order);
    if (!has_sq && !has_other) {
        snprintf(why, len, "no implementation has an ok result to plot");
        return -1;
    }

    FILE *gp = fopen(script, "w");
    if (!gp) {
        snprintf(why, len, "cannot write %s", script);
        return -1;
    }
    int panels = (has_sq != 0) + (has_other != 0);
    fprintf(gp, "# written by tsgemm-bench\n");
    fprintf(gp, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                "  set terminal pngcairo size 1400,%d noenhanced font 'sans,10'\n"
                "} else {\n"
                "  set terminal png size 1400,%d noenhanced\n}\n",
            panels * 520, panels * 520);
    fprintf(gp, "set output ");
    gp_string(gp, png);
    fprintf(gp, "\nset datafile missing 'NaN'\nset grid\nset key outside right top\n");
    fprintf(gp, "set multiplot layout %d,1 title ", panels);
    gp_string(gp, title);
    fprintf(gp, "\n");
    if (has_sq) {
        fprintf(gp, "set title 'Square NN column-major: TFLOP/s against n (kernel-only dashed)'\n"
                    "set logscale x 2\nset logscale y 10\nset xlabel 'n (m = n = k)'\n"
                    "set ylabel 'TFLOP/s'\nset format x '%%g'\n");
        plot_lines(gp, sq, has_sq, 0);
    }
    if (has_other) {
        fprintf(gp, "unset logscale x\nset logscale y 10\nset xlabel ''\nset ylabel 'TFLOP/s'\n"
                    "set title 'Other shapes: TFLOP/s (log scale)'\n"
                    "set style data histograms\nset style histogram clustered gap 1\n"
                    "set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
                    "set xtics rotate by -20 nomirror\n");
        fprintf(gp, "set xrange [-0.6:%g]\nset yrange [%g:*]\n", nother - 0.4,
                pow(10.0, floor(log10(other_min))));
        plot_lines(gp, other, has_other, 1);
    }
    fprintf(gp, "unset multiplot\n");
    fclose(gp);

    fflush(NULL);
    extern char **environ;
    pid_t pid;
    char *const argv[] = {"gnuplot", script, NULL};
    int se = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
    if (se == ENOENT) {
        snprintf(why, len, "gnuplot not found (install gnuplot, or plot the CSV elsewhere)");
        return -1;
    }
    if (se != 0) {
        snprintf(why, len, "cannot run gnuplot: %s", strerror(se));
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        snprintf(why, len, "gnuplot not found (install gnuplot, or plot the CSV elsewhere)");
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(why, len, "gnuplot failed on %s (rerun with --keep-tmp to keep it)", script);
        return -1;
    }
    return 0;
}
