"""python -m tsgemm: run a program under tsgemm, or say where and what the library is.

    python -m tsgemm run [--log N] [--mode M] [--] PROGRAM [ARGS...]   exactly tsgemm-run
    python -m tsgemm path                                              library_path()
    python -m tsgemm info                                              info(), one key a line
"""
import os
import sys

import tsgemm

USAGE = """usage: python -m tsgemm run [--log N] [--mode M] [--] PROGRAM [ARGS...]
       python -m tsgemm path | info | --version | --help

run    executes the installed tsgemm-run wrapper with these arguments (the program and its
       children get libtsgemm.so preloaded; `run --help` prints the wrapper's options)
path   prints the installed library's path
info   prints the library's version, GPU and kernel, and CPU BLAS
"""


def main(argv):
    """Entry point of `python -m tsgemm`; returns the exit status (run never returns: it execs)."""
    if not argv:
        sys.stderr.write(USAGE)
        return 2
    if argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    cmd, rest = argv[0], argv[1:]
    try:
        if cmd == "run":
            script = tsgemm.run_script_path()
            os.execv(script, ["tsgemm-run"] + rest)
        if cmd == "path" and not rest:
            print(tsgemm.library_path())
            return 0
        if cmd == "info" and not rest:
            for k, v in tsgemm.info().items():
                print(f"{k}: {v}")
            return 0
        if cmd == "--version" and not rest:
            print(f"tsgemm {tsgemm.__version__}")
            return 0
    except FileNotFoundError as e:
        print(f"python -m tsgemm: {e}", file=sys.stderr)
        return 1
    sys.stderr.write(f"python -m tsgemm: unknown command {' '.join(argv)!r}\n" + USAGE)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
