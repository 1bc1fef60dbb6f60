"""OpenMP's wait policy and the quick pair: 2-thread calls with cresize's passive policy,
with libgomp's default spin, and on the quick pair, on idle cores and next to busy
processes.

    python benchmarks/wait_policy.py [--busy 0 1] [--repeat 25]

Each policy runs in a fresh interpreter (the runtime reads it once, as it loads):
"passive" is what ``import cresize`` sets, with the quick pair off
(``CRESIZE_QUICK_THREAD=off``: 2-thread calls take an OpenMP team); "spin" sets
``GOMP_SPINCOUNT=300000``, libgomp's default, which cresize leaves alone as the user's
choice (pair off too); "quick pair" is the default: passive, and calls of at most two
threads on the quick pair (``_quick.h``). ``--busy N`` starts N processes that spin on
the CPU for the duration of the runs (a shared machine). Each sample times a batch of
calls (``batch``: one for the long calls, 50 for the short ones); medians and means of
interleaved rounds (the mean shows rare stalls that a median hides). OpenCV (its own
pthreads pool, 2 threads) runs after each cresize batch, so a cresize thread still
spinning slows it: the "opencv" column shows that cost. Linux only (libgomp).
"""

import argparse
import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    """
    import time, numpy as np, cv2, cresize
    cv2.setNumThreads(2)
    rng = np.random.default_rng(0)
    img = (rng.random((1024, 1024, 3)) * 255).astype(np.uint8)
    fm = rng.random((16, 64, 56, 56), dtype=np.float32)
    g = rng.random((16, 64, 112, 112), dtype=np.float32)
    hwc = rng.random((224, 224, 3), dtype=np.float32)
    mid = rng.random((640, 640, 3), dtype=np.float32)
    cases = {
        "uint8 1024²->2048² bilinear": (1,
            lambda: cresize.resize(img, (2048, 2048), axes=(0, 1), num_threads=2),
            lambda: cv2.resize(img, (2048, 2048), interpolation=cv2.INTER_LINEAR)),
        "(16,64,56,56) x2 bilinear backward": (1,
            lambda: cresize.resize_backward(g, fm.shape, num_threads=2), None),
        "(224,224,3) float32 ->112² bilinear": (50,
            lambda: cresize.resize(hwc, (112, 112), axes=(0, 1), num_threads=2),
            lambda: cv2.resize(hwc, (112, 112), interpolation=cv2.INTER_LINEAR)),
        "(640,640,3) float32 ->320² bilinear": (50,
            lambda: cresize.resize(mid, (320, 320), axes=(0, 1), num_threads=2),
            lambda: cv2.resize(mid, (320, 320), interpolation=cv2.INTER_LINEAR)),
    }
    for name, (batch, mine, peer) in cases.items():
        mine(); peer and peer()
        a, b = [], []
        for _ in range(REPEAT):
            t = time.perf_counter()
            for _ in range(batch):
                mine()
            a.append((time.perf_counter() - t) / batch)
            if peer:
                t = time.perf_counter()
                for _ in range(batch):
                    peer()
                b.append((time.perf_counter() - t) / batch)
        peer_ms = f"{np.median(b) * 1e3:.3f}" if b else ""
        print(f"{name}|{np.median(a) * 1e3:.3f}|{np.mean(a) * 1e3:.3f}|{peer_ms}")
    """
)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--repeat", type=int, default=25)
    args = parser.parse_args(argv)
    unset = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "CRESIZE_QUICK_THREAD")
    base = {k: v for k, v in os.environ.items() if k not in unset}
    off = {"CRESIZE_QUICK_THREAD": "off"}
    policies = {
        "passive": off,
        "spin": {"GOMP_SPINCOUNT": "300000", **off},
        "quick pair": {},
    }
    print(
        "| busy processes | policy | case | cresize ms (median) | cresize ms (mean) "
        "| opencv ms (after each cresize batch) |"
    )
    print("|---|---|---|---|---|---|")
    for busy in args.busy:
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
        try:
            for policy, extra in policies.items():
                code = CHILD.replace("REPEAT", str(args.repeat))
                out = subprocess.run(
                    [sys.executable, "-c", code],
                    env={**base, **extra},
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
                for line in out.splitlines():
                    name, mine, mean, peer = line.split("|")
                    print(f"| {busy} | {policy} | {name} | {mine} | {mean} | {peer} |")
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()


if __name__ == "__main__":
    main()
