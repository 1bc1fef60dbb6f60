"""Group "files": a folder of JPEGs to PNG thumbnails, cresize's CLI vs libvips vs Pillow.

    python benchmarks/run.py --groups files [--threads 2] [--repeat 3]
    python benchmarks/files.py [--threads 2] [--repeat 3] [--count 12]

Twelve 12-megapixel (4000x3000) photo-like JPEGs at quality 92 are generated in
a temporary directory. Each tool makes 800x800-box PNG thumbnails of all of them
into a fresh directory, in a subprocess of its own (each pays its interpreter
start and imports, as a user's command does; round 0, not timed, writes every
tool's bytecode, see ``commands``), rounds interleaved between tools:

* cresize: ``python -m cresize resize DIR --fit 800x800 --format png --jobs T --out-dir OUT``
  (and, for information, the same writing PNG with libvips' zlib settings: level
  6, default strategy, no row filter, instead of OpenCV's level 1, RLE, "sub");
* libvips: ``pyvips.Image.thumbnail(path, 800, height=800)`` + ``write_to_file``,
  file by file with ``VIPS_CONCURRENCY=T`` (skipped with a note without pyvips);
* Pillow: ``Image.thumbnail((800, 800), LANCZOS)`` (its default ``reducing_gap``,
  so JPEG draft) + ``save``, in a pool of T threads and in one thread.

The PSNR lines compare cresize's thumbnails with the exact result (full
decode, lanczos3 antialias, ``resize_image(..., exact=True)``): the worst file.
The CPU columns are user + system seconds of each tool's process (threads
included): on a shared machine they move less with the load than the times do.
The size column is the total of each tool's twelve PNGs.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")
BOX = 800

VIPS = """
import os, sys, pyvips
src, out = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(src)):
    im = pyvips.Image.thumbnail(os.path.join(src, name), {box}, height={box})
    im.write_to_file(os.path.join(out, os.path.splitext(name)[0] + ".png"))
"""
VIPS_PNG = """
import sys
import cresize.image
cresize.image.PNG_ZLIB = {"level": 6, "strategy": "default", "filter": "none"}
from cresize._cli_resize import main
sys.exit(main(sys.argv[1:]))
"""
PILLOW = """
import os, sys
from concurrent.futures import ThreadPoolExecutor
from PIL import Image
src, out, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
def one(name):
    with Image.open(os.path.join(src, name)) as im:
        im.thumbnail(({box}, {box}), Image.LANCZOS)
        im.save(os.path.join(out, os.path.splitext(name)[0] + ".png"))
names = sorted(os.listdir(src))
if threads == 1:
    list(map(one, names))
else:
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(one, names))
"""


def synthetic_photo(h, w, seed):
    """Photo-like uint8 RGB: smooth light, soft shapes, hard edges, fine texture, noise."""
    rng = np.random.default_rng(seed)
    y = np.linspace(0, 1, h, dtype=np.float32)[:, None]
    x = np.linspace(0, 1, w, dtype=np.float32)[None, :]
    img = np.empty((h, w, 3), np.float32)
    for c in range(3):
        a, b, p = rng.uniform(2, 9, 3)
        img[..., c] = 0.45 + 0.2 * np.sin(a * x + p) * np.cos(b * y) + 0.1 * c * x
    for _ in range(6):
        cx, cy, r = rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.9), rng.uniform(0.03, 0.15)
        disc = ((x - cx) ** 2 + (y - cy) ** 2) < r * r
        img[disc] = img[disc] * 0.5 + rng.uniform(0, 0.5, 3).astype(np.float32)
    img += 0.04 * (np.sin(w * 0.9 * x * (1 + y)) * np.sin(h * 0.7 * y))[..., None]
    img += rng.normal(0, 0.01, (h, w, 1)).astype(np.float32)
    return np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)


def make_inputs(folder, count, h=3000, w=4000):
    from PIL import Image

    for i in range(count):
        Image.fromarray(synthetic_photo(h, w, i)).save(
            os.path.join(folder, f"{i:02d}.jpg"), quality=92
        )


def psnr(a, b):
    err = np.mean((np.asarray(a, np.float64) - np.asarray(b, np.float64)) ** 2)
    return float("inf") if err == 0 else 10 * np.log10(255.0**2 / err)


def commands(src, threads, pycache):
    """``{tool: (argv, env)}``. Every tool's modules are read from bytecode that
    round 0 writes under ``pycache``, as an installed package's are (pip compiles
    them): cresize runs from the source tree, where PYTHONDONTWRITEBYTECODE would
    otherwise make it compile its modules in every run, and its peers not."""
    env = dict(
        os.environ,
        PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
        OMP_NUM_THREADS=str(threads),
        PYTHONPYCACHEPREFIX=pycache,
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    flags = [
        src,
        "--fit",
        f"{BOX}x{BOX}",
        "--format",
        "png",
        "--jobs",
        str(threads),
        "-q",
        "--out-dir",
    ]
    tools = {
        "cresize": ([sys.executable, "-m", "cresize", "resize", *flags], env),
        # For information: the PNG files written with libvips' zlib settings.
        "cresize, libvips' PNG settings": ([sys.executable, "-c", VIPS_PNG, *flags], env),
    }
    try:
        import pyvips  # noqa: F401

        tools["libvips"] = (
            [sys.executable, "-c", VIPS.format(box=BOX), src],
            dict(env, VIPS_CONCURRENCY=str(threads)),
        )
    except ImportError:
        pass
    tools[f"pillow x{threads}"] = ([sys.executable, "-c", PILLOW.format(box=BOX), src], env)
    if threads != 1:
        tools["pillow x1"] = ([sys.executable, "-c", PILLOW.format(box=BOX), src], env)
    return tools


def _children_cpu():
    """CPU seconds (user + system) of the finished subprocesses; 0 where unknown."""
    try:
        import resource
    except ImportError:  # Windows
        return 0.0
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def run(threads, repeat, count=12):
    """Markdown table: median seconds per tool, ratios cresize / peer, worst PSNR."""
    from PIL import Image

    from cresize.image import resize_image

    root = tempfile.mkdtemp(prefix="cresize-files-")
    try:
        src = os.path.join(root, "in")
        os.mkdir(src)
        make_inputs(src, count)
        tools = commands(src, threads, os.path.join(root, "pycache"))
        times = {name: [] for name in tools}
        cpu = {name: [] for name in tools}
        folder = {name: os.path.join(root, f"out-{k}") for k, name in enumerate(tools)}
        for r in range(repeat + 1):  # round 0 warms the page cache and imports
            for name, (argv, env) in tools.items():
                out = f"{folder[name]}-{r}"
                os.mkdir(out)
                extra = [out, name.split("x")[-1]] if name.startswith("pillow") else [out]
                t, used = time.perf_counter(), _children_cpu()
                subprocess.run(argv + extra, env=env, check=True)
                if r:
                    times[name].append(time.perf_counter() - t)
                    cpu[name].append(_children_cpu() - used)
                if r < repeat:
                    shutil.rmtree(out)
        kb = {
            name: sum(e.stat().st_size for e in os.scandir(f"{folder[name]}-{repeat}")) / 1000
            for name in tools
        }
        exact = [
            resize_image(os.path.join(src, f"{i:02d}.jpg"), fit=(BOX, BOX), exact=True)
            for i in range(count)
        ]
        worst = {
            name: min(
                psnr(Image.open(os.path.join(f"{folder[name]}-{repeat}", f"{i:02d}.png")), exact[i])
                for i in range(count)
            )
            for name in tools
            if name.startswith("cresize")
        }
    finally:
        shutil.rmtree(root)
    med = {name: statistics.median(t) for name, t in times.items()}
    med_cpu = {name: statistics.median(t) for name, t in cpu.items()}
    lines = [
        (
            f"{count} JPEGs 4000x3000 q92 -> --fit {BOX}x{BOX} PNG, {threads} threads each, "
            f"medians of {repeat}"
        ),
        "",
        "| tool | median s | cresize / tool | median CPU s | cresize / tool, CPU | PNG files, KB |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {name} | {t:.3f} | {med['cresize'] / t:.2f} | {med_cpu[name]:.3f} | "
        f"{med_cpu['cresize'] / max(med_cpu[name], 1e-9):.2f} | {kb[name]:.0f} |"
        for name, t in med.items()
    ]
    if "libvips" not in med:
        lines.append("| libvips | skipped: pyvips is not installed | | | | |")
    lines += [""] + [
        f"{name} thumbnails vs exact full-decode lanczos3 antialias: worst PSNR "
        f"{db:.2f} dB over {count} files"
        for name, db in worst.items()
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--count", type=int, default=12)
    a = parser.parse_args()
    print(run(a.threads, a.repeat, a.count))
