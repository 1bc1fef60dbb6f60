"""cresize: exact forward and backward resizing of NumPy arrays.

Every mode (nearest, nearest-exact, bilinear, bicubic, lanczos3, area, with
``align_corners`` and antialias) is a separable linear operator; ``resize``
applies it and ``resize_backward`` applies its exact adjoint.

The public names load on first use (PEP 562), so ``import cresize`` alone does not
import NumPy or the kernels: the ``cresize`` command can then set up the process
(OpenBLAS' threads, see ``cresize.__main__``) before NumPy starts.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from cresize import (
    _fork,  # noqa: F401  (the fork handler, from import on: see _threads)
    _waitpolicy,  # noqa: F401  (OpenMP's threads sleep when idle)
)
from cresize._version import __version__

if TYPE_CHECKING:  # the same names, for type checkers and IDEs
    from cresize._api import resize, resize_backward, weights
    from cresize._config import show_config
    from cresize._kernels import openmp_enabled, set_thread_steering
    from cresize._plan import (
        Plan,
        cache_info,
        clear_cache,
        plan,
        set_cache_limit,
        set_result_cache_limit,
    )
    from cresize._tables import MODES

#: Each public name and the module it comes from.
_SOURCES = {
    "MODES": "cresize._tables",
    "Plan": "cresize._plan",
    "cache_info": "cresize._plan",
    "clear_cache": "cresize._plan",
    "openmp_enabled": "cresize._kernels",
    "plan": "cresize._plan",
    "resize": "cresize._api",
    "resize_backward": "cresize._api",
    "set_cache_limit": "cresize._plan",
    "set_result_cache_limit": "cresize._plan",
    "set_thread_steering": "cresize._kernels",
    "show_config": "cresize._config",
    "weights": "cresize._api",
}

__all__ = [
    "MODES",
    "Plan",
    "__version__",
    "cache_info",
    "clear_cache",
    "openmp_enabled",
    "plan",
    "resize",
    "resize_backward",
    "set_cache_limit",
    "set_result_cache_limit",
    "set_thread_steering",
    "show_config",
    "weights",
]


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module 'cresize' has no attribute {name!r}")
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
