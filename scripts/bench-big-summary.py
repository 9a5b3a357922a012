#!/usr/bin/env python3
"""bench-big-summary.py — the ratio tables of `tsgemm-kbench --big`, read by column name.

    scripts/bench-big-summary.py [--against COL] [--shapes 'A|B'] FILE [FILE ...]

FILE: anything holding one or more of the tables that `tsgemm-kbench --big` prints last ("ratio to
cuBLAS ..." then a header line "shape cuBLAS rule no-tail cfg7 ..." and one row per shape): the
bench's own output, or a docs/results file with several passes in it (those name the bench by its
earlier home, `test_gpu_kernel --bench-big`: the same table). Each table is one pass. For
every shape and column it prints the median of the passes (the ratio of tsgemm's median TFLOP/s
to cuBLAS's in the same process; the cuBLAS column in TFLOP/s) and, with two passes or more, the
range. With --against COL (e.g. cfg7) it then ranks every other configuration column (cfgN; not
rule / no-tail) by the geometric mean, over all shapes and passes, of its ratio to COL's in the
same pass and row (pairs only: a column missing from a pass is left out of that pass), with the
smallest and largest of those ratios, and says per shape which configuration led (4 decimals, so
near-ties show). The mean is only a verdict between configurations of the same tile: a tall tile
against configuration 7 on a tall shape reads 1.9x and swamps every other row, so narrow the
shapes with --shapes ('|'-separated texts a shape name must contain, e.g. '^3' for the cubes).

Why a script: a device run's A/B is decided on these tables, and reading them by eye went wrong
twice (v0.15 run 2 took one column for its neighbour; v0.16 run 4's inline awk read the second
file's per-shape lines as table rows, docs/NOTES.md "v0.16"). Columns are found by their header
names, rows by the number of columns, so a shape name of several words ("NN 4095^3 ld+1 +1f")
reads as one shape. Standard library only.
"""
import argparse
import math
import statistics
import sys


def tables(lines):
    """[(header columns, [(shape, {column: value})])] for each ratio table in lines."""
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith('ratio to cuBLAS'):
            i += 1
            continue
        head = lines[i + 1].split() if i + 1 < len(lines) else []
        if not head or head[0] != 'shape':
            i += 1
            continue
        cols, rows, i = head[1:], [], i + 2
        while i < len(lines):
            tok = lines[i].split()
            if len(tok) <= len(cols):
                break
            try:
                vals = [float(t) for t in tok[-len(cols):]]
            except ValueError:
                break
            rows.append((' '.join(tok[:-len(cols)]), dict(zip(cols, vals))))
            i += 1
        out.append((cols, rows))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('files', nargs='+', metavar='FILE', help='bench output or results file with ratio tables')
    ap.add_argument('--against', metavar='COL', help='rank the configuration columns against this one (e.g. cfg7)')
    ap.add_argument('--shapes', metavar='A|B', help="only shapes containing one of these '|'-separated texts")
    a = ap.parse_args(argv)
    passes = []
    for f in a.files:
        with open(f, encoding='utf-8', errors='replace') as fh:
            passes += tables(fh.read().splitlines())
    if not passes:
        print('no tsgemm-kbench --big ratio table found', file=sys.stderr)
        return 1
    keep = (lambda s: any(t in s for t in a.shapes.split('|') if t)) if a.shapes else (lambda s: True)
    cols, shapes = [], []
    for c, rows in passes:
        cols += [x for x in c if x not in cols]
        shapes += [s for s, _ in rows if s not in shapes and keep(s)]
    vals = {(s, c): [] for s in shapes for c in cols}
    for _, rows in passes:
        for s, row in rows:
            if keep(s):
                for c, v in row.items():
                    vals[(s, c)].append(v)
    print(f'{len(passes)} pass(es); median' + (' [min-max]' if len(passes) > 1 else '') +
          ' of each column (cuBLAS: TFLOP/s; the rest: ratio to cuBLAS)')
    w = max(len(s) for s in shapes) + 2
    cw = 9 if len(passes) == 1 else 24
    print('shape'.ljust(w) + ''.join(c.rjust(cw) for c in cols))
    for s in shapes:
        cells = []
        for c in cols:
            v = vals[(s, c)]
            if not v:
                cells.append('-')
            elif len(passes) == 1:
                cells.append(f'{statistics.median(v):.3f}')
            else:
                cells.append(f'{statistics.median(v):.3f} [{min(v):.3f}-{max(v):.3f}]')
        print(s.ljust(w) + ''.join(x.rjust(cw) for x in cells))
    if not a.against:
        return 0
    if a.against not in cols:
        print(f'--against {a.against}: no such column ({" ".join(cols)})', file=sys.stderr)
        return 1
    logs = {c: [] for c in cols if c.startswith('cfg') and c != a.against}
    for _, rows in passes:
        for s, row in rows:
            if keep(s) and a.against in row:
                for c in logs:
                    if c in row and row[a.against] > 0 and row[c] > 0:
                        logs[c].append(math.log(row[c] / row[a.against]))
    print(f'\nagainst {a.against}: geometric mean over shapes and passes of the ratio in the same row')
    for c in sorted(logs, key=lambda c: -sum(logs[c]) / len(logs[c]) if logs[c] else 0):
        if logs[c]:
            lo, hi = math.exp(min(logs[c])), math.exp(max(logs[c]))
            print(f'  {c:8s} {math.exp(sum(logs[c]) / len(logs[c])):.4f}  ({len(logs[c])} pairs, {lo:.3f}-{hi:.3f})'
                  + ('  <- rows differ by more than 20%: other tiles? narrow with --shapes' if lo < 0.8 or hi > 1.25 else ''))
    print('leader per shape (median over passes):')
    for s in shapes:
        med = {c: statistics.median(vals[(s, c)]) for c in cols if c.startswith('cfg') and vals[(s, c)]}
        if med:
            best = max(med, key=med.get)
            print(f'  {s.ljust(w)}{best} {med[best]:.4f}  ({a.against} {med.get(a.against, float("nan")):.4f})')
    return 0


if __name__ == '__main__':
    sys.exit(main())
