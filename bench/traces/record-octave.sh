#!/bin/sh
# record-octave.sh [LIB] — octave-single.trace: an Octave script in single precision under tsgemm
# (CPU path): products of single matrices of a few sizes, plain and transposed (Octave hands the
# transposes to SGEMM), a power iteration (matrix times a block of 8 vectors, 50 steps) and a
# product chain. Octave calls sgemm_ of the system BLAS, which the preload replaces.
. "$(dirname "$0")/record-common.sh"
command -v octave-cli >/dev/null || { echo "record-octave: octave-cli not found (apt-get install octave)" >&2; exit 2; }
W=$(mktemp -d)
cat >"$W/work.m" <<'MEOF'
rand("seed", 7);
acc = 0;
for n = [64 200 512 1024 2048]
  A = single(2 * rand(n) - 1); B = single(2 * rand(n) - 1);
  for r = 1:3
    C = A * B; D = A' * B; E = A * B';
    acc = acc + C(1) + D(end) + E(2);
  end
end
M = single(rand(1500)); M = M + M';
V = single(rand(1500, 8));
for it = 1:50
  V = M * V; V = V ./ max(abs(V(:)));
end
X = single(rand(600, 1800)) * single(rand(1800, 300)) * single(rand(300, 900));
printf("octave: checksum %g %g %g\n", acc, V(1), X(1));
MEOF
record octave-single octave-cli --norc --no-gui "$W/work.m"
rm -rf "$W"
