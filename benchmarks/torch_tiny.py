"""The PyTorch adapter's tiny calls, A/B in one process: this tree's ``cresize.torch``
against round 9's (main at 2b29e3a), round 8's (main at 8e10093) and ``F.interpolate``.

    PYTHONPATH=src python benchmarks/torch_tiny.py --threads 1 --repeat 15 --cpu-time

An earlier round's adapter is its ``torch.py`` (``git show 8e10093:src/cresize/torch.py``,
the custom operators left out: they are registered once, by this tree's module) over this
tree's cresize; round 8's with its two helpers that round 9 made cheaper: the plan recall
counting under the cache's lock and ``num_threads``'s check through the numbers ABCs.
Each sample is a batch of calls; the libraries alternate in a shuffled order each round
(``run.measure``). Tiny tensors, so the figures are per-call overhead: the adapter's
checks, the NumPy views and the plan look-up around a sub-microsecond resize.
"""

import importlib.util
import numbers
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import numpy as np
import run  # the optional peers, imported (or None) in one place

torch, F = run.torch, getattr(run, "F", None)
BASE = "8e10093"  # main before round 9
ROUND9 = "2b29e3a"  # main before round 10
CASES = [((1, 3, 8, 8), (4, 4)), ((1, 1, 4, 4), (8, 8))]  # bilinear float32


def adapter(rev, name):
    """``cresize.torch`` at ``rev`` as the module ``cresize._torch_<name>``, without its
    custom operators."""
    source = subprocess.run(
        ["git", "show", f"{rev}:src/cresize/torch.py"],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent,
    ).stdout
    source = source.replace(
        '_custom_op = getattr(torch.library, "custom_op", None)', "_custom_op = None"
    )
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as file:
        file.write(source)
    spec = importlib.util.spec_from_file_location(f"cresize._torch_{name}", file.name)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    return old


def round8_adapter():
    """Round 8's ``cresize.torch`` as a module (``cresize._torch_round8``)."""
    from cresize import _plan, _spec
    from cresize import _threads as threads

    old = adapter(BASE, "round8")

    def recall(key):
        ref = _plan._FAST.get(key) if key is not None else None
        found = ref() if ref is not None else None
        if found is not None:
            with _plan._CACHE.lock:
                _plan._CACHE.hits += 1
        return found

    def resolve(num_threads):
        if num_threads is None:
            return threads.default()
        if isinstance(num_threads, (bool, np.bool_)) or not isinstance(
            num_threads, (numbers.Integral, np.integer)
        ):
            raise TypeError(num_threads)
        if num_threads == 0 or num_threads > _spec.MAX_THREADS:
            raise ValueError(num_threads)
        return int(num_threads) if num_threads > 0 else max(threads.default() + 1 + num_threads, 1)

    names = {k: getattr(_plan, k) for k in dir(_plan) if not k.startswith("__")}
    old._plan = types.SimpleNamespace(**{**names, "recall": recall})
    old._threads = resolve
    return old


def main(argv=None):
    args = run.options(__doc__, repeat=15).parse_args(argv)
    if torch is None:
        print("PyTorch is not installed: nothing to compare the adapter with.")
        return
    import cresize.torch as ct

    old, old9 = round8_adapter(), adapter(ROUND9, "round9")
    torch.set_num_threads(args.threads)
    threads, calls = args.threads, 2000
    print(
        "| call | cresize µs | round 9 µs | round 8 µs | torch µs | cresize/torch "
        "| round 9/torch | round 8/torch |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for shape, size in CASES:
        x = torch.rand(*shape)
        leaf = x.clone().requires_grad_()
        kwargs = dict(size=size, mode="bilinear")

        def batch(f, n):
            def calls_of_f():
                for _ in range(n):
                    f()

            return calls_of_f

        for label, x_, n in (("forward (no graph)", x, calls), ("fwd+bwd", leaf, calls // 10)):
            if x_.requires_grad:
                funcs = {
                    "new": lambda: (
                        ct.interpolate(leaf, **kwargs, num_threads=threads).sum().backward()
                    ),
                    "old": lambda: (
                        old.interpolate(leaf, **kwargs, num_threads=threads).sum().backward()
                    ),
                    "old9": lambda: (
                        old9.interpolate(leaf, **kwargs, num_threads=threads).sum().backward()
                    ),
                    "torch": lambda: F.interpolate(leaf, **kwargs).sum().backward(),
                }
            else:
                funcs = {
                    "new": lambda: ct.interpolate(x, **kwargs, num_threads=threads),
                    "old": lambda: old.interpolate(x, **kwargs, num_threads=threads),
                    "old9": lambda: old9.interpolate(x, **kwargs, num_threads=threads),
                    "torch": lambda: F.interpolate(x, **kwargs),
                }
                assert torch.equal(funcs["new"](), funcs["old"]())
                assert torch.equal(funcs["new"](), funcs["old9"]())
            t = run.measure({k: batch(f, n) for k, f in funcs.items()}, args.repeat, args.cpu_time)
            us = {k: v / n * 1e6 for k, v in t.items()}
            print(
                f"| {shape}->{size[0]}² {label} | {us['new']:.2f} | {us['old9']:.2f} | "
                f"{us['old']:.2f} | {us['torch']:.2f} | {us['new'] / us['torch']:.2f} | "
                f"{us['old9'] / us['torch']:.2f} | {us['old'] / us['torch']:.2f} |"
            )


if __name__ == "__main__":
    sys.exit(main())
