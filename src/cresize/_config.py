"""``show_config()``: which cresize this is, how it was compiled, which OpenMP it runs on.

The build half comes from ``cresize/_build_info.py``, which ``setup.py`` writes
beside the compiled kernels. The runtime half is looked up in this process: the
OpenMP library the kernels actually call (the one that defines
``omp_get_max_threads`` for them, found with ``dladdr``) and, when threadpoolctl
is installed, its version and every other OpenMP runtime loaded alongside it.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
from collections.abc import Callable
from typing import Any, Literal, overload

from cresize import _optional

# _OPENMP dates of the OpenMP specifications.
OPENMP_SPECS = {
    200203: "2.0",
    200505: "2.5",
    200805: "3.0",
    201107: "3.1",
    201307: "4.0",
    201511: "4.5",
    201811: "5.0",
    202011: "5.1",
    202111: "5.2",
    202411: "6.0",
}


@overload
def show_config(mode: Literal["stdout"] = ...) -> None: ...
@overload
def show_config(mode: Literal["dicts"]) -> dict[str, Any]: ...
def show_config(mode: str = "stdout") -> dict[str, Any] | None:
    """Print or return the version, build and OpenMP configuration of cresize.

    Parameters
    ----------
    mode : {"stdout", "dicts"}
        ``"stdout"`` prints a report; ``"dicts"`` returns it as nested dicts.

    Returns
    -------
    dict or None
        With ``mode="dicts"``: ``{"cresize": ..., "python": ..., "numpy": ...,
        "build": ..., "simd": ..., "openmp": ...}``; ``simd["level"]`` is the
        kernels' SIMD level (``"none"``, ``"sse2"``, ``"avx2"``, ``"avx512"``).
        ``build`` is None for a copy compiled without cresize's ``setup.py`` (its
        build information is missing).
        ``openmp["default_threads"]`` is what ``num_threads=None`` means here and
        now (``OMP_NUM_THREADS``, threadpoolctl, 1 in a forked child).
        ``openmp["thread_steering"]`` is ``{"mode": "off" | "auto" | "always",
        "source": "default" | "environment" | "call", "linux": bool}``: the mode
        in effect (``set_thread_steering``) and where it came from (cresize's
        default, ``CRESIZE_THREAD_STEERING`` when the kernels loaded, or a call);
        None for a serial build.
        ``openmp["quick_thread"]`` is ``{"on": bool, "source": "default" |
        "environment", "linux": bool}``: whether calls of at most two threads
        run on the quick pair (the calling thread and one helper thread, not an OpenMP
        team; ``CRESIZE_QUICK_THREAD``, docs/limits.md) and where that came from
        (``"call"`` only after the private ``cresize._kernels.set_quick_thread``,
        which cresize's tests use: there is no public setter).
        ``simd["avx512bw"]``: the 16-bit halves' 512-bit loop is in use.

    Raises
    ------
    ValueError
        ``mode`` not ``"stdout"`` or ``"dicts"``.

    Examples
    --------
    >>> import cresize
    >>> cresize.show_config()  # doctest: +SKIP
    >>> cresize.show_config("dicts")["openmp"]["enabled"] == cresize.openmp_enabled()
    True
    """
    if mode not in ("stdout", "dicts"):
        raise ValueError(f"mode must be 'stdout' or 'dicts'; got {mode!r}")
    config = _collect()
    if mode == "dicts":
        return config
    print(_format(config))
    return None


def _collect() -> dict[str, Any]:
    import numpy as np

    import cresize
    from cresize import _kernels, _threads, _waitpolicy

    build: dict[str, Any] | None
    try:
        from cresize._build_info import BUILD_INFO as build
    except ImportError:
        build = None
    enabled = _kernels.openmp_enabled()
    runtime = _openmp_runtime(_kernels.__file__) if enabled else None
    loaded = _loaded_openmp_runtimes()
    have_threadpoolctl = loaded is not None
    loaded = loaded or []
    mine = [lib for lib in loaded if runtime and _same_file(lib["filepath"], runtime)]
    if enabled and runtime is None and sys.platform == "win32":
        mine = [lib for lib in loaded if lib["prefix"] == "vcomp"]
        runtime = mine[0]["filepath"] if mine else None
    spec = (build or {}).get("openmp_spec")
    return {
        "cresize": {"version": cresize.__version__, "path": os.path.dirname(cresize.__file__)},
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "platform": platform.platform(),
        },
        "numpy": {
            "version": np.__version__,
            "build_version": (build or {}).get("numpy_build_version"),
        },
        "build": build,
        "simd": {
            "level": _kernels.simd_level(),
            "requested": _kernels.simd_requested,
            "avx512bw": _kernels.simd_avx512bw(),
        },
        "openmp": {
            "enabled": enabled,
            "requested": (build or {}).get("openmp_request"),
            "spec": f"{OPENMP_SPECS.get(spec, '?')} (_OPENMP={spec})" if spec else None,
            "runtime": runtime,
            "runtime_version": mine[0]["version"] if mine else None,
            "other_runtimes": [lib["filepath"] for lib in loaded if lib not in mine],
            "threadpoolctl": have_threadpoolctl,
            "default_threads": _threads.resolve(None),
            # A serial build has no OpenMP threads of its own to wait.
            "wait_policy": _waitpolicy.describe() if enabled else None,
            "thread_steering": _steering() if enabled else None,
            "quick_thread": _quick(),
        },
    }


def _steering() -> dict[str, Any]:
    """The thread steering mode in effect and where it came from (``_kernels``)."""
    from cresize import _kernels

    mode, source = _kernels.thread_steering()
    return {"mode": mode, "source": source, "linux": sys.platform.startswith("linux")}


def _quick() -> dict[str, Any]:
    """Whether calls of at most two threads may take the quick pair, and where that came
    from (``_kernels``)."""
    from cresize import _kernels

    on, source = _kernels.quick_thread()
    return {"on": on, "source": source, "linux": sys.platform.startswith("linux")}


#: ``show_config``'s words for where the quick pair's setting came from.
_QUICK_SOURCES = {
    "default": "the default",
    "environment": "CRESIZE_QUICK_THREAD when the kernels loaded",
    "call": "cresize._kernels.set_quick_thread",
}

#: ``show_config``'s words for where the steering mode came from.
_STEERING_SOURCES = {
    "default": "the default",
    "environment": "CRESIZE_THREAD_STEERING when the kernels loaded",
    "call": "cresize.set_thread_steering",
}


class _DlInfo(ctypes.Structure):
    _fields_ = [
        ("dli_fname", ctypes.c_char_p),
        ("dli_fbase", ctypes.c_void_p),
        ("dli_sname", ctypes.c_char_p),
        ("dli_saddr", ctypes.c_void_p),
    ]


def _openmp_runtime(module_path: str) -> str | None:
    """Path of the library that provides ``omp_get_max_threads`` to ``module_path``.

    ``dlsym`` on the module's handle searches the module and then its
    dependencies, so this is the runtime its parallel loops use, even when
    another library of the same name (PyTorch's libgomp) was loaded first.
    None where ``dladdr`` is missing (Windows).
    """
    try:
        symbol = ctypes.CDLL(module_path).omp_get_max_threads
        dladdr = _dladdr()
    except (OSError, AttributeError):
        return None
    info = _DlInfo()
    if not dladdr(ctypes.cast(symbol, ctypes.c_void_p), ctypes.byref(info)) or not info.dli_fname:
        return None
    return os.path.realpath(os.fsdecode(info.dli_fname))


def _dladdr() -> Callable[..., int]:
    for name in (None, "libdl.so.2"):  # glibc < 2.34 keeps dladdr in libdl
        try:
            dladdr = ctypes.CDLL(name).dladdr
        except (OSError, AttributeError, TypeError):  # TypeError: CDLL(None) on Windows
            continue
        dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
        dladdr.restype = ctypes.c_int
        return dladdr
    raise OSError("dladdr is not available")


def _loaded_openmp_runtimes() -> list[dict[str, Any]] | None:
    """threadpoolctl's view of the OpenMP libraries in this process (None without it)."""
    threadpoolctl = _optional.load(
        "threadpoolctl", fallback="the OpenMP runtimes loaded in this process are not listed"
    )
    if threadpoolctl is None:
        return None
    return [
        {"filepath": lib["filepath"], "prefix": lib.get("prefix"), "version": lib.get("version")}
        for lib in threadpoolctl.threadpool_info()
        if lib.get("user_api") == "openmp"
    ]


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _format(config: dict[str, Any]) -> str:
    build, omp = config["build"], config["openmp"]
    lines = [
        f"cresize {config['cresize']['version']}  ({config['cresize']['path']})",
        "python   {version} ({implementation}, {platform})".format(**config["python"]),
        f"numpy    {config['numpy']['version']}"
        + (
            f" (built against {config['numpy']['build_version']})"
            if config["numpy"]["build_version"]
            else ""
        ),
        (
            f"simd     {config['simd']['level']}"
            + (" + avx512bw" if config["simd"]["avx512bw"] else "")
            + f"  (CRESIZE_SIMD={config['simd']['requested'] or 'auto'} at import; "
            "all levels bit-identical)"
        ),
        "build",
    ]
    if build is None:
        lines.append("  unknown: no build information (not compiled by cresize's setup.py)")
    else:
        lines += [
            f"  compiler          {build['compiler_version'] or build['compiler_type']}",
            f"  command           {build['compiler']}",
            f"  compile args      {' '.join(build['extra_compile_args'])}",
            f"  link args         {' '.join(build['extra_link_args']) or '-'}",
            f"  macros            {' '.join(build['define_macros'])}",
            f"  cython            {build['cython_version']}  "
            + " ".join(f"{k}={v}" for k, v in build["cython_directives"].items()),
            f"  platform          {build['platform']}, Python {build['python']}",
        ]
    if not omp["runtime"]:
        version = "-"
    elif omp["runtime_version"]:
        version = omp["runtime_version"]
    elif omp["threadpoolctl"]:
        version = "unknown (this runtime does not report one)"
    else:
        version = "unknown (install threadpoolctl to look it up)"
    lines += [
        "openmp",
        f"  enabled           {omp['enabled']}  (CRESIZE_OPENMP={omp['requested'] or '?'} at build time)",
        f"  specification     {omp['spec'] or '-'}",
        f"  runtime           {omp['runtime'] or '-'}",
        f"  runtime version   {version}",
    ]
    if omp["other_runtimes"]:
        lines.append(f"  also loaded       {', '.join(omp['other_runtimes'])}")
    lines.append(f"  default threads   {omp['default_threads']}")
    lines.append(f"  wait policy       {omp['wait_policy'] or '-'}")
    steering = omp["thread_steering"]
    if steering is None:
        lines.append("  thread steering   -")
    else:
        where = _STEERING_SOURCES[steering["source"]]
        if not steering["linux"]:
            where += "; nothing is steered: Linux only"
        lines.append(f"  thread steering   {steering['mode']}  ({where})")
    quick = omp["quick_thread"]
    where = _QUICK_SOURCES[quick["source"]]
    if not quick["linux"]:
        where += "; no helper thread: Linux only"
    lines.append(f"  quick pair        {'on' if quick['on'] else 'off'}  ({where})")
    return "\n".join(lines)
