/*
 * test_copy.c — gpu/tsg_copy.c, the pipeline's host copy loops, on their own (plain C: no
 * CUDA, no OpenBLAS).
 *
 * Proves: memcpy and non-temporal copies move exactly n floats for every length around the vector
 * steps and every destination misalignment, and touch nothing outside; the beta scatter
 * (TSG_COPY_AXPBY) gives, element by element and bit for bit, fmaf(beta, dst, src) — one
 * rounding, which a multiply then an add would not give on the chosen inputs — in its vector body
 * and its scalar tail alike, propagates NaN and Inf as fmaf does, and leaves the floats around
 * the range untouched. A copy job (tsg_copy_rect) run part by part, in any order, copies exactly
 * its rectangle whatever the pool's size and the rectangle's shape (packed, padded, fewer columns
 * than parts), with the part counts of the rule; the first touch maps every page of a fresh C and
 * leaves its contents as they were.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "tsg_copy.h"

enum { PAD = 8, MAXN = 300 };
static const float GUARD = -12345.5f;

static float src_of(int i) { return (float)(i % 97) * 0.37f - 11.0f; }

static void test_copies(void **state)
{
    (void)state;
    static float src[MAXN + 2 * PAD], dst[MAXN + 2 * PAD];
    const int lens[] = {0, 1, 3, 15, 16, 17, 63, 64, 65, 66, 127, 128, 129, 255, 256, 257, 299};
    for (int kind = TSG_COPY_MEMCPY; kind <= TSG_COPY_STREAM; ++kind)
        for (int off = 0; off < 4; ++off) /* dst misaligned by off floats, src by 3 - off */
            for (size_t l = 0; l < sizeof lens / sizeof lens[0]; ++l) {
                const int n = lens[l];
                for (int i = 0; i < MAXN + 2 * PAD; ++i) src[i] = src_of(i), dst[i] = GUARD;
                float *d = dst + PAD + off;
                const float *s = src + PAD + 3 - off;
                tsg_copy_floats(d, s, n, kind, 0.0f);
                tsg_copy_fence(kind);
                for (int i = 0; i < n; ++i) assert_true(d[i] == s[i]);
                for (int i = 0; i < PAD + off; ++i) assert_true(dst[i] == GUARD);
                for (int i = PAD + off + n; i < MAXN + 2 * PAD; ++i) assert_true(dst[i] == GUARD);
            }
}

/* Inputs where one rounding and two differ: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24; a product rounded
 * first loses the 2^-24 that the fused operation keeps after the cancellation with -(1 + 2^-11). */
static void test_axpby_is_fused(void **state)
{
    (void)state;
    const float beta = 1.0f + 0x1p-12f;
    static float c[MAXN], p[MAXN], want[MAXN];
    for (int n = 1; n <= 200; n += (n < 40 ? 1 : 13)) {
        for (int i = 0; i < n; ++i) {
            c[i] = 1.0f + 0x1p-12f;
            p[i] = -(1.0f + 0x1p-11f) * (float)(1 + i % 3); /* i % 3 == 0: the cancellation */
            want[i] = fmaf(beta, c[i], p[i]);
        }
        tsg_copy_floats(c, p, n, TSG_COPY_AXPBY, beta);
        for (int i = 0; i < n; ++i) {
            assert_memory_equal(&c[i], &want[i], sizeof(float));
            if (i % 3 == 0) {
                volatile float prod = beta * (1.0f + 0x1p-12f); /* rounded on its own */
                assert_true(c[i] == 0x1p-24f && prod + p[i] != c[i]);
            }
        }
    }
}

static void test_axpby_values(void **state)
{
    (void)state;
    static float buf[MAXN + 2 * PAD], src[MAXN], want[MAXN];
    const float betas[] = {1.0f, -1.0f, 0.5f, 2.0f, -0.3f, 1e-30f};
    srand(7);
    for (size_t b = 0; b < sizeof betas / sizeof betas[0]; ++b)
        for (int off = 0; off < 4; ++off)
            for (int n = 0; n <= 70; n += (n < 20 ? 1 : 7)) {
                float *c = buf + PAD + off;
                for (int i = 0; i < MAXN + 2 * PAD; ++i) buf[i] = GUARD;
                for (int i = 0; i < n; ++i) {
                    c[i] = (float)rand() / (float)RAND_MAX * 4.0f - 2.0f;
                    src[i] = (float)rand() / (float)RAND_MAX * 4.0f - 2.0f;
                    want[i] = fmaf(betas[b], c[i], src[i]);
                }
                tsg_copy_floats(c, src, n, TSG_COPY_AXPBY, betas[b]);
                for (int i = 0; i < n; ++i) assert_memory_equal(&c[i], &want[i], sizeof(float));
                for (int i = 0; i < PAD + off; ++i) assert_true(buf[i] == GUARD);
                for (int i = PAD + off + n; i < MAXN + 2 * PAD; ++i) assert_true(buf[i] == GUARD);
            }
}

static void test_axpby_specials(void **state)
{
    (void)state;
    float c[32], p[32];
    for (int i = 0; i < 32; ++i) c[i] = 1.0f, p[i] = 2.0f;
    c[3] = NAN, c[20] = INFINITY, p[21] = -INFINITY, c[22] = INFINITY, p[22] = -INFINITY;
    tsg_copy_floats(c, p, 32, TSG_COPY_AXPBY, 1.0f);
    assert_true(isnan(c[3]) && c[20] == INFINITY && c[21] == -INFINITY && isnan(c[22]));
    assert_true(c[0] == 3.0f && c[31] == 3.0f);
}

/* A rectangle copied as a job of parts, run backwards (parts are independent): every float of the
 * rectangle lands (or, for TSG_COPY_AXPBY, combines) once, the padding between columns of dst
 * keeps its guard. Shapes: packed; padded with many columns; padded with fewer columns than parts
 * (row ranges of each column); one column. */
static void test_rect_jobs(void **state)
{
    (void)state;
    static const struct {
        int64_t rows, cols, sld, dld;
    } shapes[] = {{1000, 300, 1000, 1000}, {300, 700, 301, 304}, {100000, 2, 100003, 100000},
                  {200000, 1, 200000, 200000}, {7, 3, 9, 8}};
    const int threads[] = {0, 1, 3, 11};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; ++sh) {
        const int64_t rows = shapes[sh].rows, cols = shapes[sh].cols, sld = shapes[sh].sld, dld = shapes[sh].dld;
        float *src = malloc(sizeof(float) * (size_t)(sld * cols)), *dst = malloc(sizeof(float) * (size_t)(dld * cols));
        assert_non_null(src);
        assert_non_null(dst);
        for (int64_t i = 0; i < sld * cols; ++i) src[i] = src_of((int)(i % 100003));
        for (int kind = TSG_COPY_MEMCPY; kind <= TSG_COPY_AXPBY; ++kind)
            for (size_t t = 0; t < sizeof threads / sizeof threads[0]; ++t) {
                for (int64_t i = 0; i < dld * cols; ++i) dst[i] = i % dld < rows ? 0.5f : GUARD;
                tsg_copy_rect r = {src, sld, dst, dld, rows, cols, 0, kind, -2.0f};
                const int parts = tsg_copy_rect_parts(&r, threads[t]);
                const double bytes = 4.0 * (double)rows * (double)cols;
                int want = (int)ceil(bytes / (128 << 10));
                if (want > threads[t] + 1) want = threads[t] + 1;
                if (want < 1) want = 1;
                if (sld == rows && dld == rows) {
                    assert_int_equal(parts, want);
                    assert_int_equal(r.rsplit, 1);
                } else if (want > cols) { /* row ranges: as many per column as cover the parts */
                    assert_int_equal(r.rsplit, (int)((want + cols - 1) / cols));
                    assert_int_equal(parts, (int)(cols * r.rsplit));
                } else {
                    assert_int_equal(parts, want);
                    assert_int_equal(r.rsplit, 1);
                }
                for (int part = parts - 1; part >= 0; --part) tsg_copy_rect_part(&r, part, parts);
                for (int64_t j = 0; j < cols; ++j)
                    for (int64_t i = 0; i < dld; ++i) {
                        const float got = dst[j * dld + i];
                        if (i >= rows) {
                            assert_true(got == GUARD);
                            continue;
                        }
                        const float s = src[j * sld + i];
                        const float exp = kind == TSG_COPY_AXPBY ? fmaf(-2.0f, 0.5f, s) : s;
                        if (got != exp) fail_msg("shape %zu kind %d threads %d: (%lld, %lld)", sh, kind, threads[t],
                                                 (long long)i, (long long)j);
                    }
            }
        free(src);
        free(dst);
    }
}

/* The first touch of a fresh C: before it the extent's first and last pages are not mapped
 * (tsg_copy_mapped says 0), after its parts they are, and the contents are still zeros. */
static void test_first_touch(void **state)
{
    (void)state;
    const long page = sysconf(_SC_PAGESIZE);
    const size_t bytes = (size_t)5 << 21; /* 10 MiB: several 2 MiB groups */
    char *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    float *c = (float *)(map + page + 12); /* C's extent starts inside a page */
    const size_t floats = (bytes - 3 * (size_t)page) / sizeof(float);
    assert_int_equal(tsg_copy_mapped(c, floats * sizeof(float)), 0);
    tsg_touch t = {map, map + bytes, c, c + floats};
    for (int nparts = 1; nparts <= 5; nparts += 2)
        for (int part = 0; part < nparts; ++part) tsg_touch_part(&t, part, nparts);
    assert_int_equal(tsg_copy_mapped(c, floats * sizeof(float)), 1);
    for (size_t i = 0; i < floats; i += 997) assert_true(c[i] == 0.0f);
    munmap(map, bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_axpby_is_fused),
        cmocka_unit_test(test_axpby_values),
        cmocka_unit_test(test_axpby_specials),
        cmocka_unit_test(test_rect_jobs),
        cmocka_unit_test(test_first_touch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
