/*
 * tsg_residency.c — CUDA memory passed to the BLAS entry points. See tsg_residency.h.
 *
 * Is the driver here? The dynamic linker keeps loaded objects in a list and appends new ones at
 * its tail. We remember the tail we last looked at (holding a dlopen reference on it, so it
 * cannot be unloaded and freed under us) and answer "no" while nothing follows it. When something
 * was loaded, dl_iterate_phdr (under the loader's lock) looks for libcuda and finds the new tail.
 * Once libcuda is seen the answer stays "yes" (cudart never unloads it). Watching goes on after
 * that until the program is known to use CUDA itself (see rescan).
 *
 * The driver ABI used here (values from CUDA's cuda.h, stable since CUDA 7; gpu/tsg_device.cu
 * checks them against the header when built with CUDA):
 *   CUresult cuPointerGetAttributes(unsigned n, CUpointer_attribute *attrs, void **data,
 *                                   CUdeviceptr ptr)   — returns CUDA_SUCCESS (0) with zeroed
 *       data for a pointer the driver does not know ("will not return an error when the ptr
 *       encountered is not a valid CUDA pointer");
 *   CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2 (CU_MEMORYTYPE_HOST = 1, _DEVICE = 2, _UNIFIED = 4),
 *   CU_POINTER_ATTRIBUTE_IS_MANAGED = 8, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;
 *   CUresult cuStreamSynchronize(CUstream), CU_STREAM_LEGACY = (CUstream)1,
 *   CU_STREAM_PER_THREAD = (CUstream)2.
 */
#define _GNU_SOURCE
#include "tsg_residency.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

enum {
    TSG_CU_ATTR_MEMORY_TYPE = 2,
    TSG_CU_ATTR_IS_MANAGED = 8,
    TSG_CU_ATTR_DEVICE_ORDINAL = 9,
    TSG_CU_MEMORYTYPE_HOST = 1,
    TSG_CU_MEMORYTYPE_DEVICE = 2,
    TSG_CU_MEMORYTYPE_UNIFIED = 4
};
#define TSG_CU_STREAM_LEGACY ((void *)0x1)
#define TSG_CU_STREAM_PER_THREAD ((void *)0x2)

typedef int (*get_attrs_fn)(unsigned, int *, void **, unsigned long long);
typedef int (*stream_sync_fn)(void *);
typedef int (*ctx_get_fn)(void **);

static atomic_int g_cuda;                   /* libcuda seen in this process            */
static atomic_int g_foreign;                /* ... loaded by someone else than tsgemm's GPU start */
static atomic_int g_own_start;              /* tsgemm started its GPU (may load libcuda)     */
static struct link_map *_Atomic g_tail;     /* object list tail at the last look       */
static void *g_tail_handle;                 /* our reference that keeps it loaded      */
static pthread_mutex_t g_scan_lock = PTHREAD_MUTEX_INITIALIZER;
/* g_tail while libcuda has not been seen, else NULL: the tiny-call gate (tsg_cuda_surely_absent) */
struct link_map *_Atomic tsg_res_quiet_tail;
static get_attrs_fn g_get_attrs;
static stream_sync_fn g_stream_sync;
static ctx_get_fn g_ctx_get;

struct scan {
    char cuda[512];
    int cudart; /* a shared CUDA runtime (tsgemm links its own statically): the program's */
    char last[512];
    int last_is_main;
};

static int scan_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct scan *s = data;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (!s->cuda[0] && strncmp(base, "libcuda.so", 10) == 0)
        strncpy(s->cuda, name, sizeof s->cuda - 1);
    if (strncmp(base, "libcudart.so", 12) == 0) s->cudart = 1;
    s->last_is_main = name[0] == '\0';
    strncpy(s->last, name, sizeof s->last - 1);
    s->last[sizeof s->last - 1] = '\0';
    return 0;
}

/*
 * Looks at the object list again (it grew since the last look, or was never looked at). Notes
 * libcuda (resolving the three driver entry points once) and whether the program brought CUDA in
 * itself: libcuda there before tsgemm's own GPU start, or any shared libcudart. Until the latter
 * is known the new tail is pinned and watched, so a program that loads CUDA after tsgemm started
 * its GPU (a CUDA library dlopen'ed later, a dynamically linked CUDA program whose first CUDA
 * call came after our start) is still recognised. Returns g_cuda.
 */
static int rescan(void)
{
    pthread_mutex_lock(&g_scan_lock);
    for (int tries = 0; !atomic_load(&g_foreign) && tries < 4; ++tries) {
        struct scan s;
        memset(&s, 0, sizeof s);
        dl_iterate_phdr(scan_object, &s);
        if (s.cuda[0] && !atomic_load(&g_cuda)) {
            void *h = dlopen(s.cuda, RTLD_LAZY | RTLD_NOLOAD);
            if (h) { /* the reference is kept: libcuda stays for the process */
                g_get_attrs = (get_attrs_fn)dlsym(h, "cuPointerGetAttributes");
                g_stream_sync = (stream_sync_fn)dlsym(h, "cuStreamSynchronize");
                g_ctx_get = (ctx_get_fn)dlsym(h, "cuCtxGetCurrent");
            }
            atomic_store(&tsg_res_quiet_tail, NULL); /* before g_cuda: the gate closes first */
            atomic_store(&g_cuda, 1);
            if (!atomic_load(&g_own_start)) atomic_store(&g_foreign, 1);
        }
        if (s.cudart && atomic_load(&g_cuda)) atomic_store(&g_foreign, 1);
        if (atomic_load(&g_foreign)) break; /* nothing left to learn: stop watching */
        /* pin the new tail, then release the old one */
        void *h = s.last_is_main ? dlopen(NULL, RTLD_LAZY) : dlopen(s.last, RTLD_LAZY | RTLD_NOLOAD);
        struct link_map *lm = NULL;
        if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm) {
            if (h) dlclose(h);
            /* cannot watch the list: with libcuda here, treat every thread as a CUDA caller */
            if (atomic_load(&g_cuda)) atomic_store(&g_foreign, 1);
            break;
        }
        if (__atomic_load_n(&lm->l_next, __ATOMIC_ACQUIRE) != NULL) { /* grew meanwhile: again */
            dlclose(h);
            continue;
        }
        void *old = g_tail_handle;
        g_tail_handle = h;
        atomic_store_explicit(&g_tail, lm, memory_order_release);
        atomic_store_explicit(&tsg_res_quiet_tail, atomic_load(&g_cuda) ? NULL : lm,
                              memory_order_release);
        if (old) dlclose(old);
        break;
    }
    pthread_mutex_unlock(&g_scan_lock);
    return atomic_load(&g_cuda);
}

/* 1 when the object list may have changed since the last look */
static inline int list_grew(void)
{
    struct link_map *t = atomic_load_explicit(&g_tail, memory_order_acquire);
    return !t || __atomic_load_n(&t->l_next, __ATOMIC_ACQUIRE) != NULL;
}

int tsg_cuda_present(void)
{
    if (atomic_load_explicit(&g_foreign, memory_order_relaxed)) return 1;
    if (!list_grew()) return atomic_load_explicit(&g_cuda, memory_order_relaxed);
    return rescan();
}

void tsg_residency_gpu_starting(void)
{
    /* libcuda already here before our own start: the program uses CUDA itself */
    if (tsg_cuda_present()) atomic_store(&g_foreign, 1);
    atomic_store(&g_own_start, 1);
}

/* 1 when the calling thread has a current CUDA context (0 when it cannot be asked) */
static int thread_has_context(void)
{
    void *ctx = NULL;
    return g_ctx_get && g_ctx_get(&ctx) == 0 && ctx != NULL;
}

int tsg_cuda_may_pass_operands(void)
{
    if (atomic_load_explicit(&g_foreign, memory_order_relaxed)) return 1;
    if (list_grew()) {
        rescan();
        if (atomic_load(&g_foreign)) return 1;
    }
    if (!atomic_load_explicit(&g_cuda, memory_order_relaxed)) return 0;
    if (!g_ctx_get) return 1;
    /* only tsgemm brought CUDA in: ask only threads that use CUDA themselves */
    return thread_has_context();
}

static unsigned char where_of(const void *ptr, int *device)
{
    if (!ptr || !g_get_attrs) return TSG_HOST;
    uint32_t memtype = 0, managed = 0;
    int32_t ordinal = -1;
    int attrs[3] = {TSG_CU_ATTR_MEMORY_TYPE, TSG_CU_ATTR_IS_MANAGED, TSG_CU_ATTR_DEVICE_ORDINAL};
    void *data[3] = {&memtype, &managed, &ordinal};
    if (g_get_attrs(3, attrs, data, (unsigned long long)(uintptr_t)ptr) != 0) return TSG_HOST;
    if (managed) return TSG_MANAGED;
    if (memtype == TSG_CU_MEMORYTYPE_HOST) return TSG_PINNED;
    if (memtype == TSG_CU_MEMORYTYPE_DEVICE || memtype == TSG_CU_MEMORYTYPE_UNIFIED) {
        if (*device == -1) *device = ordinal;
        else if (*device != ordinal) *device = -2; /* operands on two GPUs */
        return TSG_DEVICE;
    }
    return TSG_HOST;
}

void tsg_classify_operands(tsg_problem *p, int *device)
{
    *device = -1;
    const int reads_ab = p->alpha != 0.0f && p->k != 0 && p->m != 0 && p->n != 0;
    p->where_a = reads_ab ? where_of(p->a, device) : TSG_HOST;
    p->where_b = reads_ab ? where_of(p->b, device) : TSG_HOST;
    p->where_c = (p->m != 0 && p->n != 0) ? where_of(p->c, device) : TSG_HOST;
}

void tsg_cuda_wait_caller_streams(void)
{
    /* no current context: this thread queued nothing on a default stream */
    if (!g_stream_sync || !thread_has_context()) return;
    /* errors (a sticky error of the caller's) are the caller's business: nothing of ours is
     * queued there */
    g_stream_sync(TSG_CU_STREAM_LEGACY);
    g_stream_sync(TSG_CU_STREAM_PER_THREAD);
}
