"""cresize: exact forward and backward resizing of NumPy arrays.

Every mode (nearest, nearest-exact, bilinear, bicubic, lanczos3, area, with
``align_corners`` and antialias) is a separable linear operator; ``resize``
applies it and ``resize_backward`` applies its exact adjoint.
"""

from cresize._api import resize, resize_backward, weights
from cresize._config import show_config
from cresize._kernels import openmp_enabled
from cresize._plan import Plan, cache_info, clear_cache, plan, set_cache_limit
from cresize._tables import MODES
from cresize._version import __version__

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
    "show_config",
    "weights",
]
