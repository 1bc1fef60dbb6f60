"""cresize: exact forward and backward resizing of NumPy arrays.

Every mode (nearest, nearest-exact, bilinear, bicubic, lanczos3, area, with
``align_corners`` and antialias) is a separable linear operator; ``resize``
applies it and ``resize_backward`` applies its exact adjoint.

The public names load on first use (PEP 562), so ``import cresize`` alone does not
import NumPy or the kernels: the ``cresize`` command can then set up the process
(OpenBLAS' threads, see ``cresize.__main__``) before NumPy starts. ``dir(cresize)``
(what tab completion offers) lists them, loaded or not, with the public modules
imported (``cresize.image``, ``cresize.torch``, ``cresize.dask``, ``cresize.testing``).
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
    """What tab completion offers: the public names (loaded or not), the module's dunder
    attributes and its public modules imported (``cresize.image``, ``cresize.torch``
    once imported); not the names this file uses (``importlib``, ``Any``,
    ``TYPE_CHECKING``, ``annotations``) nor private ones."""
    return sorted(
        {
            *__all__,
            *(name for name in globals() if name.startswith("__") and name.endswith("__")),
            *(
                name
                for name, value in globals().items()
                if not name.startswith("_")
                and getattr(value, "__name__", None) == f"{__name__}.{name}"
            ),
        }
    )
