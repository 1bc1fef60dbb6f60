"""Build the Cython kernels, with OpenMP when the compiler has it.

Environment switches
--------------------
CRESIZE_OPENMP = auto (default) | 1 | 0
    auto: probe the compiler (compile, link and run a tiny OpenMP program) and
    build serial kernels with a warning when the probe fails; 1: fail when
    OpenMP is unavailable; 0: build serial kernels.
CRESIZE_DEBUG = 0 (default) | 1
    1: turn Cython's bounds, wraparound and initialisation checks back on, and keep
    the compiler's debugging information (-g, from Python's CFLAGS; 0: -g0).
CRESIZE_CLEAN_BUILD = 1 (default) | 0
    1: ``build`` (``pip install .``, ``python -m build``) first removes its own
    build/lib* and build/temp* folders, so a stale module never reaches a wheel;
    0 keeps them.

``build_ext`` (``python setup.py build_ext --inplace``, and ``build``'s with
CRESIZE_CLEAN_BUILD=0) rebuilds only what is out of date: an extension whose own
files changed (its .pyx, the .pxd it cimports, the headers it names and those they
include: ``reads``), and every extension when the build's configuration changed (the
compiler, its flags and macros, the OpenMP choice, the Cython and NumPy versions, the
directives: all that ``_build_info.py`` records, so a change of OpenMP flags is never
hidden by stale objects). ``--force`` recompiles everything. A build that fails or is
interrupted removes the module it was making (``BuildExt.build_extension``), and
``--inplace`` copies each module into the sources whole (``BuildExt.copy_file``).

Any other value of a switch stops ``setup.py`` at once, naming the allowed values.

Everything is relative to this file's folder, whatever the current directory
(``python path/to/setup.py build_ext --inplace`` works), and nothing is deleted
merely by running or importing this file.

The sources stay ``.pyx``: Cython runs inside ``build_ext`` and writes its C
into the build directory, so the sdist carries no generated C. ``build_ext``
also writes ``cresize/_build_info.py`` beside the compiled module (the
compiler, its flags and the OpenMP choice, for ``cresize.show_config()``); that
file is generated, git-ignored and kept out of the sdist.
"""

import contextlib
import os
import pprint
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import warnings

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

BUILD_INFO = "_build_info"

# setuptools resolves pyproject.toml, src/ and build/ against the current folder:
# make that this file's folder.
HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)


def switch(name, default, allowed=("0", "1")):
    """The value of the environment switch ``name``; any other than ``allowed`` stops here."""
    value = os.environ.get(name, default).strip().lower()
    if value not in allowed:
        raise SystemExit(
            f"{name} must be {', '.join(allowed[:-1])} or {allowed[-1]}, not {value!r}"
        )
    return value


def openmp_mode():
    return switch("CRESIZE_OPENMP", "auto", ("auto", "0", "1"))


def clean_build():
    return switch("CRESIZE_CLEAN_BUILD", "1") == "1"


def debug_build():
    return switch("CRESIZE_DEBUG", "0") == "1"


def cython_directives():
    debug = debug_build()
    return {
        "language_level": 3,
        "boundscheck": debug,
        "wraparound": debug,
        "initializedcheck": debug,
        "cdivision": True,
        "embedsignature": True,
    }


def check_build_requirements():
    """Stop, saying what to install, when a requirement of pyproject.toml's [build-system]
    is missing, or setuptools (which must read pyproject.toml) is too old: ``pip install .``
    installs them in its isolated build, but a direct ``python setup.py build_ext
    --inplace`` (or ``pip --no-build-isolation``) uses this Python's, and a fresh venv has
    an old setuptools (Python 3.11) or none (3.12+). An older Cython or NumPy than asked
    is only warned about: a packager may build with their own on purpose. The list is
    read with a pattern: Python 3.10 has no tomllib."""
    from importlib.metadata import PackageNotFoundError, version

    def numbers(text):
        return tuple(int(n) for n in re.match(r"[0-9]+(?:\.[0-9]+)*", text).group().split("."))

    with open("pyproject.toml", encoding="utf-8") as f:
        table = re.search(r"^\[build-system\]$(.*?)^\[", f.read(), re.M | re.S).group(1)
    requires = re.findall(r'"([^"]+)"', re.search(r"^requires = \[(.*?)\]", table, re.M | re.S)[1])
    problems = []
    for requirement in requires:
        name, floor = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9.]+)", requirement).groups()
        try:
            have = version(name)
        except PackageNotFoundError:
            problems.append(f"{name} is not installed")
            continue
        if numbers(have) >= numbers(floor):
            continue
        if name == "setuptools":
            problems.append(f"{name} is {have}")
        else:
            warnings.warn(
                f"building with {name} {have}; pyproject.toml asks for {requirement}",
                stacklevel=2,
            )
    if problems:
        wanted = " ".join(f'"{r}"' for r in requires)
        raise SystemExit(
            f"building cresize needs {', '.join(requires)} (pyproject.toml [build-system]), "
            f"but {'; '.join(problems)}: pip install {wanted}, or build with pip install ."
        )


# Check every switch, then the build requirements, before any work (CRESIZE_DEBUG=yes
# must not build without checks) and before setuptools is imported.
openmp_mode()
clean_build()
cython_directives()
check_build_requirements()

# These imports follow the checks above, which say what is missing.
from setuptools import Extension, setup  # noqa: E402
from setuptools.command.build import build  # noqa: E402
from setuptools.command.build_ext import build_ext  # noqa: E402
from setuptools.command.build_py import build_py  # noqa: E402
from setuptools.errors import CompileError, LinkError  # noqa: E402

#: What a file of src/cresize reads from that folder when it is compiled: the .pxd of
#: ``from cresize cimport a, b as c``, ``from cresize.a cimport x`` and ``cimport
#: cresize.a``, and the headers of ``cdef extern from "x.h"`` and ``#include "x.h"``.
READS = re.compile(
    r"^[ \t]*from[ \t]+cresize[ \t]+cimport[ \t]+(?P<names>[\w \t,]+)"
    r"|^[ \t]*(?:from[ \t]+cresize\.(?P<module>\w+)[ \t]+cimport|cimport[ \t]+cresize\.(?P<dotted>\w+))"
    r'|(?:\bextern[ \t]+from|^[ \t]*#[ \t]*include)[ \t]+"(?P<header>[\w.]+)"',
    re.M,
)


def reads(source):
    """The files of src/cresize that compiling ``source`` reads besides itself (its own
    .pxd, those it cimports, the headers it names, and theirs in turn), sorted: the
    extension's ``depends``. setuptools recompiles an extension when one of them is
    newer than it (the compiler reads them from src/cresize, not Cython's copies:
    ``BuildExt.remove_source_copies``); ``BuildExt`` also re-cythonizes a module whose
    .pxd changed, as Cython's own scan misses ``from cresize cimport _openmp``."""
    folder = os.path.dirname(source)
    found, todo = set(), [source]
    while todo:
        path = todo.pop()
        if path in found or not os.path.isfile(path):
            continue
        found.add(path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        names = (
            [os.path.splitext(os.path.basename(path))[0] + ".pxd"] if path.endswith(".pyx") else []
        )
        for m in READS.finditer(text):
            if m["names"]:
                names += [n.split()[0] + ".pxd" for n in m["names"].split(",") if n.strip()]
            elif m["header"]:
                names.append(m["header"])
            else:
                names.append((m["module"] or m["dotted"]) + ".pxd")
        todo += [os.path.join(folder, name) for name in names]
    return sorted(found - {source})


class BuildExt(build_ext):
    """Probe OpenMP with the compiler that builds the extension, cythonize, build what
    is out of date, then record what was used in ``cresize/_build_info.py``: a build
    whose record differs from the last one's recompiles everything."""

    def build_extensions(self):
        import Cython
        import numpy as np

        mode = openmp_mode()
        probe = None if mode == "0" else self.probe_openmp()
        if probe is None and mode == "1":
            raise SystemExit(
                "CRESIZE_OPENMP=1 but the compiler cannot build and run an OpenMP program"
            )
        if probe is None and mode == "auto":
            warnings.warn("OpenMP not found: building serial cresize kernels", stacklevel=2)
        cflags, lflags, spec = probe if probe else ([], [], None)
        if self.compiler.compiler_type != "msvc":
            # Never -ffast-math or -march=native. -g0 overrides the -g of Python's own
            # CFLAGS: debugging information would make the kernels' module six times
            # larger and write the build folder's path into every wheel
            # (CRESIZE_DEBUG=1 keeps it).
            cflags = cflags + ["-O3", "-ffp-contract=off"]
            if not debug_build():
                cflags.append("-g0")
        macros = [
            ("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"),
            ("CRESIZE_HAVE_OPENMP", "1" if probe else "0"),
        ]
        for ext in self.extensions:
            ext.include_dirs.extend([np.get_include(), os.path.join("src", "cresize")])
            ext.define_macros.extend(macros)
            ext.extra_compile_args.extend(cflags)
            ext.extra_link_args.extend(lflags)
        directives = cython_directives()
        info = self.build_info(
            {
                "compiler_type": self.compiler.compiler_type,
                "compiler": self.compiler_command(),
                "compiler_version": self.compiler_version(),
                "extra_compile_args": cflags,
                "extra_link_args": lflags,
                "define_macros": [f"{k}={v}" for k, v in macros],
                "openmp_request": mode,
                "openmp": probe is not None,
                "openmp_spec": spec,
                "cython_version": Cython.__version__,
                "cython_directives": directives,
                "numpy_build_version": np.__version__,
                "platform": sysconfig.get_platform(),
                "python": sys.version.split()[0],
            }
        )
        record = self.build_info_paths()[0]
        if not self.force and self.read(record) != info:
            self.force = True  # another configuration: no object of the last build is kept
        if self.force and os.path.exists(record):
            os.remove(record)  # a build that fails now leaves no record: the next one forces
        for ext in self.extensions:  # keep setuptools' Extension objects; swap .pyx for .c
            ext.sources = self.cythonize(ext, directives)
        self.remove_source_copies()
        super().build_extensions()
        os.makedirs(os.path.dirname(record), exist_ok=True)
        self.write_record(record, info)

    def build_extension(self, ext):
        """setuptools' build of ``ext``; one that fails or is interrupted removes the
        module it was making: a link cut short (Ctrl-C) leaves a partial file newer than
        its sources, which every later build would take for up to date."""
        try:
            super().build_extension(ext)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(self.get_ext_fullpath(ext.name))
            raise

    def copy_file(self, infile, outfile, *args, **kwargs):
        """The in-place copy of a module or ``_build_info.py``: made whatever the files'
        times (setuptools skips a source not newer than the copy, and a copy cut short,
        or a module from another build, stayed) into a file beside ``outfile``, renamed
        over it: a copy cut short leaves none, and a process that has the old module
        loaded keeps its pages (a copy written over it truncates them)."""
        if self.dry_run:
            return super().copy_file(infile, outfile, *args, **kwargs)
        folder, name = os.path.split(outfile)
        part = os.path.join(folder, f".{name}.{os.getpid()}.part")
        try:
            super().copy_file(infile, part, *args, **kwargs)  # no such file: copied
            os.replace(part, outfile)
        finally:
            with contextlib.suppress(OSError):
                os.remove(part)
        return outfile, True

    def cythonize(self, ext, directives):
        """``ext``'s sources with its .pyx replaced by the C that Cython writes (into
        build_temp), written again when it is older than a .pyx or .pxd it reads."""
        from Cython.Build import cythonize

        def run(force):
            return cythonize(
                ext,
                compiler_directives=directives,
                quiet=True,
                force=force,
                build_dir=self.cython_dir(),
            )[0].sources

        sources = run(self.force)
        inputs = [f for f in ext.sources + ext.depends if f.endswith((".pyx", ".pxd"))]
        newest = max(os.path.getmtime(f) for f in inputs)
        if any(c.endswith(".c") and os.path.getmtime(c) < newest for c in sources):
            sources = run(True)
        return sources

    def cython_dir(self):
        """The folder that Cython writes the C into (``cythonize``'s ``build_dir``)."""
        return os.path.join(self.build_temp, "cython")

    def remove_source_copies(self):
        """Remove the copies of the sources' headers and .pxd that Cython puts beside the C
        it writes (it copies an extension's ``depends`` into ``build_dir``), this build's
        and any earlier build's. A C file's ``#include "x.h"`` looks beside that file
        first, so the compiler read those copies, not src/cresize (where ``-Isrc/cresize``
        finds them): a header deleted from src/ but still included was found in an old
        build's copy, and an incremental build passed where a clean one fails. What
        Cython generated there itself (the C, a module's ``_api.h``) stays. Only the
        folders of that C inside ``cython_dir`` are looked in (not the rest of it, where
        ``--build-temp`` may name a folder holding other files, nor that of a source
        given as C)."""
        top = os.path.abspath(self.cython_dir())
        folders = {os.path.abspath(os.path.dirname(c)) for e in self.extensions for c in e.sources}
        for folder in sorted(f for f in folders if f == top or f.startswith(top + os.sep)):
            for name in sorted(os.listdir(folder)):
                path = os.path.join(folder, name)
                if not name.endswith((".h", ".pxd", ".pxi")) or not os.path.isfile(path):
                    continue
                with open(path, "rb") as f:
                    if f.read(23) == b"/* Generated by Cython ":
                        continue
                os.remove(path)

    @staticmethod
    def read(path):
        """The text of ``path`` (UTF-8, as ``write_record`` writes it), or None."""
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except (OSError, UnicodeDecodeError):
            return None

    @staticmethod
    def write_record(path, info):
        """Write ``_build_info.py``'s text ``info`` to ``path`` in UTF-8, the encoding
        Python reads a module in: the locale's (cp1252, cp932 on Windows) made a
        localized compiler's banner a module that does not import, or no file at all."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(info)

    def probe_openmp(self):
        """(compile_args, link_args, _OPENMP) for the first flags that compile,
        link and run PROBE, or None."""
        if self.compiler.compiler_type == "msvc":
            candidates = [(["/openmp"], [])]
        elif sys.platform == "darwin":
            candidates = [(["-Xpreprocessor", "-fopenmp"], ["-lomp"]), (["-fopenmp"], ["-fopenmp"])]
        else:
            candidates = [(["-fopenmp"], ["-fopenmp"])]
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "probe.c")
            with open(src, "w") as f:
                f.write(PROBE)
            for cflags, lflags in candidates:
                try:
                    objs = self.compiler.compile([src], output_dir=tmp, extra_postargs=cflags)
                    self.compiler.link_executable(
                        objs, "probe", output_dir=tmp, extra_postargs=lflags
                    )
                    exe = os.path.join(tmp, self.compiler.executable_filename("probe"))
                    run = subprocess.run(
                        [exe], check=True, capture_output=True, text=True, timeout=60
                    )
                    spec = int(run.stdout.split()[1])
                except (
                    CompileError,
                    LinkError,
                    OSError,
                    subprocess.SubprocessError,
                    IndexError,
                    ValueError,
                ):
                    continue
                return cflags, lflags, spec
        return None

    def compiler_command(self):
        command = getattr(self.compiler, "compiler_so", None)  # unix: the command and its flags
        if command:
            return " ".join(command)
        return getattr(self.compiler, "cc", None) or self.compiler.compiler_type  # msvc: cl.exe

    def compiler_version(self):
        """The compiler's own first line about itself, or None."""
        if self.compiler.compiler_type == "msvc":
            cmd = [getattr(self.compiler, "cc", "cl.exe")]  # cl prints its banner on stderr
        else:
            cmd = [self.compiler.compiler_so[0], "--version"]
        try:
            # A localized banner is in the console's code page, not always the locale's.
            run = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=60)
        except (OSError, subprocess.SubprocessError):
            return None
        lines = (run.stdout + run.stderr).strip().splitlines()
        return lines[0].strip() if lines else None

    @staticmethod
    def build_info(info):
        """The text of ``_build_info.py`` for ``info``."""
        return (
            '"""How this copy of cresize was compiled. Generated by setup.py; do not edit."""\n'
            f"BUILD_INFO = {pprint.pformat(info, sort_dicts=False)}\n"
        )

    # The build info travels with the compiled module: into the wheel from
    # build_lib, and beside the sources for --inplace and editable installs.
    def build_info_paths(self):
        """(path in build_lib, path in the source package) of _build_info.py."""
        package_dir = self.get_finalized_command("build_py").get_package_dir("cresize")
        return (
            os.path.join(self.build_lib, "cresize", BUILD_INFO + ".py"),
            os.path.join(package_dir, BUILD_INFO + ".py"),
        )

    def copy_extensions_to_source(self):
        super().copy_extensions_to_source()
        self.copy_file(*self.build_info_paths(), level=self.verbose)

    def get_output_mapping(self):
        mapping = super().get_output_mapping()
        if self.inplace:
            mapping.update([self.build_info_paths()])
        return mapping

    def get_outputs(self):
        outputs = super().get_outputs()
        return outputs if self.inplace else outputs + [self.build_info_paths()[0]]


class BuildPy(build_py):
    """Leave a stale in-place ``_build_info.py`` out of the sdist and the wheel:
    ``BuildExt`` writes the one that describes the build."""

    def find_package_modules(self, package, package_dir):
        return [
            m
            for m in super().find_package_modules(package, package_dir)
            if (m[0], m[1]) != ("cresize", BUILD_INFO)
        ]


class Build(build):
    """Start from empty build folders (``CRESIZE_CLEAN_BUILD``): a stale object hides
    a change of OpenMP flags, and a stale module in build/lib would reach the wheel.
    Only this command's own lib and temp folders are removed, never build/ itself."""

    def run(self):
        if clean_build():
            for folder in {self.build_lib, self.build_platlib, self.build_purelib, self.build_temp}:
                if os.path.isdir(folder):
                    shutil.rmtree(folder)
        super().run()


EXTENSIONS = [
    Extension(name, [source], depends=reads(source))
    for name, source in [
        ("cresize._kernels", "src/cresize/_kernels.pyx"),
        ("cresize._fast", "src/cresize/_fast.pyx"),
    ]
]

# setuptools' build backend runs this file as __main__ too; tests/test_build.py runs it
# under another name to read EXTENSIONS.
if __name__ == "__main__":
    setup(
        ext_modules=EXTENSIONS,
        cmdclass={"build": Build, "build_ext": BuildExt, "build_py": BuildPy},
    )
