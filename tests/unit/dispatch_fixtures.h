/*
 * dispatch_fixtures.h — the inputs that test_model.c (the cost model) and test_dispatch.c (the
 * attempt order) share: the H200 host's rates before and after the pipeline, a policy of one
 * mode, a square NN problem on host memory. Test code only.
 */
#ifndef DISPATCH_FIXTURES_H
#define DISPATCH_FIXTURES_H

#include <stdint.h>

#include "tsg_dispatch.h"

/* Rates of the H200 host before the pipeline (docs/PERF.md: pageable copies 8 / 14 GB/s, kernel
 * ~30 TFLOP/s, OpenBLAS 1.25 TFLOP/s with 16 threads). */
static inline tsg_rates h200(void)
{
    tsg_rates r = {8e9, 14e9, 30e12, 40e-6, 128, 128, 132, 0, 0, 1.25e12, 2e-6, 0, 0, 0, 0, 0, 0,
                   {0}, {0}, {0}}; /* no pair's own kernel figures */
    return r;
}

/* ... and with the pipeline's staged rates (50 / 47 GB/s, docs/PERF.md) */
static inline tsg_rates h200_pipeline(void)
{
    tsg_rates r = {50e9, 47e9, 38e12, 60e-6, 128, 128, 132, 256, 0, 1.25e12, 2e-6, 0, 0, 0, 0, 0, 0,
                   {0}, {0}, {0}}; /* no pair's own kernel figures */
    return r;
}

static inline tsg_policy cfg_mode(tsg_mode mode)
{
    tsg_policy c = {mode, 0.0};
    return c;
}

static inline tsg_problem square(int64_t n)
{
    tsg_problem p = {'N', 'N', n, n, n, 1.0f, 0.0f, NULL, n, NULL, n, NULL, n, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    return p;
}

#endif /* DISPATCH_FIXTURES_H */
