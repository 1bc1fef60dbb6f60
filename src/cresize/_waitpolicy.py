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
``OMP_WAIT_POLICY=PASSIVE``: ``import cresize`` sets the variable, and it is
taken away again as soon as the kernels (and with them the OpenMP runtime,
which reads it while it loads) are loaded, so that programs started later do
not inherit it.

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

#: How the policy was decided: "user" (a variable was set), "loaded" (an OpenMP
#: runtime was in the process before ``import cresize``), "requested" (cresize's
#: value is in ``os.environ`` until the kernels load), "set" (they loaded with it).
state = "requested"


def _runtime_loaded() -> bool:
    """An OpenMP runtime already mapped into this process (Linux; False elsewhere)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
            return any("libgomp" in line or "libomp" in line for line in maps)
    except OSError:
        return False


def _request() -> None:
    global state
    if any(name in os.environ for name in USER_VARIABLES):
        state = "user"
    elif _runtime_loaded():
        state = "loaded"
    else:
        os.environ["OMP_WAIT_POLICY"] = POLICY


def kernels_loaded() -> None:
    """Called by ``cresize._kernels`` once loaded: the runtime has read the variable."""
    global state
    if state == "requested":
        if os.environ.get("OMP_WAIT_POLICY") == POLICY:
            del os.environ["OMP_WAIT_POLICY"]
            state = "set"
        else:  # the user replaced (or removed) it after import cresize: the runtime took theirs
            state = "user"


def describe() -> str:
    """The wait policy in effect, in words (for ``show_config``)."""
    if state == "user":
        chosen = ", ".join(f"{n}={os.environ[n]}" for n in USER_VARIABLES if n in os.environ)
        return f"the user's ({chosen or 'chosen before import cresize'})"
    if state == "loaded":
        return "the runtime's own (it was loaded before import cresize)"
    return f"{POLICY} (cresize's default: threads sleep when a call ends)"


_request()
