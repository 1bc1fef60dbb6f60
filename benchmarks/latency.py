"""Per-call latency of small resizes: cresize (function, plan, plan.backward) vs
PyTorch ``F.interpolate`` and OpenCV, side by side in one run.

    python benchmarks/run.py --groups latency --threads 2 --repeat 15

Each figure is the median over ``repeat`` rounds of the mean time of a batch of
calls (libraries alternate round by round). Ratios below 1: cresize is faster.
"""

import statistics
import time

import numpy as np
import run  # the optional peers, imported (or None) in one place

import cresize

torch, cv2, F = run.torch, run.cv2, getattr(run, "F", None)
round_order = run.round_order  # (`run` below is this module's function)


def timed(funcs, repeat, target=0.02):
    """Median seconds per call of each function; each sample is a batch of calls
    lasting about ``target`` seconds; libraries alternate, in the order of
    ``round_order`` (benchmarks/run.py)."""
    batch = {}
    for name, f in funcs.items():
        f()
        t0 = time.perf_counter()
        f()
        one = max(time.perf_counter() - t0, 1e-7)
        batch[name] = max(1, min(10000, int(target / one)))
    times = {name: [] for name in funcs}
    names = list(funcs)
    for r in range(repeat):
        for name in round_order(names, r):
            f, n = funcs[name], batch[name]
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            times[name].append((time.perf_counter() - t0) / n)
    return {name: statistics.median(t) for name, t in times.items()}


def _row(label, t, ours, peer, goal):
    ratio = t[ours] / t[peer]
    verdict = "met" if ratio <= goal else "NOT met"
    return (
        f"| {label} | {t[ours] * 1e6:.1f} | {t[peer] * 1e6:.1f} | {ratio:.2f} | "
        f"<= {goal} | {verdict} |"
    )


def run(threads, repeat):
    """The latency rows as a Markdown table."""
    if torch is not None:
        torch.set_num_threads(threads)
    if cv2 is not None:
        cv2.setNumThreads(threads)
    lines = ["| call | cresize µs | peer µs | ratio | goal | |", "|---|---|---|---|---|---|"]
    rng = np.random.default_rng(0)

    # (1,1,4,4) -> 8x8 bilinear
    x = rng.random((1, 1, 4, 4), dtype=np.float32)
    p = cresize.plan(x.shape, (8, 8), num_threads=threads)
    g = np.ones(p.output_shape, np.float32)
    funcs = {
        "resize": lambda: cresize.resize(x, (8, 8), num_threads=threads),
        "plan": lambda: p(x),
        "backward": lambda: p.backward(g),
    }
    if torch is not None:
        import cresize.torch as ct

        xt = torch.from_numpy(x)
        funcs["torch"] = lambda: F.interpolate(xt, size=(8, 8), mode="bilinear")
        # the PyTorch adapter against F.interpolate: without a graph, and forward plus
        # backward of a tensor that requires a gradient
        funcs["adapter"] = lambda: ct.interpolate(xt, size=(8, 8), mode="bilinear")
        xg = torch.from_numpy(x.copy()).requires_grad_()
        funcs["torch_grad"] = lambda: (
            F.interpolate(xg, size=(8, 8), mode="bilinear").sum().backward()
        )
        funcs["adapter_grad"] = lambda: (
            ct.interpolate(xg, size=(8, 8), mode="bilinear").sum().backward()
        )
        t = timed(funcs, repeat)
        lines.append(_row("(1,1,4,4)->8x8 bilinear resize() vs torch", t, "resize", "torch", 1.0))
        lines.append(_row("(1,1,4,4)->8x8 plan call vs torch", t, "plan", "torch", 0.5))
        lines.append(
            _row("(1,1,4,4)->8x8 plan.backward vs torch forward", t, "backward", "torch", 0.5)
        )
        lines.append(
            _row("(1,1,4,4)->8x8 cresize.torch.interpolate, no graph", t, "adapter", "torch", 1.0)
        )
        lines.append(
            _row(
                "(1,1,4,4)->8x8 cresize.torch.interpolate fwd+bwd (.sum().backward())",
                t,
                "adapter_grad",
                "torch_grad",
                1.0,
            )
        )

    # (1,3,224,224) -> 112 bilinear, and the HWC image against OpenCV
    x = rng.random((1, 3, 224, 224), dtype=np.float32)
    hwc = np.ascontiguousarray(x[0].transpose(1, 2, 0))
    q = cresize.plan(hwc.shape, (112, 112), axes=(0, 1), num_threads=threads)
    out = np.empty(q.output_shape, np.float32)
    funcs = {
        "resize": lambda: cresize.resize(x, (112, 112), num_threads=threads),
        "hwc": lambda: cresize.resize(hwc, (112, 112), axes=(0, 1), num_threads=threads),
        "hwc_out": lambda: q(hwc, out),
    }
    if torch is not None:
        xt = torch.from_numpy(x)
        funcs["torch"] = lambda: F.interpolate(xt, size=(112, 112), mode="bilinear")
    if cv2 is not None:
        funcs["opencv"] = lambda: cv2.resize(hwc, (112, 112), interpolation=cv2.INTER_LINEAR)
        dst = np.empty(q.output_shape, np.float32)
        funcs["opencv_dst"] = lambda: cv2.resize(
            hwc, (112, 112), dst=dst, interpolation=cv2.INTER_LINEAR
        )
    t = timed(funcs, repeat)
    if torch is not None:
        lines.append(
            _row("(1,3,224,224)->112² bilinear resize() vs torch", t, "resize", "torch", 0.6)
        )
    if cv2 is not None:
        lines.append(
            _row("(224,224,3) float32 axes=(0,1) ->112² vs OpenCV", t, "hwc", "opencv", 1.0)
        )
        lines.append(
            _row(
                "(224,224,3) float32 ->112² plan call into out= vs OpenCV dst=",
                t,
                "hwc_out",
                "opencv_dst",
                1.0,
            )
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(run(2, 9))
