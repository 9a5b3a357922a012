/*
 * tsg_tf32_round.h — the three conversions of an FP32 value to TF32 (10 stored mantissa bits, the
 * 13 low bits of the FP32 pattern cleared), on the host, as the tests name them: toward zero (what
 * the tensor core reads of an unrounded operand: H200 run 59, docs/NOTES.md "sixteenth session"),
 * to nearest with ties away (cvt.rna.tf32.f32, PTX ISA "cvt"; the family's rounding) and to
 * nearest with ties to even (cuBLAS FAST_TF32's at 64^3, run 59). Each works on the magnitude's
 * bits, so the sign is kept; an Inf or NaN is returned unchanged; a finite value that rounds past
 * FLT_MAX becomes Inf, as cvt.rna does. Used by tests/unit/test_tf32_model.c (C) and
 * tests/gpu/tf32_figures.cu (CUDA C++).
 */
#ifndef TSG_TF32_ROUND_H
#define TSG_TF32_ROUND_H

#include <stdint.h>
#include <string.h>

static inline uint32_t tt_f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

static inline float tt_f32_from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}

static inline int tt_f32_finite_bits(uint32_t u) { return ((u >> 23) & 0xffu) != 0xffu; }

/* toward zero: the low 13 bits cleared */
static inline float tt_tf32_rz(float x)
{
    const uint32_t u = tt_f32_bits(x);
    return tt_f32_finite_bits(u) ? tt_f32_from_bits(u & 0xffffe000u) : x;
}

/* to nearest, ties away from zero: half of the dropped bits' weight added, then dropped */
static inline float tt_tf32_rna(float x)
{
    const uint32_t u = tt_f32_bits(x);
    return tt_f32_finite_bits(u) ? tt_f32_from_bits((u + 0x1000u) & 0xffffe000u) : x;
}

/* to nearest, ties to even: a tie rounds up only when the kept last bit is odd */
static inline float tt_tf32_rne(float x)
{
    const uint32_t u = tt_f32_bits(x);
    return tt_f32_finite_bits(u) ? tt_f32_from_bits((u + 0xfffu + ((u >> 13) & 1u)) & 0xffffe000u) : x;
}

#endif
