"""A backward's transposed table alone: ``_tables._transposed`` (the windows or their
hull, whichever the table takes) against ``_tables._sorted_transposed`` on the same
table, once each in a fresh process (memory not yet touched, as a first call's is),
the two alternating.

    python benchmarks/transposed.py --repeat 5
    python benchmarks/transposed.py --cases bicubic-x3 --repeat 9
"""

import argparse
import pathlib
import statistics
import subprocess
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"

#: name -> ``_tables.taps`` arguments (1,000,000 inputs; rows on an input sample
#: every third or fifth: windows that go back)
CASES = {
    "bicubic-x3": (1_000_000, 3_000_000, "bicubic", False, False),
    "bicubic-x3-align": (1_000_001, 3_000_001, "bicubic", True, False),
    "lanczos3-x3": (1_000_000, 3_000_000, "lanczos3", False, False),
    "bicubic-x5": (1_000_000, 5_000_000, "bicubic", False, False),
    "bicubic-1.75": (1_000_000, 1_750_000, "bicubic", False, False),  # the windows
}

PROGRAM = """
import time
from cresize import _tables
t = _tables.taps{args}
f = _tables.{function}
t0 = time.perf_counter()
f(t.index, t.weight, t.count, t.n_in)
print(time.perf_counter() - t0)
"""


def once(args, function):
    env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
    code = PROGRAM.format(args=args, function=function)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr)
    return float(out.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    print("| table | `_transposed` | `_sorted_transposed` |")
    print("| --- | --- | --- |")
    for case in args.cases.split(","):
        runs = {"_transposed": [], "_sorted_transposed": []}
        for _ in range(args.repeat):
            for function, got in runs.items():
                got.append(once(CASES[case], function))
        cells = [f"{statistics.median(v):.3f} s ({min(v):.3f}-{max(v):.3f})" for v in runs.values()]
        print(f"| {case} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
