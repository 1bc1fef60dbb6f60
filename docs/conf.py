"""Sphinx configuration: ``python -m sphinx -W -b html docs OUT``.

The API reference is generated from the docstrings of the installed (or
``PYTHONPATH=src``) cresize; numpydoc reads their NumPy-style sections and
myst-parser reads the Markdown pages, docs/spec.md among them.
"""

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
_version: dict[str, str] = {}
exec((HERE.parent / "src" / "cresize" / "_version.py").read_text(), _version)

project = "cresize"
author = "the cresize developers"
copyright = "the cresize developers"
release = version = _version["__version__"]

extensions = ["sphinx.ext.autodoc", "numpydoc", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "figures"]
suppress_warnings = [
    "myst.header",  # Markdown pages written for GitHub may skip a heading level
]

# Markdown: ``#section`` links to headings, $...$ maths, ::: fences.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "dollarmath"]

# API reference: signatures as written, members in source order, optional
# dependencies mocked where they are not installed (the pages still build).
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_mock_imports = [
    name
    for name in ("torch", "dask", "distributed", "PIL")
    if importlib.util.find_spec(name) is None
]
numpydoc_show_class_members = False
numpydoc_xref_param_type = False

html_theme = "alabaster"
html_title = f"cresize {release}"
html_static_path: list[str] = []
