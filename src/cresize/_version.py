"""The version of cresize: the one place it is written.

``pyproject.toml`` reads it statically (``[tool.setuptools.dynamic]``) and
``cresize.__version__`` imports it.
"""

__version__ = "0.1.0"
