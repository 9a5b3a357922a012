#!/usr/bin/env python3
"""sass-loops.py — the K loop of every big-family (and warp-specialized family) kernel instance in a CUDA binary, as SASS.

    scripts/sass-loops.py BINARY [BINARY2]

BINARY: an object file, libtsgemm.so or anything cuobjdump reads (built for one architecture,
e.g. -DCMAKE_CUDA_ARCHITECTURES=90). For each big_kernel / big_tail_kernel / ws_kernel instance (transpose
pair TA TB, vector widths VA VB) it prints the K loop's length in instructions, its FFMA and LDS
count, how close the fragment loads (LDS) come to the first instruction that reads them (the
fewest instructions, and how many loads are under 32 apart), how many FFMAs read two (bank2) or
three (bank3) of their source registers from one register bank (bank = register number mod 2;
operands served by the reuse cache do not count), and a hash of the loop's op sequence. ptxas's
schedule and register assignment of this loop move by several percent of the kernel's speed with
changes that leave the source's meaning alone; over 16 orders of the FFMAs bank2 ranked their
speed (rank correlation -0.92, NN 4096^3) and close fragment loads cost too (docs/NOTES.md
"v0.14", "v0.15"). With BINARY2, each instance's loops are compared: "same" when the op sequences
match. Needs cuobjdump (CUDA toolkit, or PyPI's nvidia-cuda-cuobjdump) on PATH. Build with CMake's
flags: with -DTSGEMM_LINEINFO=ON the schedule also depends on the source directory's path.
"""
import hashlib
import re
import subprocess
import sys

ADDR = re.compile(r'/\*([0-9a-f]{4,})\*/')
OP = re.compile(r'\*/\s+((?:@!?U?P\w+\s+)?[A-Z][A-Z0-9_.]+)\s*([^;]*);')


def functions(binary):
    """{function name: [(address, op, operands)]} from cuobjdump -sass."""
    out = subprocess.run(['cuobjdump', '-sass', binary], capture_output=True, text=True, check=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.search(r'Function : (\S+)', line)
        if m:
            cur = m.group(1) if any(x in m.group(1) for x in ('big_kernel', 'big_tail_kernel', 'ws_kernel')) else None
            if cur:
                funcs[cur] = []
            continue
        if cur:
            a, o = ADDR.search(line), OP.search(line)
            if a and o:
                funcs[cur].append((int(a.group(1), 16), o.group(1), o.group(2)))
    return funcs


def k_loop(ins):
    """The K loop: the span of the shortest backward branch that holds at least 1024 FFMAs."""
    addr = {a: i for i, (a, _, _) in enumerate(ins)}
    best = None
    for i, (a, op, args) in enumerate(ins):
        m = re.search(r'BRA\s+(?:\S+\s+)?0x([0-9a-f]+)', op + ' ' + args)
        if not m or 'BRA' not in op:
            continue
        t = int(m.group(1), 16)
        if t <= a and t in addr:
            seg = ins[addr[t]:i + 1]
            if sum(1 for x in seg if x[1] == 'FFMA') >= 1024 and (best is None or len(seg) < len(best)):
                best = seg
    return best or []


def load_distances(seg):
    """For each LDS, the number of instructions until one reads a register it wrote."""
    d = []
    for i, (_, op, args) in enumerate(seg):
        if not op.startswith('LDS'):
            continue
        m = re.match(r'R(\d+)', args)
        if not m:
            continue
        r = int(m.group(1))
        regs = set(range(r, r + (4 if '128' in op else 2 if '64' in op else 1)))
        for j in range(i + 1, len(seg)):
            srcs = seg[j][2].split(',', 1)[1] if ',' in seg[j][2] else ''
            if any(int(x) in regs for x in re.findall(r'R(\d+)', srcs)):
                d.append(j - i)
                break
    return d


def bank_reads(seg):
    """FFMAs whose source registers read from the register file (not from the operand reuse cache:
    the previous instruction flagged the same register in the same slot .reuse) fall in one bank
    (register number mod 2; Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via
    Microbenchmarking", 2018: two banks since Volta): (FFMAs with two such reads in one bank, with
    three)."""
    two = three = 0
    prev = []
    for _, op, args in seg:
        # the source slots as (register or None, flagged .reuse)
        cur = []
        for x in (args.split(',')[1:] if op == 'FFMA' else []):
            m = re.match(r'-?\|?R(\d+)', x.strip())
            cur.append((int(m.group(1)) if m else None, '.reuse' in x))
        reads = [r % 2 for k, (r, _) in enumerate(cur)
                 if r is not None and not (k < len(prev) and prev[k] == (r, True))]
        worst = max(reads.count(0), reads.count(1)) if reads else 0
        two += worst >= 2
        three += worst >= 3
        prev = cur
    return two, three


def label(name):
    kind = 'tail' if 'big_tail_kernel' in name else 'ws  ' if 'ws_kernel' in name else 'big '
    cfg = re.search(r'(?:Big|Ws)ConfigILi(\d+)ELi(\d+)E', name)
    m = re.search(r'ELb(\d)ELb(\d)ELi(\d)ELi(\d)', name)
    pair = ('T' if m.group(1) == '1' else 'N') + ('T' if m.group(2) == '1' else 'N')
    return '%s %sx%s %s VA%s VB%s' % (kind, cfg.group(1), cfg.group(2), pair, m.group(3), m.group(4))


def summary(binary):
    res = {}
    for name, ins in functions(binary).items():
        seg = k_loop(ins)
        ops = [op for _, op, _ in seg]
        d = load_distances(seg)
        res[label(name)] = (len(seg), ops.count('FFMA'), sum(1 for o in ops if o.startswith('LDS')),
                            min(d) if d else 0, sum(1 for x in d if x < 32)) + bank_reads(seg) + (
                            hashlib.sha1(' '.join(ops).encode()).hexdigest()[:10],)
    return res


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    a = summary(sys.argv[1])
    b = summary(sys.argv[2]) if len(sys.argv) == 3 else None
    print('%-28s %6s %5s %4s %8s %4s %5s %5s %-10s%s' % ('instance', 'instrs', 'FFMA', 'LDS', 'LDS->use', '<32',
                                                        'bank2', 'bank3', 'ops hash', '  second binary' if b else ''))
    for k in sorted(set(a) | set(b or {})):
        if k not in a:
            print('%-28s %s' % (k, '(only in the second binary)'))
            continue
        n, f, l, dmin, d32, b2, b3, h = a[k]
        line = '%-28s %6d %5d %4d %8d %4d %5d %5d %-10s' % (k, n, f, l, dmin, d32, b2, b3, h)
        if b is not None:
            if k not in b:
                line += '  (absent)'
            else:
                n2, _, _, dmin2, d32_2, _, _, h2 = b[k]
                line += '  same' if h2 == h else '  differs: %d instrs, LDS->use %d, <32 %d' % (n2, dmin2, d32_2)
        print(line)


if __name__ == '__main__':
    main()
