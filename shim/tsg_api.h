/*
 * tsg_api.h — which exported BLAS name a call came through.
 *
 * Owns: the list of entry points (docs/DESIGN.md "The ABI layer") and their names for reports.
 * Header-only and dependency-free, so every unit of shim/ may include it without a cycle.
 */
#ifndef TSG_API_H
#define TSG_API_H

typedef enum tsg_api {
    TSG_API_CBLAS = 0,       /* cblas_sgemm                               */
    TSG_API_F77,             /* sgemm_                                    */
    TSG_API_CBLAS64,         /* cblas_sgemm64_                            */
    TSG_API_F77_64,          /* sgemm_64_                                 */
    TSG_API_SCIPY_CBLAS64,   /* scipy_cblas_sgemm64_ (numpy/scipy wheels) */
    TSG_API_SCIPY_F77_64,    /* scipy_sgemm_64_                           */
    TSG_API_SCIPY_CBLAS,     /* scipy_cblas_sgemm (scipy/scikit-learn wheels: LP64, 32-bit) */
    TSG_API_SCIPY_F77,       /* scipy_sgemm_ (scipy.linalg.blas, scipy.linalg.cython_blas)  */
    TSG_API_COUNT
} tsg_api;

static inline const char *tsg_api_name(tsg_api api)
{
    static const char *const names[TSG_API_COUNT] = {"cblas_sgemm",    "sgemm_",
                                                     "cblas_sgemm64_", "sgemm_64_",
                                                     "scipy_cblas_sgemm64_", "scipy_sgemm_64_",
                                                     "scipy_cblas_sgemm",    "scipy_sgemm_"};
    return (api >= 0 && api < TSG_API_COUNT) ? names[api] : "?";
}

/* 1 for the CBLAS-style names (layout argument, cblas_xerbla protocol). */
static inline int tsg_api_is_cblas(tsg_api api)
{
    return api == TSG_API_CBLAS || api == TSG_API_CBLAS64 || api == TSG_API_SCIPY_CBLAS64 ||
           api == TSG_API_SCIPY_CBLAS;
}

#endif /* TSG_API_H */
