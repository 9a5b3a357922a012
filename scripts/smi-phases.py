#!/usr/bin/env python3
"""scripts/smi-phases.py SUSTAIN.txt SMI.csv — the SM clock and the power of each sustained phase.

SUSTAIN.txt: `test_tf32_kernel --sustain S`'s output (one line per phase: shape, kernel, wall start
and end in s since the epoch, launches, TFLOP/s of the last half and of the first five launches).
SMI.csv: `nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active
--format=csv,noheader -lms 100` run beside it on the same machine (timestamps in the machine's local
time, UTC on the device machines). Prints, per phase, the samples in its second half (the first
half is the clock settling), their mean and minimum SM clock, mean power, and how many carried
the software power cap reason (0x4)."""
import sys
from datetime import datetime, timezone


def smi_rows(lines):
    """nvidia-smi's sample lines as (time s since the epoch, SM MHz, W, clock event reasons);
    lines that are not samples ('#' comments, errors) are skipped."""
    rows = []
    for line in lines:
        f = [x.strip() for x in line.split(',')]
        if len(f) < 5 or not f[1].endswith('MHz'):
            continue
        t = datetime.strptime(f[0], '%Y/%m/%d %H:%M:%S.%f').replace(tzinfo=timezone.utc).timestamp()
        rows.append((t, float(f[1].split()[0]), float(f[2].split()[0]), int(f[4], 16)))
    return rows


def phases(sustain_lines, smi):
    """Per phase line of `--sustain` (7 fields, the first ending in ^3, numbers where the times
    and rates go): (shape, name, TFLOP/s of the last half, the samples of smi (smi_rows' tuples)
    in the phase's second half). Other lines (headers, "refused ...") are skipped."""
    out = []
    for line in sustain_lines:
        f = line.split()
        if len(f) != 7 or not f[0].endswith('^3'):
            continue
        try:
            w0, w1, rate = float(f[2]), float(f[3]), float(f[5])
        except ValueError:  # "refused N of M launches"
            continue
        mid = (w0 + w1) / 2
        out.append((f[0], f[1], rate, [r for r in smi if mid <= r[0] <= w1]))
    return out


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[2]) as fh:
        smi = smi_rows(fh)
    print(f"{'phase':<26} {'TFLOP/s':>8} {'samples':>7} {'MHz mean':>8} {'MHz min':>7} {'W mean':>6} {'capped':>6}")
    with open(argv[1]) as fh:
        for shape, name, rate, s in phases(fh, smi):
            if not s:
                print(f"{shape + ' ' + name:<26} {rate:8.1f} {0:7d}")
                continue
            mhz = [r[1] for r in s]
            print(f"{shape + ' ' + name:<26} {rate:8.1f} {len(s):7d} {sum(mhz) / len(s):8.0f} {min(mhz):7.0f} "
                  f"{sum(r[2] for r in s) / len(s):6.0f} {sum(1 for r in s if r[3] & 4):6d}")
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
