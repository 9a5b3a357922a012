#!/bin/sh
# record-mlp.sh [LIB] — mlp-numpy.trace: an MLP inference loop in numpy float32 under tsgemm
# (CPU path): two networks (784-1024-1024-10 and 512-4096-4096-512, ReLU), batches 1, 8, 64, 512
# and 4096, 3 forward passes each; every layer's x @ W makes a new result array (fresh C's), as
# inference code does. Numpy's wheel calls scipy_cblas_sgemm64_ (a batch of 1 is a matrix-vector
# product: numpy sends it to sgemv, not recorded). Needs scripts/setup-pip-numpy.sh .venv-numpy.
. "$(dirname "$0")/record-common.sh"
PY=${PY:-$SRC/.venv-numpy/bin/python}
[ -x "$PY" ] || { echo "record-mlp: $PY not found (scripts/setup-pip-numpy.sh .venv-numpy)" >&2; exit 2; }
record mlp-numpy "$PY" -c '
import numpy as np
rng = np.random.default_rng(2)
nets = [[784, 1024, 1024, 10], [512, 4096, 4096, 512]]
total = 0.0
for widths in nets:
    Ws = [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32) for a, b in zip(widths, widths[1:])]
    bs = [np.zeros(b, np.float32) for b in widths[1:]]
    for batch in (1, 8, 64, 512, 4096):
        x0 = rng.standard_normal((batch, widths[0])).astype(np.float32)
        for rep in range(3):
            x = x0
            for i, (W, b) in enumerate(zip(Ws, bs)):
                x = x @ W + b
                if i + 1 < len(Ws):
                    x = np.maximum(x, 0)
            total += float(x[0, 0])
print("mlp: done, checksum %.3f" % total)
'
