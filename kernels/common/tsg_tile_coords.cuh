/*
 * tsg_tile_coords.cuh — the order in which every kernel family (simt/, big/, ws/, tf32/) and the
 * stream-K tail's fix-up visit the tiles of C: one function, so that a tile number means the same
 * tile everywhere.
 */
#ifndef TSG_TILE_COORDS_CUH
#define TSG_TILE_COORDS_CUH

#include <stdint.h>

namespace tsg {

constexpr int GROUP_M = 8; /* tiles of C visited in column groups of 8 for L2 reuse */

/* Maps a linear tile index to (tile row, tile column), grouped so that consecutive blocks share
 * panels of A and B in L2. */
static __device__ __forceinline__ void tile_coords(int64_t tile, int64_t tiles_m, int64_t tiles_n,
                                                   int64_t *tm, int64_t *tn)
{
    const int64_t per_group = (int64_t)GROUP_M * tiles_n;
    const int64_t group = tile / per_group;
    const int64_t first_m = group * GROUP_M;
    const int64_t rows = tiles_m - first_m < GROUP_M ? tiles_m - first_m : GROUP_M;
    const int64_t in_group = tile - group * per_group;
    *tm = first_m + in_group % rows;
    *tn = in_group / rows;
}

} /* namespace tsg */

#endif /* TSG_TILE_COORDS_CUH */
