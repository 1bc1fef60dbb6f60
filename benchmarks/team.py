"""Where a 2-thread call's threads run: steering (``_team.h``) in its three modes.

    python benchmarks/team.py --repeat 40

Made to show the state that steering is for: before each timed call, the calling
thread and the kernels' worker threads are all made to run on one CPU for one call
(so the worker last ran where the caller runs), then every thread gets all its CPUs
back except the caller, which stays on that CPU for the timed call. The steering
modes (``_kernels.team_steering``: when another CPU may be free, the default; always;
never) alternate call by call in one process; the table gives percentiles of the wall
time (ms). Without steering, the worker is woken next to the caller whenever Linux
does not find the idle CPU for it, and the call takes its one-thread time.
``--busy``: another process spins on another CPU meanwhile (a busy machine: a
worker kept off the caller's CPU then waits for that one, why the default steers only
when another CPU may be free). Needs Linux, OpenMP and two CPUs.
"""

import os
import subprocess
import sys
import threading
import time

import numpy as np

import cresize
from cresize import _kernels

# 2-thread calls take an OpenMP team (what steering is for), not the quick pair
_kernels.set_quick_thread(False)


def cases():
    rng = np.random.default_rng(0)
    shape, size = (16, 64, 56, 56), (112, 112)
    g = rng.random(shape[:2] + size, dtype=np.float32)
    plan = cresize.plan(shape, size, mode="nearest", num_threads=2)
    out = np.empty(shape, np.float32)
    x = rng.integers(0, 256, (1024, 1024, 3), dtype=np.uint8)
    o8 = np.empty((2048, 2048, 3), np.uint8)
    return {
        "(16,64,56,56) x2 nearest backward": lambda: plan.backward(g, out=out),
        "uint8 1024x1024x3 -> 2048² bilinear": lambda: cresize.resize(
            x, (2048, 2048), axes=(0, 1), mode="bilinear", out=o8, num_threads=2
        ),
    }


#: ``_kernels.team_steering`` modes, alternating call by call.
MODES = {1: "when a CPU may be free (default)", 2: "always", 0: "never"}

SPIN = "import os; os.sched_setaffinity(0, {%d})\nwhile True: pass"


def run(repeat, busy=False):
    everywhere = os.sched_getaffinity(0)
    if not cresize.openmp_enabled() or len(everywhere) < 2:
        return "Needs OpenMP and two CPUs."
    first = min(everywhere)
    spinner = subprocess.Popen([sys.executable, "-c", SPIN % max(everywhere)]) if busy else None
    try:
        return _table(repeat, everywhere, first)
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()


def _table(repeat, everywhere, first):
    me = threading.get_native_id()
    lines = [
        "| case | steering | p10 | p25 | median | p75 | p90 |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, call in cases().items():
        call()  # the workers exist now
        workers = [int(t) for t in os.listdir("/proc/self/task") if int(t) != me]
        times = {mode: [] for mode in MODES}
        try:
            for _ in range(repeat):
                for mode in MODES:
                    _kernels.team_steering(mode)
                    os.sched_setaffinity(0, {first})
                    for w in workers:
                        os.sched_setaffinity(w, {first})
                    call()  # every thread ran on `first`
                    for w in workers:
                        os.sched_setaffinity(w, everywhere)
                    t0 = time.perf_counter()
                    call()
                    times[mode].append(time.perf_counter() - t0)
                    os.sched_setaffinity(0, everywhere)
        finally:
            _kernels.team_steering(1)  # the default
            os.sched_setaffinity(0, everywhere)
        for mode, label in MODES.items():
            p = np.percentile(np.array(times[mode]) * 1e3, [10, 25, 50, 75, 90])
            lines.append(f"| {name} | {label} | " + " | ".join(f"{v:.2f}" for v in p) + " |")
    return "\n".join(lines)


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40, help="timed calls per setting")
    parser.add_argument(
        "--busy", action="store_true", help="another process spins on another CPU meanwhile"
    )
    args = parser.parse_args(argv)
    print(run(args.repeat, args.busy))


if __name__ == "__main__":
    main()
