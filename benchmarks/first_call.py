"""First call on a long axis: planning (tap tables) and all, in a fresh process each.

    python benchmarks/first_call.py                      # this tree, 5 processes a case
    python benchmarks/first_call.py --base /path/to/src  # alternated with another tree
    python benchmarks/first_call.py --cases bicubic,bicubic-backward --repeat 9

Each process imports cresize from ``src`` (or ``--base``), makes its input, then times
one call (``num_threads=1``) and reads its peak memory (``ru_maxrss``, less the
process's before the call). The trees alternate process by process; the table gives
the median and range of the times and the median of the peaks.
"""

import argparse
import pathlib
import statistics
import subprocess
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"

N = 1_000_000
#: name -> the call, on ``x`` (N float32 samples) or a gradient of the result's shape
CASES = {
    "bicubic": "resize(x, 1_750_000, mode='bicubic')",
    "bicubic-backward": "resize_backward(ones(1_750_000), (N,), mode='bicubic')",
    "lanczos3": "resize(x, 1_750_000, mode='lanczos3')",
    "lanczos3-backward": "resize_backward(ones(1_750_000), (N,), mode='lanczos3')",
    "lanczos3-x2": "resize(x, 2 * N, mode='lanczos3')",
    "bicubic-16k": "resize(x, 362_812, mode='bicubic')",
    "lanczos3-16k": "resize(x, 362_812, mode='lanczos3')",
    "lanczos3-16k-exact": "resize(ones(1_014_300), 368_000, mode='lanczos3')",
    "bilinear-aa-16k": "resize(x, 362_812, mode='bilinear', antialias=True)",
    "bicubic-aa-16k-backward": (
        "resize_backward(ones(362_812), (N,), mode='bicubic', antialias=True)"
    ),
    "2-d": "resize(ones((4, 250_000)), (8, 437_500), mode='bicubic')",
    # shrinking with antialias (issue h40): periodic (365:122), and rows of two lengths
    "lanczos3-aa-365k": "resize(ones(365_000), 122_000, mode='lanczos3', antialias=True)",
    "lanczos3-aa-third": "resize(x, 333_331, mode='lanczos3', antialias=True)",
    "bicubic-aa-sixth": "resize(x, 166_667, mode='bicubic', antialias=True)",
    # rows on an input sample (every third, fifth) read it alone: windows that go back
    "bicubic-x3-backward": "resize_backward(ones(3 * N), (N,), mode='bicubic')",
    "lanczos3-x3-backward": "resize_backward(ones(3 * N), (N,), mode='lanczos3')",
    "bicubic-x5-backward": "resize_backward(ones(5 * N), (N,), mode='bicubic')",
    "bicubic-ac-x3-backward": (
        "resize_backward(ones(3 * N - 2), (N,), mode='bicubic', align_corners=True)"
    ),
}

PROGRAM = """
import resource, time
import numpy as np
from cresize import resize, resize_backward
N = {n}
x = np.random.default_rng(0).standard_normal(N).astype(np.float32)
def ones(shape):
    return np.ones(shape, np.float32)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
{call}
seconds = time.perf_counter() - t0
print(seconds, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024)
"""


def first_call(src, call):
    """``(seconds, MiB)`` of ``call`` in a fresh process importing cresize from ``src``."""
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"}
    code = PROGRAM.format(n=N, call=call[:-1] + ", num_threads=1)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr)
    seconds, mib = out.stdout.split()
    return float(seconds), float(mib)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=pathlib.Path, help="another tree's src, alternated")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    trees = {"base": args.base, "this": SRC} if args.base else {"this": SRC}
    print("| case | tree | median | range | peak (ru_maxrss, MiB) |")
    print("| --- | --- | --- | --- | --- |")
    for case in args.cases.split(","):
        runs = {name: [] for name in trees}
        for _ in range(args.repeat):
            for name, src in trees.items():
                runs[name].append(first_call(src, CASES[case]))
        for name, got in runs.items():
            times = sorted(t for t, _ in got)
            peak = statistics.median(m for _, m in got)
            print(
                f"| {case} | {name} | {statistics.median(times):.3f} s "
                f"| {times[0]:.3f}-{times[-1]:.3f} s | {peak:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
