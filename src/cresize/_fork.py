"""Whether this process is a forked child (see ``_threads`` for why it matters).

Imported by ``cresize/__init__`` itself, so that the ``os.register_at_fork``
handler is in place from ``import cresize`` on, before any public name (and
NumPy, and the kernels) loads. Depends on nothing but the standard library.
"""

import os
import sys

#: True in a process forked after ``import cresize``, or in a ``multiprocessing``
#: worker of the ``fork`` / ``forkserver`` start method.
forked = False


def _mark_forked_child():
    global forked
    forked = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_mark_forked_child)


def _started_by_multiprocessing_fork():
    """A ``multiprocessing`` worker made by ``fork`` / ``forkserver`` (seen at import)."""
    # A worker has multiprocessing imported: it runs the worker's bootstrap.
    current = getattr(sys.modules.get("multiprocessing"), "current_process", None)
    if current is None:
        return False
    process = current()
    if getattr(process, "_start_method", None) in ("fork", "forkserver"):
        return True  # imported by the worker's function (its process object is set)
    # Imported while the worker is prepared (``spawn._main``: the main script imported
    # again as ``__mp_main__``, so a script's top-level ``import cresize``), before its
    # process object exists: the fork server's child has the server's listening address
    # (set in the server, which forks it), a ``spawn`` worker none.
    server = getattr(sys.modules.get("multiprocessing.forkserver"), "_forkserver", None)
    return bool(getattr(process, "_inheriting", False)) and (
        getattr(server, "_forkserver_address", None) is not None
    )


if _started_by_multiprocessing_fork():
    forked = True
