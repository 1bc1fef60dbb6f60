"""The quick pair against an OpenMP team and one thread, call by call in one process.

    python benchmarks/quick_pair.py --repeat 9

Calls of at most two threads run on the quick pair (the calling thread and one helper
thread, ``_quick.h``; docs/limits.md "Threads") unless it is off, when they take an
OpenMP team (``_kernels.set_quick_thread``). Each round times every case three ways,
in an order that alternates round by round: one thread (``num_threads=1``), the OpenMP
team (pair off, ``num_threads=2``) and the quick pair (``num_threads=2``); a sample is
the mean of a batch of calls lasting about 20 ms. The table gives medians (µs) and the
ratios of the pair to the other two (below 1: the pair is faster). Linux (elsewhere the
pair runs calls on the calling thread alone).
"""

import argparse
import statistics
import time

import numpy as np

import cresize
from cresize import _kernels


def cases():
    rng = np.random.default_rng(0)
    f32 = {s: rng.random(s, dtype=np.float32) for s in [(224, 224, 3), (320, 320, 3)]}
    f32[(640, 640, 3)] = rng.random((640, 640, 3), dtype=np.float32)
    f32[(1024, 1024, 3)] = rng.random((1024, 1024, 3), dtype=np.float32)
    u8 = rng.integers(0, 256, (224, 224, 3), dtype=np.uint8)
    line = rng.random((400, 1000), dtype=np.float32)
    vol = rng.random((40, 40, 40), dtype=np.float32)
    fm = rng.random((16, 64, 56, 56), dtype=np.float32)
    g = rng.random((16, 64, 112, 112), dtype=np.float32)
    hwc = {"axes": (0, 1)}
    out = {}
    for shape, x in f32.items():
        size = (shape[0] // 2, shape[1] // 2)
        out[f"{shape} float32 -> {size[0]}² bilinear"] = lambda n, x=x, size=size: cresize.resize(
            x, size, num_threads=n, **hwc
        )
    out["(224, 224, 3) uint8 -> 112² bilinear"] = lambda n: cresize.resize(
        u8, (112, 112), num_threads=n, **hwc
    )
    out["(224, 224, 3) float32 -> (150, 170) bicubic"] = lambda n: cresize.resize(
        f32[(224, 224, 3)], (150, 170), mode="bicubic", num_threads=n, **hwc
    )
    out["(400, 1000) -> 300 bicubic along rows"] = lambda n: cresize.resize(
        line, (300,), mode="bicubic", axes=(1,), num_threads=n
    )
    out["(40, 40, 40) -> 80³ trilinear"] = lambda n: cresize.resize(
        vol, (80, 80, 80), num_threads=n
    )
    out["(16, 64, 56, 56) x2 nearest forward"] = lambda n: cresize.resize(
        fm, (112, 112), mode="nearest", num_threads=n
    )
    out["(16, 64, 56, 56) x2 bilinear backward"] = lambda n: cresize.resize_backward(
        g, fm.shape, num_threads=n
    )
    return out


def one_way(f, way):
    """Run ``f`` the way named: "one", "omp" or "pair"."""
    _kernels.set_quick_thread(way == "pair")
    return f(1 if way == "one" else 2)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args(argv)
    previous = _kernels.set_quick_thread(True)
    ways = ["one", "omp", "pair"]
    print("| call | one thread µs | OpenMP team µs | quick pair µs | pair / one | pair / team |")
    print("|---|---|---|---|---|---|")
    try:
        for name, f in cases().items():
            batch = {}
            for way in ways:
                one_way(f, way)
                t0 = time.perf_counter()
                one_way(f, way)
                batch[way] = max(1, min(2000, int(0.02 / max(time.perf_counter() - t0, 1e-7))))
            times = {way: [] for way in ways}
            for r in range(args.repeat):
                for way in ways if r % 2 else ways[::-1]:
                    _kernels.set_quick_thread(way == "pair")
                    n = 1 if way == "one" else 2
                    t0 = time.perf_counter()
                    for _ in range(batch[way]):
                        f(n)
                    times[way].append((time.perf_counter() - t0) / batch[way])
            m = {way: statistics.median(t) * 1e6 for way, t in times.items()}
            print(
                f"| {name} | {m['one']:.1f} | {m['omp']:.1f} | {m['pair']:.1f} | "
                f"{m['pair'] / m['one']:.2f} | {m['pair'] / m['omp']:.2f} |"
            )
        calls, helped, wakes, holds = _kernels.quick_counts()
        print(
            f"\nquick pair: {calls} calls, the helper took chunks of {helped}, woken {wakes} "
            f"times; {holds} calls waited long for it (it lost its CPU; then left asleep 10 ms+)"
        )
    finally:
        _kernels.set_quick_thread(previous)


if __name__ == "__main__":
    main()
