#!/bin/sh
# record-sklearn.sh [LIB] — scikit-learn on float32 data under tsgemm (CPU path), two traces:
#   sklearn-kmeans.trace  KMeans(16 clusters, n_init=1, max_iter=30) on 10000 x 64 (Lloyd: its
#                         Cython code calls scipy_sgemm_ per chunk of 256 samples)
#   sklearn-pca.trace     PCA(32 components, randomized solver) on 10000 x 256 (numpy matmuls:
#                         scipy_cblas_sgemm64_ of the numpy wheel), fit + transform
# Needs the venv of the preload tests: scripts/setup-pip-numpy.sh .venv-scipy -r
# tests/preload/requirements-scipy.txt (PY overrides its python).
. "$(dirname "$0")/record-common.sh"
PY=${PY:-$SRC/.venv-scipy/bin/python}
[ -x "$PY" ] || { echo "record-sklearn: $PY not found (scripts/setup-pip-numpy.sh .venv-scipy -r tests/preload/requirements-scipy.txt)" >&2; exit 2; }
export OMP_NUM_THREADS=1  # scikit-learn's OpenMP loops: one thread, so the BLAS calls are the workload
record sklearn-kmeans "$PY" -c '
import numpy as np
from sklearn.cluster import KMeans
rng = np.random.default_rng(0)
centers = rng.standard_normal((16, 64)).astype(np.float32) * 0.35
X = (centers[rng.integers(0, 16, 10000)] + rng.standard_normal((10000, 64))).astype(np.float32)
km = KMeans(n_clusters=16, n_init=1, max_iter=30, tol=0, random_state=0, algorithm="lloyd").fit(X)
assert km.cluster_centers_.dtype == np.float32
print("kmeans: inertia %.1f after %d iterations" % (km.inertia_, km.n_iter_))
'
record sklearn-pca "$PY" -c '
import numpy as np
from sklearn.decomposition import PCA
rng = np.random.default_rng(1)
X = (rng.standard_normal((10000, 48)) @ rng.standard_normal((48, 256))).astype(np.float32)
X += 0.01 * rng.standard_normal(X.shape).astype(np.float32)
p = PCA(n_components=32, svd_solver="randomized", random_state=0).fit(X)
Y = p.transform(X)
assert Y.dtype == np.float32
print("pca: explained variance %.4f" % p.explained_variance_ratio_.sum())
'
