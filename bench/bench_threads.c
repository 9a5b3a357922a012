/*
 * bench_threads.c — CPU time per thread group from /proc. See bench_threads.h.
 */
#define _GNU_SOURCE
#include "bench_threads.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const group_names[BT_GROUPS] = {"main", "tsg-copy", "tsg-warm", "tsg-other", "cuda",
                                                   "other (BLAS workers)"};

/* The first line of /proc/self/task/<tid>/<what> into buf (newline cut); 0 or -1. */
static int read_task(int tid, const char *what, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/%s", tid, what);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    const int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok) return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* ns on a CPU so far: schedstat's first field, else stat's utime + stime (fields 14, 15, after
 * the parenthesised name, which may hold spaces); -1 when neither reads. */
static double task_ns(int tid)
{
    char buf[1024];
    if (read_task(tid, "schedstat", buf, sizeof buf) == 0) return strtod(buf, NULL);
    if (read_task(tid, "stat", buf, sizeof buf) != 0) return -1;
    const char *p = strrchr(buf, ')');
    if (!p) return -1;
    /* after ") ": field 3 (state) onwards; utime is field 14 */
    unsigned long long ut = 0, st = 0;
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2) return -1;
    const long hz = sysconf(_SC_CLK_TCK);
    return (double)(ut + st) * 1e9 / (double)(hz > 0 ? hz : 100);
}

static int group_of(int tid, const char *name)
{
    if (tid == (int)getpid()) return BT_MAIN;
    if (!strcmp(name, "tsg-copy")) return BT_COPY;
    if (!strcmp(name, "tsg-warm")) return BT_WARM;
    if (!strncmp(name, "tsg-", 4)) return BT_TSG;
    if (!strncmp(name, "cuda", 4)) return BT_CUDA;
    return BT_OTHER;
}

int bench_threads_sample(bench_threads *s)
{
    s->n = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && s->n < BT_MAX_THREADS) {
        char *end;
        const long tid = strtol(e->d_name, &end, 10);
        if (*end || tid <= 0) continue;
        char name[64] = "";
        if (read_task((int)tid, "comm", name, sizeof name) != 0) continue; /* ended meanwhile */
        const double ns = task_ns((int)tid);
        if (ns < 0) continue;
        s->tid[s->n] = (int)tid;
        s->group[s->n] = (unsigned char)group_of((int)tid, name);
        s->ns[s->n] = ns;
        s->n++;
    }
    closedir(d);
    return 0;
}

void bench_threads_print(FILE *f, const char *label, const bench_threads *a, const bench_threads *b,
                         double wall_s)
{
    double ms[BT_GROUPS] = {0};
    int ran[BT_GROUPS] = {0};
    for (int i = 0; i < b->n; ++i) {
        double before = 0;
        for (int j = 0; j < a->n; ++j)
            if (a->tid[j] == b->tid[i]) {
                before = a->ns[j];
                break;
            }
        const double d = (b->ns[i] - before) * 1e-6;
        if (d <= 0) continue;
        ms[b->group[i]] += d;
        ran[b->group[i]]++;
    }
    fprintf(f, "  %-11s CPU ms by thread over %.1f ms:", label, wall_s * 1e3);
    for (int g = 0; g < BT_GROUPS; ++g) fprintf(f, " %s %.2f (%d)%s", group_names[g], ms[g], ran[g], g + 1 < BT_GROUPS ? "," : "\n");
}
