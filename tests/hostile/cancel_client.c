/*
 * cancel_client.c — cancellation and signals around tsgemm calls (issue 34, docs/TESTING.md fault
 * class 22), through libtsgemm_fake with slow stand-in GPU work (TSGEMM_FAKE_MEASURE_MS,
 * TSGEMM_FAKE_CALL_MS: run_cancel_cases.sh sets them). Usage: cancel_client CASE, CASE one of
 *   rates   a thread cancelled while its first call measures the rates (inside pthread_once and
 *           the cache lock): its call completes with C right, the thread ends at its next
 *           cancellation point, and a later call on another thread completes too
 *   call    a thread cancelled while the copy threads compute its call (inside the pool's wait):
 *           the same
 *   signal  a process-directed SIGUSR1 sent during a call, every program thread blocking it: no
 *           handler runs during the call (the library's threads block every signal, even ones
 *           started by a thread that does not); it runs once, on the calling thread, when that
 *           thread unblocks SIGUSR1 after the call
 * Each check prints "FAIL: ..." when it fails; exit 0 when all hold. alarm(60): a hang is a
 * SIGALRM death, never a pass.
 */
#include <cblas-netlib.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int g_fails;
#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            printf("FAIL: " __VA_ARGS__);                                                        \
            printf("\n");                                                                        \
            ++g_fails;                                                                           \
        }                                                                                        \
    } while (0)

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0) {
    }
}

/* One NN product of small integers (every sum exact below 2^24); 1 when C is exactly right. */
static int product_ok(int n)
{
    float *a = malloc(sizeof(float) * (size_t)n * (size_t)n);
    float *b = malloc(sizeof(float) * (size_t)n * (size_t)n);
    float *c = malloc(sizeof(float) * (size_t)n * (size_t)n);
    if (!a || !b || !c) return 0;
    for (size_t i = 0; i < (size_t)n * (size_t)n; ++i) {
        a[i] = (float)((i * 7) % 5) - 2.0f;
        b[i] = (float)((i * 3) % 7) - 3.0f;
        c[i] = 0.0f / 0.0f; /* beta = 0: never read */
    }
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    int ok = 1;
    for (int j = 0; j < n && ok; j += 13)
        for (int i = 0; i < n; ++i) {
            double r = 0;
            for (int l = 0; l < n; ++l) r += (double)a[i + (size_t)l * n] * (double)b[l + (size_t)j * n];
            if ((double)c[i + (size_t)j * n] != r) ok = 0;
        }
    free(a);
    free(b);
    free(c);
    return ok;
}

/* ---- cancellation ---- */

static atomic_int g_started, g_finished, g_right;

static void *cancelled_caller(void *arg)
{
    const int n = (int)(intptr_t)arg;
    atomic_store(&g_started, 1);
    const int ok = product_ok(n);
    atomic_store(&g_right, ok);
    atomic_store(&g_finished, 1);
    pthread_testcancel(); /* the pending request acts here, after the call */
    atomic_store(&g_finished, 2); /* never reached when the request was pending */
    return NULL;
}

static void case_cancel(int n, int cancel_after_ms)
{
    pthread_t t;
    if (pthread_create(&t, NULL, cancelled_caller, (void *)(intptr_t)n) != 0) {
        CHECK(0, "pthread_create");
        return;
    }
    while (!atomic_load(&g_started)) sleep_ms(1);
    sleep_ms(cancel_after_ms);
    CHECK(atomic_load(&g_finished) == 0, "the call ended before the cancellation request (the "
                                         "case tests nothing: make the fake GPU slower)");
    pthread_cancel(t);
    void *res = NULL;
    pthread_join(t, &res);
    CHECK(res == PTHREAD_CANCELED, "the thread was not cancelled at all");
    CHECK(atomic_load(&g_finished) == 1, "the cancelled thread's call did not complete (state %d)",
          atomic_load(&g_finished));
    CHECK(atomic_load(&g_right) == 1, "the cancelled thread's C is wrong");
    CHECK(product_ok(n), "a call after the cancellation is wrong"); /* hangs without the fix */
}

/* ---- signals ---- */

static pthread_t g_caller;
static atomic_int g_in_call, g_handled, g_during_call, g_on_other_thread;

static void on_usr1(int sig)
{
    (void)sig;
    atomic_fetch_add(&g_handled, 1);
    if (atomic_load(&g_in_call)) atomic_store(&g_during_call, 1);
    if (!pthread_equal(pthread_self(), g_caller)) atomic_store(&g_on_other_thread, 1);
}

static void *signalled_caller(void *arg)
{
    const int n = (int)(intptr_t)arg;
    atomic_store(&g_in_call, 1);
    atomic_store(&g_started, 1);
    const int ok = product_ok(n);
    atomic_store(&g_in_call, 0);
    atomic_store(&g_right, ok);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    pthread_sigmask(SIG_UNBLOCK, &s, NULL); /* the pending signal is delivered here */
    return NULL;
}

static void case_signal(int n)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    /* the library starts its threads from a thread that does not block SIGUSR1: threads that
     * inherited this mask would take the signal */
    CHECK(product_ok(n), "the warm-up call is wrong");
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &s, NULL); /* from here every program thread blocks it */
    if (pthread_create(&g_caller, NULL, signalled_caller, (void *)(intptr_t)n) != 0) {
        CHECK(0, "pthread_create");
        return;
    }
    while (!atomic_load(&g_started)) sleep_ms(1);
    sleep_ms(100);
    CHECK(atomic_load(&g_in_call) == 1, "the call ended before the signal (the case tests nothing)");
    kill(getpid(), SIGUSR1);
    pthread_join(g_caller, NULL);
    CHECK(atomic_load(&g_right) == 1, "the signalled call's C is wrong");
    CHECK(atomic_load(&g_handled) == 1, "the handler ran %d times, not once", atomic_load(&g_handled));
    CHECK(atomic_load(&g_during_call) == 0, "the handler ran during the call");
    CHECK(atomic_load(&g_on_other_thread) == 0, "the handler ran on a thread other than the caller");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cancel_client rates|call|signal\n");
        return 2;
    }
    alarm(60);
    const int n = 512; /* above the GPU size floors (README "Behaviour") */
    if (strcmp(argv[1], "rates") == 0) {
        case_cancel(n, 100);
    } else if (strcmp(argv[1], "call") == 0) {
        CHECK(product_ok(n), "the warm-up call is wrong"); /* the rates are known from here */
        case_cancel(n, 100);
    } else if (strcmp(argv[1], "signal") == 0) {
        case_signal(n);
    } else {
        return 2;
    }
    printf("%s: %d failed\n", argv[1], g_fails);
    return g_fails ? 1 : 0;
}
