"""Running doctest examples: the option flags and NumPy's print style, for docstrings
(``test_docs.py``) and for ``>>>`` blocks in the Markdown (``test_doc_examples.py``)."""

import doctest

import numpy as np

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def run_doctests(tests, clear_globs=True):
    """(doctest's TestResults, the report of every failing example).

    NumPy 2 prints scalars as ``np.float64(1.0)``: the examples use NumPy 1's style,
    which ``legacy="1.25"`` restores, so they pass on every supported NumPy.
    ``clear_globs=False`` keeps the names the examples define in each test's globs.
    """
    report = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    legacy = "1.25" if np.lib.NumpyVersion(np.__version__) >= "2.0.0" else False
    with np.printoptions(legacy=legacy):
        for test in tests:
            runner.run(test, out=report.append, clear_globs=clear_globs)
    return runner.summarize(verbose=False), "".join(report)
