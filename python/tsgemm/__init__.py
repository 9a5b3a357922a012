"""tsgemm — Python helpers for the drop-in GPU SGEMM library libtsgemm.so.

The wheel installs the library itself under the environment's prefix (``<prefix>/lib``, next to
``<prefix>/bin/tsgemm-run`` and ``tsgemm-bench``); this package only finds it and reads it:

    tsgemm.library_path()   the installed libtsgemm.so.N
    tsgemm.stats()          the call counters of the library loaded in this process, or None
    tsgemm.info()           version, GPU and kernel, CPU BLAS
    python -m tsgemm run PROGRAM [ARGS...]   the same as tsgemm-run

Importing the package never loads the library: a process gets tsgemm's SGEMM only when the
library is preloaded (tsgemm-run, LD_PRELOAD) or linked.
"""
import ctypes
import os
import re
import subprocess
import sys

__all__ = ["library_path", "run_script_path", "stats", "info", "__version__"]

SONAME = "libtsgemm.so.0"
_DIST = "tsgemm"


def _version():
    try:
        from importlib.metadata import version
        return version(_DIST)
    except Exception:  # running from a source tree, not installed
        return "unknown"


__version__ = _version()


def _installed_file(pattern):
    """The absolute path of the installed file of this distribution whose absolute, normalized
    path matches `pattern` (a regular expression), or None. (pip's RECORD names files outside
    site-packages relative to it, e.g. ../../libtsgemm.so.0.)"""
    try:
        from importlib.metadata import distribution
        files = distribution(_DIST).files or []
    except Exception:
        return None
    for f in files:
        p = os.path.normpath(os.path.abspath(str(f.locate())))
        if re.search(pattern, p.replace(os.sep, "/")) and os.path.exists(p):
            return p
    return None


def library_path():
    """The absolute path of the installed libtsgemm.so.N (the file tsgemm-run preloads).

    Found through the installed distribution's file list, so any install scheme (venv, --user,
    a system prefix) works. Raises FileNotFoundError when the package is not installed from
    the wheel (e.g. imported from a source tree).
    """
    p = _installed_file(r"/lib/" + re.escape(SONAME) + r"$")
    if p is None:
        raise FileNotFoundError(f"{SONAME} of the {_DIST} distribution not found "
                                "(install the wheel: pip install tsgemm)")
    return p


def run_script_path():
    """The absolute path of the installed tsgemm-run wrapper. Raises FileNotFoundError when
    the package is not installed from the wheel."""
    p = _installed_file(r"/bin/tsgemm-run$")
    if p is None:
        raise FileNotFoundError(f"tsgemm-run of the {_DIST} distribution not found")
    return p


class _Stats(ctypes.Structure):
    """include/tsgemm.h, struct tsgemm_stats (the layout of 0.5; the library fills only the
    bytes it knows, tsgemm_get_stats_v's size argument)."""
    _fields_ = ([(n, ctypes.c_uint64) for n in
                 ("calls", "illegal", "quick", "gpu", "cpu", "gpu_failed")]
                + [(n, ctypes.c_double) for n in
                   ("gpu_flops", "cpu_flops", "gpu_seconds", "cpu_seconds")]
                + [("refused", ctypes.c_uint64)]
                + [(n, ctypes.c_double) for n in
                   ("device_pool_bytes", "device_pool_cap", "pinned_pool_bytes",
                    "pinned_pool_cap")]
                + [(n, ctypes.c_uint32) for n in ("copy_threads", "workspaces", "gpu_devices")]
                + [(n, ctypes.c_uint64) for n in ("multi_gpu_calls", "gpu_handoffs")])


def _loaded_handle():
    """A ctypes handle of a libtsgemm already loaded in this process (by LD_PRELOAD, by linking,
    or by dlopen), or None. dlopen with RTLD_NOLOAD never loads anything: it answers only for a
    library that is already there, matched by its soname or by the installed path."""
    names = [SONAME]
    try:
        names.append(library_path())
    except FileNotFoundError:
        pass
    mode = getattr(os, "RTLD_NOLOAD", 4) | getattr(os, "RTLD_NOW", 2)
    for name in names:
        try:
            return ctypes.CDLL(name, mode=mode)
        except OSError:
            continue
    return None


def stats():
    """tsgemm's counters since the library was loaded into this process, as a dict (calls,
    illegal, quick, gpu, cpu, gpu_failed, refused, the flops and seconds per side, the pools,
    copy threads and device slots: include/tsgemm.h, struct tsgemm_stats); None when the
    library is not loaded in this process (the program was not started through tsgemm-run,
    LD_PRELOAD or a link to it). Never loads the library."""
    h = _loaded_handle()
    if h is None:
        return None
    fn = h.tsgemm_get_stats_v
    fn.argtypes = [ctypes.POINTER(_Stats), ctypes.c_size_t]
    fn.restype = None
    s = _Stats()
    fn(ctypes.byref(s), ctypes.sizeof(s))
    return {name: getattr(s, name) for name, _ in _Stats._fields_}


def _info_from(h):
    """What tsgemm_version, tsgemm_kernel_info and tsgemm_cpu_blas of handle h say."""
    h.tsgemm_version.restype = ctypes.c_char_p
    h.tsgemm_cpu_blas.restype = ctypes.c_char_p
    h.tsgemm_kernel_info.argtypes = [ctypes.c_char_p, ctypes.c_int]
    h.tsgemm_kernel_info.restype = ctypes.c_int
    buf = ctypes.create_string_buffer(4096)
    rc = h.tsgemm_kernel_info(buf, len(buf))
    return {
        "version": h.tsgemm_version().decode(),
        "gpu": rc == 0,
        "kernel": buf.value.decode(errors="replace"),
        "cpu_blas": h.tsgemm_cpu_blas().decode(errors="replace"),
    }


def info():
    """A dict describing tsgemm here: "version" (the library's), "library" (its path), "gpu"
    (True when a GPU is usable), "kernel" (the GPU and kernel configuration, or why there is no
    GPU: "built without CUDA", "no CUDA driver", ...), "cpu_blas" (the CPU BLAS the fallback
    loaded). From the library's tsgemm_version / tsgemm_kernel_info / tsgemm_cpu_blas; this
    starts the GPU. When the library is not loaded in this process it is asked in a child
    Python process, so that this one stays without it (and stats() keeps answering None)."""
    h = _loaded_handle()
    if h is not None:
        d = _info_from(h)
        d["library"] = _loaded_path() or SONAME
        return d
    lib = library_path()
    code = ("import ctypes, json, sys; sys.path.insert(0, sys.argv[2]); "
            "import tsgemm; h = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_LOCAL); "
            "print(json.dumps(tsgemm._info_from(h)))")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code, lib, here], check=True,
                         stdout=subprocess.PIPE).stdout
    import json
    d = json.loads(out.decode().strip().splitlines()[-1])
    d["library"] = lib
    return d


def _loaded_path():
    """The path of the loaded libtsgemm as the process's map shows it, or None."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                p = line.split(None, 5)[-1].strip()
                if os.path.basename(p).startswith("libtsgemm.so"):
                    return p
    except OSError:
        pass
    return None
