"""The build the user got: OpenMP where it is required, the recorded build
configuration, ``show_config``, and the files a distribution must carry."""

import importlib.metadata
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cresize
from cresize import _api

OPENMP = cresize.openmp_enabled()
#: The setup.py of the source tree or sdist these tests came from (absent where only
#: tests/ was copied, as for the wheels' tests).
SETUP = Path(__file__).resolve().parents[1] / "setup.py"


@pytest.mark.skipif(
    os.environ.get("CRESIZE_REQUIRE_OPENMP") != "1",
    reason="CRESIZE_REQUIRE_OPENMP=1 not set: a serial build may be intended "
    "(macOS wheels, CRESIZE_OPENMP=0)",
)
def test_openmp_when_required():
    assert OPENMP, (
        "this build has serial kernels but CRESIZE_REQUIRE_OPENMP=1: "
        "the compiler's OpenMP was not found or not used"
    )


def test_build_info_matches_the_kernels():
    build = cresize.show_config("dicts")["build"]
    assert build is not None, "no cresize/_build_info.py: not built by cresize's setup.py"
    assert build["openmp"] is OPENMP
    assert f"CRESIZE_HAVE_OPENMP={int(OPENMP)}" in build["define_macros"]
    flags = build["extra_compile_args"] + build["extra_link_args"]
    assert bool({"-fopenmp", "/openmp"} & set(flags)) is OPENMP, flags
    assert (build["openmp_spec"] is not None) is OPENMP
    assert build["compiler"] and build["compiler_type"]


def test_no_unsafe_optimisation_flags():
    # A distributed build never uses -ffast-math or -march=native.
    build = cresize.show_config("dicts")["build"]
    flags = " ".join([build["compiler"]] + build["extra_compile_args"] + build["extra_link_args"])
    for bad in ("-ffast-math", "-Ofast", "-march=native", "-mtune=native", "/fp:fast"):
        assert bad not in flags, flags


def _elf_section_names(path):
    """The section names of a 64-bit little-endian ELF file (the x86-64 and aarch64
    Linux modules), read from its section header table."""
    data = Path(path).read_bytes()
    shoff = int.from_bytes(data[0x28:0x30], "little")
    entsize, count, names_index = (
        int.from_bytes(data[o : o + 2], "little") for o in (0x3A, 0x3C, 0x3E)
    )

    def header(i):
        at = shoff + i * entsize
        return (
            int.from_bytes(data[at : at + 4], "little"),  # sh_name
            int.from_bytes(data[at + 0x18 : at + 0x20], "little"),  # sh_offset
        )

    strtab = header(names_index)[1]
    return {
        data[strtab + n : data.index(b"\0", strtab + n)].decode()
        for n, _ in map(header, range(count))
    }


@pytest.mark.skipif(
    sys.platform != "linux" or sys.maxsize < 2**32 or sys.byteorder != "little",
    reason="reads 64-bit little-endian ELF modules (Linux)",
)
def test_compiled_modules_carry_no_debugging_information():
    # Python's CFLAGS hold -g: without setup.py's -g0 the _kernels module was six times
    # larger (11 MB, a 5 MB wheel) and wrote the build folder's path into every wheel.
    # CRESIZE_DEBUG=1 (Cython's checks on) keeps it.
    build = cresize.show_config("dicts")["build"]
    if build is None or build["cython_directives"]["boundscheck"]:
        pytest.skip("not a release build by cresize's setup.py (CRESIZE_DEBUG=1 keeps -g)")
    folder = Path(cresize.__file__).parent
    modules = sorted(folder.glob("_*.so"))
    assert {m.name.split(".")[0] for m in modules} >= {"_kernels", "_fast"}, modules
    for module in modules:
        names = _elf_section_names(module)
        assert ".text" in names, (module, sorted(names))
        assert not {n for n in names if n.startswith(".debug_")}, (module, sorted(names))


def test_show_config_openmp_section():
    omp = cresize.show_config("dicts")["openmp"]
    assert omp["enabled"] is OPENMP
    assert omp["default_threads"] == _api._threads(None) >= 1
    if OPENMP and (sys.platform != "win32" or omp["threadpoolctl"]):
        # The library that defines omp_get_max_threads for the kernels (found
        # with dladdr; on Windows threadpoolctl finds vcomp), a real file.
        assert omp["runtime"] is not None and os.path.isfile(omp["runtime"]), omp
    elif not OPENMP:
        assert omp["runtime"] is None and omp["default_threads"] == 1
        # No runtime of its own: no wait policy to report (it read "the runtime's own").
        assert omp["wait_policy"] is None, omp


def test_show_config_prints_a_report(capsys):
    assert cresize.show_config() is None
    out = capsys.readouterr().out
    assert out.startswith(f"cresize {cresize.__version__}")
    for line in (
        "compiler ",
        "compile args",
        "runtime ",
        f"default threads   {_api._threads(None)}",
    ):
        assert line in out, out


def test_show_config_rejects_an_unknown_mode():
    with pytest.raises(ValueError, match="mode"):
        cresize.show_config("json")


def test_default_threads_follow_omp_num_threads():
    code = "import cresize; print(cresize.show_config('dicts')['openmp']['default_threads'])"
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=dict(os.environ, OMP_NUM_THREADS="3"),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert int(out) == (3 if OPENMP else 1)


@pytest.mark.skipif(not OPENMP, reason="serial build: the default is always 1")
def test_a_default_over_max_threads_is_capped_at_it():
    # OMP_NUM_THREADS=100000 made num_threads=None (and -1) 100000 threads, where an
    # explicit num_threads over MAX_THREADS (4096) is refused. No kernel runs here: a
    # team that large is not started.
    code = (
        "import cresize; from cresize import _api, _spec, _threads\n"
        "print(_api._threads(None), _threads.resolve(None), _threads.resolve(-1),"
        " _threads.resolve(-2), cresize.show_config('dicts')['openmp']['default_threads'],"
        " _spec.MAX_THREADS)"
    )
    for env, most in [("100000", 4096), ("4097", 4096), ("4096", 4096), ("4095", 4095)]:
        out = subprocess.run(
            [sys.executable, "-c", code],
            env=dict(os.environ, OMP_NUM_THREADS=env),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.split()
        assert [int(n) for n in out] == [most, most, most, most - 1, most, 4096], (env, out)


@pytest.mark.skipif(not OPENMP, reason="serial build: no OpenMP runtime for threadpoolctl to limit")
def test_threadpoolctl_sees_and_limits_the_runtime():
    threadpoolctl = pytest.importorskip("threadpoolctl", reason="threadpoolctl is not installed")
    runtime = cresize.show_config("dicts")["openmp"]["runtime"]
    found = [lib for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "openmp"]
    assert any(os.path.samefile(lib["filepath"], runtime) for lib in found), (runtime, found)
    with threadpoolctl.threadpool_limits(1, user_api="openmp"):
        assert _api._threads(None) == 1
        assert cresize.show_config("dicts")["openmp"]["default_threads"] == 1


def test_version_command_prints_the_configuration():
    run = subprocess.run(
        [sys.executable, "-m", "cresize", "--version"], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"cresize {cresize.__version__}")
    assert "openmp" in run.stdout and "default threads" in run.stdout, run.stdout


def test_package_ships_kernel_sources_and_markers():
    folder = os.path.dirname(cresize.__file__)
    # py.typed and the stubs of the compiled modules: without _fast.pyi a type checker
    # sees Plan's calls as Any (tests/test_typing.py).
    for name in ("_kernels.pyx", "_openmp.pxd", "py.typed", "_fast.pyi", "_kernels.pyi"):
        assert os.path.isfile(os.path.join(folder, name)), name


def _installed_distribution():
    """The installed distribution that the imported ``cresize`` comes from; skips when
    cresize runs from a source tree (in-place or editable build), where the metadata
    found describes some other copy or is a build's leftover ``src/cresize.egg-info``
    (which has no RECORD: installers write one)."""
    try:
        dist = importlib.metadata.distribution("cresize")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("cresize runs from a source tree, not an installed distribution")
    installed = dist.locate_file("cresize/__init__.py")
    if dist.read_text("RECORD") is None or not (
        os.path.isfile(installed) and os.path.samefile(installed, cresize.__file__)
    ):
        pytest.skip(f"cresize is imported from {cresize.__file__}, not from its distribution")
    return dist


def test_version_matches_the_distribution():
    assert _installed_distribution().version == cresize.__version__


def test_classifiers_state_the_supported_pythons_and_typing():
    # PyPI's filters and tools read the classifiers: one per supported Python 3 minor
    # version from the Requires-Python floor on, this interpreter's among them, and
    # Typing :: Typed as the package ships py.typed.
    meta = _installed_distribution().metadata
    classifiers = meta.get_all("Classifier") or []
    floor = meta["Requires-Python"]
    assert floor.startswith(">=3."), floor
    minors = sorted(
        int(c.rsplit(".", 1)[1])
        for c in classifiers
        if c.startswith("Programming Language :: Python :: 3.")
    )
    assert minors and minors[0] == int(floor[len(">=3.") :]), (floor, classifiers)
    assert minors == list(range(minors[0], minors[-1] + 1)), classifiers
    assert sys.version_info[1] in minors, classifiers
    assert "Typing :: Typed" in classifiers, classifiers
    assert "Programming Language :: Python :: 3 :: Only" in classifiers, classifiers


def test_distribution_carries_the_bundled_runtimes_licences():
    # Linux wheels bundle libgomp (GPL-3.0-or-later WITH GCC-exception-3.1: the GPL's
    # own text must go with it), Windows wheels MSVC's vcomp140.dll; every wheel and
    # the sdist carry the notices (license-files), and cresize stays BSD-3-Clause.
    dist = _installed_distribution()
    assert dist.metadata["License-Expression"] == "BSD-3-Clause", dist.metadata
    files = dist.metadata.get_all("License-File") or []
    wanted = [
        "LICENSE",
        "LICENSES/GCC-exception-3.1.txt",
        "LICENSES/GPL-3.0.txt",
        "LICENSES/MSVC-runtime.txt",
    ]
    assert sorted(files) == wanted, files
    texts = {name: dist.read_text(f"licenses/{name}") or "" for name in wanted}
    assert "GCC RUNTIME LIBRARY EXCEPTION" in texts["LICENSES/GCC-exception-3.1.txt"]
    assert "GNU GENERAL PUBLIC LICENSE" in texts["LICENSES/GPL-3.0.txt"]
    assert "TERMS AND CONDITIONS" in texts["LICENSES/GPL-3.0.txt"]
    assert "vcomp140.dll" in texts["LICENSES/MSVC-runtime.txt"]


def stand_ins(extension, build_ext, more=""):
    """The lines of a child program that stand in for setuptools before the child runs
    setup.py under another name: the README's test environment has no setuptools >= 77
    and no Cython (pip builds in isolation). The build requirements count as met, and
    setuptools' modules hold ``extension`` (setup.py's Extension), ``build_ext`` and
    ``Command`` (the child defines those names first, and imports importlib.metadata,
    sys and types); ``more`` adds modules (``'name': {attributes}`` entries)."""
    return (
        "importlib.metadata.version = lambda name: '999'\n"
        f"for name, attrs in {{'setuptools': {{'Extension': {extension}, 'setup': None}},\n"
        "    'setuptools.command': {},\n"
        "    'setuptools.command.build': {'build': Command},\n"
        f"    'setuptools.command.build_ext': {{'build_ext': {build_ext}}},\n"
        "    'setuptools.command.build_py': {'build_py': Command},\n"
        "    'setuptools.errors': {'CompileError': OSError, 'LinkError': OSError},\n"
        f"    {more}}}.items():\n"
        "    sys.modules[name] = types.ModuleType(name)\n"
        "    vars(sys.modules[name]).update(attrs)\n"
    )


@pytest.mark.skipif(not SETUP.is_file(), reason="no setup.py beside tests/: tests copied alone")
@pytest.mark.parametrize(
    "name, bad, allowed",
    [
        ("CRESIZE_DEBUG", "yes", "0 or 1"),
        ("CRESIZE_CLEAN_BUILD", "true", "0 or 1"),
        ("CRESIZE_OPENMP", "on", "auto, 0 or 1"),
    ],
)
def test_setup_refuses_an_unknown_switch_value(name, bad, allowed):
    # CRESIZE_DEBUG=yes used to build without the checks, and CRESIZE_CLEAN_BUILD=false
    # to clean, without a word. setup.py checks its switches before any work, so a
    # command that builds nothing shows it.
    def run(value):
        env = dict(os.environ, **{name: value})
        return subprocess.run(
            [sys.executable, str(SETUP), "--version"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    refused = run(bad)
    assert refused.returncode != 0, refused
    assert f"{name} must be {allowed}, not {bad!r}" in refused.stderr, refused.stderr
    accepted = run("1")
    assert f"{name} must be" not in accepted.stderr, accepted.stderr


@pytest.mark.skipif(not SETUP.is_file(), reason="no setup.py beside tests/: tests copied alone")
def test_setup_names_missing_build_requirements(tmp_path):
    # A direct `python setup.py build_ext --inplace` (the README's development
    # command) in a fresh venv met setuptools 65 (Python 3.11) or none (3.12+) and
    # stopped with a 70-line traceback about `project.license`; it now says what to
    # install. A venv without pip has none of the build requirements.
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")],
        check=True,
        timeout=120,
    )
    python = tmp_path / "venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run(
        [str(python), str(SETUP), "--version"], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode != 0, run
    assert "building cresize needs setuptools>=" in run.stderr, run.stderr
    assert "setuptools is not installed" in run.stderr and "pip install" in run.stderr, run.stderr


@pytest.mark.skipif(not SETUP.is_file(), reason="no setup.py beside tests/: tests copied alone")
def test_each_extension_depends_on_the_files_it_reads(tmp_path):
    # `python setup.py build_ext --inplace` recompiled both extensions whatever changed
    # (every build_ext was forced), _kernels depended on every header (_fast's
    # _hugealloc.h too), and _fast neither re-cythonized nor recompiled when _openmp.pxd
    # changed (Cython's scan misses `from cresize cimport _openmp`). Each extension's
    # depends are now exactly the files it reads (setup.reads), the staleness that
    # setuptools and BuildExt act on. Checked here on setup.py's EXTENSIONS and on a
    # made-up package of every form that reads a file.
    made = tmp_path / "cresize"
    made.mkdir()
    for name, text in {
        "a.pyx": "from cresize cimport b as bb, c\n"
        "from cresize.d cimport x\n"
        "cimport cresize.e\n"
        'cdef extern from "f.h" nogil:\n'
        "    pass\n"
        "# from cresize cimport commented\n"
        "from cresize import python_only\n",
        "a.pxd": "",
        "b.pxd": "",
        "c.pxd": 'cdef extern from "h.h":\n    pass\n',
        "d.pxd": "",
        "e.pxd": "",
        "f.h": '#include "g.h" /* and "unread.h" */\n',
        "g.h": '#  include "f.h"\n',
        "h.h": "",
        "unread.h": "",
        "commented.pxd": "",
        "python_only.pxd": "",
    }.items():
        (made / name).write_text(text)
    # setup.py checks the build requirements and imports setuptools before it lists its
    # extensions; the README's test environment has neither Cython nor setuptools>=77 (pip
    # builds in isolation), so the child stands in for both: what is read is setup.py's
    # own EXTENSIONS and reads.
    child = (
        "import importlib.metadata, json, runpy, sys, types\n"
        "class Extension:\n"
        "    def __init__(self, name, sources, depends=()):\n"
        "        self.name, self.sources, self.depends = name, sources, list(depends)\n"
        "class Command:\n"
        "    pass\n"
        + stand_ins("Extension", "Command")
        + "setup = runpy.run_path(sys.argv[1], run_name='cresize_setup')\n"
        "depends = {e.name: e.depends for e in setup['EXTENSIONS']}\n"
        "print(json.dumps([depends, setup['reads'](sys.argv[2])]))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", child, str(SETUP), str(made / "a.pyx")],
        cwd=SETUP.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    depends, made_reads = json.loads(run.stdout.splitlines()[-1])
    assert [Path(f).name for f in made_reads] == [
        "a.pxd", "b.pxd", "c.pxd", "d.pxd", "e.pxd", "f.h", "g.h", "h.h"
    ]  # fmt: skip
    names = {ext: {Path(f).name for f in files} for ext, files in depends.items()}
    headers = {p.name for p in SETUP.parent.glob("src/cresize/*.h")}
    assert names["cresize._fast"] == {"_hugealloc.h", "_kernels.pxd", "_openmp.pxd"}
    # _simd_pixels.h only through _simd.h's #include
    assert names["cresize._kernels"] == (headers - {"_hugealloc.h"}) | {
        "_kernels.pxd",
        "_openmp.pxd",
    }


@pytest.mark.skipif(not SETUP.is_file(), reason="no setup.py beside tests/: tests copied alone")
def test_an_interrupted_build_leaves_no_partial_module(tmp_path):
    # build_ext rebuilds only what is older than its sources (and copies into the sources
    # only a module newer than theirs): a link or an in-place copy cut short (Ctrl-C)
    # left a partial module newer than everything, taken for up to date by every later
    # build (ImportError until --force). A failed build now removes the module it was
    # making, and the in-place copy is made beside the module and renamed over it. As in
    # the test above, the child stands in for setuptools (the README's test environment
    # has none >= 77); BuildExt's own methods run.
    child = (
        "import importlib.metadata, os, runpy, sys, types\n"
        "out, src = sys.argv[2], sys.argv[3]\n"
        "class Command:\n"
        "    force = dry_run = False\n"
        "class BuildExt(Command):\n"
        "    def get_ext_fullpath(self, name):\n"
        "        return out\n"
        "    def build_extension(self, ext):\n"
        "        with open(out, 'wb') as f:\n"
        "            f.write(b'half a link')\n"
        "        raise KeyboardInterrupt\n"
        "    def copy_file(self, infile, outfile, *args, **kwargs):\n"
        "        with open(infile, 'rb') as f, open(outfile, 'wb') as g:\n"
        "            g.write(f.read(4))\n"
        "            if os.environ.get('CUT'):\n"
        "                raise KeyboardInterrupt\n"
        "            g.write(f.read())\n"
        "        return outfile, True\n"
        + stand_ins("lambda *a, **k: None", "BuildExt")
        + "command = runpy.run_path(sys.argv[1], run_name='cresize_setup')['BuildExt']()\n"
        "if sys.argv[4] == 'link':\n"
        "    try:\n"
        "        command.build_extension(types.SimpleNamespace(name='cresize._fast'))\n"
        "    except KeyboardInterrupt:\n"
        "        print('interrupted')\n"
        "else:\n"
        "    try:\n"
        "        print(command.copy_file(src, out, level=1))\n"
        "    except KeyboardInterrupt:\n"
        "        print('interrupted')\n"
    )
    out, src = tmp_path / "_fast.so", tmp_path / "built.so"

    def run(step, **env):
        done = subprocess.run(
            [sys.executable, "-c", child, str(SETUP), str(out), str(src), step],
            cwd=SETUP.parent,
            env=dict(os.environ, **env),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "interrupted" in run("link") and not out.exists()
    out.write_bytes(b"the module loaded now")
    src.write_bytes(b"the module just built")
    old = os.stat(out)
    os.utime(src, (old.st_mtime - 10, old.st_mtime - 10))  # older than the copy in place
    assert "interrupted" in run("copy", CUT="1")
    assert out.read_bytes() == b"the module loaded now"  # not half of the new one
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_fast.so", "built.so"]
    run("copy")  # copied whatever the times, as a new file (the loaded one's pages stay)
    assert out.read_bytes() == b"the module just built" and os.stat(out).st_ino != old.st_ino


@pytest.mark.skipif(not SETUP.is_file(), reason="no setup.py beside tests/: tests copied alone")
def test_the_compiler_reads_no_copy_of_a_source_in_build(tmp_path):
    # Cython copies an extension's depends (its .pxd and headers) beside the C it writes
    # into build/temp*/cython, and a C file's #include "x.h" looks beside that file first:
    # the compiler read those copies, not src/cresize. A header deleted from src/ but
    # still #included was found in an earlier build's copy, so an incremental build passed
    # where a clean one fails. BuildExt now removes the copies (this build's and older
    # ones) before compiling; what Cython generated itself stays. As in the tests above,
    # the child stands in for setuptools and Cython (whose cythonize copies the depends,
    # as Cython's does); BuildExt's own build_extensions runs, and the stand-in compiler
    # lists what an #include would find beside the C.
    child = (
        "import importlib.metadata, json, os, runpy, shutil, sys, types\n"
        "temp, lib = sys.argv[2], sys.argv[3]\n"
        "found = {}\n"
        "def cythonize(ext, build_dir, **options):\n"
        "    for path in ext.depends:\n"
        "        folder = os.path.join(build_dir, os.path.dirname(path))\n"
        "        os.makedirs(folder, exist_ok=True)\n"
        "        shutil.copy2(path, folder)\n"
        "    c = os.path.join(build_dir, os.path.splitext(ext.sources[0])[0] + '.c')\n"
        "    with open(c, 'w') as f:\n"
        "        f.write('/* Generated by Cython 3.9.9 */\\n')\n"
        "    return [types.SimpleNamespace(sources=[c])]\n"
        "class Extension:\n"
        "    def __init__(self, name, sources, depends=()):\n"
        "        self.name, self.sources, self.depends = name, sources, list(depends)\n"
        "        self.include_dirs, self.define_macros = [], []\n"
        "        self.extra_compile_args, self.extra_link_args = [], []\n"
        "class Command:\n"
        "    force = dry_run = False\n"
        "class BuildExt(Command):\n"
        "    def build_extensions(self):\n"
        "        for ext in self.extensions:\n"
        "            found[ext.name] = sorted(os.listdir(os.path.dirname(ext.sources[0])))\n"
        + stand_ins(
            "Extension",
            "BuildExt",
            "'Cython': {'__version__': '3.9.9'}, 'Cython.Build': {'cythonize': cythonize}",
        )
        + "setup = runpy.run_path(sys.argv[1], run_name='cresize_setup')\n"
        "command = setup['BuildExt']()\n"
        "command.build_temp, command.build_lib = temp, lib\n"
        "command.extensions = setup['EXTENSIONS']\n"
        "command.compiler = types.SimpleNamespace(compiler_type='unix', compiler_so=[sys.executable])\n"
        "command.get_finalized_command = lambda name: types.SimpleNamespace(\n"
        "    get_package_dir=lambda package: os.path.join(lib, 'sources'))\n"
        "command.build_extensions()\n"
        "print(json.dumps(found))\n"
    )
    temp = tmp_path / "temp"
    beside = temp / "cython" / "src" / "cresize"  # where Cython writes the C
    beside.mkdir(parents=True)
    (beside / "_gone.h").write_text("/* a copy of a header since deleted from src/ */\n")
    (beside / "_kernels_api.h").write_text("/* Generated by Cython 3.9.9 */\n")
    # Only the folder of the C is looked in: the rest of build_temp/cython (--build-temp
    # may name a folder of other files) was walked whole, its headers removed
    other = temp / "cython" / "include"
    other.mkdir()
    (other / "mine.h").write_text("/* not a copy */\n")
    run = subprocess.run(
        [sys.executable, "-c", child, str(SETUP), str(temp), str(tmp_path / "lib")],
        cwd=SETUP.parent,
        env=dict(os.environ, CRESIZE_OPENMP="0"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout.splitlines()[-1])
    wanted = ["_fast.c", "_kernels.c", "_kernels_api.h"]
    assert found == {"cresize._kernels": wanted, "cresize._fast": wanted}, found
    assert (other / "mine.h").is_file()
    assert (SETUP.parent / "src" / "cresize" / "_simd.h").is_file()  # never the sources'


def test_no_requirement_pulls_an_unpinned_torch():
    # An extra of "torch>=2.0" let `pip install "cresize[torch]"` fetch PyPI's multi-GB
    # CUDA build on Linux; PyTorch is installed by the user, pinned (docs/guide/install.md).
    tomllib = pytest.importorskip("tomllib")
    path = Path(__file__).resolve().parent.parent / "pyproject.toml"
    if not path.is_file():
        pytest.skip("no pyproject.toml beside the tests (installed test files)")
    project = tomllib.loads(path.read_text())["project"]
    requirements = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra
    names = [r.split(";")[0].replace(" ", "").lower() for r in requirements]
    assert not [r for r in names if r.startswith("torch") and "==" not in r], names


#: A compiler or Cython warning about one of cresize's own files: gcc's
#: ``.../cresize/_kernels.c:123:4: warning: ...`` (the generated C, or a header) and
#: Cython's ``warning: src/cresize/_kernels.pyx:735:4: Unreachable code``.
OWN_WARNING = re.compile(
    r"cresize[/\\][\w./\\-]*\.(?:c|h|pyx|pxd):\d+:\d+: warning:"
    r"|warning: [\w./\\-]*cresize[/\\][\w./\\-]*\.(?:pyx|pxd):\d+:\d+:"
)


def own_warnings(log):
    """The lines of a build log that warn about cresize's own sources."""
    return [line for line in log.splitlines() if OWN_WARNING.search(line)]


def test_own_warnings_are_recognised():
    # The two forms the kernels' build used to print 42 of (gcc's -Wmaybe-uninitialized
    # in Cython's OpenMP blocks; Cython's unreachable code after fused-type branches),
    # and lines that are not about cresize's sources.
    log = "\n".join(
        [
            "warning: src/cresize/_kernels.pyx:735:4: Unreachable code",
            "build/temp.linux-x86_64-cpython-311/cython/src/cresize/_kernels.c:53096:23: "
            "warning: '__pyx_v_tid' may be used uninitialized [-Wmaybe-uninitialized]",
            r"C:\b\cython\src\cresize\_fast.c:12:3: warning: unused variable 'x'",
            "src/cresize/_simd.h:40:1: warning: 'f' defined but not used",
            "gcc -Wall -c build/temp/cython/src/cresize/_kernels.c -o _kernels.o",
            "SetuptoolsDeprecationWarning: a warning about setup.py, not a source",
            "/usr/include/stdio.h:10:1: warning: a system header's",
        ]
    )
    assert len(own_warnings(log)) == 4, own_warnings(log)


@pytest.mark.skipif(
    not os.environ.get("CRESIZE_BUILD_LOG"),
    reason="CRESIZE_BUILD_LOG (the output of a build of cresize) not set; .ci/run sets it",
)
def test_build_prints_no_warnings_about_our_sources():
    # The build prints no gcc or Cython warning about cresize's sources, so that a new
    # one stands out (docs/guide/install.md says how to check by hand). .ci/run
    # passes the log of its `python -m build` (the wheel's compile).
    log = Path(os.environ["CRESIZE_BUILD_LOG"]).read_text(errors="replace")
    for module in ("cresize._kernels", "cresize._fast"):
        assert f"building '{module}' extension" in log, f"{module} was not compiled in this log"
    found = own_warnings(log)
    assert not found, f"{len(found)} warnings about cresize's sources:\n" + "\n".join(found[:20])


def test_show_config_reports_the_simd_level_asked_for_when_the_kernels_loaded():
    """``CRESIZE_SIMD`` is read once, as the kernels load: the report names that value,
    not whatever the environment holds when ``show_config`` runs."""
    child = (
        "import json, os, cresize\n"
        "from cresize import _kernels\n"
        "os.environ['CRESIZE_SIMD'] = 'none'\n"  # after the kernels read 'sse2'
        "print(json.dumps(cresize.show_config('dicts')['simd']))\n"
    )
    env = dict(os.environ, CRESIZE_SIMD="sse2")
    got = subprocess.run(
        [sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=120
    )
    assert got.returncode == 0, got.stderr
    simd = json.loads(got.stdout.splitlines()[-1])
    assert simd["requested"] == "sse2"
    assert simd["level"] in ("none", "sse2")  # capped at sse2 (a CPU without it: none)


@pytest.mark.parametrize(
    ("value", "level", "warned"),
    [(" AVX2 ", "avx2", False), ("Auto", None, False), ("", None, False), ("avx", None, True)],
)
def test_simd_variable_is_read_like_the_other_variables(value, level, warned):
    """``CRESIZE_SIMD`` is taken stripped and in any case, as ``CRESIZE_QUICK_THREAD`` and
    ``CRESIZE_THREAD_STEERING`` are; an unknown value warns naming the variable, the value
    and the allowed ones, and the best level stays (None: the best the CPU has)."""
    child = (
        "import json, os, warnings\n"
        "warnings.simplefilter('always')\n"
        "from cresize import _kernels\n"
        "level = _kernels.simd_level()\n"
        "os.environ['CRESIZE_SIMD'] = 'auto'\n"  # then the best the CPU has
        "_kernels._init_simd()\n"
        "print(json.dumps([level, _kernels.simd_level()]))\n"
    )
    env = dict(os.environ, CRESIZE_SIMD=value)
    got = subprocess.run(
        [sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=120
    )
    assert got.returncode == 0, got.stderr
    in_effect, best = json.loads(got.stdout.splitlines()[-1])
    levels = ("none", "sse2", "avx2", "avx512")
    want = best if level is None else levels[min(levels.index(level), levels.index(best))]
    assert in_effect == want
    message = (
        f"RuntimeWarning: CRESIZE_SIMD={value.strip().lower()!r} is not one of auto, none, "
        "sse2, avx2, avx512: using auto"
    )
    assert (message in got.stderr) == warned, got.stderr


@pytest.mark.parametrize(
    "trigger",
    [
        "import cresize._kernels",
        "from cresize import resize",
        "cresize.resize(numpy.zeros((4, 4), numpy.float32), (2, 2))",
    ],
)
def test_a_variables_warning_points_at_the_users_line(tmp_path, trigger):
    """The warnings of unknown ``CRESIZE_SIMD``, ``CRESIZE_THREAD_STEERING`` and
    ``CRESIZE_QUICK_THREAD`` values, given as the kernels load, name the user's file and
    the line that loaded them (the first frame outside importlib and cresize), not
    importlib's bootstrap or cresize's own lazy loading."""
    script = tmp_path / "user_script.py"
    script.write_text(
        "import json, warnings\n"
        "import cresize, numpy\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    {trigger}\n"
        "print(json.dumps([[w.filename, w.lineno, str(w.message)] for w in caught\n"
        "                  if issubclass(w.category, RuntimeWarning)]))\n"
    )
    env = dict(
        os.environ,
        PYTHONPATH=os.path.dirname(cresize.__path__[0]),
        CRESIZE_SIMD="avx3",
        CRESIZE_THREAD_STEERING="never",
        CRESIZE_QUICK_THREAD="sometimes",
    )
    got = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120
    )
    assert got.returncode == 0, got.stderr
    caught = json.loads(got.stdout.splitlines()[-1])
    assert sorted(message.split(" ")[0] for _, _, message in caught) == [
        "CRESIZE_QUICK_THREAD='sometimes'",
        "CRESIZE_SIMD='avx3'",
        "CRESIZE_THREAD_STEERING='never'",
    ], caught
    for filename, lineno, _ in caught:
        assert (filename, lineno) == (str(script), 5)


def test_sdist_carries_the_benchmarks(tmp_path, monkeypatch):
    """The README links to benchmarks/*.md and tests/test_benchmarks.py reads
    benchmarks/run.py: MANIFEST.in, applied as setuptools applies it to an sdist, takes
    every tracked file of benchmarks/, tests/ and docs/, and no other file of
    benchmarks/ (a compiled harness, a stray output). This reads the template only, so
    it needs no build requirements; .ci/run checks a full ``python -m build``."""
    egg_info = pytest.importorskip(
        "setuptools.command.egg_info", reason="setuptools (MANIFEST.in's reader) is not installed"
    )
    root = SETUP.parent
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=False
    )
    if not (root / "MANIFEST.in").is_file() or listed.returncode != 0:
        pytest.skip("not a git checkout of the source tree (an sdist's or a wheel's tests)")
    tracked = [n for n in listed.stdout.decode().split("\0") if n]
    tree = tmp_path / "tree"
    for name in tracked:  # the tracked files, and outputs that must stay out
        if (root / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            (tree / name).write_bytes((root / name).read_bytes())
    for stray in ("benchmarks/floor_2x2", "benchmarks/out.png", "benchmarks/x.pyc"):
        (tree / stray).write_bytes(b"")
    monkeypatch.chdir(tree)
    files = egg_info.FileList()
    files.findall()
    for line in (tree / "MANIFEST.in").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            files.process_template_line(line)
    names = {os.path.normpath(n).replace(os.sep, "/") for n in files.files}
    wanted = [n for n in tracked if n.startswith(("benchmarks/", "tests/", "docs/"))]
    assert [n for n in wanted if n.startswith("benchmarks/")], "no tracked benchmarks/"
    assert not [n for n in wanted if n not in names]
    assert sorted(n for n in names if n.startswith("benchmarks/")) == sorted(
        n for n in wanted if n.startswith("benchmarks/")
    )


def test_no_test_runs_a_child_on_the_source_tree():
    # A child Python given the source tree's src/ on its PYTHONPATH imports a cresize
    # without its built modules wherever the package is installed rather than built in
    # place (CI's README stage: "cannot import name '_fast'"). Children take the folder
    # of the cresize this process imports (os.path.dirname(cresize.__path__[0])).
    tests = Path(__file__).resolve().parent
    pattern = re.compile(r""",\s*["']src["']\s*\)|/\s*["']src["']""")  # join(..., "src")
    found = [
        f"{path.relative_to(tests)}:{number}: {line.strip()}"
        for path in sorted(tests.rglob("*.py"))
        if path.name != "test_build.py"  # (this file reads the sources themselves)
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, found


@pytest.mark.skipif(not SETUP.is_file(), reason="no setup.py beside tests/: tests copied alone")
def test_build_info_of_a_localized_compiler_is_a_module_in_any_locale(tmp_path):
    # _build_info.py was written in the locale's encoding (Windows: cp1252, cp932), and
    # Python reads a module as UTF-8: a localized compiler's banner (MSVC's "Microsoft
    # (R) C/C++ 最適化コンパイラ") gave a module that does not import, or, where the
    # locale cannot encode it, no record. Checked in the C locale (ASCII, no coercion).
    banner = "Microsoft (R) C/C++ \u6700\u9069\u5316\u30b3\u30f3\u30d1\u30a4\u30e9 19.44"
    child = (
        "import importlib.metadata, json, runpy, sys, types\n"
        "class Command:\n"
        "    def __init__(self, *args, **kwargs):\n"
        "        pass\n"
        + stand_ins("Command", "Command")
        + "setup = runpy.run_path(sys.argv[1], run_name='cresize_setup')\n"
        "BuildExt = setup['BuildExt']\n"
        f"info = {{'compiler_version': {banner!a}, 'openmp': True}}\n"
        "BuildExt.write_record(sys.argv[2], BuildExt.build_info(info))\n"
        "assert BuildExt.read(sys.argv[2]) == BuildExt.build_info(info)\n"
        "print(json.dumps(runpy.run_path(sys.argv[2])['BUILD_INFO']))\n"
    )
    env = {**os.environ, "LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}
    env.pop("PYTHONIOENCODING", None)
    record = tmp_path / "_build_info.py"
    run = subprocess.run(
        [sys.executable, "-c", child, str(SETUP), str(record)],
        cwd=SETUP.parent,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    assert json.loads(run.stdout.splitlines()[-1]) == {"compiler_version": banner, "openmp": True}
