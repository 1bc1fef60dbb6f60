"""The PyTorch adapter's tiny calls, A/B in one process: this tree's ``cresize.torch``
against round 13's (main at de221b1), round 12's (main at dc0f3b6), round 9's (main at 2b29e3a), round 8's (main at
8e10093) and ``F.interpolate``; ``interpolate`` and ``Resize``, and the floor of a
forward plus backward through a Python ``autograd.Function`` (an empty one).

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
ROUND12 = "dc0f3b6"  # main before round 13
ROUND13 = "de221b1"  # main before round 14
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


class _Empty(torch.autograd.Function if torch is not None else object):
    """The floor of a fwd+bwd through a Python ``autograd.Function``: an empty result of
    the output's shape forward, of the input's backward (``shapes`` set per case)."""

    shapes = None

    @staticmethod
    def forward(ctx, input):
        return input.new_empty(_Empty.shapes[1])

    @staticmethod
    def backward(ctx, grad):
        return grad.new_empty(_Empty.shapes[0])


def main(argv=None):
    args = run.options(__doc__, repeat=15).parse_args(argv)
    if torch is None:
        print("PyTorch is not installed: nothing to compare the adapter with.")
        return
    import cresize.torch as ct

    olds = {
        "round 13": adapter(ROUND13, "round13"),
        "round 12": adapter(ROUND12, "round12"),
        "round 9": adapter(ROUND9, "round9"),
    }
    olds["round 8"] = round8_adapter()
    torch.set_num_threads(args.threads)
    threads, calls = args.threads, 2000
    names = ["cresize", *olds]
    print(
        "| call | "
        + " | ".join(f"{name} µs" for name in names)
        + " | torch µs | "
        + " | ".join(f"{name}/torch" for name in names)
        + " |"
    )
    print("|---" * (2 * len(names) + 2) + "|")
    modules = {"cresize": ct, **olds}
    for shape, size in CASES:
        x = torch.rand(*shape)
        leaf = x.clone().requires_grad_()
        kwargs = dict(size=size, mode="bilinear")
        layers = {k: m.Resize(**kwargs, num_threads=threads) for k, m in modules.items()}
        _Empty.shapes = (shape, (*shape[:2], *size))
        for k, m in modules.items():
            assert torch.equal(m.interpolate(x, **kwargs, num_threads=threads), layers[k](x))
            assert torch.equal(layers[k](x), ct.interpolate(x, **kwargs, num_threads=threads))

        def batch(f, n):
            def calls_of_f():
                for _ in range(n):
                    f()

            return calls_of_f

        def rows(label, n, ours, peer, floor=None):
            funcs = {k: ours(k) for k in modules}
            funcs["torch"] = peer
            if floor is not None:
                funcs["floor"] = floor
            t = run.measure({k: batch(f, n) for k, f in funcs.items()}, args.repeat, args.cpu_time)
            us = {k: v / n * 1e6 for k, v in t.items()}
            print(
                f"| {shape}->{size[0]}² {label} | "
                + " | ".join(f"{us[k]:.2f}" for k in names)
                + f" | {us['torch']:.2f} | "
                + " | ".join(f"{us[k] / us['torch']:.2f}" for k in names)
                + " |"
            )
            if floor is not None:
                dashes = " | ".join("-" * len(names[1:]))
                print(
                    f"| {shape}->{size[0]}² empty autograd.Function fwd+bwd (the floor) | "
                    f"{us['floor']:.2f} | {dashes} | {us['torch']:.2f} | "
                    f"{us['floor'] / us['torch']:.2f} | {dashes} |"
                )

        def interpolate_of(k, t):
            return lambda: modules[k].interpolate(t, **kwargs, num_threads=threads)

        rows(
            "forward (no graph)",
            calls,
            lambda k: interpolate_of(k, x),
            lambda: F.interpolate(x, **kwargs),
        )
        rows(
            "Resize forward (no graph)",
            calls,
            lambda k: lambda k=k: layers[k](x),
            lambda: F.interpolate(x, **kwargs),
        )
        rows(
            "interpolate fwd+bwd",
            calls // 10,
            lambda k: (
                lambda k=k: (
                    modules[k].interpolate(leaf, **kwargs, num_threads=threads).sum().backward()
                )
            ),
            lambda: F.interpolate(leaf, **kwargs).sum().backward(),
            lambda: _Empty.apply(leaf).sum().backward(),
        )
        rows(
            "Resize fwd+bwd",
            calls // 10,
            lambda k: lambda k=k: layers[k](leaf).sum().backward(),
            lambda: F.interpolate(leaf, **kwargs).sum().backward(),
        )


if __name__ == "__main__":
    sys.exit(main())
