"""A float32 volume shrunk by 2 along its three axes: cresize against PyTorch and SciPy.

    PYTHONPATH=src python benchmarks/volumes.py [--n 512] [--threads 2]

Two measurements (docs/guide/volumes.md quotes them):

- one call in a fresh process (``spawn``), as a script that resizes one volume makes
  it: CPU time of the call (user + system: fresh memory is paid in system time) and
  its peak resident memory above what the process held before (``VmHWM``, reset with
  ``/proc/self/clear_refs``; Linux only);
- repeated calls in one process, the libraries interleaved round by round: the
  smallest CPU time of each (cresize's results then reuse the memory the previous
  call freed, docs/limits.md "Kept results").

The calls compute one operator: ``cresize.resize(x, (n/2,)*3, axes=(0, 1, 2))``
(bilinear, or area), ``F.interpolate(mode="trilinear")`` and ``F.avg_pool3d(x, 2)``
on the 5-D tensor, and ``scipy.ndimage.zoom(x, 0.5, order=1, grid_mode=True,
mode="nearest")`` (one thread: SciPy has no threads). A library that is not
installed is left out.
"""

import argparse
import importlib.util
import json
import multiprocessing
import os
import time

import numpy as np

CALLS = ["cresize bilinear", "cresize area", "torch trilinear", "torch avg_pool3d", "scipy zoom"]


def _available(call):
    return importlib.util.find_spec(call.split()[0]) is not None


def _function(call, x, threads):
    """The call on ``x``, made ready (libraries imported, lazy modules loaded)."""
    h = x.shape[0] // 2
    if call.startswith("cresize"):
        import cresize

        mode = call.split()[1]
        return lambda: cresize.resize(x, (h, h, h), axes=(0, 1, 2), mode=mode, num_threads=threads)
    if call.startswith("torch"):
        import torch
        import torch.nn.functional as F

        torch.set_num_threads(threads)
        t = torch.from_numpy(x)[None, None]
        if call.endswith("trilinear"):
            return lambda: F.interpolate(t, size=(h, h, h), mode="trilinear")
        return lambda: F.avg_pool3d(t, 2)
    from scipy import ndimage

    return lambda: ndimage.zoom(x, 0.5, order=1, grid_mode=True, mode="nearest")


def _rss():
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return {k: int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM")}


def _one_call(call, n, threads, queue):
    x = np.random.default_rng(0).random((n, n, n), dtype=np.float32)
    f = _function(call, x, threads)
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")  # peak RSS := RSS
    before = _rss()["VmRSS"]
    t0 = os.times()
    y = f()
    t1 = os.times()
    queue.put(
        dict(
            call=call,
            cpu_s=round(t1.user - t0.user + t1.system - t0.system, 3),
            system_s=round(t1.system - t0.system, 3),
            peak_extra_mib=round(_rss()["VmHWM"] - before),
            result_mib=round(np.asarray(y).nbytes / 2**20),
        )
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=512, help="edge of the cube (default 512)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="rounds of repeated calls")
    args = parser.parse_args()
    calls = [c for c in CALLS if _available(c)]
    spawn = multiprocessing.get_context("spawn")  # libgomp is not fork-safe
    print("one call in a fresh process")
    for call in calls:
        queue = spawn.Queue()
        p = spawn.Process(target=_one_call, args=(call, args.n, args.threads, queue))
        p.start()
        print(json.dumps(queue.get()))
        p.join()
    print("repeated calls, interleaved: smallest CPU time (s)")
    x = np.random.default_rng(0).random((args.n,) * 3, dtype=np.float32)
    functions = {c: _function(c, x, args.threads) for c in calls}
    best = dict.fromkeys(calls, float("inf"))
    for f in functions.values():
        f()
    for _ in range(args.repeat):
        for call, f in functions.items():
            t = time.process_time()
            f()
            best[call] = min(best[call], time.process_time() - t)
    base = best.get("torch trilinear")
    for call, t in best.items():
        ratio = f"  {t / base:.2f}x torch trilinear" if base else ""
        print(f"{call:18s} {t:.3f}{ratio}")


if __name__ == "__main__":
    main()
