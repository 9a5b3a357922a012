/*
 * tsg_tracer.c — TSGEMM_TRACE's recorder and C's freshness. See tsg_tracer.h.
 */
#define _GNU_SOURCE
#include "tsg_tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../src/tsg_trace.h"
#include "tsg_log.h"

uint64_t tsg_tracer_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ the file */

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static atomic_int g_on;           /* 1 while tracing                                   */
static int g_fd = -1;
static atomic_uint_fast64_t g_lines; /* call lines claimed                             */
static atomic_uint_fast64_t g_last_end; /* end of the previous traced call (ns), 0 none */

/* name with "%p" -> pid and "%%" -> '%' into out; -1 for any other '%' or too long a result */
static int expand(const char *name, char *out, size_t len)
{
    size_t o = 0;
    for (const char *s = name; *s; ++s) {
        char piece[32];
        const char *add = piece;
        if (*s != '%') {
            piece[0] = *s, piece[1] = 0;
        } else if (s[1] == 'p') {
            snprintf(piece, sizeof piece, "%ld", (long)getpid());
            ++s;
        } else if (s[1] == '%') {
            piece[0] = '%', piece[1] = 0;
            ++s;
        } else {
            return -1;
        }
        const size_t l = strlen(add);
        if (o + l >= len) return -1;
        memcpy(out + o, add, l);
        o += l;
    }
    out[o] = 0;
    return 0;
}

/* one write of the whole line; 0 when it all went out */
static int write_line(const char *buf, size_t n)
{
    ssize_t w;
    do w = write(g_fd, buf, n);
    while (w < 0 && errno == EINTR);
    return w == (ssize_t)n ? 0 : -1;
}

static void open_once(void)
{
    const char *knob = tsg_rt_config()->trace_path;
    if (!knob[0] || tsg_rt_privileged()) return;
    char name[TSG_CONFIG_PATH_MAX + 64];
    if (expand(knob, name, sizeof name) != 0) {
        tsg_log(1, "TSGEMM_TRACE=%.200s: only %%p and %%%% may follow a '%%'; no trace", knob);
        return;
    }
    /* O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of hanging the first call */
    int fd = open(name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
                  0600);
    if (fd < 0) {
        tsg_log(1, "TSGEMM_TRACE=%.200s: cannot open it (%s); no trace", name, strerror(errno));
        return;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        tsg_log(1, "TSGEMM_TRACE=%.200s is not a regular file; no trace", name);
        close(fd);
        return;
    }
    g_fd = fd;
    char head[128];
    int n = snprintf(head, sizeof head, "%s\n# pid %ld\n", TSG_TRACE_HEADER, (long)getpid());
    if (write_line(head, (size_t)n) != 0) {
        tsg_log(1, "TSGEMM_TRACE=%.200s: cannot write (%s); no trace", name, strerror(errno));
        close(fd);
        g_fd = -1;
        return;
    }
    atomic_store(&g_on, 1);
}

int tsg_tracer_on(void)
{
    pthread_once(&g_once, open_once);
    return atomic_load_explicit(&g_on, memory_order_relaxed);
}

void tsg_tracer_record(int entry, int row_major, const tsg_problem *p, int path, uint64_t t0,
                       uint64_t t1)
{
    if (!atomic_load_explicit(&g_on, memory_order_relaxed)) return;
    const uint64_t last = atomic_exchange(&g_last_end, t1);
    tsg_trace_rec r;
    memset(&r, 0, sizeof r);
    tsg_problem q = *p; /* the caller's terms: a row-major call un-swapped */
    tsg_problem_swap_rows(&q, row_major);
    r.entry = entry;
    r.row_major = row_major != 0;
    r.transa = q.transa;
    r.transb = q.transb;
    r.m = q.m;
    r.n = q.n;
    r.k = q.k;
    r.lda = q.lda;
    r.ldb = q.ldb;
    r.ldc = q.ldc;
    r.alpha = tsg_trace_scalar_class(q.alpha);
    r.beta = tsg_trace_scalar_class(q.beta);
    r.where_a = tsg_trace_where_letter(q.where_a);
    r.where_b = tsg_trace_where_letter(q.where_b);
    r.where_c = tsg_trace_where_letter(q.where_c);
    r.fresh_c = p->fresh_c != 0;
    r.gap_ns = last != 0 && t0 > last ? t0 - last : 0;
    if (r.gap_ns > TSG_TRACE_NS_MAX) r.gap_ns = TSG_TRACE_NS_MAX;
    r.time_ns = t1 > t0 ? t1 - t0 : 0;
    if (r.time_ns > TSG_TRACE_NS_MAX) r.time_ns = TSG_TRACE_NS_MAX;
    r.path = path;
    char line[TSG_TRACE_LINE_MAX + 2];
    const int n = tsg_trace_format(&r, line, sizeof line);
    if (n < 0) return; /* not a legal call record: cannot happen for a call the shim ran */
    const uint64_t i = atomic_fetch_add(&g_lines, 1);
    if (i >= TSG_TRACER_MAX_CALLS) {
        if (i == TSG_TRACER_MAX_CALLS) {
            static const char cut[] = "# trace cut: more than 1000000 calls\n";
            (void)write_line(cut, sizeof cut - 1);
            atomic_store(&g_on, 0);
        }
        return;
    }
    if (write_line(line, (size_t)n) != 0) {
        atomic_store(&g_on, 0); /* a full disk, a closed fd: stop, the file so far stays valid
                                   up to the last whole line */
        tsg_log(1, "TSGEMM_TRACE: a write failed (%s); tracing stopped", strerror(errno));
    }
}

/* ------------------------------------------------------------------ freshness of C */

static struct {
    pthread_mutex_t lock;
    uintptr_t lo[TSG_TRACER_RANGES], hi[TSG_TRACER_RANGES];
    int count, next;
} g_seen = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* 1 when the page holding byte p is resident; 1 also when mincore cannot tell */
static int page_resident(uintptr_t p)
{
    const long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) return 1;
    unsigned char v = 1;
    void *base = (void *)(p & ~(uintptr_t)(page - 1));
    if (mincore(base, (size_t)page, &v) != 0) return 1;
    return v & 1;
}

int tsg_c_fresh(const tsg_problem *p)
{
    if (p->where_c != TSG_HOST || p->m <= 0 || p->n <= 0 || !p->c) return 0;
    const int64_t ext = tsg_extent(p->m, p->n, p->ldc);
    const uintptr_t lo = (uintptr_t)p->c;
    if ((uint64_t)ext > (UINTPTR_MAX - lo) / 4) return 0;
    const uintptr_t hi = lo + 4 * (uintptr_t)ext;
    /* a bounded wait: a child forked while another thread held the table never gets it */
    int got = 0;
    for (int i = 0; i < 1000 && !got; ++i) {
        got = pthread_mutex_trylock(&g_seen.lock) == 0;
        if (!got) sched_yield();
    }
    if (!got) return 0;
    int seen = 0;
    for (int i = 0; i < g_seen.count && !seen; ++i) seen = lo < g_seen.hi[i] && g_seen.lo[i] < hi;
    if (!seen) {
        g_seen.lo[g_seen.next] = lo;
        g_seen.hi[g_seen.next] = hi;
        g_seen.next = (g_seen.next + 1) % TSG_TRACER_RANGES;
        if (g_seen.count < TSG_TRACER_RANGES) ++g_seen.count;
    }
    pthread_mutex_unlock(&g_seen.lock);
    if (seen && hi - lo < ((uintptr_t)1 << 20)) return 0;
    return !page_resident(hi - 1);
}
