"""The "images" group: 8/16-bit and channels-last images against OpenCV, Pillow and libvips.

    python benchmarks/run.py --groups images [--threads 2] [--repeat 7]
    python benchmarks/images.py [--threads 2] [--repeat 7] [--write] [--only TEXT ...]
    python benchmarks/images.py --threads 1 --cpu-time [--only TEXT ...]

Every row runs cresize and its peers in the same process, rounds interleaved
(``run.measure``), with ``threads`` threads each (Pillow is single-threaded;
libvips gets ``concurrency_set(threads)`` and its operation cache off). The ratio
is cresize / peer of the medians: below 1 means cresize is faster. ``peak MiB`` is
cresize's peak traced memory (tracemalloc) in one call, next to the size of the
array it returns. libvips is optional (``pyvips``): without it its column says so.
"""

import os
import sys
import tracemalloc

import numpy as np

import cresize
from cresize import _optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import measure

# Peers: a missing one's column says so; a broken one is warned of (cresize._optional).
cv2 = _optional.load("cv2", "OpenCV (cv2)", fallback="its column is left out")
Image = _optional.load("PIL.Image", "Pillow", fallback="its column is left out")
pyvips = _optional.load("pyvips", fallback="its column is left out")  # needs the libvips binary

PEERS = ("opencv", "pillow", "libvips")
CV2 = {
    "nearest": "INTER_NEAREST",
    "nearest-exact": "INTER_NEAREST_EXACT",
    "bilinear": "INTER_LINEAR",
    "bicubic": "INTER_CUBIC",
    "area": "INTER_AREA",
}
PIL = {"bilinear": "BILINEAR", "bicubic": "BICUBIC", "lanczos3": "LANCZOS"}
VIPS = {"lanczos3": "lanczos3", "bilinear": "linear", "bicubic": "cubic"}


class Row:
    """``shape`` -> ``size`` on the spatial axes; ``layout`` hwc (axes (0, 1)), nhwc
    (axes (1, 2)) or nchw (the last two); ``peers`` the libraries asked for."""

    def __init__(self, dtype, shape, size, mode, layout, peers, antialias=False):
        self.dtype, self.shape, self.size, self.mode = np.dtype(dtype), shape, size, mode
        self.layout, self.peers, self.antialias = layout, peers, antialias

    @property
    def axes(self):
        return {"hwc": (0, 1), "nhwc": (1, 2), "nchw": None}[self.layout]

    @property
    def label(self):
        shape = "x".join(map(str, self.shape))
        size = "x".join(map(str, self.size))
        aa = "+aa" if self.antialias else ""
        return f"{self.dtype.name} {self.layout} {shape}->{size} {self.mode}{aa}"


def rows():
    rgb1k, mp3, mp12 = (1024, 1024, 3), (1500, 2000, 3), (3000, 4000, 3)
    table = [
        Row(np.uint8, rgb1k, (2048, 2048), m, "hwc", ("opencv",)) for m in ("nearest", "bilinear")
    ]
    table.append(Row(np.uint8, rgb1k, (2048, 2048), "bicubic", "hwc", ("opencv", "pillow")))
    table.append(Row(np.uint16, mp3, (3000, 4000), "bicubic", "hwc", ("opencv",)))
    table.append(Row(np.uint8, mp12, (750, 1000), "area", "hwc", ("opencv",)))
    table.append(
        Row(np.uint8, mp12, (750, 1000), "lanczos3", "hwc", ("pillow", "libvips"), antialias=True)
    )
    table.append(
        Row(np.uint8, mp12, (750, 1000), "bilinear", "hwc", ("pillow", "libvips"), antialias=True)
    )
    table += [
        Row(np.float32, rgb1k, (2048, 2048), m, "hwc", ("opencv",)) for m in ("bilinear", "bicubic")
    ]
    # a small image shrunk by 2 (2x2 blocks; per-call costs weigh here)
    table.append(Row(np.uint8, (224, 224, 3), (112, 112), "bilinear", "hwc", ("opencv",)))
    # 16-bit images halved (2x2 blocks of four 0.5 weights, summed in integers)
    table += [
        Row(np.uint16, shape, (shape[0] // 2, shape[1] // 2), m, "hwc", ("opencv",))
        for shape in ((224, 224, 3), (2048, 2048, 3))
        for m in ("bilinear", "area")
    ]
    table += [  # the width alone (the height unchanged: a one-axis resize)
        Row(dtype, rgb1k, (1024, 2048), "bicubic", "hwc", ("opencv",))
        for dtype in (np.uint8, np.float32)
    ]
    # float32 channels-last nearest shrinks (pixels moved, _simd_select.h)
    table += [
        Row(np.float32, (2048, 2048, c), size, m, "hwc", ("opencv",))
        for c, size, m in (
            (3, (1024, 1024), "nearest"),
            (3, (1024, 1024), "nearest-exact"),
            (3, (1536, 1536), "nearest"),
            (3, (683, 683), "nearest"),
            (4, (1024, 1024), "nearest"),
        )
    ]
    table += [
        Row(np.float32, (8, 512, 512, 3), (1024, 1024), m, "nhwc", ("opencv",))
        for m in ("nearest", "bilinear")
    ]
    table += [
        Row(np.float32, (8, 3, 512, 512), (1024, 1024), m, "nchw", ("opencv",))
        for m in ("nearest", "bilinear")
    ]
    return table


def data(row):
    rng = np.random.default_rng(0)
    if row.dtype.kind == "u":
        return rng.integers(0, np.iinfo(row.dtype).max + 1, row.shape, dtype=row.dtype)
    return rng.uniform(0, 1, row.shape).astype(row.dtype)


def runners(row, x, threads):
    h, w = row.size
    found = {
        "cresize": lambda: cresize.resize(
            x, row.size, axes=row.axes, mode=row.mode, antialias=row.antialias, num_threads=threads
        )
    }
    if "opencv" in row.peers and cv2 is not None:
        flag = getattr(cv2, CV2[row.mode])
        if row.layout == "hwc":
            found["opencv"] = lambda: cv2.resize(x, (w, h), interpolation=flag)
        else:  # one image (nhwc) or one plane (nchw) at a time
            images = list(x) if row.layout == "nhwc" else list(x.reshape(-1, *x.shape[-2:]))
            found["opencv"] = lambda: [cv2.resize(p, (w, h), interpolation=flag) for p in images]
    if "pillow" in row.peers and Image is not None:
        pil_image = Image.fromarray(x)
        pil_flag = getattr(Image.Resampling, PIL[row.mode])
        found["pillow"] = lambda: pil_image.resize((w, h), pil_flag)
    if "libvips" in row.peers and pyvips is not None:
        vips_image = pyvips.Image.new_from_memory(
            x.data, x.shape[1], x.shape[0], x.shape[2], "uchar"
        )
        kernel = VIPS[row.mode]
        found["libvips"] = lambda: vips_image.resize(
            w / x.shape[1], vscale=h / x.shape[0], kernel=kernel
        ).write_to_memory()
    return found


def peak_mib(call):
    call()
    tracemalloc.start()
    try:
        result = call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / 2**20, result.nbytes / 2**20


def run(threads: int, repeat: int, only=(), cpu_time=False) -> str:
    """The group's Markdown table (the rows whose label contains one of ``only``, if
    given); ``cpu_time``: the least CPU time (``time.process_time``, every thread of
    the process) of the rounds instead of the median wall time: with one thread each,
    a figure that other jobs on a shared machine disturb much less."""
    if cv2 is not None:
        cv2.setNumThreads(threads)
    if pyvips is not None:
        pyvips.cache_set_max(0)
        pyvips.concurrency_set(threads)
    head = (
        f"| case | cresize {'CPU ' if cpu_time else ''}ms | "
        + " | ".join(f"cresize/{p}" for p in PEERS)
        + " | cresize peak MiB | result MiB |"
    )
    lines = [head, "|" + "---|" * (4 + len(PEERS))]
    for row in rows():
        if only and not any(text in row.label for text in only):
            continue
        x = data(row)
        funcs = runners(row, x, threads)
        t = measure(funcs, repeat, cpu_time)
        peak, result = peak_mib(funcs["cresize"])
        ratios = []
        for p in PEERS:
            if p in t:
                ratios.append(f"{t['cresize'] / t[p]:.2f}")
            elif p == "libvips" and p in row.peers:
                ratios.append("(pyvips missing)")
            else:
                ratios.append("")
        line = (
            f"| {row.label} | {t['cresize'] * 1e3:.2f} | "
            + " | ".join(ratios)
            + f" | {peak:.1f} | {result:.1f} |"
        )
        lines.append(line)
    return "\n".join(lines)


def main(argv=None):
    from run import machine, options

    parser = options(__doc__)
    parser.add_argument("--write", action="store_true", help="write benchmarks/RESULTS-images.md")
    parser.add_argument(
        "--only", nargs="+", default=(), metavar="TEXT", help="rows whose label contains TEXT"
    )
    args = parser.parse_args(argv)
    if args.write and (args.only or args.cpu_time):
        parser.error("--write writes the whole table of wall times: leave out --only, --cpu-time")
    table = run(args.threads, args.repeat, args.only, args.cpu_time)
    if args.write:
        versions = []
        if pyvips is not None:
            versions.append(
                f"libvips {pyvips.version(0)}.{pyvips.version(1)} (pyvips {pyvips.__version__})"
            )
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS-images.md")
        with open(path, "w") as f:
            f.write(
                "# Benchmark results: images\n\n"
                + machine(args.threads)
                + "\n\n"
                + (f"Also: {', '.join(versions)}\n\n" if versions else "")
                + f"Command: `python benchmarks/images.py --threads {args.threads} "
                f"--repeat {args.repeat} --write`\n\n"
                "Medians of interleaved rounds; a ratio below 1 means cresize is faster. "
                "OpenCV runs NCHW batches plane by plane and NHWC batches image by image. "
                "Peak memory: tracemalloc in one cresize call.\n\n" + table + "\n"
            )
        print(f"wrote {path}")
    else:
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
