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
