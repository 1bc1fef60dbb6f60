"""The (224, 224, 3) -> 112x112 bilinear image (float32 and uint8, channels last)
against OpenCV: one thread in CPU time, two threads in wall time, for comparing
builds on a shared machine (run it with each build's ``PYTHONPATH``, alternating):

    PYTHONPATH=src python benchmarks/hwc_pairs.py [--rounds 9] [--tag NAME]

Each sample is the mean time of a batch of 300 calls; the rounds alternate the
calls; the least and the median of the rounds are printed, in microseconds.
One-thread figures use ``time.thread_time`` (the load of other processes disturbs
it least), two-thread ones ``time.perf_counter``. cresize's "2 threads" call asks
for two threads; its plan may use one (``_plan.MIN_WORK_PER_THREAD``).
"""

import argparse
import statistics
import time

import numpy as np

import cresize

try:
    import cv2
except ImportError:  # pragma: no cover - optional peer
    cv2 = None

BATCH = 300


def _batch(f, clock):
    t0 = clock()
    for _ in range(BATCH):
        f()
    return (clock() - t0) / BATCH


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    f32 = np.ascontiguousarray(rng.random((224, 224, 3), dtype=np.float32))
    u8 = (f32 * 255).astype(np.uint8)

    def ours(x, threads):
        return lambda: cresize.resize(x, (112, 112), axes=(0, 1), num_threads=threads)

    def theirs(x):
        return lambda: cv2.resize(x, (112, 112), interpolation=cv2.INTER_LINEAR)

    # name: (function, OpenCV threads (None: no OpenCV), clock)
    cases = {
        "float32 1t CPU": (ours(f32, 1), None, time.thread_time),
        "uint8 1t CPU": (ours(u8, 1), None, time.thread_time),
        "float32 2t wall": (ours(f32, 2), None, time.perf_counter),
    }
    if cv2 is not None:
        cases["OpenCV float32 1t CPU"] = (theirs(f32), 1, time.thread_time)
        cases["OpenCV uint8 1t CPU"] = (theirs(u8), 1, time.thread_time)
        cases["OpenCV float32 2t wall"] = (theirs(f32), 2, time.perf_counter)
    times = {name: [] for name in cases}
    for f, _, _ in cases.values():
        f()
    for _ in range(args.rounds):
        for name, (f, cv_threads, clock) in cases.items():
            if cv_threads is not None:
                cv2.setNumThreads(cv_threads)
            times[name].append(_batch(f, clock))
    for name, t in times.items():
        print(
            f"{args.tag} {name}: least {min(t) * 1e6:.2f} us, median "
            f"{statistics.median(t) * 1e6:.2f} us"
        )


if __name__ == "__main__":
    main()
