"""Time cresize side by side with PyTorch, OpenCV and Pillow, in one run.

    python benchmarks/run.py [--threads 2] [--repeat 7] [--cases up,down-aa] [--write]

Each case runs every available library in the same process, alternating
libraries round by round after a warm-up, and reports the median time of each
and the ratio cresize / peer (below 1 means cresize is faster). Absolute times
on a shared machine are noise; the ratios from one run are the figure.
``--write`` stores the table with the machine description in
``benchmarks/RESULTS.md``.
"""

import argparse
import os
import platform
import random
import statistics
import sys
import time

import numpy as np

import cresize
from cresize import _optional, _spec

# Peers: a missing one's column is left out; a broken one is warned of (cresize._optional).
torch = _optional.load("torch", fallback="its column is left out")
F = torch.nn.functional if torch is not None else None
cv2 = _optional.load("cv2", "OpenCV (cv2)", fallback="its column is left out")
Image = _optional.load("PIL.Image", "Pillow", fallback="its column is left out")

TORCH_MODE = {
    "nearest": "nearest",
    "nearest-exact": "nearest-exact",
    "bilinear": "bilinear",
    "bicubic": "bicubic",
    "area": "area",
    "lanczos3": "lanczos",
}
CV2_MODE = {
    "nearest": "INTER_NEAREST",
    "bilinear": "INTER_LINEAR",
    "bicubic": "INTER_CUBIC",
    "area": "INTER_AREA",
}
PIL_MODE = {"bilinear": "BILINEAR", "bicubic": "BICUBIC", "lanczos3": "LANCZOS"}
#: Groups in modules of their own (``benchmarks/<module>.py``, ``run(threads, repeat) -> str``).
GROUPS = {
    "latency": "latency",
    "feature-maps": "feature_maps",
    "dask": "dask_group",
    "files": "files",
    "images": "images",
    "torch-adapter": "torch_adapter",
}


class Case:
    """One row: a geometry and options, forward or backward."""

    def __init__(
        self, group, shape, size, mode, antialias=False, backward=False, dtype=np.float32, axes=None
    ):
        self.group, self.shape, self.size, self.mode = group, shape, size, mode
        self.antialias, self.backward, self.dtype, self.axes = antialias, backward, dtype, axes

    @property
    def label(self):
        aa = "+aa" if self.antialias else ""
        shape = "x".join(map(str, self.shape))
        size = "x".join(map(str, self.size))
        kind = "bwd" if self.backward else "fwd"
        return f"{self.group} {np.dtype(self.dtype).name} {shape}->{size} {self.mode}{aa} {kind}"

    def out_shape(self):
        return _spec.forward(self.shape, self.size, axes=self.axes).output_shape


def cases(selected):
    up, down, aa_modes = (8, 3, 512, 512), (8, 3, 512, 512), ("bilinear", "bicubic", "lanczos3")
    table = []
    for backward in (False, True):
        table += [
            Case("up", up, (1024, 1024), m, backward=backward)
            for m in ("nearest", "bilinear", "bicubic", "lanczos3")
        ]
        table += [
            Case("down-aa", down, (256, 256), m, antialias=True, backward=backward)
            for m in aa_modes
        ]
        table += [Case("down-aa", down, (256, 256), "area", backward=backward)]
        # The rest of every mode at both sizes (the core issue's bar: not slower than PyTorch)
        table += [
            Case("modes", up, (1024, 1024), m, backward=backward) for m in ("nearest-exact", "area")
        ]
        table += [
            Case("modes", down, (256, 256), m, backward=backward)
            for m in ("nearest", "nearest-exact", "bilinear", "bicubic", "lanczos3")
        ]
        table += [Case("f64", up, (1024, 1024), "bicubic", backward=backward, dtype=np.float64)]
        table += [Case("small", (1, 3, 64, 64), (128, 128), "bilinear", backward=backward)]
        table += [
            Case(
                "extreme",
                (1, 1, 4096, 4096),
                (64, 64),
                "bicubic",
                antialias=True,
                backward=backward,
            ),
            Case("extreme", (1, 1, 4096, 4096), (8192, 8192), "bilinear", backward=backward),
        ]
    table.append(
        Case(
            "image",
            (2048, 2048, 3),
            (1024, 1024),
            "lanczos3",
            antialias=True,
            dtype=np.uint8,
            axes=(0, 1),
        )
    )
    return [c for c in table if c.group in selected]


def runners(case, threads):
    """{library: zero-argument callable} for every library that can run the case."""
    rng = np.random.default_rng(0)
    if np.dtype(case.dtype).kind == "u":
        x = rng.integers(0, 256, case.shape).astype(case.dtype)
    else:
        x = rng.uniform(-1, 1, case.shape).astype(case.dtype)
    out_shape = case.out_shape()
    opts = dict(mode=case.mode, antialias=case.antialias)
    found = {}
    if case.backward:
        g = rng.uniform(-1, 1, out_shape).astype(case.dtype)
        found["cresize"] = lambda: cresize.resize_backward(g, x.shape, num_threads=threads, **opts)
    else:
        found["cresize"] = lambda: cresize.resize(
            x, case.size, axes=case.axes, num_threads=threads, **opts
        )
    found.update(torch_runner(case, x, out_shape))
    if not case.backward:
        found.update(cv2_runner(case, x))
        found.update(pil_runner(case, x))
    return found


def torch_runner(case, x, out_shape):
    if torch is None or case.mode not in TORCH_MODE:
        return {}
    if case.axes == (0, 1):  # HWC uint8 image: torch wants NCHW
        t = torch.from_numpy(np.ascontiguousarray(x.transpose(2, 0, 1)))[None]
    else:
        t = torch.from_numpy(x)
    kwargs = dict(size=case.size, mode=TORCH_MODE[case.mode])
    if case.antialias:
        kwargs["antialias"] = True
    if case.mode in ("bilinear", "bicubic"):
        kwargs["align_corners"] = False
    try:
        F.interpolate(t[:1, :1], **kwargs)
    except (RuntimeError, NotImplementedError, ValueError):
        return {}
    if not case.backward:
        return {"torch": lambda: F.interpolate(t, **kwargs)}
    t = t.clone().requires_grad_(True)
    y = F.interpolate(t, **kwargs)
    g = torch.ones_like(y)
    try:
        torch.autograd.grad(y, t, g, retain_graph=True)
    except (RuntimeError, NotImplementedError):
        return {}
    return {"torch": lambda: torch.autograd.grad(y, t, g, retain_graph=True)}


def cv2_runner(case, x):
    if cv2 is None or case.mode not in CV2_MODE or (case.antialias and case.mode != "area"):
        if not (cv2 is not None and case.antialias and case.mode == "bilinear"):
            return {}
    flag = getattr(cv2, CV2_MODE["area" if case.antialias else case.mode])
    h, w = case.size
    if case.axes == (0, 1):
        return {"opencv": lambda: cv2.resize(x, (w, h), interpolation=flag)}
    planes = x.reshape(-1, *x.shape[-2:])
    return {
        "opencv" + ("-area" if case.antialias else ""): lambda: [
            cv2.resize(p, (w, h), interpolation=flag) for p in planes
        ]
    }


def pil_runner(case, x):
    if Image is None or not case.antialias or case.mode not in PIL_MODE:
        return {}
    flag = getattr(Image.Resampling, PIL_MODE[case.mode])
    h, w = case.size
    if case.axes == (0, 1):
        img = Image.fromarray(x)
        return {"pillow": lambda: img.resize((w, h), flag)}
    images = [Image.fromarray(p) for p in x.reshape(-1, *x.shape[-2:])]
    return {"pillow": lambda: [im.resize((w, h), flag) for im in images]}


def copy_floor(case):
    """NumPy copying an array the size of the result (``np.copy``, which allocates
    its result as resize does): the memory-bandwidth yardstick."""
    shape = case.out_shape() if not case.backward else case.shape
    src = np.ones(shape, case.dtype)
    return lambda: src.copy()


def round_order(names, round_):
    """The order in which the libraries ``names`` run in round ``round_``: a shuffle
    seeded by the round's block of ``len(names)`` rounds, rotated by the round's place in
    the block. Each library runs in each place once a block (with two libraries, first in
    every other round: a shuffle per round put one first in 6 of 9 rounds, in every
    case alike), and the neighbours change from block to block (rotating one order kept
    each call after the same neighbour in every round but one, and what that neighbour
    left in the caches then weighed on one library only). The same in every run."""
    k = len(names)
    order = random.Random(round_ // k).sample(list(names), k)
    return order[round_ % k :] + order[: round_ % k]


def measure(funcs, repeat, cpu_time=False):
    """Median seconds per library; libraries alternate, in the order of
    ``round_order``. ``cpu_time``: the least CPU time of the rounds
    (``time.process_time``, every thread of the process) instead of the median wall
    time (the scripts' ``--cpu-time``)."""
    clock, summary = (
        (time.process_time, min) if cpu_time else (time.perf_counter, statistics.median)
    )
    times = {name: [] for name in funcs}
    for f in funcs.values():
        f()  # warm-up
    names = list(funcs)
    for round_ in range(repeat):
        for name in round_order(names, round_):
            t0 = clock()
            funcs[name]()
            times[name].append(clock() - t0)
    return {name: summary(t) for name, t in times.items()}


def memory_table(threads):
    """Peak extra memory (tracemalloc) of one call, relative to the array it returns."""
    import tracemalloc

    lines = ["| call | returns MiB | peak MiB | peak / returned |", "|---|---|---|---|"]
    x = np.random.default_rng(0).uniform(-1, 1, (8, 3, 512, 512)).astype(np.float32)
    for size, mode, aa in [((1024, 1024), "bicubic", False), ((256, 256), "lanczos3", True)]:
        cresize.resize(x, size, mode=mode, antialias=aa, num_threads=threads)  # warm caches
        g = np.ones((8, 3) + size, np.float32)
        cresize.resize_backward(g, x.shape, mode=mode, antialias=aa, num_threads=threads)
        for kind, call in [
            ("fwd", lambda: cresize.resize(x, size, mode=mode, antialias=aa, num_threads=threads)),
            (
                "bwd",
                lambda: cresize.resize_backward(
                    g, x.shape, mode=mode, antialias=aa, num_threads=threads
                ),
            ),
        ]:
            tracemalloc.start()
            result = call()
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            lines.append(
                f"| {mode}{'+aa' if aa else ''} 8x3x512x512 <-> {size[0]}x{size[1]} {kind} "
                f"| {result.nbytes / 2**20:.1f} | {peak / 2**20:.1f} "
                f"| {peak / result.nbytes:.3f} |"
            )
    return lines


def scaling_table(threads, repeat):
    """Antialiased shrinking of a 4096x4096 image: time per input pixel by factor."""
    x = np.random.default_rng(0).uniform(-1, 1, (4096, 4096)).astype(np.float32)
    lines = ["| factor | output | ms | ns per input pixel |", "|---|---|---|---|"]
    for factor in (2, 3, 4, 8, 16, 32, 64):
        n = 4096 // factor
        t = measure(
            {
                "c": lambda: cresize.resize(
                    x, (n, n), mode="bicubic", antialias=True, num_threads=threads
                )
            },
            repeat,
        )["c"]
        lines.append(f"| {factor} | {n}x{n} | {t * 1e3:.1f} | {t * 1e9 / x.size:.2f} |")
    return lines


def machine(threads):
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    libs = [
        f"cresize {cresize.__version__} (OpenMP {'on' if cresize.openmp_enabled() else 'off'})",
        f"numpy {np.__version__}",
    ]
    if torch is not None:
        libs.append(f"torch {torch.__version__}")
    if cv2 is not None:
        libs.append(f"opencv {cv2.__version__}")
    if Image is not None:
        import PIL

        libs.append(f"pillow {PIL.__version__}")
    return (
        f"CPU: {cpu}; {os.cpu_count()} logical cores; threads per library: {threads} "
        f"(Pillow is single-threaded)\n\nLibraries: {', '.join(libs)}\n\nPython {sys.version.split()[0]}"
        f"\n\nOpenMP wait policy (cresize and PyTorch share the runtime): "
        f"{cresize.show_config('dicts')['openmp']['wait_policy']}"
    )


def options(doc, repeat=7, cpu_time=True):
    """The options of every benchmark script: ``--threads``, ``--repeat`` and, with
    ``cpu_time``, ``--cpu-time`` (see ``measure``); the parser is described by the first
    paragraph of ``doc``."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=repeat)
    if cpu_time:
        parser.add_argument(
            "--cpu-time",
            action="store_true",
            help="least CPU time of the rounds (process_time) instead of the median wall "
            "time; meant for --threads 1 on a shared machine",
        )
    return parser


def main(argv=None):
    parser = options(__doc__, cpu_time=False)
    parser.add_argument(
        "--cases",
        default="up,down-aa,modes,f64,small,image,extreme",
        help="comma-separated groups: up, down-aa, modes, f64, small, image, extreme",
    )
    parser.add_argument("--write", action="store_true", help="write benchmarks/RESULTS.md")
    parser.add_argument(
        "--no-extras", action="store_true", help="skip the memory and antialias-scaling tables"
    )
    parser.add_argument(
        "--groups",
        help=f"comma-separated module groups ({', '.join(GROUPS)}): run those instead of the cases",
    )
    args = parser.parse_args(argv)
    if args.groups:
        import importlib

        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        for name in args.groups.split(","):
            module = importlib.import_module(GROUPS[name.strip()])
            print(f"## {name}\n\n{module.run(args.threads, args.repeat)}\n", flush=True)
        return 0
    if torch is not None:
        torch.set_num_threads(args.threads)
    if cv2 is not None:
        cv2.setNumThreads(args.threads)
    peers = ["torch", "opencv", "opencv-area", "pillow"]
    head = (
        "| case | cresize ms | copy floor ms | cresize/copy | "
        + " | ".join(f"cresize/{p}" for p in peers)
        + " |"
    )
    lines = [head, "|" + "---|" * (4 + len(peers))]
    print(lines[0]), print(lines[1])
    for case in cases(set(args.cases.split(","))):
        funcs = runners(case, args.threads)
        funcs["copy"] = copy_floor(case)
        repeat = args.repeat if case.group != "small" else args.repeat * 20
        t = measure(funcs, repeat)
        ratios = [f"{t['cresize'] / t[p]:.2f}" if p in t else "" for p in peers]
        row = (
            f"| {case.label} | {t['cresize'] * 1e3:.2f} | {t['copy'] * 1e3:.2f} | "
            f"{t['cresize'] / t['copy']:.2f} | " + " | ".join(ratios) + " |"
        )
        print(row, flush=True)
        lines.append(row)
    extras = []
    if not args.no_extras:
        extras = (
            ["", "Peak extra memory of one call (tracemalloc):", ""]
            + memory_table(args.threads)
            + ["", "Antialiased bicubic shrink of 4096x4096 float32 by factor:", ""]
            + scaling_table(args.threads, args.repeat)
        )
        print("\n".join(extras))
    if args.write:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md")
        with open(path, "w") as f:
            f.write(
                "# Benchmark results\n\n" + machine(args.threads) + "\n\n"
                f"Command: `python benchmarks/run.py --threads {args.threads} "
                f"--repeat {args.repeat} --cases {args.cases} --write`\n\n"
                "Medians; a ratio below 1 means cresize is faster. `opencv-area` is "
                "`cv2.INTER_AREA`, OpenCV's antialiased shrink, against cresize's antialiased "
                "mode. The copy floor is `np.copy` of an array the size of the result "
                "(allocating it, as resize does).\n\n" + "\n".join(lines + extras) + "\n"
            )
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
