/*
 * tsg_warp_tile.cuh — the lane tile of the warp-tiled families (big/, ws/): the order of a k
 * step's FFMAs (ffma_ij) and the write-back of a tile's accumulators (write_tile). A
 * configuration CF lays out its block as warps of WM x WN and each warp's lanes as an LM x LN grid
 * (lane % LM along m); a lane holds TM x TN accumulators made of 4 x 4 sub-tiles spread 4*LM rows
 * and 4*LN columns apart, its first element of a k row at a_col (m) / b_col (n) of the tile.
 */
#ifndef TSG_WARP_TILE_CUH
#define TSG_WARP_TILE_CUH

#include <stdint.h>

namespace tsg {

/*
 * The x-th FFMA of a k step (x < TM * TN) in source order ORD: it updates acc[i][j], i =
 * ffma_ij(x, true), j = ffma_ij(x, false). 0: i outer, j inner; 1: j outer, i inner; 2: i outer,
 * j reversed on odd rows (serpentine); 3: j outer, i reversed on odd columns; 4: 4 x 4 blocks, i
 * outer inside; 5: as 2, j reversed on even rows; 6: i outer, j in the order 0, 4, 8, 12, 1, 5, ...;
 * 7: as 2, rows in the order 0, 4, 1, 5, ...; 8-15: serpentine rows in other row orders — 8 and 9:
 * rows 7 down to 0; 10 and 11: rows 1, 0, 3, 2, ...; 12 and 13: rows 0, 2, 4, 6, 1, 3, 5, 7; 14
 * and 15: rows 0 to 7 with each row's j rotated by TN / 2 (even ORD: j reversed on odd rows, odd
 * ORD: on even rows). Every order does the same FFMAs on each accumulator in the same k order, so
 * the results are the same bits; what changes is the SASS: ptxas allocates the accumulators'
 * registers and sets the operand-reuse flags after the order, and so the number of FFMAs whose
 * two register-file reads fall in one register bank (scripts/sass-loops.py's "bank2": 195-237
 * in orders 2 and 5, 290-300 in 0, 560-600 in 4), which tracked the speed of the 16 orders
 * measured (docs/NOTES.md "v0.15").
 */
template <int ORD, int TM, int TN>
static __device__ __forceinline__ constexpr int ffma_ij(int x, bool want_i)
{
    if constexpr (ORD >= 8) { /* serpentine rows (j reversed on odd n, 9/11/13/15: on even n) in a row order */
        const int n = x / TN, e = x % TN, s = ORD % 2 ? n % 2 == 0 : n % 2 == 1;
        const int jj = s ? TN - 1 - e : e;
        if (want_i)
            return ORD < 10 ? TM - 1 - n : ORD < 12 ? n ^ 1 : ORD < 14 ? (n % (TM / 2)) * 2 + n / (TM / 2) : n;
        return ORD < 14 ? jj : (jj + TN / 2) % TN;
    } else if (want_i)
        return ORD == 1 ? x % TM
             : ORD == 3 ? ((x / TM) % 2 ? TM - 1 - x % TM : x % TM)
             : ORD == 4 ? (x / (4 * TN)) * 4 + (x % 16) / 4
             : ORD == 7 ? ((x / TN) % 2) * (TM / 2) + (x / TN) / 2
             : x / TN;
    else
        return ORD == 1 || ORD == 3 ? x / TM
             : ORD == 2 || ORD == 7 ? ((x / TN) % 2 ? TN - 1 - x % TN : x % TN)
             : ORD == 4 ? ((x % (4 * TN)) / 16) * 4 + x % 4
             : ORD == 5 ? ((x / TN) % 2 ? x % TN : TN - 1 - x % TN)
             : ORD == 6 ? (x % TN % 4) * (TN / 4) + (x % TN) / 4
             : x % TN;
}

/* Whether order ORD visits every (i, j) of a TM x TN lane tile exactly once: checked at compile
 * time for every order at the family's lane tile and for each configuration's own (tile_product),
 * so that a wrong order fails the build rather than a GPU test. */
template <int ORD, int TM, int TN>
constexpr bool ffma_order_is_permutation()
{
    bool seen[TM * TN] = {};
    for (int x = 0; x < TM * TN; ++x) {
        const int i = ffma_ij<ORD, TM, TN>(x, true), j = ffma_ij<ORD, TM, TN>(x, false);
        if (i < 0 || i >= TM || j < 0 || j >= TN || seen[i * TN + j]) return false;
        seen[i * TN + j] = true;
    }
    return true;
}
template <int... ORD>
struct int_seq {};
template <int... ORD>
constexpr bool ffma_orders_are_permutations(int_seq<ORD...>)
{
    return (ffma_order_is_permutation<ORD, 8, 16>() && ...);
}
static_assert(ffma_orders_are_permutations(int_seq<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15>{}),
              "every FFMA order is a permutation of the 8 x 16 lane tile");

/*
 * The write-back of a tile's accumulators: C(m0 + r, n0 + c) = alpha * acc + beta * C for the
 * elements inside C's m x n window (C column-major, ld ldc); beta == 0 never reads C. (Writing a
 * lane's 4 consecutive rows as one 16-byte store lost 3-4% of the whole kernel: the vector stores
 * tie the accumulators' register assignment, which the FFMA loop pays for; docs/NOTES.md "v0.8".)
 */
template <class CF>
static __device__ __forceinline__ void write_tile(const float (&acc)[CF::TM][CF::TN], float *__restrict__ C,
                                                  int64_t ldc, int64_t m, int64_t n, int64_t m0, int64_t n0,
                                                  int a_col, int b_col, float alpha, float beta)
{
#pragma unroll
    for (int j = 0; j < CF::TN; ++j) {
        const int64_t col = n0 + b_col + 4 * CF::LN * (j / 4) + (j % 4);
        if (col >= n) continue;
        float *cc = C + col * ldc;
#pragma unroll
        for (int i = 0; i < CF::TM; ++i) {
            const int64_t row = m0 + a_col + 4 * CF::LM * (i / 4) + (i % 4);
            if (row < m) {
                float *c = cc + row;
                const float v = alpha * acc[i][j];
                *c = beta == 0.0f ? v : fmaf(beta, *c, v);
            }
        }
    }
}

} /* namespace tsg */

#endif /* TSG_WARP_TILE_CUH */
