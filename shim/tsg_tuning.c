/*
 * tsg_tuning.c — the tuning hooks of include/tsgemm_tuning.h (not the stable API): what the GPU
 * kernel family would run for a shape, and forcing a configuration or a stream-K tail, for the
 * tests and the kernel benchmarks. Each starts the GPU first and answers -1 without one.
 */
#include <stdint.h>

#include "../include/tsgemm_tuning.h"
#include "../gpu/tsg_gpu.h"
#include "../src/tsg_problem.h"
#include "tsg_start.h"

#define TSG_EXPORT __attribute__((visibility("default")))

TSG_EXPORT int tsgemm_set_kernel_config(int config, int64_t splits)
{
    if (!tsg_start_gpu()) return -1;
    return tsg_gpu_set_kernel_config(config, splits) == 0 ? 0 : -1;
}

TSG_EXPORT int tsgemm_kernel_config_info(int config, char *buf, int len)
{
    if (!buf || len <= 0 || !tsg_start_gpu()) return -1;
    int n = tsg_gpu_kernel_config_info(config, buf, (size_t)len);
    return n > 0 ? n : -1;
}

TSG_EXPORT int tsgemm_kernel_plan(char transa, char transb, int64_t m, int64_t n, int64_t k, int *config,
                                  int64_t *splits)
{
    const char ta = tsg_decode_trans(transa), tb = tsg_decode_trans(transb);
    if (!config || !splits || !ta || !tb || !tsg_start_gpu()) return -1;
    return tsg_gpu_kernel_plan(ta, tb, m, n, k, config, splits) == TSG_GPU_OK ? 0 : -1;
}

TSG_EXPORT int tsgemm_set_kernel_tail(int64_t blocks)
{
    if (!tsg_start_gpu()) return -1;
    return tsg_gpu_set_kernel_tail(blocks) == 0 ? 0 : -1;
}

TSG_EXPORT int tsgemm_kernel_tail(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t *tiles,
                                  int64_t *blocks)
{
    const char ta = tsg_decode_trans(transa), tb = tsg_decode_trans(transb);
    if (!tiles || !blocks || !ta || !tb || !tsg_start_gpu()) return -1;
    return tsg_gpu_kernel_tail(ta, tb, m, n, k, tiles, blocks) == TSG_GPU_OK ? 0 : -1;
}
