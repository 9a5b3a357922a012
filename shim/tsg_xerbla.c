/*
 * tsg_xerbla.c — reporting illegal arguments the way the reference BLAS does, without ever
 * killing the host process.
 *
 * The reference protocol (netlib CBLAS cblas_sgemm.c + cblas_xerbla.c): the handler receives the
 * CBLAS position of the problem handed to the Fortran layer — for row-major that problem is
 * swapped, so a bad M arrives as 5 and a bad lda as 11 — and the handler swaps 4<->5 and 9<->11
 * back when RowMajorStrg is set. Both netlib's and OpenBLAS's own cblas_xerbla then call exit(),
 * so we call a handler only when the program itself defines one (the netlib testers do), found by
 * name and accepted only when its address lies in the main executable. Otherwise we print one
 * line with the user-facing position. We never define xerbla_ or cblas_xerbla ourselves.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>

#include "tsg_log.h"
#include "tsg_xerbla.h"

struct range_query {
    uintptr_t addr;
    int found;
};

static int in_first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct range_query *q = data;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (q->addr >= lo && q->addr < lo + ph->p_memsz) q->found = 1;
    }
    return 1; /* the first object reported is always the main program: stop after it */
}

int tsg_addr_in_main_program(const void *addr)
{
    struct range_query q = {(uintptr_t)addr, 0};
    if (!addr) return 0;
    dl_iterate_phdr(in_first_object, &q);
    return q.found;
}

/* The program's own definition of `name`, or NULL (a BLAS library's definition does not count). */
static void *program_symbol(const char *name)
{
    void *sym = dlsym(RTLD_DEFAULT, name);
    return tsg_addr_in_main_program(sym) ? sym : NULL;
}

typedef void (*cblas_xerbla_fn)(int, const char *, const char *, ...);
typedef void (*f77_xerbla_fn)(const char *, const int *, size_t);

void tsg_report_illegal(tsg_api api, const tsg_call *call)
{
    if (api == TSG_API_CBLAS) {
        cblas_xerbla_fn h = (cblas_xerbla_fn)program_symbol("cblas_xerbla");
        if (h) {
            /* As netlib's cblas_sgemm does: RowMajorStrg tells the handler to swap back. */
            int *rms = (int *)dlsym(RTLD_DEFAULT, "RowMajorStrg");
            if (rms) *rms = call->row_major;
            h(call->info, "cblas_sgemm", "");
            if (rms) *rms = 0;
            return;
        }
    } else if (api == TSG_API_F77) {
        f77_xerbla_fn h = (f77_xerbla_fn)program_symbol("xerbla_");
        if (h) {
            int info = call->info;
            h("SGEMM ", &info, 6); /* Fortran: hidden length of the routine name */
            return;
        }
    }
    /* ILP64 names: their handlers take 64-bit integers we cannot type-check; the LP64 scipy_
     * names belong to a wheel's own OpenBLAS, whose errors never reached the program's handlers
     * either. Print instead, at the same reference position. */
    int cblas = tsg_api_is_cblas(api);
    tsg_log(0, "parameter %d (%s) to %s had an illegal value; the call did nothing",
            call->user_pos, tsg_arg_name(cblas, call->user_pos), tsg_api_name(api));
}
