/*
 * accuracy_inputs.h — the accuracy study's inputs (issue 36, docs/ACCURACY.md), one definition for
 * its two readers: bench/accuracy_study.c (tsgemm's maths through the library, beside cuBLAS) and
 * tests/gpu/test_tf32_kernel.cu --accuracy (the tensor-core family's variants). Both draw from
 * one splitmix64 stream in the same order (per K of the list, per class: op(A) then op(B), column
 * by column), so a variant's column and the library's are taken on the same values.
 *
 * Classes: 0 uniform in [-1, 1); 1 same sign, uniform in [0, 1); 2 wide: random sign, magnitude
 * (1 + u) 2^e, u uniform in [0, 1), e uniform over the integers -20 .. 20 (2^-20 .. 2^21).
 * Header only (static functions); C and CUDA C++.
 */
#ifndef TSG_ACCURACY_INPUTS_H
#define TSG_ACCURACY_INPUTS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* the stream's state before the first draw of a study */
#define ACC_SEED 0x9e3779b97f4a7c15ull

/* splitmix64 (Steele, Lea, Flood 2014; the constants of Vigna's public-domain reference) -> a
 * double in [0, 1) with 53 random bits; advances *state */
static inline double acc_next_unit(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

/* one value of class cls (0, 1, 2 above) */
static inline float acc_draw(uint64_t *state, int cls)
{
    if (cls == 0) return (float)(2.0 * acc_next_unit(state) - 1.0);
    if (cls == 1) return (float)acc_next_unit(state);
    const double u = acc_next_unit(state), s = acc_next_unit(state) < 0.5 ? -1.0 : 1.0;
    const int e = (int)(acc_next_unit(state) * 41.0) - 20;
    return (float)(s * ldexp(1.0 + u, e));
}

/* ||c - r||_F / ||r||_F over count elements (both dense) */
static inline double acc_frob_rel(const float *c, const double *r, size_t count)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < count; ++i) {
        const double d = (double)c[i] - r[i];
        num += d * d, den += r[i] * r[i];
    }
    return sqrt(num / den);
}

#endif /* TSG_ACCURACY_INPUTS_H */
