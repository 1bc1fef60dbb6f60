"""The PyTorch adapter: ``cresize.torch.interpolate`` / ``Resize`` against
``F.interpolate`` on the same tensors, forward without a graph and forward plus
backward, side by side in one run.

    python benchmarks/run.py --groups torch-adapter --threads 2 --repeat 15

Each figure is the median over ``repeat`` rounds of the mean time of a batch of
calls (libraries alternate round by round, ``latency.timed``). Ratios below 1:
cresize is faster. There are no goals here; the rows show what a training loop
pays per call, small tensors (Python overhead) to feature maps (kernels).
"""

import run  # the optional peers, imported (or None) in one place
from latency import timed

torch, F = run.torch, getattr(run, "F", None)

CASES = [  # (shape, size, mode, dtype name)
    ((1, 3, 8, 8), (4, 4), "bilinear", "float32"),
    ((1, 1, 4, 4), (8, 8), "bilinear", "float32"),
    ((1, 3, 224, 224), (112, 112), "bilinear", "float32"),
    ((16, 64, 56, 56), (112, 112), "bilinear", "float32"),
    ((16, 64, 56, 56), (112, 112), "nearest", "float32"),
    # what a model under torch.autocast("cpu", dtype=torch.bfloat16) passes a Resize
    ((16, 64, 56, 56), (112, 112), "bilinear", "bfloat16"),
]


def run(threads, repeat):
    """The adapter rows as a Markdown table (a note when PyTorch is missing)."""
    if torch is None:
        return "PyTorch is not installed: nothing to compare the adapter with."
    import cresize.torch as ct

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    lines = [
        "| call | cresize µs | torch µs | cresize/torch |",
        "|---|---|---|---|",
    ]
    for shape, size, mode, dtype in CASES:
        x = torch.rand(*shape).to(getattr(torch, dtype))
        leaf = x.clone().requires_grad_()
        layer = ct.Resize(size=size, mode=mode, num_threads=threads)

        def ours():
            return ct.interpolate(x, size=size, mode=mode, num_threads=threads)

        def peer():
            return F.interpolate(x, size=size, mode=mode)

        def ours_train():
            ct.interpolate(leaf, size=size, mode=mode, num_threads=threads).sum().backward()

        def module_train():
            layer(leaf).sum().backward()

        def peer_train():
            F.interpolate(leaf, size=size, mode=mode).sum().backward()

        label = f"{shape}->{size[0]}x{size[1]} {mode}" + (f" {dtype}" if dtype != "float32" else "")
        t = timed({"ours": ours, "peer": peer}, repeat)
        lines.append(_row(f"{label} forward (no graph)", t["ours"], t["peer"]))
        t = timed({"ours": ours_train, "module": module_train, "peer": peer_train}, repeat)
        lines.append(_row(f"{label} interpolate fwd+bwd", t["ours"], t["peer"]))
        lines.append(_row(f"{label} Resize fwd+bwd", t["module"], t["peer"]))
    return "\n".join(lines)


def _row(label, ours, peer):
    return f"| {label} | {ours * 1e6:.1f} | {peer * 1e6:.1f} | {ours / peer:.2f} |"
