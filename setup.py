"""Build the Cython kernels, with OpenMP when the compiler has it.

Environment switches
--------------------
CRESIZE_OPENMP = auto (default) | 1 | 0
    auto: probe the compiler (compile, link and run a tiny OpenMP program) and
    build serial kernels with a warning when the probe fails; 1: fail when
    OpenMP is unavailable; 0: build serial kernels.
CRESIZE_DEBUG = 1
    Turn Cython's bounds, wraparound and initialisation checks back on.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import warnings

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

PROBE = r"""
#include <omp.h>
#include <stdio.h>
int main(void) {
    int n = 0;
    #pragma omp parallel reduction(+:n)
    n += 1;
    printf("%d %d\n", n, _OPENMP);
    return n >= 1 ? 0 : 1;
}
"""


def openmp_flags():
    """Return (compile_args, link_args) that give OpenMP, or None."""
    if sys.platform == "win32":
        return ["/openmp"], []
    if sys.platform == "darwin":
        candidates = [(["-Xpreprocessor", "-fopenmp"], ["-lomp"]), (["-fopenmp"], ["-fopenmp"])]
    else:
        candidates = [(["-fopenmp"], ["-fopenmp"])]
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        exe = os.path.join(tmp, "probe")
        with open(src, "w") as f:
            f.write(PROBE)
        for cflags, lflags in candidates:
            cmd = cc.split() + cflags + [src, "-o", exe] + lflags
            try:
                subprocess.run(cmd, check=True, capture_output=True)
                subprocess.run([exe], check=True, capture_output=True, timeout=60)
            except (OSError, subprocess.SubprocessError):
                continue
            return cflags, lflags
    return None


def configure():
    mode = os.environ.get("CRESIZE_OPENMP", "auto").strip().lower()
    if mode not in ("auto", "0", "1"):
        raise SystemExit(f"CRESIZE_OPENMP must be auto, 0 or 1, not {mode!r}")
    flags = None if mode == "0" else openmp_flags()
    if flags is None and mode == "1":
        raise SystemExit("CRESIZE_OPENMP=1 but the compiler cannot build and run an OpenMP program")
    if flags is None and mode == "auto":
        warnings.warn("OpenMP not found: building serial cresize kernels")
    return flags


flags = configure()
cflags, lflags = flags if flags else ([], [])
if sys.platform != "win32":
    cflags = cflags + ["-O3", "-ffp-contract=off"]
debug = os.environ.get("CRESIZE_DEBUG", "0") == "1"
directives = {
    "language_level": 3,
    "boundscheck": debug,
    "wraparound": debug,
    "initializedcheck": debug,
    "cdivision": True,
    "embedsignature": True,
}
extensions = [
    Extension(
        "cresize._kernels",
        ["src/cresize/_kernels.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"),
                       ("CRESIZE_HAVE_OPENMP", "1" if flags else "0")],
        extra_compile_args=cflags,
        extra_link_args=lflags,
    )
]

if os.path.isdir("build") and os.environ.get("CRESIZE_CLEAN_BUILD", "1") == "1":
    # A stale build/ hides a change of OpenMP flags (STYLE.md): always rebuild.
    shutil.rmtree("build", ignore_errors=True)

setup(ext_modules=cythonize(extensions, compiler_directives=directives, quiet=True))
