#!/usr/bin/env python3
"""unit.bench_big_summary: scripts/bench-big-summary.py reads tsgemm-kbench --big ratio tables by
column name. Checked on a synthetic two-pass output (with the per-shape lines between the tables that
broke v0.16 run 4's inline awk, and a shape name of four words) and on a stored results file
(docs/results/h200-2026-12-03-v0.16-run4.txt: values read from its tables by hand)."""
import contextlib
import importlib.util
import io
import os
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
spec = importlib.util.spec_from_file_location('bbs', os.path.join(ROOT, 'scripts', 'bench-big-summary.py'))
bbs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bbs)

PASS = '''NN 4096^3            cuBLAS  50.00  rule(7/1 tail 0/0)  48.00 0.960  no tail  48.00 0.960  c7  {a:.2f} {ra:.3f}  c10  {b:.2f} {rb:.3f}
NN 4095^3 ld+1 +1f   cuBLAS  40.00  rule(7/1 tail 0/0)  36.00 0.900  no tail  36.00 0.900  c7  36.00 0.900  c10  38.00 0.950

ratio to cuBLAS (median TFLOP/s over median), per configuration forced (the rule's split for it)
shape                 cuBLAS   rule no-tail  cfg7    cfg10
NN 4096^3              50.00  0.960   0.960   {ra:.3f}   {rb:.3f}
NN 4095^3 ld+1 +1f     40.00  0.900   0.900   0.900   0.950
'''


def run(args):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = bbs.main(args)
    return rc, buf.getvalue()


class Summary(unittest.TestCase):
    def test_tables_by_column_name(self):
        text = PASS.format(a=47.5, ra=0.950, b=49.0, rb=0.980) + '\n' + PASS.format(a=48.5, ra=0.970, b=48.0, rb=0.960)
        passes = bbs.tables(text.splitlines())
        self.assertEqual(len(passes), 2)
        cols, rows = passes[1]
        self.assertEqual(cols, ['cuBLAS', 'rule', 'no-tail', 'cfg7', 'cfg10'])
        self.assertEqual([s for s, _ in rows], ['NN 4096^3', 'NN 4095^3 ld+1 +1f'])
        self.assertAlmostEqual(rows[0][1]['cfg7'], 0.970)
        self.assertAlmostEqual(rows[1][1]['cfg10'], 0.950)
        with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False) as f:
            f.write(text)
        try:
            rc, out = run(['--against', 'cfg7', f.name])
        finally:
            os.unlink(f.name)
        self.assertEqual(rc, 0)
        self.assertIn('2 pass(es)', out)
        # medians of the two passes: cfg7 (0.950, 0.970) -> 0.960, cfg10 (0.980, 0.960) -> 0.970
        line = next(l for l in out.splitlines() if l.startswith('NN 4096^3'))
        self.assertIn('0.960 [0.950-0.970]', line)
        self.assertIn('0.970 [0.960-0.980]', line)
        # geometric mean of cfg10 / cfg7 over 4 pairs: (0.98/0.95 * 0.96/0.97 * 0.95/0.9 * 0.95/0.9) ** 0.25
        gm = (0.98 / 0.95 * 0.96 / 0.97 * (0.95 / 0.9) ** 2) ** 0.25
        self.assertIn(f'cfg10    {gm:.4f}  (4 pairs, {0.96 / 0.97:.3f}-{0.95 / 0.9:.3f})', out)
        self.assertNotIn('rows differ by more than 20%', out)
        # the leader per shape in 4 decimals: cfg10's median 0.9700 against cfg7's 0.9600
        self.assertIn('cfg10 0.9700  (cfg7 0.9600)', out)

    def test_mixed_tiles_flagged(self):
        # a tall tile against configuration 7 on a tall shape (v0.16 run 1: 0.999 against 0.527)
        rc, out = run(['--against', 'cfg7', os.path.join(ROOT, 'docs', 'results', 'h200-2026-12-03-v0.16-run1.txt')])
        self.assertEqual(rc, 0)
        cfg8 = next(l for l in out.splitlines() if l.strip().startswith('cfg8 '))
        self.assertIn('rows differ by more than 20%', cfg8)
        rc, out = run(['--against', 'cfg7', '--shapes', '^3', os.path.join(ROOT, 'docs', 'results', 'h200-2026-12-03-v0.16-run1.txt')])
        self.assertNotIn('65536x64', out)

    def test_stored_results(self):
        rc, out = run(['--against', 'cfg7', os.path.join(ROOT, 'docs', 'results', 'h200-2026-12-03-v0.16-run4.txt')])
        self.assertEqual(rc, 0)
        self.assertIn('2 pass(es)', out)
        tn = next(l for l in out.splitlines() if l.startswith('TN 8192^3'))
        # candidate 13 (no prefetch) read 0.916 in both passes; configuration 7 0.931 / 0.930
        self.assertTrue(tn.rstrip().endswith('0.916 [0.916-0.916]'), tn)
        self.assertIn('0.931 [0.930-0.931]', tn)
        ranking = out.split('against cfg7:')[1].splitlines()[1]
        self.assertTrue(ranking.split()[0] == 'cfg10', ranking)

    def test_no_table(self):
        with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False) as f:
            f.write('NN 4096^3 cuBLAS 50.0 rule(7/1) 48.0 0.960\n')
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                rc, _ = run([f.name])
        finally:
            os.unlink(f.name)
        self.assertEqual(rc, 1)


if __name__ == '__main__':
    unittest.main()
