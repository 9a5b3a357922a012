/*
 * tsg_api.h — which exported BLAS name a call came through.
 *
 * Owns: the list of entry points (docs/DESIGN.md "The ABI layer"), their names for reports, and
 * the names of the functions a library exporting one of them gives the same decoration
 * (tsg_api_sibling_name). Header-only and dependency-free (the C library only), so every unit of
 * shim/ may include it without a cycle.
 */
#ifndef TSG_API_H
#define TSG_API_H

#include <stddef.h>
#include <string.h>

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

/*
 * The name that a library exporting `entry` gives to its function `base`, with the same decoration:
 * the prefix before "cblas_sgemm" (else before "sgemm_") in `entry`, then `base`, then the suffix
 * after it. OpenBLAS builds name their info functions this way: scipy_cblas_sgemm64_ and
 * scipy_sgemm_64_ -> scipy_openblas_get_config64_; scipy_cblas_sgemm and scipy_sgemm_ ->
 * scipy_openblas_get_config; cblas_sgemm64_ -> openblas_get_config64_; cblas_sgemm and sgemm_ ->
 * openblas_get_config. Reads entry and base; writes the name into buf[len] and returns 0, or
 * writes "" (when len > 0) and returns -1 when entry names neither or the name does not fit.
 */
static inline int tsg_api_sibling_name(const char *entry, const char *base, char *buf, size_t len)
{
    if (!buf || len == 0) return -1;
    buf[0] = '\0';
    if (!entry || !base) return -1;
    const char *stem = "cblas_sgemm";
    const char *at = strstr(entry, stem);
    if (!at) {
        stem = "sgemm_";
        at = strstr(entry, stem);
    }
    if (!at) return -1;
    const size_t pre = (size_t)(at - entry), nb = strlen(base);
    const char *suffix = at + strlen(stem);
    const size_t ns = strlen(suffix);
    if (pre + nb + ns >= len) return -1;
    memcpy(buf, entry, pre);
    memcpy(buf + pre, base, nb);
    memcpy(buf + pre + nb, suffix, ns + 1);
    return 0;
}

#endif /* TSG_API_H */
