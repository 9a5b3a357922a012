/*
 * trace_client.c — the recorder end to end (unit.trace_recorder): a known sequence of SGEMM
 * calls through libtsgemm with TSGEMM_TRACE set, then the trace it wrote read back with the
 * strict parser and compared field by field with what was called.
 *
 *   trace_client FILE      (removes FILE, sets TSGEMM_TRACE=FILE before the first call)
 *
 * Calls: CBLAS row- and column-major, every transpose pair, sgemm_ with lower-case and 'C'
 * transposes, tiny and above-floor shapes, padded leading dimensions, alpha/beta classes 0, 1,
 * other, a quick return (m = 0), a reused C, a window inside a used C, a new C (untouched pages:
 * fresh), a C new to tsgemm that the program filled (not fresh), a 5 ms pause (gap), and one
 * illegal call (never recorded). Exit 0 when the trace matches exactly.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tsg_trace.h"

void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);
void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
void tsgemm_get_stats(void *out);

enum { ROW = 101, COL = 102, NT = 111, TR = 112, CT = 113 };

typedef struct want {
    int entry, row;
    char ta, tb;
    int m, n, k, lda, ldb, ldc;
    int alpha, beta, fresh, path;
    uint64_t min_gap_ns;
} want;

static want g_want[64];
static int g_nwant;

static float *g_buf[16];

/* Buffers 0 and 1 (A and B) are filled; a C buffer (2 and up) is a new anonymous mapping whose
 * pages nothing touched, as a program's newly allocated result: its first call sees it fresh. */
static float *buffer(int i, size_t floats)
{
    if (!g_buf[i]) {
        if (i >= 2) {
            void *m = mmap(NULL, floats * sizeof(float), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED) exit(2);
            g_buf[i] = m;
            return g_buf[i];
        }
        g_buf[i] = malloc(floats * sizeof(float));
        if (!g_buf[i]) exit(2);
        for (size_t j = 0; j < floats; ++j) g_buf[i][j] = (float)((j * 7) % 11) - 5.0f;
    }
    return g_buf[i];
}

/* A C buffer the program filled itself before passing it (a block of a matrix it factorises):
 * new to tsgemm, its pages resident. */
static void fill(int i, size_t floats)
{
    float *c = buffer(i, floats);
    for (size_t j = 0; j < floats; ++j) c[j] = 1.0f;
}

static float scalar(int cls) { return cls == 0 ? 0.0f : cls == 1 ? 1.0f : 0.5f; }

static int path_of(int m, int n, int k, int alpha)
{
    if (m == 0 || n == 0 || k == 0 || alpha == 0) return TSG_TRACE_QUICK;
    return (long long)m * n * k < 128LL * 128 * 128 ? TSG_TRACE_TINY : TSG_TRACE_PATH_CPU;
}

/* one CBLAS call on buffers a, b, c (indices into g_buf) */
static void cb(int row, int ta, int tb, int m, int n, int k, int alpha, int lda, int ldb, int beta,
               int ldc, int ia, int ib, int ic, int coff, int fresh, uint64_t min_gap)
{
    const float *a = buffer(ia, 1 << 22), *b = buffer(ib, 1 << 22);
    float *c = buffer(ic, 1 << 22) + coff;
    cblas_sgemm(row ? ROW : COL, ta, tb, m, n, k, scalar(alpha), a, lda, b, ldb, scalar(beta), c, ldc);
    want w = {TSG_TRACE_CBLAS, row, ta == NT ? 'N' : 'T', tb == NT ? 'N' : 'T', m, n, k, lda, ldb,
              ldc, alpha, beta, fresh, path_of(m, n, k, alpha), min_gap};
    g_want[g_nwant++] = w;
}

static void f77(const char *ta, const char *tb, int m, int n, int k, int alpha, int lda, int ldb,
                int beta, int ldc, int ic, int fresh)
{
    const float al = scalar(alpha), be = scalar(beta);
    sgemm_(ta, tb, &m, &n, &k, &al, buffer(0, 1 << 22), &lda, buffer(1, 1 << 22), &ldb, &be,
           buffer(ic, 1 << 22), &ldc);
    const char a = (*ta | 0x20) == 'n' ? 'N' : 'T', b = (*tb | 0x20) == 'n' ? 'N' : 'T';
    want w = {TSG_TRACE_F77, 0, a, b, m, n, k, lda, ldb, ldc, alpha, beta, fresh,
              path_of(m, n, k, alpha), 0};
    g_want[g_nwant++] = w;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: trace_client FILE\n");
        return 2;
    }
    unlink(argv[1]);
    if (setenv("TSGEMM_TRACE", argv[1], 1) != 0) return 2;
    /* buffers 0, 1: A and B; 2..: C */
    cb(0, NT, NT, 4, 5, 6, 1, 4, 6, 0, 4, 0, 1, 2, 0, 1, 0);        /* tiny, new C (buffer 2) */
    cb(0, NT, NT, 4, 5, 6, 1, 4, 6, 1, 4, 0, 1, 2, 0, 0, 0);        /* same C: used */
    cb(1, NT, TR, 300, 200, 100, 2, 100, 100, 0, 200, 0, 1, 3, 0, 1, 0); /* row NT, new C */
    cb(1, TR, NT, 200, 300, 150, 1, 200, 300, 2, 301, 0, 1, 3, 0, 0, 0); /* padded ldc, used */
    cb(0, TR, TR, 130, 140, 150, 1, 151, 141, 0, 133, 0, 1, 3, 5, 0, 0); /* window in used C */
    cb(0, NT, NT, 0, 10, 10, 1, 1, 10, 1, 1, 0, 1, 4, 0, 0, 0);     /* m = 0: quick, no C */
    cb(0, NT, NT, 8, 8, 8, 0, 8, 8, 2, 8, 0, 1, 4, 0, 1, 0);        /* alpha 0: quick, new C */
    /* an illegal call (lda < m): reported, never recorded */
    cblas_sgemm(COL, NT, NT, 10, 10, 10, 1.0f, buffer(0, 1 << 22), 5, buffer(1, 1 << 22), 10, 0.0f,
                buffer(5, 1 << 22), 10);
    struct timespec pause = {0, 5000000};
    nanosleep(&pause, NULL);
    cb(0, CT, NT, 64, 64, 64, 1, 64, 64, 0, 64, 0, 1, 5, 0, 1, 5000000); /* after 5 ms; 'C' is T */
    f77("n", "t", 256, 256, 64, 1, 256, 256, 0, 256, 6, 1);               /* sgemm_, new C */
    f77("T", "C", 2, 3, 4, 2, 4, 3, 1, 2, 6, 0);                           /* tiny, used C */
    fill(7, 1 << 22);
    cb(0, NT, NT, 200, 200, 200, 1, 200, 200, 0, 200, 0, 1, 7, 0, 0, 0); /* new to us, filled: not fresh */
    /* read back */
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "FAIL: no trace file %s\n", argv[1]);
        return 1;
    }
    char line[TSG_TRACE_LINE_MAX + 8];
    int lineno = 0, calls = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            fprintf(stderr, "FAIL: line %d unterminated or too long\n", lineno + 1);
            return 1;
        }
        line[--len] = 0;
        ++lineno;
        if (lineno == 1 && !tsg_trace_is_header(line, len)) {
            fprintf(stderr, "FAIL: first line is not the header: %s\n", line);
            return 1;
        }
        tsg_trace_rec r;
        const char *why = NULL;
        int kind = tsg_trace_parse_line(line, len, &r, &why);
        if (kind == TSG_TRACE_BAD) {
            fprintf(stderr, "FAIL: line %d refused (%s): %s\n", lineno, why, line);
            return 1;
        }
        if (kind == TSG_TRACE_COMMENT) continue;
        if (calls >= g_nwant) {
            fprintf(stderr, "FAIL: more call lines than calls: %s\n", line);
            return 1;
        }
        const want *w = &g_want[calls++];
        int ok = r.entry == w->entry && r.row_major == w->row && r.transa == w->ta &&
                 r.transb == w->tb && r.m == w->m && r.n == w->n && r.k == w->k &&
                 r.lda == w->lda && r.ldb == w->ldb && r.ldc == w->ldc && r.alpha == w->alpha &&
                 r.beta == w->beta && r.fresh_c == w->fresh && r.path == w->path &&
                 r.where_a == 'h' && r.where_b == 'h' && r.where_c == 'h' &&
                 r.gap_ns >= w->min_gap_ns && r.gap_ns < 10000000000ull && r.time_ns > 0 &&
                 r.time_ns < 10000000000ull;
        if (!ok) {
            fprintf(stderr,
                    "FAIL: call %d: got \"%s\", want entry %s row %d %c%c %d %d %d ld %d %d %d "
                    "alpha %d beta %d fresh %d path %s gap >= %llu\n",
                    calls, line, tsg_trace_entry_name(w->entry), w->row, w->ta, w->tb, w->m,
                    w->n, w->k, w->lda, w->ldb, w->ldc, w->alpha, w->beta, w->fresh,
                    tsg_trace_path_name(w->path), (unsigned long long)w->min_gap_ns);
            ++bad;
        }
    }
    fclose(f);
    if (calls != g_nwant) {
        fprintf(stderr, "FAIL: %d call lines for %d calls\n", calls, g_nwant);
        return 1;
    }
    if (bad) return 1;
    printf("trace_client: %d calls recorded exactly (%d lines)\n", calls, lineno);
    return 0;
}
