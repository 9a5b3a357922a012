#!/usr/bin/env python3
"""ncu-source-stalls.py — where a kernel's warps wait, instruction by instruction.

    scripts/ncu-source-stalls.py SOURCE.csv [SOURCE2.csv ...]

SOURCE.csv: Nsight Compute's source page of one profiled kernel as CSV, SASS view:
    ncu --section SourceCounters ... -o REPORT <program>
    ncu -i REPORT.ncu-rep --page source --csv --print-source sass > SOURCE.csv
(docs/results/h200-2026-12-04-v0.18-run6.txt has a whole device script). For each file it prints
the warp-state samples per stall reason (fractions of all samples of the kernel), the same by
opcode, and the instructions with the most long- and short-scoreboard samples with their SASS;
for a warp-specialized kernel (setmaxnreg: USETMAXREG) also the samples and warp instructions
executed per role (the code after USETMAXREG.TRY_ALLOC: the role that takes registers; after
.DEALLOC: the role that gives them back; the out-of-line retry loops placed after EXIT, such as an
mbarrier wait's, belong to the role their closing branch returns to).
Stall reasons are ncu's (long_sb: waiting on an L1TEX result or, for an instruction that
overwrites a register, on a queued memory instruction still to read it; short_sb: on shared
memory / MIO; dispatch, wait, ...: the Nsight Compute documentation's warp-state list).
"""
import csv
import re
import sys


def load(path):
    rows = list(csv.reader(open(path, newline='')))
    # row 0 names the kernel, row 1 holds the column names
    hdr = rows[1]
    col = {h: i for i, h in enumerate(hdr)}
    reasons = [h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
    out = []
    for r in rows[2:]:
        if len(r) != len(hdr):
            continue

        def num(h):
            try:
                return float(r[col[h]].replace(',', ''))
            except (KeyError, ValueError):
                return 0.0
        ins = {'addr': r[0], 'sass': r[1].strip(), 'all': num('Warp Stall Sampling (All Samples)'),
               'exec': num('Instructions Executed')}
        ins.update({h[6:]: num(h) for h in reasons})
        out.append(ins)
    return rows[0][1] if len(rows[0]) > 1 else path, [h[6:] for h in reasons], out


def opcode(sass):
    return re.sub(r'^@!?U?P\w+\s+', '', sass).split(' ')[0]


def main():
    for path in sys.argv[1:]:
        kernel, reasons, ins = load(path)
        tot = sum(i['all'] for i in ins) or 1.0
        print(f'== {path}: {kernel[:160]}')
        print(f'   {len(ins)} instructions, {tot:.0f} samples')
        print('   ' + ' '.join(f'{r}={sum(i[r] for i in ins) / tot:.3f}' for r in reasons
                              if sum(i[r] for i in ins) > 0.002 * tot))
        ops = {}
        for i in ins:
            o = ops.setdefault(opcode(i['sass']), {'n': 0, 'all': 0.0, **{r: 0.0 for r in reasons}})
            o['n'] += 1
            o['all'] += i['all']
            for r in reasons:
                o[r] += i[r]
        show = [r for r in ('long_sb', 'short_sb', 'mio', 'lg', 'barrier', 'dispatch', 'wait', 'no_inst') if r in reasons]
        print('   ' + f"{'opcode':18s} {'count':>5s} {'all':>6s} " + ' '.join(f'{r:>8s}' for r in show))
        for name, o in sorted(ops.items(), key=lambda t: -t[1]['all'])[:10]:
            print('   ' + f"{name:18s} {o['n']:5d} {o['all'] / tot:6.3f} " + ' '.join(f'{o[r] / tot:8.3f}' for r in show))
        print_roles(ins, reasons, tot)
        for r in ('long_sb', 'short_sb'):
            if r not in reasons:
                continue
            print(f'   most {r}:')
            for i in sorted(ins, key=lambda i: -i[r])[:6]:
                print(f"     {i['addr']} {i['sass'][:64]:64s} {r} {i[r] / tot:.4f} (all {i['all'] / tot:.4f})")


def roles(ins):
    """each instruction's role in a setmaxnreg-specialized kernel, or None when it has no USETMAXREG"""
    role, cur, at = [], 'common', {}
    for i in ins:
        if 'USETMAXREG.TRY_ALLOC' in i['sass']:
            cur = 'alloc (takes registers)'
        elif 'USETMAXREG.DEALLOC' in i['sass']:
            cur = 'dealloc (gives them back)'
        elif i['sass'].startswith('EXIT'):  # an unpredicated EXIT ends the roles' code
            cur = 'after EXIT'
        role.append(cur)
        at[i['addr'].lower()] = len(role) - 1
    if not any(r.startswith('alloc') for r in role):
        return None
    # a block after EXIT runs for the role its closing unconditional branch returns to
    start = None
    for n, i in enumerate(ins):
        if role[n] != 'after EXIT':
            continue
        start = n if start is None else start
        m = re.match(r'^BRA (0x[0-9a-fA-F]+)', i['sass'])
        if m and m.group(1).lower() in at:
            back = role[at[m.group(1).lower()]]
            for j in range(start, n + 1):
                role[j] = back
            start = None
    return role


def print_roles(ins, reasons, tot):
    role = roles(ins)
    if role is None:
        return
    print('   by role (warp instructions executed; samples, then stall reasons as fractions of the role\'s samples):')
    for name in dict.fromkeys(role):
        mine = [i for i, r in zip(ins, role) if r == name]
        s = sum(i['all'] for i in mine) or 1.0
        top = sorted(((sum(i[r] for i in mine), r) for r in reasons), reverse=True)[:8]
        print(f"     {name:26s} exec {sum(i['exec'] for i in mine):.3e} samples {s / tot:.3f}: " +
              ' '.join(f'{r}={v / s:.3f}' for v, r in top if v > 0))


if __name__ == '__main__':
    main()
