"""Plan calls that used to leave the direct steps: ``p(x, out)`` into a preallocated
result, and a strided (or Fortran-ordered, negative-stride) input, against the checked
path the same calls took before (``Plan._run``, called directly), in one process; and
tiny calls (``p(x)``, ``out=``, repeated ``resize`` / ``resize_backward``) alone.

    PYTHONPATH=src python benchmarks/plan_calls.py --repeat 15

One thread. Each figure is the median over ``repeat`` rounds of the mean time of a batch
of calls (the variants alternate round by round: ``latency.timed``). Also the copy's break-even: strided
inputs of growing size, copied then run directly vs the checked path.
"""

import argparse

import numpy as np
from latency import timed  # benchmarks/latency.py: batches, rounds alternating

import cresize


def checked(p, x, out=None, backward=False):
    """The checked path (``_plan.Plan._run``), as ``p(x, out)`` took it before."""
    if backward:
        return p._run(p._backward, x, out, p.output_shape, p.input_shape, "grad_output", None)
    return p._run(p._forward, x, out, p.input_shape, p.output_shape, "x", None)


def main(repeat):
    rng = np.random.default_rng(0)
    rows = ["| call | direct µs | checked path µs | direct/checked |", "|---|---|---|---|"]

    def row(label, direct, slow):
        t = timed({"direct": direct, "checked": slow}, repeat)
        rows.append(
            f"| {label} | {t['direct'] * 1e6:.1f} | {t['checked'] * 1e6:.1f} | "
            f"{t['direct'] / t['checked']:.2f} |"
        )

    x = rng.random((224, 224, 3), dtype=np.float32)
    p = cresize.plan(x.shape, (112, 112), axes=(0, 1), num_threads=1)
    out = np.empty(p.output_shape, np.float32)
    g = rng.random(p.output_shape, dtype=np.float32)
    gout = np.empty(p.input_shape, np.float32)
    base = timed({"p(x)": lambda: p(x)}, repeat)["p(x)"]
    rows.insert(
        0, f"(224,224,3) float32 -> 112² bilinear axes=(0,1), plain `p(x)`: {base * 1e6:.1f} µs\n"
    )
    row("(224,224,3) float32 ->112² `p(x, out)`", lambda: p(x, out), lambda: checked(p, x, out))
    row(
        "(224,224,3) float32 ->112² `p.backward(g, out)`",
        lambda: p.backward(g, out=gout),
        lambda: checked(p, g, gout, backward=True),
    )
    t = rng.random((1, 3, 8, 8), dtype=np.float32)
    q = cresize.plan(t.shape, (4, 4), num_threads=1)
    qout = np.empty(q.output_shape, np.float32)
    row("(1,3,8,8) ->4² `p(x, out)`", lambda: q(t, qout), lambda: checked(q, t, qout))
    expanded = np.broadcast_to(np.float32(1), q.output_shape)  # y.sum().backward()'s grad
    row(
        "(1,3,8,8) ->4² `p.backward(g)`, g stride 0",
        lambda: q.backward(expanded),
        lambda: checked(q, expanded, backward=True),
    )
    print("\n".join(rows))
    print()
    x = rng.random((1, 1, 4, 4), dtype=np.float32)
    p = cresize.plan(x.shape, (8, 8), num_threads=1)
    g = np.ones(p.output_shape, np.float32)
    out = np.empty(p.output_shape, np.float32)
    t = timed(
        {
            "`p(x)`": lambda: p(x),
            "`p.backward(g)`": lambda: p.backward(g),
            "`p(x, out)`": lambda: p(x, out),
            "`resize(x, (8, 8))` repeated": lambda: cresize.resize(x, (8, 8), num_threads=1),
            "`resize(x, (8, 8), out=out)` repeated": lambda: cresize.resize(
                x, (8, 8), num_threads=1, out=out
            ),
            "`resize_backward(g, (1, 1, 4, 4))` repeated": lambda: cresize.resize_backward(
                g, (1, 1, 4, 4), num_threads=1
            ),
        },
        max(repeat, 31),
    )
    print("| (1,1,4,4)->8x8 bilinear float32 | µs |\n|---|---|")
    print("\n".join(f"| {name} | {v * 1e6:.2f} |" for name, v in t.items()))
    print()
    print("| strided input (every other column), values | direct (copy) µs | checked µs | ratio |")
    print("|---|---|---|---|")
    for side in (8, 32, 64, 128, 256, 512, 1024):
        big = rng.random((side, 2 * side, 3), dtype=np.float32)
        xs = big[:, ::2]
        r = cresize.plan(xs.shape, (side // 2, side // 2), axes=(0, 1), num_threads=1)
        t = timed({"d": lambda: r(xs), "c": lambda: checked(r, xs)}, repeat)
        print(
            f"| {xs.shape} {xs.size} | {t['d'] * 1e6:.1f} | {t['c'] * 1e6:.1f} | "
            f"{t['d'] / t['c']:.2f} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    main(parser.parse_args().repeat)
