/*
 * test_tf32_plan.cu — the tensor-core family's split of K (kernels/tf32/tsg_kernel_tf32.h
 * tf32_kslice; the unit kernels/tf32/tsg_kernel_tf32_plan.cu alone) on the host, no GPU needed:
 *  - grids of more than half the GPU (2 tiles > sms) are never split, nor K below 512, nor a
 *    call without workspace;
 *  - the accuracy study's shape (512 x 512 on 132 SMs: 16 tiles) gets 4 slices at K = 1024 and 8
 *    from K = 2048 (sms / tiles), none at K = 256; the workspace cap and the 16-slice cap hold;
 *  - over a grid of shapes every split is well formed: kslice a multiple of 32 below k, every
 *    slice non-empty, tiles x slices within one wave, slices x m x n within the workspace, each
 *    slice at least 256 long but the last;
 *  - the tile given: 128 x 256 (1xTF32's default in NN and TN; 256 x 128 in TT, run as C^T) counts half the tiles, so
 *    1024 x 1024 x 16384 gets 4 slices where 128 x 128 tiles get 2 (each filling 128 of 132 SMs);
 *  - idempotent under its own cap: asked again with the workspace of the split it gave, the rule
 *    gives the same kslice (the in-place path sizes the workspace with the rule, launch_product
 *    asks it again with that workspace: gpu/tsg_inplace.cu plan_call).
 */
#include <stdint.h>
#include <stdio.h>

#include "../support/tsg_expect.h"
#include "tsg_kernel_tf32.h"

static const int64_t SMS = 132, WS = (int64_t)1 << 28;

static int64_t slices(int64_t k, int64_t ks) { return (k + ks - 1) / ks; }

int main()
{
    using tsg::tf32_kslice;
    /* no split: more than half a wave of tiles, short K, no workspace, bad arguments */
    EXPECT(tf32_kslice(1280, 1024, 65536, SMS, WS) == 65536, "80 tiles > 66: unsplit");
    EXPECT(tf32_kslice(1024, 1024, 65536, SMS, WS) != 65536, "64 tiles <= 66: split");
    EXPECT(tf32_kslice(512, 512, 511, SMS, WS) == 511, "K 511: one slice of 256 at most");
    EXPECT(tf32_kslice(512, 512, 256, SMS, WS) == 256, "K 256");
    EXPECT(tf32_kslice(512, 512, 65536, SMS, 0) == 65536, "no workspace");
    EXPECT(tf32_kslice(512, 512, 65536, SMS, 512 * 512) == 65536, "room for one slice only");
    EXPECT(tf32_kslice(512, 512, 65536, 0, WS) == 65536, "no SMs");
    EXPECT(tf32_kslice(0, 512, 65536, SMS, WS) == 65536, "m = 0");

    /* the accuracy study's shape: 16 tiles, sms / tiles = 8 */
    const struct {
        int64_t k, ks;
    } study[] = {{256, 256}, {1024, 256}, {2048, 256}, {4096, 512}, {16384, 2048}, {65536, 8192}};
    for (auto &x : study)
        EXPECT(tf32_kslice(512, 512, x.k, SMS, WS) == x.ks, "512 x 512 x %lld: kslice %lld, want %lld",
               (long long)x.k, (long long)tf32_kslice(512, 512, x.k, SMS, WS), (long long)x.ks);
    /* caps: a workspace of three slices; one tile (sms / tiles = 132) stops at 16 slices */
    EXPECT(slices(65536, tf32_kslice(512, 512, 65536, SMS, 3 * 512 * 512)) == 3, "workspace of 3 slices");
    EXPECT(slices(1 << 20, tf32_kslice(64, 64, 1 << 20, SMS, WS)) == 16, "16 slices at most");
    /* odd K: slices of whole k-tiles, the last one short */
    EXPECT(tf32_kslice(512, 512, 4100, SMS, WS) == 544, "4100 in 8: 513 -> 544 (8 slices, the last 292)");

    /* the tile given */
    EXPECT(slices(16384, tf32_kslice(1024, 1024, 16384, SMS, WS)) == 2, "1024^2 x 16384, 128 x 128: 2 slices");
    EXPECT(slices(16384, tf32_kslice(1024, 1024, 16384, SMS, WS, 128, 256)) == 4, "128 x 256 tiles: 4 slices");
    EXPECT(slices(16384, tf32_kslice(1024, 1024, 16384, SMS, WS, 256, 128)) == 4, "256 x 128 tiles: 4 slices");
    EXPECT(tf32_kslice(1024, 2048, 16384, SMS, WS, 128, 256) != 16384, "64 tiles of 128 x 256: split");
    EXPECT(tf32_kslice(1024, 2048, 16384, SMS, WS) == 16384, "128 tiles of 128 x 128: unsplit");
    EXPECT(tf32_kslice(1024, 1024, 16384, SMS, WS, 0, 256) == 16384, "no tile: unsplit");

    /* a grid of shapes and tiles: well formed, idempotent */
    const int64_t tiles_rc[][2] = {{128, 128}, {128, 256}, {256, 128}};
    const int64_t ms[] = {1, 7, 128, 129, 300, 512, 1000, 1024, 2048, 4096};
    const int64_t ks[] = {1, 31, 255, 256, 511, 512, 513, 1000, 4097, 65536, 100000};
    const int64_t smss[] = {1, 8, 66, 114, 132};
    for (const auto &tl : tiles_rc)
        for (int64_t m : ms)
            for (int64_t n : ms)
                for (int64_t k : ks)
                    for (int64_t sms : smss) {
                        const int64_t s = tf32_kslice(m, n, k, sms, WS, tl[0], tl[1]);
                        if (s == k) continue;
                        const int64_t sl = slices(k, s), tiles = ((m + tl[0] - 1) / tl[0]) * ((n + tl[1] - 1) / tl[1]);
                        EXPECT(s > 0 && s < k && s % 32 == 0, "%lld %lld %lld: kslice %lld", (long long)m, (long long)n,
                               (long long)k, (long long)s);
                        EXPECT((sl - 1) * s < k && sl >= 2 && sl <= 16, "%lld slices of %lld for k %lld", (long long)sl,
                               (long long)s, (long long)k);
                        EXPECT(2 * tiles <= sms && tiles * sl <= sms, "%lld tiles x %lld slices on %lld SMs",
                               (long long)tiles, (long long)sl, (long long)sms);
                        EXPECT(sl * m * n <= WS && s >= 256, "workspace %lld, kslice %lld", (long long)(sl * m * n),
                               (long long)s);
                        EXPECT(tf32_kslice(m, n, k, sms, sl * m * n, tl[0], tl[1]) == s, "%lld %lld %lld sms %lld: not idempotent",
                               (long long)m, (long long)n, (long long)k, (long long)sms);
                    }
    return tt_expect_report();
}
