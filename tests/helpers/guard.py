"""Arrays next to pages the process may not touch, for child-process scripts: the
source text ``GUARDED_ARRAYS`` defines ``guarded(shape, dtype, at_end)`` and
``check_guarded(p, x, want)`` (and imports ``os``, ``numpy as np``, ``cresize``,
``_kernels``, ``_plan``); a script made of it and its own lines, run in a child, turns
a read or write past an array into a segmentation fault there (``run_guarded``)."""

import sys

import pytest

from helpers.proc import run_python

GUARDED_ARRAYS = r"""
import ctypes, mmap, os
import numpy as np
import cresize
from cresize import _kernels, _plan

libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
PAGE = mmap.PAGESIZE
kept = []


def guarded(shape, dtype, at_end):
    # an array whose first byte follows a PROT_NONE page (at_end False) or whose last
    # byte precedes one (at_end True): a read or write past it faults
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    pages = -(-nbytes // PAGE) + 2
    m = mmap.mmap(-1, pages * PAGE)
    raw = np.frombuffer(m, np.uint8)
    base = raw.ctypes.data
    for page in (0, pages - 1):
        assert libc.mprotect(base + page * PAGE, PAGE, 0) == 0
    start = (pages - 1) * PAGE - nbytes if at_end else PAGE
    kept.append(m)
    return raw[start : start + nbytes].view(dtype).reshape(shape)


def check_guarded(p, x, want, num_threads=2):
    # p(x) on x copied next to a guard page and into an `out` guarded the same way, at
    # the arrays' ends and starts, against `want`: the calls checked (2)
    for at_end in (False, True):
        gx = guarded(x.shape, x.dtype, at_end)
        gx[...] = x
        out = guarded(p.output_shape, x.dtype, at_end)
        assert p(gx, out=out, num_threads=num_threads) is out
        assert out.tobytes() == want.tobytes(), (x.shape, x.dtype, at_end)
    kept.clear()
    return 2

"""


def run_guarded(tmp_path, body, timeout=600):
    """``GUARDED_ARRAYS`` and then ``body`` run as a script in a child process; its
    stdout. Skips off Linux (``mprotect`` through ctypes); fails with the child's stderr
    when it does not exit 0 (a segmentation fault: a read or write past an array)."""
    if sys.platform != "linux":
        pytest.skip("mprotect through ctypes: Linux")
    script = tmp_path / "guarded.py"
    script.write_text(GUARDED_ARRAYS + body)
    code, out, err = run_python([str(script)], env=None, timeout=timeout)
    assert code == 0, (code, err[-2000:])
    return out
