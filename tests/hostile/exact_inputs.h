/*
 * exact_inputs.h — the hostile clients' operands (cache_client.c, secure_client.c): small
 * integers in [-3, 4] from a fixed LCG, so every sum of k < 2^18 products is exact in FP32 and C
 * can be compared bit for bit with a double reference; C is filled with NaN (beta = 0 must never
 * read it). Column-major NN: A m x k (ld m), B k x n (ld k), C m x n (ld m).
 */
#ifndef TSG_EXACT_INPUTS_H
#define TSG_EXACT_INPUTS_H

#include <stddef.h>
#include <stdint.h>

static inline void exact_inputs(float *a, float *b, float *c, int m, int n, int k)
{
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < (size_t)m * (size_t)k; ++i) a[i] = (float)((s = s * 6364136223846793005ull + 1) >> 61) - 3.0f;
    for (size_t i = 0; i < (size_t)k * (size_t)n; ++i) b[i] = (float)((s = s * 6364136223846793005ull + 1) >> 61) - 4.0f;
    for (size_t i = 0; i < (size_t)m * (size_t)n; ++i) c[i] = 0.0f / 0.0f;
}

/* Elements of columns j = 0, step, 2*step, ... of C that differ from the double reference. */
static inline long exact_wrong(const float *a, const float *b, const float *c, int m, int n, int k,
                               int step)
{
    long bad = 0;
    for (int j = 0; j < n; j += step)
        for (int i = 0; i < m; ++i) {
            double r = 0;
            for (int l = 0; l < k; ++l) r += (double)a[i + (size_t)l * m] * (double)b[l + (size_t)j * k];
            if ((double)c[i + (size_t)j * m] != r) ++bad;
        }
    return bad;
}

#endif
