"""How many OpenMP threads a kernel call uses: ``resolve(num_threads)``.

Fork rule. GNU libgomp is not fork-safe: in a process forked after some code
ran an OpenMP parallel region with a team, the child's next team waits forever
for pool threads that were not forked with it. That code need not be cresize:
PyTorch (and any other extension linked to the same ``libgomp.so.1``) shares
the runtime, so a parent that ran only a PyTorch operation leaves the same
trap. Whether the runtime in the parent started a team cannot be known in
general (the pool is libgomp's private state, and another runtime may be in
use), so cresize decides without knowing: in ANY forked child,
``num_threads=None`` means 1 thread. An explicit ``num_threads`` is honoured
everywhere (in a forked child it is safe only if no OpenMP team ran in the
parent before the fork, or if the runtime is fork-aware, as LLVM's and Intel's
are).

A forked child is recognised by

* a handler registered with ``os.register_at_fork`` when cresize is imported
  (``_fork``, which ``import cresize`` loads even though the public names load lazily),
  so every process forked after ``import cresize`` (``os.fork``, the ``fork``
  and ``forkserver`` start methods of ``multiprocessing``, PyTorch's DataLoader
  workers, ...) counts, whatever ran before the fork; and
* for a child that imports cresize only after the fork: a ``multiprocessing``
  worker of the ``fork`` or ``forkserver`` start method.

A bare ``os.fork()`` that happens before cresize is first imported is not
seen: import cresize before forking (or pass ``num_threads=1``).
"""

from cresize import _fast, _fork, _spec

__all__ = ["default", "in_forked_child", "resolve"]


def in_forked_child():
    """True in a process made by ``fork()`` (see the module docstring for what is seen)."""
    return _fork.forked


def default():
    """What ``num_threads=None`` means: OpenMP's default, 1 in a forked child (the rule
    is ``_fast.default_threads``, which the calls' fast paths read in C)."""
    return _fast.default_threads()


def resolve(num_threads):
    """The thread count of a kernel call, validating ``num_threads``.

    None: ``default()`` (OpenMP's current default: ``OMP_NUM_THREADS``,
    threadpoolctl, ``omp_set_num_threads``; 1 in a forked child). A positive
    int: that many. A negative int: counted back from ``default()``
    (-1 is all of them), at least 1. 0, bools, non-integers and counts above
    ``_spec.MAX_THREADS`` are errors naming ``num_threads``.
    """
    if num_threads is None:
        return default()
    num_threads = _spec.threads_value(num_threads)  # the one validation
    if num_threads < 0:
        return max(default() + 1 + int(num_threads), 1)
    return int(num_threads)
