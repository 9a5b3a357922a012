#!/usr/bin/env python3
"""unit.smi_phases: scripts/smi-phases.py places nvidia-smi's samples in `test_tf32_kernel
--sustain`'s phases. Checked on a synthetic pair (samples either side of a phase's midpoint and end,
a refused variant, a phase with no sample) and on the stored run 58 files
(docs/results/h100-2026-12-07-run58-power.txt and -power-smi.csv; values read from its table)."""
import importlib.util
import os
import unittest
from datetime import datetime, timezone

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
spec = importlib.util.spec_from_file_location('smi', os.path.join(ROOT, 'scripts', 'smi-phases.py'))
smi = importlib.util.module_from_spec(spec)
spec.loader.exec_module(smi)


def stamp(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime('%Y/%m/%d %H:%M:%S.%f')[:-3]


class Phases(unittest.TestCase):
    def test_synthetic(self):
        t0 = 1796605852.0
        sustain = ['sustained phases, NN, ...',
                   f'  4096^3 cublas-fp32        {t0:.3f} {t0 + 2:.3f}    100    51.3    51.0',
                   '  4096^3 tsgemm-3xtf32-v4   refused',
                   '  4096^3 tsgemm-tf32-v4     refused 3 of 100 launches',
                   f'  4096^3 tsgemm-3xtf32-v0   {t0 + 2:.3f} {t0 + 4:.3f}    300   107.7   100.5',
                   f'  8192^3 tsgemm-tf32-v9     {t0 + 10:.3f} {t0 + 11:.3f}     20   183.6   180.0']
        # samples every 0.25 s over [t0, t0 + 4]: 1900 MHz / 600 W in the first phase, then
        # 1500 MHz / 700 W with the power cap's reason
        lines = ['# a comment']
        for i in range(17):
            t = t0 + 0.25 * i
            first = t < t0 + 2
            lines.append(f'{stamp(t)}, {1900 if first else 1500 + i} MHz, {600 if first else 700}.00 W, 60, '
                         f'0x{0 if first else 4:016x}')
        rows = smi.smi_rows(lines)
        self.assertEqual(len(rows), 17)
        got = smi.phases(sustain, rows)
        self.assertEqual([(p[0], p[1], p[2]) for p in got],
                         [('4096^3', 'cublas-fp32', 51.3), ('4096^3', 'tsgemm-3xtf32-v0', 107.7),
                          ('8192^3', 'tsgemm-tf32-v9', 183.6)])
        # the first phase's second half: t0 + 1.0 .. t0 + 2.0 (both ends in), five samples, one of
        # them (t0 + 2.0) already the next phase's
        self.assertEqual([r[1] for r in got[0][3]], [1900, 1900, 1900, 1900, 1508])
        self.assertEqual([r[1] for r in got[1][3]], [1512, 1513, 1514, 1515, 1516])
        self.assertTrue(all(r[3] & 4 for r in got[1][3]))
        self.assertEqual(got[2][3], [])

    def test_run58(self):
        base = os.path.join(ROOT, 'docs', 'results', 'h100-2026-12-07-run58-power')
        with open(base + '-smi.csv') as fh:
            rows = smi.smi_rows(fh)
        with open(base + '.txt') as fh:
            got = {(p[0], p[1]): p for p in smi.phases(fh, rows)}
        self.assertEqual(len(got), 12)
        _, _, rate, s = got[('8192^3', 'tsgemm-3xtf32')]
        self.assertEqual(rate, 109.4)
        self.assertEqual(len(s), 15)
        self.assertEqual(round(sum(r[1] for r in s) / len(s)), 1586)
        self.assertEqual(min(r[1] for r in s), 1560)
        self.assertEqual(round(sum(r[2] for r in s) / len(s)), 697)
        self.assertEqual(sum(1 for r in s if r[3] & 4), 15)
        _, _, rate, s = got[('8192^3', 'cublas-fp32')]
        self.assertEqual((rate, len(s), min(r[1] for r in s)), (51.4, 15, 1980))
        self.assertEqual(sum(1 for r in s if r[3] & 4), 0)


if __name__ == '__main__':
    unittest.main()
