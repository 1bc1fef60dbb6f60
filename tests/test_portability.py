"""What the wheels' other platforms see of the kernels' C headers, checked here.

The wheels are built by MSVC (Windows x64), GCC on Linux aarch64 and Apple Clang
(macOS Intel and arm64), which this machine cannot run. Each header of the package is
preprocessed with this machine's GCC or Clang as each of those compilers would see it
(``-undef``: only that compiler's own macros; every system header an empty file), and
what is left must be C that compiler takes: no GCC extension for MSVC, no x86
intrinsic off x86.
"""

import ctypes
import math
import os
import re
import shutil
import stat
import subprocess
import types

import numpy as np
import pytest

import cresize

FOLDER = os.path.dirname(cresize.__file__)
HEADERS = sorted(name for name in os.listdir(FOLDER) if name.endswith(".h"))

#: The macros each compiler of the wheels defines, in the part the headers test.
TARGETS = {
    "msvc-x64": ["_MSC_VER=1930", "_WIN32=1", "_WIN64=1", "_M_X64=100", "_M_AMD64=100"],
    "gcc-linux-aarch64": ["__GNUC__=12", "__linux__=1", "__aarch64__=1", "__ARM_NEON=1"],
    "clang-macos-arm64": [
        "__GNUC__=4",
        "__clang__=1",
        "__APPLE__=1",
        "__MACH__=1",
        "__aarch64__=1",
        "__arm64__=1",
    ],
}

#: What a compiler of TARGETS does not take: GCC/Clang syntax (MSVC), x86 code (arm64).
GCC_ONLY = re.compile(r"__attribute__|__builtin_\w+|__atomic_\w+|\b__thread\b|__asm__|\btypeof\b")
X86_ONLY = re.compile(r"\b_mm\d*_\w+|\b__m(?:128|256|512)\w*|__builtin_ia32_\w+|__builtin_cpu_\w+")


def _compiler():
    for name in ("gcc", "clang", "cc"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no gcc, clang or cc to preprocess the headers with")


@pytest.fixture(scope="module")
def system_headers(tmp_path_factory):
    """A folder of empty files named as every ``#include <...>`` of the headers."""
    folder = tmp_path_factory.mktemp("system")
    for header in HEADERS:
        with open(os.path.join(FOLDER, header), encoding="utf-8") as f:
            for name in re.findall(r"^\s*#\s*include\s*<([^>]+)>", f.read(), re.M):
                path = folder / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.touch()
    return folder


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("openmp", [0, 1])
@pytest.mark.parametrize("header", HEADERS)
def test_headers_compile_for_the_wheels_other_compilers(header, openmp, target, system_headers):
    macros = TARGETS[target] + [f"CRESIZE_HAVE_OPENMP={openmp}"]
    if openmp:
        macros.append("_OPENMP=200203")  # MSVC's /openmp: OpenMP 2.0
    run = subprocess.run(
        [_compiler(), "-E", "-P", "-undef", "-nostdinc", "-x", "c"]
        + [f"-D{m}" for m in macros]
        + ["-I", str(system_headers), "-I", FOLDER, os.path.join(FOLDER, header)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    forbidden = GCC_ONLY if target.startswith("msvc") else X86_ONLY
    found = sorted({m.group() for m in forbidden.finditer(run.stdout)})
    assert not found, f"{header} gives {target} {found}"


class _Kernel32:
    """``ctypes.windll.kernel32`` with a ``GlobalMemoryStatusEx`` of ``total`` bytes."""

    def __init__(self, total):
        self.total = total

    def GlobalMemoryStatusEx(self, pointer):
        status = pointer._obj
        assert status.dwLength == ctypes.sizeof(status)  # what Windows checks first
        status.ullTotalPhys = self.total
        return 1


def test_windows_physical_memory_bounds_a_request(monkeypatch):
    """Windows has no ``os.sysconf``: its physical memory (GlobalMemoryStatusEx) still
    bounds a request, which is refused before any table is built, as on POSIX (it
    was unbounded there: 10**8 x 10**8 built gigabytes of tables first)."""
    from cresize import _spec

    monkeypatch.setattr(_spec, "cgroup_memory_limit", lambda: math.inf)
    monkeypatch.delattr(_spec.os, "sysconf")
    monkeypatch.setattr(_spec.sys, "platform", "win32")
    monkeypatch.setattr(
        ctypes, "windll", types.SimpleNamespace(kernel32=_Kernel32(16 << 30)), raising=False
    )
    assert _spec.physical_memory() == 16 << 30
    assert _spec.memory_limit() <= 16 << 30
    with pytest.raises(MemoryError, match=r"at most 16 GiB can exist here"):
        cresize.resize(np.ones((1, 1)), (10**8, 10**8))
    monkeypatch.setattr(ctypes, "windll", types.SimpleNamespace(kernel32=_Kernel32(0)))
    assert _spec.physical_memory() == math.inf  # no answer: no bound, as before
    monkeypatch.delattr(ctypes, "windll")
    assert _spec.physical_memory() == math.inf


def test_a_failed_replace_of_a_read_only_file_leaves_no_temporary(tmp_path, monkeypatch):
    """Windows refuses to replace or remove a read-only file. The temporary file given a
    read-only output's mode (to keep it) was then left behind, hidden and read-only,
    when the rename failed; it is made writable and removed. Windows' rules are
    simulated on os.replace and os.unlink."""
    from cresize import _atomic

    unlink, replace = os.unlink, os.replace

    def read_only(path):
        return not os.stat(path).st_mode & stat.S_IWUSR

    def windows_unlink(path, *args, **kwargs):
        if read_only(path):
            raise PermissionError(13, "Access is denied", path)
        unlink(path, *args, **kwargs)

    def windows_replace(src, dst, *args, **kwargs):
        if os.path.exists(dst) and read_only(dst):
            raise PermissionError(13, "Access is denied", src, None, dst)
        replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(_atomic.os, "unlink", windows_unlink)
    monkeypatch.setattr(_atomic.os, "replace", windows_replace)
    path = tmp_path / "out.json"
    path.write_bytes(b"old")
    path.chmod(0o444)
    try:
        with pytest.raises(PermissionError):
            _atomic._write_atomic(str(path), lambda f: f.write(b"new"), overwrite=True)
        assert path.read_bytes() == b"old"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
        assert not _atomic._TEMPORARIES
    finally:
        path.chmod(0o644)


def test_show_config_survives_windows_ctypes(monkeypatch):
    """Windows' ``ctypes.CDLL(None)`` is a TypeError (there is no "this process"
    handle): the OpenMP runtime's path is then unknown (None), not an exception out of
    ``show_config``."""
    from cresize import _config

    real = ctypes.CDLL

    class Library:
        omp_get_max_threads = object()

    def windows_cdll(name, *args, **kwargs):
        if name is None:
            raise TypeError("LoadLibrary() argument 1 must be str, not None")
        if name == "libdl.so.2":
            raise OSError("libdl.so.2: cannot open shared object file")
        if name == "kernels.pyd":
            return Library()
        return real(name, *args, **kwargs)

    monkeypatch.setattr(_config.ctypes, "CDLL", windows_cdll)
    with pytest.raises(OSError, match="dladdr is not available"):
        _config._dladdr()
    assert _config._openmp_runtime("kernels.pyd") is None
