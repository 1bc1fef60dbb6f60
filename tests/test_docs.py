"""The examples in cresize's docstrings run, and print what they say.

Every module of the imported cresize package (the installed one in CI) is
collected with ``doctest``; a module that needs an optional dependency which is
not installed (PyTorch for ``cresize.torch``) is skipped, naming it. The runner
(flags, NumPy's print style) is ``helpers.doctests``, shared with the Markdown
examples of ``test_doc_examples.py``.
"""

import doctest
import importlib
import pkgutil

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
