"""The examples in cresize's docstrings run, and print what they say.

Every module of the imported cresize package (the installed one in CI) is
collected with ``doctest``; a module that needs an optional dependency which is
not installed (PyTorch for ``cresize.torch``) is skipped, naming it. The runner
(flags, NumPy's print style) is ``helpers.doctests``, shared with the Markdown
examples of ``test_doc_examples.py``.
"""

import doctest
import importlib
import importlib.util
import inspect
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest

import cresize
import cresize.testing
from helpers.doctests import run_doctests

#: Optional dependencies a module may need; without them its examples are skipped.
OPTIONAL = {"torch", "PIL", "dask", "distributed"}

MODULES = sorted(
    ["cresize"]
    + [
        info.name
        for info in pkgutil.walk_packages(cresize.__path__, "cresize.")
        if info.name != "cresize.__main__"
    ]
)


def _import(name):
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        # The module may re-raise with its own message: look down the chain.
        cause = exc
        while cause is not None:
            missing = (getattr(cause, "name", None) or "").split(".")[0]
            if isinstance(cause, ImportError) and missing in OPTIONAL:
                pytest.skip(f"{name} needs {missing}, which is not installed")
            cause = cause.__cause__ or cause.__context__
        raise


def _doctests(module):
    finder = doctest.DocTestFinder(exclude_empty=True)
    # Only the module's own objects: re-exports are tested where they are defined.
    return [t for t in finder.find(module, module.__name__) if t.examples]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = _import(name)
    tests = _doctests(module)
    result, report = run_doctests(tests)
    assert result.failed == 0, f"{result.failed} of {result.attempted} failed in {name}:\n{report}"


def test_public_api_has_examples():
    """The core entry points carry examples, so the test above checks something."""
    for func in (cresize.resize, cresize.show_config, cresize.testing.check_adjoint):
        tests = doctest.DocTestFinder().find(func)
        assert sum(len(t.examples) for t in tests) > 0, f"{func.__qualname__} has no example"


def test_a_wrong_example_fails():
    """The runner really compares outputs: a docstring that lies is caught."""

    def lying():
        """
        >>> 1 + 1
        3
        """

    tests = doctest.DocTestFinder().find(lying, "lying")
    assert run_doctests(tests)[0].failed == 1


#: numpydoc's checks of a public docstring: every parameter documented (PR01), no
#: parameter that does not exist (PR02), each with a description (PR07), a Returns
#: section where the function returns something (RT01), a docstring at all (GL08).
NUMPYDOC_CHECKS = {"PR01", "PR02", "PR07", "RT01", "GL08"}
#: The public callables whose docstrings the API reference (docs/api/) shows, by
#: module: each module's ``__all__``, and the methods of what they return.
PUBLIC_METHODS = {
    "cresize._plan.Plan": ("backward", "input_region", "run_region"),
    "cresize.torch.Resize": ("forward",),
}
#: Classes the user gets from a function, not by calling them: their constructor's
#: parameters are internal (``cresize.plan`` makes a ``Plan``).
NOT_CONSTRUCTED = {"cresize._plan.Plan"}


def _public_callables():
    names = []
    for module_name in (
        "cresize",
        "cresize.testing",
        "cresize.image",
        "cresize.dask",
        "cresize.torch",
    ):
        module = _import(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            if callable(value):
                names.append(f"{value.__module__}.{value.__qualname__}")
    for owner, methods in PUBLIC_METHODS.items():
        names += [f"{owner}.{m}" for m in methods]
    return sorted(set(names))


def test_public_docstrings_are_complete():
    """What numpydoc (the doc build) reads: every parameter and the result described."""
    validate = pytest.importorskip("numpydoc.validate", reason="numpydoc is not installed")
    problems = []
    for name in _public_callables():
        for code, message in validate.validate(name)["errors"]:
            if code in NUMPYDOC_CHECKS and not (code == "PR01" and name in NOT_CONSTRUCTED):
                problems.append(f"{name}: {code} {message}")
    assert not problems, "\n".join(problems)


def test_public_docstrings_say_where_the_specification_is():
    """A wheel carries no docs/: a public docstring that sends the reader to
    docs/spec.md names the section and says where the file is (the source distribution
    and the documentation); it gave the bare path."""
    found, problems = 0, []
    for module_name in ("cresize", "cresize.testing", "cresize.image", "cresize.dask"):
        module = _import(module_name)
        documented = [(module_name, module)] + [(n, getattr(module, n)) for n in module.__all__]
        for name, value in documented:
            doc = getattr(value, "__doc__", None) or ""
            if "spec.md" not in doc or (
                value is not module and value.__doc__ == type(value).__doc__
            ):
                continue
            found += 1
            if "source distribution" not in doc or not re.search(r"section \d", doc):
                problems.append(f"{module_name}: {name}")
    assert found, "no public docstring refers to docs/spec.md: nothing checked"
    assert not problems, problems


def test_the_core_functions_say_what_they_raise():
    """The functions that check their arguments list the errors (a Raises section)."""
    docscrape = pytest.importorskip("numpydoc.docscrape", reason="numpydoc is not installed")
    for func in (cresize.resize, cresize.resize_backward, cresize.weights, cresize.plan):
        # numpydoc reads a Raises entry as a type without a name
        raised = {
            name
            for entry in docscrape.FunctionDoc(func)["Raises"]
            for name in entry.type.split(", ")
        }
        assert {"TypeError", "ValueError", "MemoryError"} <= raised, (func.__name__, raised)


def test_the_checks_say_what_they_raise():
    """``cresize.testing``'s checks list the ``TypeError`` and ``ValueError`` of a bad
    argument beside their ``AssertionError`` (their Raises named only the latter), and
    raise them."""
    docscrape = pytest.importorskip("numpydoc.docscrape", reason="numpydoc is not installed")
    checks = (
        cresize.testing.check_adjoint,
        cresize.testing.check_gradient,
        cresize.testing.check_reference,
    )
    for check in checks:
        raised = {
            name
            for entry in docscrape.FunctionDoc(check)["Raises"]
            for name in entry.type.split(", ")
        }
        assert {"AssertionError", "TypeError", "ValueError"} <= raised, (check, raised)
        with pytest.raises(ValueError, match="mode must be one of"):
            check((4, 4), (2, 2), mode="bogus")
        with pytest.raises(ValueError, match="seed must be"):
            check((4, 4), (2, 2), seed=-1)
        with pytest.raises(TypeError, match="rtol must be"):
            check((4, 4), (2, 2), rtol="tight")
        with pytest.raises(TypeError, match="forward must be None or a callable"):
            check((4, 4), (2, 2), forward=5)


def test_the_image_functions_say_what_they_raise(tmp_path):
    """``cresize.image``'s file functions had no Raises section; each now lists the
    errors that these calls raise."""
    docscrape = pytest.importorskip("numpydoc.docscrape", reason="numpydoc is not installed")
    image = pytest.importorskip("cresize.image", reason="Pillow is not installed")

    def raised(func):
        return {n for e in docscrape.FunctionDoc(func)["Raises"] for n in e.type.split(", ")}

    assert {"TypeError", "OSError", "ValueError", "ImportError"} <= raised(image.open_image)
    assert {"TypeError", "OSError", "ValueError", "ImportError"} <= raised(image.save_image)
    assert {"TypeError", "OSError", "ValueError", "ImportError"} <= raised(image.resize_image)
    rgb = np.zeros((4, 6, 3), np.uint8)
    (tmp_path / "text.png").write_text("not an image")
    with pytest.raises(TypeError, match="path must be"):
        image.open_image(5)
    with pytest.raises(FileNotFoundError):
        image.open_image(tmp_path / "missing.png")
    with pytest.raises(OSError, match="cannot identify"):
        image.open_image(tmp_path / "text.png")
    with pytest.raises(TypeError, match="image must be"):
        image.save_image(5, tmp_path / "a.png")
    with pytest.raises(ValueError, match="no pixels"):
        image.save_image(rgb[:0], tmp_path / "a.png")
    image.save_image(rgb, tmp_path / "a.png")
    with pytest.raises(FileExistsError):
        image.save_image(rgb, tmp_path / "a.png")
    with pytest.raises(TypeError, match="image must be"):
        image.resize_image(5, fit=(2, 2))
    with pytest.raises(ValueError, match="exactly one of"):
        image.resize_image(rgb, (2, 2), fit=(2, 2))
    with pytest.raises(ValueError, match="alpha=True needs"):
        image.resize_image(rgb[..., 0], (2, 2), alpha=True)


def test_the_torch_adapter_says_what_it_raises():
    """``cresize.torch.interpolate`` and ``Resize`` had no Raises section."""
    docscrape = pytest.importorskip("numpydoc.docscrape", reason="numpydoc is not installed")
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    import cresize.torch

    def raised(doc):
        return {n for e in doc["Raises"] for n in e.type.split(", ")}

    assert {
        "TypeError",
        "ValueError",
        "NotImplementedError",
        "RuntimeError",
        "MemoryError",
    } <= raised(docscrape.FunctionDoc(cresize.torch.interpolate))
    assert {"TypeError", "ValueError"} <= raised(docscrape.ClassDoc(cresize.torch.Resize))
    x = torch.zeros(1, 1, 4, 4)
    with pytest.raises(TypeError, match=r"input must be a torch\.Tensor"):
        cresize.torch.interpolate(np.zeros((1, 1, 4, 4)), size=2)
    with pytest.raises(TypeError, match="dense"):
        cresize.torch.interpolate(x.to_sparse(), size=2)
    with pytest.raises(ValueError, match="exactly one"):
        cresize.torch.interpolate(x, size=2, scale_factor=0.5)
    with pytest.raises(NotImplementedError, match="needs 3D input"):
        cresize.torch.interpolate(x, size=2, mode="linear")
    with pytest.raises(MemoryError):
        cresize.torch.interpolate(x, size=10**8, mode="bilinear")
    with pytest.raises(TypeError, match="antialias must be True or False"):
        cresize.torch.Resize(size=2, antialias=None)


def test_the_settings_say_what_they_raise():
    """``set_cache_limit``, ``set_result_cache_limit`` and ``show_config`` check their
    argument; their docstrings had no Raises section."""
    docscrape = pytest.importorskip("numpydoc.docscrape", reason="numpydoc is not installed")

    def raised(func):
        return {n for e in docscrape.FunctionDoc(func)["Raises"] for n in e.type.split(", ")}

    for setter in (cresize.set_cache_limit, cresize.set_result_cache_limit):
        assert {"TypeError", "ValueError"} <= raised(setter), setter
        with pytest.raises(TypeError, match="nbytes must be an int"):
            setter(True)
        with pytest.raises(ValueError, match="nbytes must be >= 0"):
            setter(-1)
        with pytest.raises(ValueError, match="nbytes must be < 2"):
            setter(2**63)
    assert "ValueError" in raised(cresize.show_config)
    with pytest.raises(ValueError, match="mode must be 'stdout' or 'dicts'"):
        cresize.show_config("dict")


def test_the_plan_docstring_names_every_public_attribute():
    """``cresize.plan``'s Returns lists what a plan holds; ``mode`` and ``nbytes``
    were left out."""
    p = cresize.plan((2, 3, 8, 8), (4, 5), mode="cubic")
    public = {name for name in dir(p) if not name.startswith("_")}
    text = " ".join(cresize.plan.__doc__.split())
    missing = sorted(name for name in public if f"``p.{name}" not in text)
    assert not missing, missing
    assert p.mode == "bicubic" and isinstance(p.nbytes, int) and p.nbytes > 0
    assert set(p.weights) == {2, 3} and p.weights[3].shape == (5, 8)


def test_help_shows_the_plan_calls_by_their_public_name():
    # Cython's embedded signatures gave p(x) and p.backward as PlanBase.__call__ /
    # PlanBase.backward (the compiled base class) in help(p); the API docs take the
    # same first line for the signature
    import pydoc

    text = pydoc.render_doc(cresize.plan((4, 4), (2, 2)), renderer=pydoc.plaintext)
    assert "PlanBase.__call__" not in text and "PlanBase.backward" not in text
    assert "Plan.__call__(self, x, out=None, *, num_threads=None)" in text
    assert "Plan.backward(self, grad_output, out=None, *, num_threads=None)" in text


def test_show_config_gives_the_quick_pairs_call_source_as_private():
    # show_config's docstring listed "call" among the quick pair's sources as for
    # thread steering, but only the private _kernels.set_quick_thread makes it
    doc = cresize.show_config.__doc__
    part = doc[doc.index('openmp["quick_thread"]') : doc.index('simd["avx512bw"]')]
    shape, words = part.split("``:", 1)
    assert '"default"' in shape and '"environment"' in shape and '"call"' not in shape
    assert '"call"' in words and "private ``cresize._kernels.set_quick_thread``" in words


ROOT = Path(__file__).resolve().parents[1]
#: The sentence of README.md that says where float32 rows start being summed in float64.
LONG_ROWS = re.compile(
    r"antialiased shrinking by about (\d+) or more \(lanczos3\), (\d+) \(bicubic\) or"
    r" (\d+) \(bilinear\), or from `area` shrinking by\s+about (\d+) or more"
)


#: How the code reads a variable: ``os.environ.get("X")``, ``os.environ["X"]``,
#: ``getenv("X")`` (C), ``switch("X", ...)`` (setup.py's build switches),
#: ``_variable("X", ...)`` (the kernels' choices).
ENV_READ = re.compile(
    r"""(?:environ\.get\(|environ\[|getenv\(|switch\(|_variable\()\s*["'](CRESIZE_\w+)"""
)
#: The page whose table lists the environment variables users can set.
ENV_PAGE = ROOT / "docs" / "guide" / "threads.md"


def test_every_variable_the_code_reads_is_in_the_table():
    # CRESIZE_SIMD (an unknown value warns and falls back to auto) was described only
    # in README and docs/kernels.md, with no list of the variables a user can set
    # The package's sources where it is imported from (src/ or an installed wheel, which
    # carries its .pyx and .h too), and setup.py's build switches where the tree has it.
    package = Path(cresize.__file__).parent
    sources = [f for f in sorted(package.iterdir()) if f.suffix in (".py", ".pyx", ".h")]
    assert any(f.suffix == ".pyx" for f in sources) and any(f.suffix == ".h" for f in sources)
    if (ROOT / "setup.py").is_file():
        sources.append(ROOT / "setup.py")
    read = {m for f in sources for m in ENV_READ.findall(f.read_text(encoding="utf-8"))}
    assert {"CRESIZE_SIMD", "CRESIZE_QUICK_THREAD", "CRESIZE_THREAD_STEERING"} <= read
    text = ENV_PAGE.read_text(encoding="utf-8")
    table = text[text.index("## Environment variables") :]
    rows = set(re.findall(r"^\| `(CRESIZE_\w+)` \|", table, re.M))
    assert read <= rows, f"not in the table of {ENV_PAGE.name}: {sorted(read - rows)}"
    assert "CRESIZE_SIMD` | `auto`, `none`, `sse2`, `avx2`, `avx512` |" in table


def test_the_variables_are_read_as_the_kernels_load_not_at_import():
    """docs/guide/threads.md: the run-time variables are read when the kernels load (the
    first call that needs them), not by ``import cresize``; it said "at ``import
    cresize``", so a value set after the import seemed too late."""
    import os

    from helpers.proc import run_python

    text = " ".join(ENV_PAGE.read_text(encoding="utf-8").split())
    assert "not `import cresize` itself" in text
    code = (
        "import os, sys, numpy as np, cresize\n"
        "assert 'cresize._kernels' not in sys.modules\n"
        "os.environ['CRESIZE_SIMD'] = 'sse2'\n"
        "cresize.resize(np.zeros((4, 4)), 2)\n"
        "os.environ['CRESIZE_SIMD'] = 'none'\n"
        "print(cresize.show_config('dicts')['simd']['requested'])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "CRESIZE_SIMD"}
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(cresize.__file__))
    rc, out, err = run_python(["-c", code], env, timeout=120)
    assert rc == 0, err
    assert out.split() == ["sse2"], (out, err)


def _taps_per_row(mode, antialias, factor):
    """The most taps a row has when ``mode`` shrinks by ``factor`` (12 outputs)."""
    w = cresize.weights(round(factor * 12), 12, mode=mode, antialias=antialias)
    return int((w != 0).sum(axis=1).max())


def test_the_documented_long_row_factors_hold():
    """README.md (and docs/limits.md) give the shrink factors from which float32 rows
    have more than ``_plan.LONG_SUM`` taps (summed in float64): 3% below each a row
    has at most that many, 3% above more."""
    from cresize import _plan

    found = LONG_ROWS.search(" ".join((ROOT / "README.md").read_text().split()))
    assert found, "README.md no longer states the long-row shrink factors"
    factors = dict(zip(("lanczos3", "bicubic", "bilinear", "area"), map(int, found.groups())))
    limits = " ".join((ROOT / "docs" / "limits.md").read_text().split())
    for mode, factor in factors.items():
        assert f"{factor}" in limits, f"docs/limits.md does not give {mode}'s {factor}"
        antialias = mode != "area"
        assert _taps_per_row(mode, antialias, 0.97 * factor) <= _plan.LONG_SUM, mode
        assert _taps_per_row(mode, antialias, 1.03 * factor) > _plan.LONG_SUM, mode


def _parameter_text(func, name):
    docscrape = pytest.importorskip("numpydoc.docscrape", reason="numpydoc is not installed")
    for parameter in docscrape.FunctionDoc(func)["Parameters"]:
        if name in parameter.name.split(", "):
            return " ".join(parameter.desc)
    raise AssertionError(f"{func.__qualname__} does not document {name}")


def test_docstrings_state_the_defaults_of_the_signatures():
    """A default a docstring states is the signature's (they were left out or stale)."""
    import cresize.image

    cases = [
        (cresize.plan, "dtype", "float32", "default float32"),
        (cresize.image.resize_image, "antialias", True, "default True"),
        (cresize.image.resize_image, "mode", "lanczos3", 'default ``"lanczos3"``'),
        (cresize.resize, "mode", "bilinear", 'default ``"bilinear"``'),
        (cresize.resize, "align_corners", False, "Default False"),
        (cresize.resize, "antialias", False, "default False"),
        (cresize.testing.check_adjoint, "dtype", np.float64, "default float64"),
        (cresize.testing.check_adjoint, "seed", 0, "default 0"),
        (cresize.testing.check_gradient, "n_directions", 3, "default 3"),
        (cresize.testing.check_gradient, "step", 1e-3, "default 1e-3"),
        (cresize.testing.check_gradient, "seed", 0, "default 0"),
    ]
    if importlib.util.find_spec("torch") is not None:
        import cresize.torch

        cases.append((cresize.torch.interpolate, "mode", "nearest", 'Default ``"nearest"``'))
    for func, name, default, words in cases:
        assert inspect.signature(func).parameters[name].default == default, (func, name)
        assert words in _parameter_text(func, name), (func.__qualname__, name, words)


def test_the_documented_thread_bound_holds():
    """``resize``'s docstring gives the largest ``num_threads``: that many run, one
    more is refused naming it."""
    assert "at most 4096" in _parameter_text(cresize.resize, "num_threads")
    x = np.zeros((4, 4))
    assert cresize.resize(x, 2, num_threads=4096).shape == (2, 2)
    with pytest.raises(ValueError, match="num_threads must be at most 4096"):
        cresize.resize(x, 2, num_threads=4097)


def test_the_default_axes_of_a_scale_factor_tuple():
    """``resize``'s docstring: a tuple ``scale_factor`` resizes as many last axes as
    it has entries, as a tuple ``size`` does."""
    assert "``scale_factor``" in _parameter_text(cresize.resize, "axes")
    x = np.zeros((4, 5, 6))
    assert cresize.resize(x, scale_factor=(2.0,)).shape == (4, 5, 12)
    assert cresize.resize(x, scale_factor=(2.0, 2.0, 2.0)).shape == (8, 10, 12)
    assert cresize.resize(x, (3, 3, 3)).shape == (3, 3, 3)


#: The public modules and the API reference page of each (docs/api/).
API_PAGES = {
    "cresize": "cresize.rst",
    "cresize.testing": "testing.rst",
    "cresize.image": "image.rst",
    "cresize.dask": "dask.rst",
    "cresize.torch": "torch.rst",
}
AUTODOC = re.compile(r"^\.\. auto(\w+):: (\S+)\n((?:[ \t]+:[^\n]*\n)*)", re.M)


def test_every_public_name_has_an_api_entry():
    """Each name of a public module's ``__all__`` (but ``__version__``) is an entry of
    its page of the API reference: an autodoc directive of its own, or an
    ``automodule`` with ``:members:``."""
    missing = []
    for module_name, page in API_PAGES.items():
        text = (ROOT / "docs" / "api" / page).read_text()
        entries = {name for _, name, _ in AUTODOC.findall(text)}
        all_members = any(
            kind == "module" and name == module_name and ":members:" in options
            for kind, name, options in AUTODOC.findall(text)
        )
        for name in _import(module_name).__all__:
            if name != "__version__" and not all_members and f"{module_name}.{name}" not in entries:
                missing.append(f"{module_name}.{name} (docs/api/{page})")
    assert not missing, missing


def test_readme_quotes_the_adapters_latest_round():
    """README's bullet on the PyTorch adapter is headed "the latest recorded rounds" but
    quoted round 17's tiny calls (1.29x ``F.interpolate`` without a graph) after round
    22's (0.99-1.03x, the plan reading the tensor's data in place) was recorded and
    docs/guide/torch.md quoted it."""
    path = ROOT / "benchmarks" / "RESULTS-torch-adapter.md"
    if not path.is_file():
        pytest.skip("a wheel's tests: no benchmarks/")
    results = path.read_text()
    latest = max(int(n) for n in re.findall(r"^## Round (\d+)", results, re.M))
    readme = " ".join((ROOT / "README.md").read_text().split())
    bullet = readme[readme.index("- The PyTorch adapter") :]
    bullet = bullet[: bullet.index(" - ", 1)]
    assert f"round {latest} (" in bullet, bullet[:200]
    guide = " ".join((ROOT / "docs" / "guide" / "torch.md").read_text().split())
    for figure in ("0.99-1.03x", "1.42-1.48x"):  # the guide's, in README's dashes
        assert figure in guide and figure.replace("-", "\u2013").replace("x", "\u00d7") in bullet


def test_the_image_functions_list_pillows_pixel_limit(tmp_path, monkeypatch):
    """``open_image`` and ``resize_image`` keep Pillow's pixel limit, whose refusal is
    ``PIL.Image.DecompressionBombError``: an ``Exception`` that their Raises sections
    (``TypeError``, ``OSError``, ``ValueError``, ``ImportError``) did not list, so a
    caller catching what they list let it through."""
    docscrape = pytest.importorskip("numpydoc.docscrape", reason="numpydoc is not installed")
    image = pytest.importorskip("cresize.image", reason="Pillow is not installed")
    from PIL import Image

    def raised(func):
        return {n for e in docscrape.FunctionDoc(func)["Raises"] for n in e.type.split(", ")}

    image.save_image(np.zeros((20, 20, 3), np.uint8), tmp_path / "a.png")
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 100)  # 400 pixels: over twice it
    assert not issubclass(Image.DecompressionBombError, (OSError, ValueError))
    for func in (image.open_image, image.resize_image):
        assert "PIL.Image.DecompressionBombError" in raised(func), func
    with pytest.raises(Image.DecompressionBombError):
        image.open_image(tmp_path / "a.png")
    with pytest.raises(Image.DecompressionBombError):
        image.resize_image(tmp_path / "a.png", fit=(5, 5))
    assert (tmp_path / "a.png").stat().st_size > 0
