/*
 * tsg_xerbla.h — reporting illegal arguments like the reference BLAS (tsg_xerbla.c).
 */
#ifndef TSG_XERBLA_H
#define TSG_XERBLA_H

#include "../src/tsg_problem.h"
#include "tsg_api.h"

/* Reports call->info through the program's own handler (cblas_xerbla for CBLAS, xerbla_ for
 * Fortran, when the main executable defines it) following the reference protocol, otherwise
 * by one line on stderr with the user-facing position. Never exits. */
void tsg_report_illegal(tsg_api api, const tsg_call *call);

/* 1 when `addr` lies in the main executable (not in a shared library). */
int tsg_addr_in_main_program(const void *addr);

#endif /* TSG_XERBLA_H */
