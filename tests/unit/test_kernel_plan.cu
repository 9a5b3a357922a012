/*
 * test_kernel_plan.cu — the kernels' selection rule (kernels/tsg_kernel.h, kernel_plan; the unit
 * kernels/tsg_kernel_plan.cu alone) on the host, no GPU needed: with the H200's occupancy table
 * (132 SMs; blocks per SM measured in v0.3 runs 1-2, v0.4 run 1) the issues' shapes get the configurations and splits docs/NOTES.md
 * reports (v0.3 run 2, v0.4 run 1, v0.5 run 2); the big family (configurations 7-9) is split only
 * into slices of at least 2048;
 * forced configurations and splits are honoured; the stream-K tail (v0.14) goes to the big
 * family's unsplit plans whose last round of blocks is part-empty enough to model 5% faster
 * (5120^3: 8 of 800 tiles in a seventh round of 132 blocks; not 4096^3), never to a pipeline
 * launch (no workspace), a split plan or a grid under one round; for a
 * grid of shapes every plan is well formed (slices of a multiple of 8 covering k exactly, a tail
 * of fewer tiles than blocks, workspace within its cap) and the same when asked twice (the rule
 * never depends on anything but its arguments).
 */
#include <stdint.h>
#include <stdio.h>

#include "../support/tsg_expect.h"
#include "tsg_kernel.h"

static const int64_t SMS = 132, WS = ((int64_t)1 << 30) / 4;

static void check_well_formed(int64_t m, int64_t n, int64_t k, const tsg::KernelPlan &p)
{
    EXPECT(p.config >= 0 && p.config < tsg::kernel_configs(), "%lld %lld %lld: config %d",
           (long long)m, (long long)n, (long long)k, p.config);
    EXPECT(p.splits >= 1, "splits %lld", (long long)p.splits);
    if (p.splits == 1) {
        EXPECT(p.kslice == k, "%lld %lld %lld: one split, kslice %lld", (long long)m, (long long)n,
               (long long)k, (long long)p.kslice);
    } else {
        EXPECT(p.kslice % 8 == 0 && p.kslice * p.splits >= k && p.kslice * (p.splits - 1) < k,
               "%lld %lld %lld: %lld splits of %lld", (long long)m, (long long)n, (long long)k,
               (long long)p.splits, (long long)p.kslice);
        EXPECT(p.splits * m * n <= WS, "workspace %lld floats", (long long)(p.splits * m * n));
    }
    EXPECT(p.tail_tiles >= 0 && (p.tail_tiles == 0) == (p.tail_blocks == 0), "%lld %lld %lld: tail %lld / %lld",
           (long long)m, (long long)n, (long long)k, (long long)p.tail_tiles, (long long)p.tail_blocks);
    if (p.tail_tiles > 0) {
        EXPECT(p.config >= 7 && p.splits == 1 && p.tail_tiles < p.tail_blocks, "%lld %lld %lld: tail %lld / %lld on %d/%lld",
               (long long)m, (long long)n, (long long)k, (long long)p.tail_tiles, (long long)p.tail_blocks,
               p.config, (long long)p.splits);
        const int64_t ws = tsg::kernel_ws_floats(p.config, m, n, p);
        EXPECT(ws > 0 && ws <= WS, "%lld %lld %lld: tail workspace %lld floats", (long long)m, (long long)n,
               (long long)k, (long long)ws);
    }
}

/* A shape and the plan the rule must give it. */
struct Expect {
    int64_t m, n, k;
    int config;
    int64_t splits;
};

/* The rule's plan for transpose pair (ta, tb) on each shape is the expected one, and well formed. */
template <size_t N>
static void check_picks(char ta, char tb, const Expect (&expect)[N])
{
    for (const Expect &e : expect) {
        const tsg::KernelPlan p = tsg::kernel_plan(ta, tb, e.m, e.n, e.k, SMS, WS, -1, 0);
        EXPECT(p.config == e.config && p.splits == e.splits, "%c%c %lldx%lldx%lld: got %d/%lld, want %d/%lld",
               ta, tb, (long long)e.m, (long long)e.n, (long long)e.k, p.config, (long long)p.splits,
               e.config, (long long)e.splits);
        check_well_formed(e.m, e.n, e.k, p);
    }
}

int main()
{
    /* v0.3 runs 1-2: configurations 0..6; v0.4 run 1: configuration 7 (one block per SM);
     * v0.5 run 2: configurations 8 and 9 (its candidates 12 and 13, two blocks per SM) */
    const int h200[] = {2, 3, 3, 6, 2, 8, 1, 1, 2, 2};
    tsg::kernel_set_blocks_per_sm(h200, (int)(sizeof h200 / sizeof h200[0]));
    /* 11 configurations (kernels/tsg_kernel_configs.h); the table above has no entry for the
     * warp-specialized 10, so it counts as unavailable (a device without sm_90a code) until the
     * section that gives it one */
    EXPECT(tsg::kernel_configs() == 11, "%d configurations", tsg::kernel_configs());
    EXPECT(!tsg::kernel_available(10) && tsg::kernel_available(7), "availability without sm_90a");

    const Expect expect[] = {
        /* v0.4 (issue 10): the big family's configuration 7 where run 1 measured it fastest */
        {4096, 4096, 4096, 7, 1}, {8192, 8192, 8192, 7, 1}, {2048, 2048, 2048, 7, 1},
        {16384, 16384, 16384, 7, 1}, {4095, 4095, 4095, 7, 1},
        {1024, 1024, 1024, 4, 1}, {1000, 1000, 1000, 4, 1}, {512, 512, 512, 5, 1},
        {1536, 1536, 1536, 3, 1},
        /* v0.14: configuration 7 with a stream-K tail where v0.3 took configuration 1 (288 tiles of
         * 256 x 128, 2.2 rounds of 132) */
        {3000, 3000, 3000, 7, 1},
        /* v0.5 (issue 11): long K on configuration 7 in 16 slices of 4096 (run 2: 0.907x cuBLAS,
         * v0.4's 0/33 0.740); one 64-wide tile row / column on 8 / 9 (0.967 / 0.843, v0.4's 1/3
         * and 3/3 0.828 / 0.833) */
        {512, 512, 65536, 7, 16}, {65536, 64, 4096, 8, 1}, {64, 65536, 4096, 9, 1},
    };
    check_picks('N', 'N', expect);

    /* v0.9: TT takes configuration 9 where NN, NT and TN take an unsplit 7 (v0.8 runs 4-5: TT
     * 4096^3 / 8192^3 0.979 / 0.964 of cuBLAS on 9, 0.958 / 0.944 on 7); everything else is the
     * pair-independent rule */
    {
        const Expect tt[] = {
            {4096, 4096, 4096, 9, 1}, {8192, 8192, 8192, 9, 1}, {2048, 2048, 2048, 9, 1},
            {16384, 16384, 16384, 9, 1}, {4095, 4095, 4095, 9, 1}, {512, 512, 65536, 7, 16},
            {65536, 64, 4096, 8, 1}, {64, 65536, 4096, 9, 1}, {1024, 1024, 1024, 4, 1},
        };
        check_picks('T', 'T', tt);
        for (const Expect &e : tt) {
            for (char ta : {'N', 'T'})
                for (char tb : {'N', 'T'}) {
                    if (ta == 'T' && tb == 'T') continue;
                    const tsg::KernelPlan o = tsg::kernel_plan(ta, tb, e.m, e.n, e.k, SMS, WS, -1, 0);
                    const tsg::KernelPlan nn = tsg::kernel_plan('N', 'N', e.m, e.n, e.k, SMS, WS, -1, 0);
                    EXPECT(o.config == nn.config && o.splits == nn.splits, "%c%c %lld: differs from NN",
                           ta, tb, (long long)e.m);
                }
        }
        const int64_t sz[] = {1, 64, 100, 256, 1000, 1024, 2048, 3000, 4096, 8192, 65536};
        for (int64_t m : sz)
            for (int64_t n : sz)
                for (int64_t k : sz) {
                    const tsg::KernelPlan a = tsg::kernel_plan('T', 'T', m, n, k, SMS, WS, -1, 0);
                    const tsg::KernelPlan b = tsg::kernel_plan('N', 'N', m, n, k, SMS, WS, -1, 0);
                    EXPECT((a.config == b.config && a.splits == b.splits && a.kslice == b.kslice) ||
                               (b.config == 7 && b.splits == 1 && a.config == 9 && a.splits == 1),
                           "TT %lld %lld %lld: %d/%lld against NN's %d/%lld", (long long)m, (long long)n,
                           (long long)k, a.config, (long long)a.splits, b.config, (long long)b.splits);
                    check_well_formed(m, n, k, a);
                }
    }

    /* the big family (7-9) is split by the rule only into slices of at least 2048 (v0.5 run 2:
     * 1024^3 in 2 slices of 512 ran at 0.56x cuBLAS on configuration 7) */
    {
        const int64_t sz[] = {256, 1000, 1024, 2048, 4096, 8192, 65536};
        for (int64_t m : sz)
            for (int64_t n : sz)
                for (int64_t k : sz) {
                    const tsg::KernelPlan p = tsg::kernel_plan('N', 'N', m, n, k, SMS, WS, -1, 0);
                    EXPECT(p.config < 7 || p.splits == 1 || p.kslice >= 2048,
                           "%lld %lld %lld: config %d split %lld times into %lld", (long long)m,
                           (long long)n, (long long)k, p.config, (long long)p.splits, (long long)p.kslice);
                }
    }

    /* forcing: the configuration always; a split count capped by k / 8 and the workspace */
    for (int c = 0; c < tsg::kernel_configs(); ++c) {
        tsg::KernelPlan p = tsg::kernel_plan('N', 'N', 1024, 1024, 1024, SMS, WS, c, 0);
        EXPECT(p.config == c, "forced %d, got %d", c, p.config);
        p = tsg::kernel_plan('T', 'T', 33, 65, 129, SMS, WS, c, 3);
        EXPECT(p.config == c && p.splits == 3 && p.kslice == 48, "forced %d/3 on k=129: %d/%lld/%lld", c,
               p.config, (long long)p.splits, (long long)p.kslice);
        p = tsg::kernel_plan('T', 'T', 33, 65, 9, SMS, WS, c, 3);
        EXPECT(p.splits == 2 && p.kslice == 8, "forced 3 splits on k=9: %lld of %lld", (long long)p.splits,
               (long long)p.kslice);
        p = tsg::kernel_plan('T', 'T', 33, 65, 7, SMS, WS, c, 3);
        EXPECT(p.splits == 1 && p.kslice == 7, "forced 3 splits on k=7: %lld of %lld", (long long)p.splits,
               (long long)p.kslice);
        p = tsg::kernel_plan('N', 'T', 8192, 8192, 65536, SMS, WS, c, 16);
        EXPECT(p.splits * 8192 * 8192 <= WS, "forced 16 splits past the workspace: %lld", (long long)p.splits);
    }

    /* the stream-K tail (v0.14): tiles mod (132 SMs x blocks per SM) share the last round */
    {
        struct TailExpect {
            char ta, tb;
            int64_t m, n, k, tiles, blocks;
        };
        const TailExpect te[] = {
            /* the issue's shapes: a last round 88%, 52%, 6% of 63 rounds: no tail (gain modelled
             * at 3%, 3%, 1.5%; TAIL_MARGIN asks 5%) */
            {'N', 'N', 4096, 4096, 4096, 0, 0},
            {'T', 'N', 8192, 8192, 8192, 0, 0},
            {'N', 'N', 16384, 16384, 16384, 0, 0},
            {'T', 'T', 4096, 4096, 4096, 0, 0},
            {'N', 'N', 4095, 4095, 4095, 0, 0},
            /* 800 tiles of 256 x 128 on 132 blocks: 7 rounds, the last of 8 tiles */
            {'N', 'N', 5120, 5120, 5120, 800 % 132, 132},
            {'N', 'N', 3072, 3072, 3072, 288 % 132, 132},      /* on configuration 7 */
            {'T', 'T', 3072, 3072, 3072, 576 % 264, 264},      /* on configuration 9: two per SM */
            {'N', 'T', 2688, 2688, 2688, 231 % 132, 132},      /* a last round 75% full */
            {'N', 'N', 2048, 2048, 2048, 0, 0},                /* 128 tiles: under one round */
            {'N', 'N', 512, 512, 65536, 0, 0},                 /* split along K */
            {'N', 'N', 65536, 64, 4096, 0, 0},                 /* configuration 8: 256 tiles, 264 blocks */
        };
        for (const TailExpect &e : te) {
            const tsg::KernelPlan p = tsg::kernel_plan(e.ta, e.tb, e.m, e.n, e.k, SMS, WS, -1, 0);
            const int64_t want = e.tiles, wantb = e.blocks;
            EXPECT(p.tail_tiles == want && p.tail_blocks == wantb, "%c%c %lldx%lldx%lld: tail %lld / %lld, want %lld / %lld",
                   e.ta, e.tb, (long long)e.m, (long long)e.n, (long long)e.k, (long long)p.tail_tiles,
                   (long long)p.tail_blocks, (long long)want, (long long)wantb);
            check_well_formed(e.m, e.n, e.k, p);
            /* none without a workspace (the pipeline's launches), none when switched off */
            const tsg::KernelPlan q = tsg::kernel_plan(e.ta, e.tb, e.m, e.n, e.k, SMS, 0, -1, 0);
            const tsg::KernelPlan o = tsg::kernel_plan(e.ta, e.tb, e.m, e.n, e.k, SMS, WS, -1, 0, -1);
            EXPECT(q.tail_tiles == 0 && o.tail_tiles == 0 && (p.splits > 1 || p.tail_tiles > 0 || q.config == p.config),
                   "%lldx%lldx%lld: tail %lld without workspace, %lld switched off", (long long)e.m,
                   (long long)e.n, (long long)e.k, (long long)q.tail_tiles, (long long)o.tail_tiles);
        }
        /* a short K: runs of fewer than 8 slices are not worth a tail (5120 x 5120 x 64: 4 slices
         * per tile, 8 tiles over 132 blocks) */
        EXPECT(tsg::kernel_plan('N', 'N', 5120, 5120, 64, SMS, WS, -1, 0).tail_tiles == 0, "short K got a tail");
        /* the workspace: 2 tiles per block, for configuration 7 2 x 132 x 256 x 128 floats */
        const tsg::KernelPlan p = tsg::kernel_plan('N', 'N', 5120, 5120, 5120, SMS, WS, -1, 0);
        EXPECT(tsg::kernel_ws_floats(p.config, 5120, 5120, p) == 2 * 132 * 256 * 128, "tail workspace %lld",
               (long long)tsg::kernel_ws_floats(p.config, 5120, 5120, p));
        /* the test knob: any grid with a remainder modulo the forced count, big family, unsplit */
        tsg::KernelPlan f = tsg::kernel_plan('N', 'T', 300, 200, 50, SMS, WS, 7, 0, 3); /* 2 x 2 tiles */
        EXPECT(f.config == 7 && f.tail_tiles == 1 && f.tail_blocks == 3, "forced tail 3: %lld / %lld",
               (long long)f.tail_tiles, (long long)f.tail_blocks);
        f = tsg::kernel_plan('N', 'T', 200, 100, 50, SMS, WS, 7, 0, 3); /* 1 tile */
        EXPECT(f.tail_tiles == 1 && f.tail_blocks == 3, "forced tail 3 on one tile: %lld / %lld",
               (long long)f.tail_tiles, (long long)f.tail_blocks);
        f = tsg::kernel_plan('N', 'T', 600, 300, 50, SMS, WS, 7, 0, 3); /* 3 x 3 tiles: no remainder */
        EXPECT(f.tail_tiles == 0, "forced tail 3 on 9 tiles: %lld", (long long)f.tail_tiles);
        f = tsg::kernel_plan('N', 'T', 300, 200, 50, SMS, WS, 7, 3, 3); /* split along K */
        EXPECT(f.splits == 3 && f.tail_tiles == 0, "forced tail on a split plan: %lld", (long long)f.tail_tiles);
        f = tsg::kernel_plan('N', 'T', 300, 200, 50, SMS, WS, 0, 0, 3); /* the SIMT family */
        EXPECT(f.tail_tiles == 0, "forced tail on configuration 0: %lld", (long long)f.tail_tiles);
    }

    /* v0.19: where sm_90a code runs (the occupancy table gives configuration 10 its block per SM),
     * configuration 10 takes 7's place wherever 7 would run unsplit without a tail, on every
     * pair, and TT's too where 9 took it only for its rate (runs 2-3: TT 4096^3 / 8192^3 1.03 /
     * 1.00 of cuBLAS on 10, 1.00 / 0.97 on 9); 7 keeps its tails and its splits, 9 the grids
     * it fits better */
    {
        const int h200ws[] = {2, 3, 3, 6, 2, 8, 1, 1, 2, 2, 1};
        tsg::kernel_set_blocks_per_sm(h200ws, (int)(sizeof h200ws / sizeof h200ws[0]));
        EXPECT(tsg::kernel_available(10), "configuration 10 available with its table entry");
        const Expect ws[] = {
            {4096, 4096, 4096, 10, 1}, {8192, 8192, 8192, 10, 1}, {16384, 16384, 16384, 10, 1},
            {4095, 4095, 4095, 10, 1}, {2048, 2048, 2048, 10, 1},
            {512, 512, 65536, 7, 16},  /* split along K: 7 */
            {5120, 5120, 5120, 7, 1},  /* a stream-K tail: 7 (800 tiles, a seventh round of 8) */
            {3000, 3000, 3000, 7, 1},  {65536, 64, 4096, 8, 1}, {64, 65536, 4096, 9, 1},
            {1024, 1024, 1024, 4, 1},
        };
        for (char ta : {'N', 'T'})
            for (char tb : {'N', 'T'})
                if (ta == 'N' || tb == 'N') check_picks(ta, tb, ws);
        const Expect tt[] = {
            {4096, 4096, 4096, 10, 1}, {8192, 8192, 8192, 10, 1}, {16384, 16384, 16384, 10, 1},
            {64, 65536, 4096, 9, 1},   {65536, 64, 4096, 8, 1},   {512, 512, 65536, 7, 16},
        };
        check_picks('T', 'T', tt);
        const tsg::KernelPlan t5 = tsg::kernel_plan('N', 'N', 5120, 5120, 5120, SMS, WS, -1, 0);
        EXPECT(t5.tail_tiles == 800 % 132, "5120^3 keeps 7's tail: %lld", (long long)t5.tail_tiles);
        /* the pipeline's launches (no workspace: no tail, no split) take 10 where 7's tile wins */
        EXPECT(tsg::kernel_plan('N', 'N', 5120, 5120, 5120, SMS, 0, -1, 0).config == 10, "5120^3 without workspace");
        /* an m- or n-contiguous operand without 16-byte loads keeps 7 (10 copies it 4 bytes at a
         * time: NN 4095^3 on the H100 ran 33.96 TFLOP/s on 10, 46.15 on 7); a k-contiguous one
         * does not matter (tsg_kernel.h); TT without 10 is the rule's pick between 7 and 9, as on a
         * device without sm_90a code: 9 at this shape */
        {
            struct {
                char ta, tb;
                bool va, vb;
                int want;
            } al[] = {{'N', 'N', false, true, 7}, {'N', 'N', false, false, 7}, {'N', 'N', true, false, 10},
                      {'T', 'N', false, false, 10}, {'N', 'T', true, false, 7}, {'T', 'T', true, false, 9},
                      {'T', 'T', false, true, 10}, {'N', 'N', true, true, 10}};
            for (const auto &x : al) {
                const tsg::KernelPlan p = tsg::kernel_plan(x.ta, x.tb, 4095, 4095, 4095, SMS, WS, -1, 0, 0, x.va, x.vb);
                EXPECT(p.config == x.want, "%c%c 4095^3, A %s, B %s: config %d, want %d", x.ta, x.tb,
                       x.va ? "aligned" : "unaligned", x.vb ? "aligned" : "unaligned", p.config, x.want);
            }
        }
        /* forced: 10 when asked for (kernel_sgemm runs 7 in its place where it is unavailable) */
        EXPECT(tsg::kernel_plan('N', 'N', 4096, 4096, 4096, SMS, WS, 10, 0).config == 10, "forced 10");
        EXPECT(tsg::kernel_plan('N', 'N', 4096, 4096, 4096, SMS, WS, 7, 0).config == 7, "forced 7");
        /* back to a table without sm_90a */
        int h200no[11];
        for (int c = 0; c < 11; ++c) h200no[c] = c < 10 ? h200[c] : 0;
        tsg::kernel_set_blocks_per_sm(h200no, 11);
        EXPECT(!tsg::kernel_available(10), "configuration 10 unavailable again");
        EXPECT(tsg::kernel_plan('N', 'N', 4096, 4096, 4096, SMS, WS, -1, 0).config == 7, "without sm_90a: 7");
    }

    /* a grid of shapes: well formed, deterministic */
    const int64_t sizes[] = {1, 7, 8, 9, 31, 64, 100, 129, 255, 256, 511, 1000, 4097, 20000, 70000};
    for (int64_t m : sizes)
        for (int64_t n : sizes)
            for (int64_t k : sizes) {
                const tsg::KernelPlan a = tsg::kernel_plan('N', 'N', m, n, k, SMS, WS, -1, 0);
                const tsg::KernelPlan b = tsg::kernel_plan('N', 'N', m, n, k, SMS, WS, -1, 0);
                EXPECT(a.config == b.config && a.splits == b.splits && a.kslice == b.kslice &&
                           a.tail_tiles == b.tail_tiles && a.tail_blocks == b.tail_blocks,
                       "%lld %lld %lld: two plans differ", (long long)m, (long long)n, (long long)k);
                check_well_formed(m, n, k, a);
            }
    return tt_expect_report();
}
