"""Group "dask": cresize.dask on a chunked array against Dask's own tools.

    python benchmarks/run.py --groups dask [--threads 2] [--repeat 7]
    python benchmarks/dask_group.py [--threads 2] [--repeat 7] [--write]

An (8000, 8000) float32 array in 2000x2000 chunks (persisted: each chunk its own
contiguous array, as when read from a store), computed on the threaded scheduler
with ``threads`` workers (cresize: one thread per task):

- integer-factor area (4x) against ``dask.array.coarsen(np.mean, ...)``, the
  block mean Dask offers; the two agree to float32 round-off (checked here);
- lanczos3 antialias to 2000x2000 against ``cresize.resize`` of the same data in
  memory (with ``threads`` threads): the cost of going through Dask.

Rounds alternate between the two calls of a row; medians; ratios below 1 mean
cresize.dask is faster.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

import cresize

SHAPE, CHUNK, FACTOR = (8000, 8000), 2000, 4


def measure(funcs, repeat):
    """Median seconds of each callable; the order alternates round by round."""
    times = {name: [] for name in funcs}
    for f in funcs.values():
        f()  # warm-up
    names = list(funcs)
    for round_ in range(repeat):
        for name in names[round_ % 2 :] + names[: round_ % 2]:
            t0 = time.perf_counter()
            funcs[name]()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(t) for name, t in times.items()}


def run(threads: int, repeat: int) -> str:
    import dask
    import dask.array as da

    import cresize.dask as cd

    data = np.random.default_rng(0).uniform(0, 1, SHAPE).astype(np.float32)
    with dask.config.set(scheduler="threads", num_workers=threads):
        x = da.from_array(data, chunks=CHUNK).map_blocks(np.ascontiguousarray).persist()
        n = SHAPE[0] // FACTOR
        area = cd.resize(x, (n, n), mode="area")
        coarse = da.coarsen(np.mean, x, {0: FACTOR, 1: FACTOR})
        ours, theirs = area.compute(), coarse.compute()
        scale = float(np.abs(theirs).max())
        diff = float(np.abs(ours.astype(np.float64) - theirs).max()) / scale
        assert diff < 4 * np.finfo(np.float32).eps, diff  # float32 round-off
        t_area = measure({"cresize": area.compute, "coarsen": coarse.compute}, repeat)
        lanczos = cd.resize(x, (n, n), mode="lanczos3", antialias=True)
        assert np.array_equal(
            lanczos.compute(),
            cresize.resize(data, (n, n), mode="lanczos3", antialias=True, num_threads=threads),
        )
        t_lz = measure(
            {
                "cresize": lanczos.compute,
                "memory": lambda: cresize.resize(
                    data, (n, n), mode="lanczos3", antialias=True, num_threads=threads
                ),
            },
            repeat,
        )
    rows = [
        "| case | cresize.dask ms | peer | peer ms | cresize.dask / peer | notes |",
        "|---|---|---|---|---|---|",
        (
            f"| area 8000x8000 -> {n}x{n}, chunks {CHUNK}^2 | {t_area['cresize'] * 1e3:.1f} "
            f"| `da.coarsen(np.mean)` | {t_area['coarsen'] * 1e3:.1f} "
            f"| {t_area['cresize'] / t_area['coarsen']:.2f} "
            f"| max difference {diff:.1e} of max abs (float32 eps {np.finfo(np.float32).eps:.1e}) |"
        ),
        (
            f"| lanczos3+aa 8000x8000 -> {n}x{n}, chunks {CHUNK}^2 | {t_lz['cresize'] * 1e3:.1f} "
            f"| `cresize.resize` in memory | {t_lz['memory'] * 1e3:.1f} "
            f"| {t_lz['cresize'] / t_lz['memory']:.2f} | bit-identical results |"
        ),
    ]
    return "\n".join(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--write", action="store_true", help="write benchmarks/RESULTS-dask.md")
    args = parser.parse_args(argv)
    table = run(args.threads, args.repeat)
    print(table)
    if args.write:
        import dask

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS-dask.md")
        with open(path, "w") as f:
            f.write(
                "# Benchmark results: group dask\n\n"
                f"{os.cpu_count()} logical cores; {args.threads} Dask workers (threaded "
                f"scheduler), one cresize thread per task; cresize {cresize.__version__}, "
                f"dask {dask.__version__}, numpy {np.__version__}, Python "
                f"{sys.version.split()[0]}\n\n"
                f"Command: `python benchmarks/dask_group.py --threads {args.threads} "
                f"--repeat {args.repeat} --write`\n\n"
                "Medians; rounds alternate between the two calls of a row; a ratio below "
                "1 means cresize.dask is faster.\n\n" + table + "\n"
            )
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
