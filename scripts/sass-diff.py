#!/usr/bin/env python3
"""sass-diff.py — every kernel of two CUDA builds compared function by function, as SASS.

    scripts/sass-diff.py [--no-params] OLD NEW

OLD, NEW: object files, archives, libtsgemm.so or folders of .o files (each read with
cuobjdump -sass; build both for one architecture, e.g. -DCMAKE_CUDA_ARCHITECTURES=90, with the
same flags). Functions are matched by name, an anonymous namespace's per-file tag set aside (a
kernel of a file-local namespace keeps its name when its file is renamed); instruction addresses
and encodings are ignored, registers and operands are not. Prints each function that differs
("ops same" when only registers or operands do, e.g. ptxas's register names, which move from
one compile of the same source to the next outside the big family's K loops: CMakeLists.txt,
TSGEMM_NVCC_NO_ASLR) and each found in one build only, then a count; exit status 1 when any
function differs or is missing. scripts/sass-loops.py compares the big and warp-specialized
families' K loops and their statistics. --no-params matches a template kernel's instances by
their template arguments alone, the mangled parameter list after them set aside (a kernel that
gained trailing parameters its old instances do not use: their SASS should not move). Needs
cuobjdump (and the nvdisasm it calls) on PATH: the CUDA toolkit's, or PyPI's
nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm in a venv.
"""
import glob
import os
import re
import subprocess
import sys

ADDR = re.compile(r'/\*[0-9a-f]{4,}\*/')
ENC = re.compile(r'/\* 0x[0-9a-f]+ \*/')
ANON = re.compile(r'\d+_GLOBAL__N__\w+?_[0-9a-f]{8}')


def functions(path):
    """{function name: [instruction text]} of every binary at path (a file or a folder of .o)."""
    files = sorted(glob.glob(os.path.join(path, '*.o'))) if os.path.isdir(path) else [path]
    out = {}
    for f in files:
        text = subprocess.run(['cuobjdump', '-sass', f], capture_output=True, text=True, check=True).stdout
        cur = None
        for line in text.splitlines():
            m = re.search(r'Function : (\S+)', line)
            if m:
                cur = ANON.sub('ANON', m.group(1))
                out[cur] = []
                continue
            s = ENC.sub('', ADDR.sub('', line)).strip()
            if cur and s and not s.startswith('.'):
                out[cur].append(s)
    return out


PARAMS = re.compile(r'(I.*E)Ev\w*$')  # a template function's mangled parameter list (after its arguments)


def main():
    args = sys.argv[1:]
    no_params = bool(args) and args[0] == '--no-params'
    if no_params:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    a, b = functions(args[0]), functions(args[1])
    if no_params:
        a, b = ({PARAMS.sub(r'\1', k): v for k, v in d.items()} for d in (a, b))
    same = bad = 0
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b:
            print('only in %s: %s' % ('the second' if k in b else 'the first', k))
            bad += 1
        elif a[k] == b[k]:
            same += 1
        else:
            ops = [x.split()[0] for x in a[k]] == [x.split()[0] for x in b[k]]
            print('differs (%s): %s' % ('ops same' if ops else 'ops differ', k))
            bad += 1
    print('%d functions the same, %d not' % (same, bad))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
