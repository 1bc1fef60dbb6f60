"""Optional dependencies: one rule for a package that is not installed and one that is
installed but fails to import (docs/guide/install.md, "Optional dependencies").

``load("cv2", "OpenCV (cv2)")`` returns the module; None when it is not installed
(``ModuleNotFoundError`` naming the package itself or a parent of it), or
``ImportError(missing)`` when a ``missing`` hint is given (the feature needs it). Any
other error (an ``OSError`` or ``ImportError`` of a missing shared library, a missing
dependency, an ``AttributeError`` of a stdlib module shadowed by a local file) means
the package is installed but broken: ``BrokenDependencyError`` naming the package and
the error, or, where a documented ``fallback`` exists, a ``RuntimeWarning`` once per
package and None. The failure is remembered: a broken package is imported once.
"""

from __future__ import annotations

import sys
import threading
import warnings
from types import ModuleType

__all__ = ["BrokenDependencyError", "load"]

#: module name -> the error its import raised, for packages that are installed but broken.
_broken: dict[str, BaseException] = {}
#: module names whose ``fallback`` warning was given.
_warned: set[str] = set()
_lock = threading.Lock()


class BrokenDependencyError(ImportError):
    """An optional dependency that is installed but fails to import (its error is the
    ``__cause__``); ``package`` is its label."""

    def __init__(self, package: str, error: BaseException, hint: str | None = None) -> None:
        message = f"{package} is installed but fails to import: {type(error).__name__}: {error}"
        super().__init__(message + (f"; {hint}" if hint else ""))
        self.package = package

    def __reduce__(self):
        """Pickled as its message and package (an error raised in a spawn worker reaches
        its pool pickled; ``__init__``'s arguments are not kept, and rebuilding from
        ``args`` failed: ``BrokenProcessPool``, or a ``Pool.get`` that never returned),
        with ``ImportError``'s state: its ``__dict__`` (``__notes__``, attributes set on
        it) and ``name``/``path``, as an ``ImportError`` is pickled."""
        state = super().__reduce__()[2:]  # (), or (its state,)
        return (_unpickled, (type(self), str(self), self.package), *state)


def _unpickled(cls, message, package):
    """A ``BrokenDependencyError`` (``cls``) again from ``__reduce__``'s values."""
    exc = ImportError.__new__(cls)
    ImportError.__init__(exc, message)
    exc.package = package
    return exc


def _absent(exc: ModuleNotFoundError, module: str) -> bool:
    """Whether ``exc`` says that ``module`` itself (or a package above it) is missing,
    rather than something it imports."""
    return exc.name is not None and (module == exc.name or module.startswith(exc.name + "."))


def load(
    module: str,
    package: str | None = None,
    *,
    missing: str | None = None,
    fallback: str | None = None,
    hint: str | None = None,
) -> ModuleType | None:
    """``module`` imported; see the module docstring. ``package`` labels it in messages
    (default: ``module``); ``missing``: raise ``ImportError(missing)`` rather than return
    None when it is not installed; ``fallback``: what happens instead when it is broken
    (warned once, None returned) rather than raise; ``hint``: appended to the error."""
    error = _broken.get(module)
    if error is None:
        try:
            __import__(module)  # builtins.__import__, as an import statement
            return sys.modules[module]
        except ModuleNotFoundError as exc:
            if not _absent(exc, module):
                error = exc
            elif missing is not None:
                raise ImportError(missing) from None
            else:
                return None
        except Exception as exc:  # not KeyboardInterrupt or SystemExit
            error = exc
        _broken[module] = error
    label = package or module
    if fallback is None:
        raise BrokenDependencyError(label, error, hint) from error
    with _lock:
        first = module not in _warned
        _warned.add(module)
    if first:
        warnings.warn(
            f"{BrokenDependencyError(label, error)}; {fallback}", RuntimeWarning, stacklevel=3
        )
    return None
