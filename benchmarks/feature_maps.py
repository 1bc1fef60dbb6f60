"""CNN feature maps (many small planes): cresize vs PyTorch, forward and backward.

    python benchmarks/run.py --groups feature-maps --threads 2 --repeat 9
    python benchmarks/feature_maps.py --threads 1 --repeat 21 --cpu-time


Forward: ``cresize.resize`` vs ``F.interpolate``; backward: ``cresize.resize_backward``
vs PyTorch's autograd backward of ``F.interpolate`` (``torch.autograd.grad``).
Medians, libraries alternating round by round; ratios below 1: cresize is faster. Under
the table, timed in the same rounds: each case's floor for a backward, ``torch.sum`` of
the same gradient (reading it once); the forward into a preallocated ``out=`` (the kernels
without the fresh result's page faults); and NumPy filling a fresh array of the result's
size (what providing those pages costs on this machine, docs/limits.md "Fresh memory").
``--cpu-time``: the least CPU time of the rounds (``time.process_time``, every thread of
the process) instead of the median wall time, as ``images.py --cpu-time``: meant for
``--threads 1`` on a shared machine, where wall times depend on the other core.
"""

import numpy as np
from run import measure

import cresize
from cresize import _optional

# Peers: a missing one's column is left out; a broken one is warned of (cresize._optional).
torch = _optional.load("torch", fallback="its column is left out")
F = torch.nn.functional if torch is not None else None

#: (shape, scale, mode, goal forward, goal backward)
CASES = [((16, 64, 56, 56), 2, "nearest", 0.5, 0.25), ((16, 64, 56, 56), 2, "bilinear", 0.5, 0.25)]


def run(threads, repeat, cpu_time=False):
    """The feature-map rows as a Markdown table (empty note without PyTorch)."""
    if torch is None:
        return "PyTorch is not installed: no peer to compare with."
    torch.set_num_threads(threads)
    unit = "CPU ms" if cpu_time else "ms"
    lines = [
        f"| case | cresize {unit} | torch {unit} | ratio | goal | |",
        "|---|---|---|---|---|---|",
    ]
    notes = []
    rng = np.random.default_rng(0)
    for shape, scale, mode, goal_fwd, goal_bwd in CASES:
        t = _case(rng, shape, scale, mode, threads, repeat, cpu_time)
        label = f"{'x'.join(map(str, shape))} x{scale} {mode}"
        for kind, goal in (("fwd", goal_fwd), ("bwd", goal_bwd)):
            ratio = t[kind] / t["torch_" + kind]
            lines.append(
                f"| {label} {kind} | {t[kind] * 1e3:.2f} | "
                f"{t['torch_' + kind] * 1e3:.2f} | {ratio:.2f} | <= {goal} | "
                f"{'met' if ratio <= goal else 'NOT met'} |"
            )
        notes.append(
            f"{label}: reading the backward's gradient once (`torch.sum`) takes "
            f"{t['read'] * 1e3:.2f} ms, {t['read'] / t['torch_bwd']:.2f}x PyTorch's backward; "
            f"the forward into `out=` {t['fwd_out'] * 1e3:.2f} ms, "
            f"{t['fwd_out'] / t['torch_fwd']:.2f}x PyTorch's forward; NumPy filling a fresh "
            f"array of the result's size {t['fresh'] * 1e3:.2f} ms."
        )
    return "\n".join(lines + [""] + notes)


def _case(rng, shape, scale, mode, threads, repeat, cpu_time=False):
    x = rng.random(shape, dtype=np.float32)
    size = tuple(n * scale for n in shape[2:])
    g = rng.random(shape[:2] + size, dtype=np.float32)
    xt = torch.from_numpy(x).requires_grad_(True)
    yt = F.interpolate(xt, size=size, mode=mode)
    gt = torch.from_numpy(g)
    plain = torch.from_numpy(x)
    out = np.empty(shape[:2] + size, np.float32)
    return measure(
        {
            "fwd": lambda: cresize.resize(x, size, mode=mode, num_threads=threads),
            "torch_fwd": lambda: F.interpolate(plain, size=size, mode=mode),
            "bwd": lambda: cresize.resize_backward(g, shape, mode=mode, num_threads=threads),
            "torch_bwd": lambda: torch.autograd.grad(yt, xt, gt, retain_graph=True),
            "read": lambda: gt.sum(),  # the backward's floor: its gradient read once
            "fwd_out": lambda: cresize.resize(x, size, mode=mode, num_threads=threads, out=out),
            "fresh": lambda: np.empty(out.shape, np.float32).fill(0),  # fresh pages' cost
        },
        repeat,
        cpu_time,
    )


def main(argv=None):
    from run import options

    parser = options(__doc__, repeat=9)
    args = parser.parse_args(argv)
    print(run(args.threads, args.repeat, args.cpu_time))


if __name__ == "__main__":
    main()
