/*
 * test_learn.c — src/tsg_learn.c: auto mode's corrections near the crossover. The size classes;
 * a close call converges to the side that is really faster when the rates priced it the other
 * way (the two v0.12 runs whose 256^3 medians ran in opposite orders), with bounded exploration;
 * calls that switch sides (and pay the other side's wake-up) are not learned; a clear call
 * learns nothing (the model alone); classes interleaved with each other still learn; one stalled
 * call cannot swing a class; racing observers lose nothing; and tsg_run reports the model's
 * estimates, the class and explored calls.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tsg_dispatch.h"
#include "tsg_learn.h"

static tsg_problem shape(int64_t m, int64_t n, int64_t k)
{
    tsg_problem p = {'N', 'N', m, n, k, 1.0f, 0.0f, NULL, m, NULL, k, NULL, m,
                     TSG_HOST, TSG_HOST, TSG_HOST};
    return p;
}

static void test_classes(void **state)
{
    (void)state;
    tsg_problem p = shape(128, 128, 128); /* 2^22 flops: the first octave, k smallest (tie) */
    assert_int_equal(tsg_learn_class_of(&p), 0);
    p = shape(127, 128, 128); /* below the floor */
    assert_int_equal(tsg_learn_class_of(&p), -1);
    p = shape(256, 256, 256); /* 2^25: octave 3 */
    assert_int_equal(tsg_learn_class_of(&p), 3 * TSG_LEARN_SHAPES + 0);
    p = shape(64, 65536, 4096); /* m smallest */
    assert_int_equal(tsg_learn_class_of(&p) % TSG_LEARN_SHAPES, 1);
    p = shape(65536, 64, 4096); /* n smallest */
    assert_int_equal(tsg_learn_class_of(&p) % TSG_LEARN_SHAPES, 2);
    p = shape(65536, 65536, 65536); /* 2^49: beyond the table */
    assert_int_equal(tsg_learn_class_of(&p), -1);
}

/* A deterministic spread of +-25% around a median (what 256^3 calls look like on either side). */
static double jitter(unsigned *s, double median)
{
    *s = *s * 1103515245u + 12345u;
    return median * (0.75 + 0.5 * (double)((*s >> 8) & 0xffff) / 65535.0);
}

/* Runs `calls` close calls whose estimates are est[], whose real medians are real[] and whose
 * first call after a switch of sides takes switched[side] times as long (a cold side); returns
 * how many of the last `tail` ran on the GPU and how many of all were explored. */
static void simulate(tsg_learn *l, int cls, const double est[2], const double real[2],
                     const double switched[2], int calls, int tail, int *gpu_in_tail,
                     int *explored_all)
{
    unsigned seed = 7;
    int last = atomic_load(&l->cls[cls].last_side) - 1; /* the class's last side (-1: none) */
    *gpu_in_tail = *explored_all = 0;
    for (int i = 0; i < calls; ++i) {
        int explored, learn;
        const int gpu = tsg_learn_decide(l, cls, est, TSG_GPU_MARGIN, &explored, &learn);
        *explored_all += explored;
        if (i >= calls - tail) *gpu_in_tail += gpu;
        const double t = jitter(&seed, real[gpu]) * (last >= 0 && last != gpu ? switched[gpu] : 1.0);
        assert_int_equal(learn, last == gpu);
        if (learn) tsg_learn_observe(l, cls, gpu, t, est[gpu]);
        last = gpu;
    }
}

static void test_close_call_learns_the_faster_side(void **state)
{
    (void)state;
    static tsg_learn l; /* zero: nothing learned */
    tsg_problem p = shape(256, 256, 256);
    const int cls = tsg_learn_class_of(&p);
    /* v0.12 run 3: the rates priced CPU 0.101 ms, GPU 0.123 (so the model says CPU); the bench
     * then timed the CPU at 0.120 and the GPU at 0.102 */
    const double est3[2] = {0.101e-3, 0.123e-3}, real3[2] = {0.120e-3, 0.102e-3};
    const double warm[2] = {1.0, 1.0};
    int explored, learn;
    assert_int_equal(tsg_learn_decide(NULL, cls, est3, TSG_GPU_MARGIN, &explored, &learn), 0);
    assert_int_equal(explored, 0);
    assert_int_equal(learn, 0);
    int gpu_tail, explored_all;
    simulate(&l, cls, est3, real3, warm, 320, 100, &gpu_tail, &explored_all);
    assert_true(gpu_tail >= 90); /* the GPU, but for a streak of 4 calls in 64 sent back */
    assert_true(explored_all <= 6 + (320 / TSG_LEARN_EVERY + 1) * TSG_LEARN_STREAK);
    assert_true(explored_all >= (320 / TSG_LEARN_EVERY - 1) * TSG_LEARN_STREAK); /* it keeps on */
    /* the factors say what was learned: the CPU slower than its estimate, the GPU faster */
    assert_true(tsg_learn_factor(&l, cls, TSG_LEARN_CPU) > 1.05);
    assert_true(tsg_learn_factor(&l, cls, TSG_LEARN_GPU) < 0.95);

    /* v0.12 run 1 the other way round: rates near a tie that the model gives the GPU, the CPU
     * really faster (0.093 against 0.119); a fresh class of the same table */
    p = shape(256, 256, 200); /* k smallest, another octave: a class of its own */
    const int cls1 = tsg_learn_class_of(&p);
    assert_int_not_equal(cls1, cls);
    const double est1[2] = {0.125e-3, 0.117e-3}, real1[2] = {0.093e-3, 0.119e-3};
    assert_int_equal(tsg_learn_decide(NULL, cls1, est1, TSG_GPU_MARGIN, &explored, &learn), 1);
    simulate(&l, cls1, est1, real1, warm, 320, 100, &gpu_tail, &explored_all);
    assert_true(gpu_tail <= 10);
    /* the first class kept what it learned */
    assert_true(tsg_learn_factor(&l, cls, TSG_LEARN_GPU) < 0.95);
}

/* v0.12 run 4 at 320^3: the model priced CPU 0.135 ms, GPU 0.152; steady calls took 0.188 on the
 * CPU and 0.146 on the GPU, but a GPU call right after CPU calls finds the copy threads asleep
 * (taken here as 3x) and a CPU call after GPU calls OpenBLAS's workers (1.5x). Learning those
 * switches would price the GPU at its cold cost and keep the class on the CPU. */
static void test_switches_are_not_learned(void **state)
{
    (void)state;
    static tsg_learn l;
    tsg_problem p = shape(320, 320, 320);
    const int cls = tsg_learn_class_of(&p);
    const double est[2] = {0.135e-3, 0.152e-3}, real[2] = {0.188e-3, 0.146e-3};
    const double cold[2] = {1.5, 3.0};
    int gpu_tail, explored_all;
    simulate(&l, cls, est, real, cold, 320, 100, &gpu_tail, &explored_all);
    assert_true(gpu_tail >= 90);
    assert_true(fabs(tsg_learn_factor(&l, cls, TSG_LEARN_GPU) - 0.146 / 0.152) < 0.1);
}

/* The observations of a side of a class. */
static unsigned seen(const tsg_learn *l, int cls, int side)
{
    return (unsigned)(atomic_load(&l->cls[cls].side[side]) >> 32);
}

static void test_clear_call_is_the_model_alone(void **state)
{
    (void)state;
    static tsg_learn l;
    tsg_problem p = shape(1024, 1024, 1024);
    const int cls = tsg_learn_class_of(&p);
    const double est[2] = {1.0e-3, 0.45e-3}; /* 2.2x apart: the model is sure */
    /* even with the GPU side of the class priced far above its estimate (a stalled first call:
     * waiting for the rates, a workspace growing), the decision stays the model's */
    for (int i = 0; i < 10; ++i) tsg_learn_observe(&l, cls, TSG_LEARN_GPU, 3e-3, est[TSG_LEARN_GPU]);
    assert_true(tsg_learn_factor(&l, cls, TSG_LEARN_GPU) > 2.0);
    int explored, learn;
    for (int i = 0; i < 200; ++i) {
        assert_int_equal(tsg_learn_decide(&l, cls, est, TSG_GPU_MARGIN, &explored, &learn), 1);
        assert_int_equal(explored, 0);
        assert_int_equal(learn, 0); /* nothing to learn where nothing is decided by it */
    }
    assert_int_equal(seen(&l, cls, TSG_LEARN_CPU), 0);
    assert_int_equal(atomic_load(&l.cls[cls].decided), 0);
}

/* A program alternating two close sizes whose sides differ (a review's case): 256^3 (the model
 * says CPU, the GPU is really twice as fast) between 384^3 calls that stay on the GPU. Each class
 * keeps its own last side, so neither sees the other's calls as switches: both learn. */
static void test_interleaved_classes_still_learn(void **state)
{
    (void)state;
    static tsg_learn l;
    tsg_problem small = shape(256, 256, 256), mid = shape(384, 384, 384);
    const int cs = tsg_learn_class_of(&small), cm = tsg_learn_class_of(&mid);
    assert_int_not_equal(cs, cm);
    const double es[2] = {0.101e-3, 0.123e-3}, em[2] = {0.192e-3, 0.167e-3};
    int gpu_tail = 0, explored, learn;
    for (int i = 0; i < 400; ++i) {
        int g = tsg_learn_decide(&l, cs, es, TSG_GPU_MARGIN, &explored, &learn);
        if (learn) tsg_learn_observe(&l, cs, g, g ? 0.060e-3 : 0.120e-3, es[g]);
        if (i >= 300) gpu_tail += g;
        g = tsg_learn_decide(&l, cm, em, TSG_GPU_MARGIN, &explored, &learn);
        if (learn) tsg_learn_observe(&l, cm, g, g ? 0.159e-3 : 0.250e-3, em[g]);
    }
    assert_true(gpu_tail >= 90);
    assert_true(seen(&l, cs, TSG_LEARN_GPU) > 100 && seen(&l, cs, TSG_LEARN_CPU) >= 2);
    assert_true(seen(&l, cm, TSG_LEARN_GPU) > 100 && seen(&l, cm, TSG_LEARN_CPU) >= 2);
}

static void test_one_call_cannot_swing_a_class(void **state)
{
    (void)state;
    static tsg_learn l;
    const int cls = 5;
    /* a first observation weighs as much as the model's prior allows */
    tsg_learn_observe(&l, cls, TSG_LEARN_GPU, 1.0, 1e-4); /* 10000x: clipped, then averaged */
    assert_true(fabs(tsg_learn_factor(&l, cls, TSG_LEARN_GPU) -
                     exp(TSG_LEARN_CLIP / (TSG_LEARN_PRIOR + 1))) < 1e-4);
    for (int i = 0; i < 20; ++i) tsg_learn_observe(&l, cls, TSG_LEARN_CPU, 1e-4, 1e-4);
    assert_true(fabs(tsg_learn_factor(&l, cls, TSG_LEARN_CPU) - 1.0) < 1e-6);
    tsg_learn_observe(&l, cls, TSG_LEARN_CPU, 1e-1, 1e-4); /* a 1000x stall */
    const double f = tsg_learn_factor(&l, cls, TSG_LEARN_CPU);
    assert_true(f > 1.0 && f <= exp(TSG_LEARN_WEIGHT * TSG_LEARN_CLIP) + 1e-6);
    /* nonsense is ignored */
    tsg_learn_observe(&l, cls, TSG_LEARN_GPU, 0.0, 1e-4);
    tsg_learn_observe(&l, cls, TSG_LEARN_GPU, NAN, 1e-4);
    tsg_learn_observe(&l, cls, 2, 1e-4, 1e-4);
    tsg_learn_observe(&l, -1, TSG_LEARN_GPU, 1e-4, 1e-4);
    tsg_learn_observe(&l, TSG_LEARN_CLASSES, TSG_LEARN_GPU, 1e-4, 1e-4);
    assert_int_equal(seen(&l, cls, TSG_LEARN_GPU), 1);
    assert_int_equal(seen(&l, cls, TSG_LEARN_CPU), 21);
}

/* Threads observing one class at once lose nothing: mean and count change together. */
enum { OBS_THREADS = 4, OBS_EACH = 200000 };
static tsg_learn g_shared;
static void *observer(void *arg)
{
    const double ratio = *(const double *)arg;
    for (int i = 0; i < OBS_EACH; ++i) tsg_learn_observe(&g_shared, 7, TSG_LEARN_GPU, ratio * 1e-4, 1e-4);
    return NULL;
}

static void test_racing_observers_lose_nothing(void **state)
{
    (void)state;
    pthread_t t[OBS_THREADS];
    const double ratio = 2.0;
    for (int i = 0; i < OBS_THREADS; ++i) assert_int_equal(pthread_create(&t[i], NULL, observer, (void *)&ratio), 0);
    for (int i = 0; i < OBS_THREADS; ++i) pthread_join(t[i], NULL);
    assert_int_equal(seen(&g_shared, 7, TSG_LEARN_GPU), OBS_THREADS * OBS_EACH);
    assert_true(fabs(tsg_learn_factor(&g_shared, 7, TSG_LEARN_GPU) - ratio) < 1e-3);
}

/* ---- through tsg_run, fake backends that only count ---- */

static int calls[2];
static int ready(void *ctx, tsg_rates *r)
{
    (void)ctx;
    /* v0.11 run 4's H200 rates with the 256^3 points of v0.12 run 3: CPU 0.101, GPU ~0.123 */
    tsg_rates h = {56.9e9, 59.9e9, 47.0e12, 83e-6, 128, 128, 132, 256, 0,
                   1.12e12, 0.11e-6, 0, 0.394e-3, 0.101e-3};
    *r = h;
    return 1;
}
static int gpu(void *ctx, const tsg_problem *p, tsg_done *done, char *msg, size_t len)
{
    (void)ctx, (void)p, (void)done, (void)msg, (void)len;
    calls[1]++;
    return 0;
}
static void cpu(void *ctx, const tsg_problem *p)
{
    (void)ctx, (void)p;
    calls[0]++;
}

static void test_run_reports_and_explores(void **state)
{
    (void)state;
    static tsg_learn l;
    tsg_backends be = {ready, gpu, cpu, NULL, &l};
    tsg_policy auto_mode = {TSG_MODE_AUTO, 0.0};
    tsg_problem p = shape(256, 256, 256);
    tsg_report rep;
    int explores = 0, learned_gpu = 0, explored_gpu = 0;
    for (int i = 0; i < 64; ++i) {
        tsg_run(&p, &auto_mode, &be, &rep);
        assert_int_equal(rep.learn_class, tsg_learn_class_of(&p));
        assert_true(rep.est_s[TSG_LEARN_CPU] > 0 && rep.est_s[TSG_LEARN_GPU] > 0);
        const int side = rep.path == TSG_PATH_GPU;
        if (rep.why == TSG_WHY_EXPLORE) explores++, explored_gpu += side;
        else if (side) learned_gpu += rep.why == TSG_WHY_LEARNED_GPU; /* the model says CPU */
        else assert_int_equal(rep.why, TSG_WHY_MODEL_CPU);
        if (!side) assert_int_not_equal(rep.why, TSG_WHY_LEARNED_CPU);
        /* the caller's part: the GPU really takes 0.102 ms, the CPU 0.120 */
        if (rep.learn)
            tsg_learn_observe(&l, rep.learn_class, side, side ? 0.102e-3 : 0.120e-3, rep.est_s[side]);
    }
    assert_true(explores >= 2 && explores <= 12);
    /* the model says CPU here: every GPU call was explored or went there because of what the
     * class learned, and the trace says which */
    assert_int_equal(calls[0] + calls[1], 64);
    assert_int_equal(learned_gpu + explored_gpu, calls[1]);
    assert_true(learned_gpu > 40);
    assert_string_equal(tsg_why_text(TSG_WHY_LEARNED_GPU), "learned: GPU faster than the model says");
    tsg_run(&p, &auto_mode, &be, &rep); /* learned: the GPU now (or one more exploration) */
    assert_true(rep.path == TSG_PATH_GPU || rep.why == TSG_WHY_EXPLORE);
    assert_true(calls[1] > 40);
    assert_string_equal(tsg_why_text(TSG_WHY_EXPLORE), "model: close call, learning the other side");
    /* no table: the model alone, the same report otherwise */
    be.learn = NULL;
    tsg_run(&p, &auto_mode, &be, &rep);
    assert_int_equal(rep.learn_class, -1);
    assert_int_equal(rep.path, TSG_PATH_CPU);
    assert_int_equal(rep.why, TSG_WHY_MODEL_CPU);
    /* a forced mode never reaches the model: no class, no estimates used */
    be.learn = &l;
    tsg_policy gpu_mode = {TSG_MODE_GPU, 0.0};
    tsg_run(&p, &gpu_mode, &be, &rep);
    assert_int_equal(rep.learn_class, -1);
    assert_int_equal(rep.why, TSG_WHY_MODE_GPU);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_close_call_learns_the_faster_side),
        cmocka_unit_test(test_switches_are_not_learned),
        cmocka_unit_test(test_clear_call_is_the_model_alone),
        cmocka_unit_test(test_interleaved_classes_still_learn),
        cmocka_unit_test(test_one_call_cannot_swing_a_class),
        cmocka_unit_test(test_racing_observers_lose_nothing),
        cmocka_unit_test(test_run_reports_and_explores),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
