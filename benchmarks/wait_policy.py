"""OpenMP's wait policy: 2-thread calls with cresize's passive policy and with libgomp's
default spin, on idle cores and next to busy processes.

    python benchmarks/wait_policy.py [--busy 0 1] [--repeat 25]

Each policy runs in a fresh interpreter (the runtime reads it once, as it loads):
"passive" is what ``import cresize`` sets; "spin" sets ``GOMP_SPINCOUNT=300000``,
libgomp's default, which cresize leaves alone as the user's choice. ``--busy N`` starts
N processes that spin on the CPU for the duration of the runs (a shared machine).
Medians of interleaved rounds; OpenCV (its own pthreads pool, 2 threads) runs after
each cresize call, so a cresize thread still spinning slows it: the "opencv" column
shows that cost. Linux only (libgomp).
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
    cases = {
        "uint8 1024²->2048² bilinear": (
            lambda: cresize.resize(img, (2048, 2048), axes=(0, 1), num_threads=2),
            lambda: cv2.resize(img, (2048, 2048), interpolation=cv2.INTER_LINEAR)),
        "(16,64,56,56) x2 bilinear backward": (
            lambda: cresize.resize_backward(g, fm.shape, num_threads=2), None),
    }
    for name, (mine, peer) in cases.items():
        mine(); peer and peer()
        a, b = [], []
        for _ in range(REPEAT):
            t = time.perf_counter(); mine(); a.append(time.perf_counter() - t)
            if peer:
                t = time.perf_counter(); peer(); b.append(time.perf_counter() - t)
        peer_ms = f"{np.median(b) * 1e3:.2f}" if b else ""
        print(f"{name}|{np.median(a) * 1e3:.2f}|{peer_ms}")
    """
)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--repeat", type=int, default=25)
    args = parser.parse_args(argv)
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    policies = {"passive": {}, "spin": {"GOMP_SPINCOUNT": "300000"}}
    print("| busy processes | policy | case | cresize ms | opencv ms (after each cresize call) |")
    print("|---|---|---|---|---|")
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
                    name, mine, peer = line.split("|")
                    print(f"| {busy} | {policy} | {name} | {mine} | {peer} |")
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()


if __name__ == "__main__":
    main()
