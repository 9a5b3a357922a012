% octave_matmul.m — Octave's single-precision product under LD_PRELOAD=libtsgemm.so (preload tier).
%
% single(A)*single(B) (and with transposed operands, which Octave hands to SGEMM as TRANSA/TRANSB)
% for a few shapes, checked against the double-precision product of the same single inputs with
% |c - r| <= gamma*k*2^-24*(|A||B|), gamma = 2 (docs/TESTING.md). Octave cannot read tsgemm's counters:
% the ctest runs it with TSGEMM_LOG=2 and requires the exit summary to show the calls arrived.
% Prints "octave_matmul: N products checked, F failures" and exits 1 on any failure.
shapes = [64 48 80; 37 53 29; 200 7 150; 1000 3 17];   % m n k; no m or n = 1 (SGEMV territory)
rand("seed", 42);
failures = 0;
count = 0;
for s = 1:rows(shapes)
  m = shapes(s, 1); n = shapes(s, 2); k = shapes(s, 3);
  for variant = 1:3
    switch variant
      case 1
        A = single(2 * rand(m, k) - 1); B = single(2 * rand(k, n) - 1);
        C = A * B; R = double(A) * double(B); S = abs(double(A)) * abs(double(B)); what = "A*B";
      case 2
        A = single(2 * rand(k, m) - 1); B = single(2 * rand(k, n) - 1);
        C = A' * B; R = double(A)' * double(B); S = abs(double(A))' * abs(double(B)); what = "A'*B";
      case 3
        A = single(2 * rand(m, k) - 1); B = single(2 * rand(n, k) - 1);
        C = A * B.'; R = double(A) * double(B).'; S = abs(double(A)) * abs(double(B)).'; what = "A*B.'";
    end
    count++;
    bad = ! (abs(double(C) - R) <= 2 * k * 2^-24 * S);
    rel = norm(double(C) - R, "fro") / norm(R, "fro");
    if (! isa(C, "single") || any(bad(:)) || ! any(C(:)))
      failures++;
      printf("FAIL %-6s m=%d n=%d k=%d: %d elements outside the bound, class %s, rel_fro %.3g\n",
             what, m, n, k, nnz(bad), class(C), rel);
    else
      printf("ok   %-6s m=%d n=%d k=%d rel_fro %.3g\n", what, m, n, k, rel);
    end
  end
end
printf("octave_matmul: %d products checked, %d failures\n", count, failures);
if (failures > 0)
  exit(1);
end
