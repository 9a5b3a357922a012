/*
 * tsg_kernel_tf32_plan.cu — the tensor-core family's split of K (tsg_kernel_tf32.h tf32_kslice):
 * host code with no CUDA call, a unit of its own so that the unit tier checks it on a machine
 * without a GPU (tests/unit/test_tf32_plan.cu), as kernels/tsg_kernel_plan.cu is for the FP32
 * families' rule.
 */
#include <algorithm>

#include "tsg_kernel_tf32.h"

namespace tsg {

int64_t tf32_kslice(int64_t m, int64_t n, int64_t k, int64_t sms, int64_t ws_max_floats, int64_t tile_rows,
                    int64_t tile_cols)
{
    /* the rule and its sources: tsg_kernel_tf32.h */
    constexpr int64_t MIN_K = 256, MAX_SPLITS = 16;
    if (m < 1 || n < 1 || k < 1 || sms < 1 || ws_max_floats < 1 || tile_rows < 1 || tile_cols < 1) return k;
    const int64_t tiles = ((m + tile_rows - 1) / tile_rows) * ((n + tile_cols - 1) / tile_cols);
    if (2 * tiles > sms) return k;
    const int64_t s = std::min({sms / tiles, k / MIN_K, ws_max_floats / (m * n), MAX_SPLITS});
    if (s < 2) return k;
    const int64_t kslice = ((k + s - 1) / s + TF32_TILE_K - 1) / TF32_TILE_K * TF32_TILE_K;
    return kslice < k ? kslice : k;
}

} /* namespace tsg */
