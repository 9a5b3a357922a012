#!/bin/sh
# setup-pip-numpy.sh DIR [PIP-ARGS...] — creates a Python venv at DIR with numpy from a pip
# wheel, for the preload tier's test "preload.numpy_pip" (fault class 11: the wheel bundles its
# own OpenBLAS, whose ILP64 scipy_cblas_sgemm64_ tsgemm exports and interposes).
# With PIP-ARGS, pip installs those instead of NUMPY_SPEC, still wheels only; the scipy and
# scikit-learn venv of the preload.scipy_* tests (LP64 scipy_sgemm_, scipy_cblas_sgemm) is
#   setup-pip-numpy.sh <source>/.venv-scipy -r tests/preload/requirements-scipy.txt
# (exact versions; CMake cache variable TSGEMM_PIP_SCIPY_PYTHON=<DIR>/bin/python overrides).
#
# The venv is made from Debian's /usr/bin/python3 (apt-get install python3-venv) — `python3` on
# PATH may be another interpreter. The default DIR the tests look for is <source>/.venv-numpy
# (CMake cache variable TSGEMM_PIP_PYTHON=<DIR>/bin/python overrides it). A .gitignore holding
# "*" is put in DIR so git never sees the venv. Needs network access to PyPI; idempotent.
#   NUMPY_SPEC   what pip installs (default "numpy"; e.g. "numpy==2.1.3" to pin)
#   PYTHON       the interpreter the venv is made from (default /usr/bin/python3)
#   IMPORT       the module whose import proves the venv works (default numpy; the package
#                tier's build venv: IMPORT=scikit_build_core ... .venv-build -r
#                tests/package/requirements-build.txt)
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 DIR [PIP-ARGS...]" >&2
    exit 2
fi
DIR=$1
shift
PYTHON=${PYTHON:-/usr/bin/python3}
NUMPY_SPEC=${NUMPY_SPEC:-numpy}
IMPORT=${IMPORT:-numpy}
[ -x "$PYTHON" ] || { echo "setup-pip-numpy: $PYTHON not found" >&2; exit 1; }
if [ ! -x "$DIR/bin/python" ]; then
    "$PYTHON" -m venv "$DIR" || {
        echo "setup-pip-numpy: '$PYTHON -m venv' failed (Debian: apt-get install python3-venv)" >&2
        exit 1
    }
fi
printf '*\n' >"$DIR/.gitignore"
[ $# -gt 0 ] || set -- "$NUMPY_SPEC"
"$DIR/bin/python" -m pip install --disable-pip-version-check --quiet --only-binary=:all: "$@"
"$DIR/bin/python" -c "import $IMPORT as m; print('setup-pip-numpy: $IMPORT', getattr(m, '__version__', '?'), 'in', m.__file__)"
