"""OpenMP's wait policy: cresize's threads sleep as soon as their work is done.

By default GNU libgomp keeps the threads of a finished parallel loop spinning
(``GOMP_SPINCOUNT`` = 300,000 pauses, milliseconds) in case another loop
follows. On a machine whose cores are busy that spin is paid for by somebody: a
spinning thread that shares a core with the thread still working (or with
another program) takes its time slices, and a call that needs a few
milliseconds of work takes several times as long (measured on 2 shared cores:
a uint8 1024² → 2048² bilinear resize with 2 threads, 1.2 ms on idle cores, took
9 ms next to one busy process and 2.2 ms with the passive policy; see
docs/limits.md). So, unless the user chose (``OMP_WAIT_POLICY`` or
``GOMP_SPINCOUNT`` in the environment), cresize asks for
``OMP_WAIT_POLICY=PASSIVE``: on Linux, ``import cresize`` sets the variable,
loads the compiled kernels' shared library (and with it the OpenMP runtime,
which reads the variable as it loads) without initialising the module, and
removes the variable again at once, so that nothing started later inherits it.

The policy belongs to the runtime, so it holds for everything that shares it:
PyTorch's operations too when PyTorch loads after cresize (on Linux both use
one ``libgomp.so.1``). A runtime loaded before ``import cresize`` (PyTorch
imported first, for example) keeps the policy it started with;
``cresize.show_config()`` says which case holds. Depends on the standard
library only: ``cresize/__init__`` imports it before anything else loads.
"""

from __future__ import annotations

import os
import sys

#: The variables through which a user chooses libgomp's wait policy.
USER_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")

#: What cresize asks for when the user chose nothing.
POLICY = "PASSIVE"

#: How the policy was decided: "user" (a variable was set at ``import cresize``),
#: "loaded" (an OpenMP runtime was in the process before), "set" (the runtime loaded
#: with cresize's value), "none" (not Linux, or no OpenMP runtime came with the kernels).
state = "none"


def _runtime_loaded() -> bool:
    """An OpenMP runtime already mapped into this process (Linux)."""
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
            return any("libgomp" in line or "libomp" in line for line in maps)
    except OSError:
        return False


def _load_kernels_library() -> None:
    """dlopen the compiled kernels (not their Python module): loads their OpenMP runtime."""
    import ctypes
    import importlib.util

    spec = importlib.util.find_spec("cresize._kernels")
    if spec is not None and spec.origin and os.path.isfile(spec.origin):
        ctypes.CDLL(spec.origin)


def _request() -> None:
    global state
    if any(name in os.environ for name in USER_VARIABLES):
        state = "user"
    elif not sys.platform.startswith("linux"):
        state = "none"
    elif _runtime_loaded():
        state = "loaded"
    else:
        os.environ["OMP_WAIT_POLICY"] = POLICY
        try:
            _load_kernels_library()
        except OSError:  # a broken build: the import of the kernels will say so
            pass
        finally:
            del os.environ["OMP_WAIT_POLICY"]
        state = "set" if _runtime_loaded() else "none"


def describe() -> str:
    """The wait policy in effect, in words (for ``show_config``)."""
    if state == "user":
        chosen = ", ".join(f"{n}={os.environ[n]}" for n in USER_VARIABLES if n in os.environ)
        return f"the user's ({chosen or 'chosen before import cresize'})"
    if state == "loaded":
        return "the runtime's own (it was loaded before import cresize)"
    if state == "set":
        return f"{POLICY} (cresize's default: threads sleep when a call ends)"
    return "the runtime's own (cresize sets it on Linux only, for its OpenMP builds)"


_request()
