"""``cresize resize``: resize image files from the command line.

Each file is read with Pillow, resized by the core kernels (``cresize.image``)
and written atomically. Many files run in ``--jobs`` spawned processes that
share the cores with OpenMP (processes x threads <= os.cpu_count()).
"""
import argparse
import multiprocessing
import os
import signal
import sys
import time

from cresize._tables import ALIASES, MODES

_GRACE_S = 10  # seconds a terminated worker has to exit before SIGALRM ends it

EPILOG = """examples:
  cresize resize photo.jpg --fit 1024x1024 -o small.jpg
  cresize resize photos/ -r --width 800 --out-dir thumbs --format webp --jobs 2
  cresize resize 'scans/*.tif' --scale 0.5 --suffix _half
"""


def _pair(text):
    try:
        w, h = text.lower().replace("\u00d7", "x").split("x")
        w, h = int(w), int(h)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 800x600; got {text!r}")
    if w < 1 or h < 1:
        raise argparse.ArgumentTypeError(f"width and height must be >= 1; got {text!r}")
    return (w, h)


def _positive(kind):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number; got {text!r}")
        if not value > 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"must be > 0; got {text!r}")
        return value
    return parse


def _parser():
    from cresize.image import FORMATS
    p = argparse.ArgumentParser(prog="cresize resize", epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                description="Resize image files with cresize's kernels.")
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="files, directories or glob patterns")
    p.add_argument("-o", "--output", metavar="FILE", help="output file (one input only)")
    p.add_argument("--out-dir", metavar="DIR", help="output directory (mirrors the input tree)")
    p.add_argument("-r", "--recursive", action="store_true", help="descend into subdirectories")
    p.add_argument("--suffix", default="", help="appended to each output's stem, e.g. _small")
    p.add_argument("--format", choices=sorted(FORMATS), help="convert to this format")
    g = p.add_argument_group("geometry (one of them; --width and --height may go together)")
    g.add_argument("--size", type=_pair, metavar="WxH", help="exact size")
    g.add_argument("--width", type=_positive(int), metavar="W", help="width, aspect kept")
    g.add_argument("--height", type=_positive(int), metavar="H", help="height, aspect kept")
    g.add_argument("--scale", type=_positive(float), metavar="F", help="scale factor")
    g.add_argument("--fit", type=_pair, metavar="WxH", help="largest size inside WxH, aspect kept")
    g.add_argument("--fill", type=_pair, metavar="WxH", help="cover WxH, then crop the centre")
    g.add_argument("--allow-upscale", action="store_true", help="let --fit/--fill enlarge")
    q = p.add_argument_group("quality")
    q.add_argument("--mode", default="lanczos3", choices=MODES + tuple(ALIASES), metavar="MODE",
                   help=f"{', '.join(MODES)} (default lanczos3)")
    q.add_argument("--no-antialias", dest="antialias", action="store_false",
                   help="do not widen the kernel when shrinking")
    q.add_argument("--align-corners", action="store_true")
    q.add_argument("--quality", type=int, choices=range(1, 101), metavar="1-100",
                   help="JPEG/WebP quality (default 90)")
    r = p.add_argument_group("running")
    r.add_argument("-j", "--jobs", type=int, default=1,
                   help="worker processes (0: one per core; default 1)")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary")
    r.add_argument("--overwrite", action="store_true", help="replace existing outputs")
    r.add_argument("--in-place", action="store_true", help="allow replacing the input itself")
    r.add_argument("-n", "--dry-run", action="store_true", help="list what would be done")
    return p


def main(argv=None):
    """Run ``cresize resize``; return 0, 1 (a file failed), 2 (usage) or 130 (interrupted)."""
    try:
        from cresize import image
        image._pil()
    except ImportError as exc:
        print(f"cresize resize: {exc}", file=sys.stderr)
        return 1
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code
    geometry = _geometry(parser, args)
    if geometry is None:
        return 2
    if args.output and args.out_dir:
        parser.print_usage(sys.stderr)
        print("cresize resize: error: give -o/--output or --out-dir, not both", file=sys.stderr)
        return 2
    if args.jobs < 0:
        print(f"cresize resize: error: --jobs must be >= 0; got {args.jobs}", file=sys.stderr)
        return 2
    tasks, failures = _plan(args)
    if args.output and len(tasks) + len(failures) > 1:
        print("cresize resize: error: -o/--output takes one input; use --out-dir for many",
              file=sys.stderr)
        return 2
    for src, reason in failures:
        print(f"cresize resize: {src}: {reason}", file=sys.stderr)
    if args.dry_run:
        for src, dst, _ in tasks:
            print(f"{src} -> {dst}")
        return 1 if failures else 0
    jobs, threads = split_cores(args.jobs, len(tasks))
    options = dict(geometry=geometry, mode=args.mode, antialias=args.antialias,
                   align_corners=args.align_corners, format=args.format, quality=args.quality,
                   num_threads=threads)
    start, done, bad = time.perf_counter(), 0, len(failures)
    bar = _Progress(len(tasks), enabled=not args.quiet and sys.stderr.isatty())
    previous = signal.getsignal(signal.SIGTERM)
    if previous is not None and _main_thread():
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        todo = [(src, dst, dict(options, overwrite=args.overwrite or same))
                for src, dst, same in tasks]
        for src, reason in _run(todo, jobs):
            if reason is None:
                done += 1
            else:
                bad += 1
                bar.clear()
                print(f"cresize resize: {src}: {reason}", file=sys.stderr)
            bar.step()
    except KeyboardInterrupt:
        bar.clear()
        print(f"cresize resize: interrupted after {done} file(s); no partial outputs were left",
              file=sys.stderr)
        return 130
    finally:
        if previous is not None and _main_thread():
            signal.signal(signal.SIGTERM, previous)
    bar.clear()
    if not args.quiet:
        seconds = time.perf_counter() - start
        print(f"cresize resize: {done} resized, {bad} failed in {seconds:.2f} s")
    return 1 if bad else 0


def split_cores(jobs, n_tasks):
    """``(processes, OpenMP threads each)`` with ``processes * threads <= os.cpu_count()``.

    ``jobs=0`` means one process per core; never more processes than tasks or
    cores; the threads are also capped by OpenMP's default (``OMP_NUM_THREADS``).
    """
    from cresize import _kernels
    cpus = os.cpu_count() or 1
    jobs = max(1, min(jobs or cpus, cpus, n_tasks))
    return jobs, max(1, min(_kernels.max_threads(), cpus // jobs))


def _geometry(parser, args):
    given = [name for name in ("size", "scale", "fit", "fill") if getattr(args, name) is not None]
    if args.width is not None or args.height is not None:
        given.append("width/height")
    if len(given) != 1:
        parser.print_usage(sys.stderr)
        print("cresize resize: error: give one of --size, --width/--height, --scale, --fit, --fill"
              + (f"; got {', '.join(given)}" if given else ""), file=sys.stderr)
        return None
    if given == ["width/height"]:
        return dict(size=(args.width, args.height))
    return {given[0]: getattr(args, given[0]), "allow_upscale": args.allow_upscale}


def _plan(args):
    """``[(src, dst, dst is src)]`` to do and ``[(src, reason)]`` refused before starting."""
    from cresize.image import FORMATS, _pil
    Image = _pil()
    Image.init()
    readable = {ext for ext, fmt in Image.registered_extensions().items() if fmt in Image.OPEN}
    sources, failures = [], []
    for item in args.inputs:
        if os.path.isdir(item):
            sources += [(path, item) for path in _walk(item, args.recursive, args.out_dir)
                        if os.path.splitext(path)[1].lower() in readable]
        elif os.path.lexists(item):
            sources.append((item, None))
        elif any(c in item for c in "*?["):
            base = item[:min(item.index(c) for c in "*?[" if c in item)]
            import glob
            matches = [m for m in sorted(glob.glob(item, recursive=True)) if not os.path.isdir(m)]
            sources += [(m, os.path.dirname(base) or ".") for m in matches]
            if not matches:
                failures.append((item, "the pattern matches no file"))
        else:
            failures.append((item, "no such file or directory"))
    tasks, seen = [], {}
    for src, base in sources:
        stem, ext = os.path.splitext(os.path.basename(src))
        name = stem + args.suffix + (FORMATS[args.format][1] if args.format else ext)
        if args.output:
            dst = args.output
        elif args.out_dir:
            sub = os.path.relpath(os.path.dirname(src), base) if base is not None else ""
            dst = os.path.normpath(os.path.join(args.out_dir, sub, name))
        else:
            dst = os.path.join(os.path.dirname(src), name)
        key = os.path.realpath(dst)
        same = key == os.path.realpath(src)
        if same and not args.in_place:
            failures.append((src, f"the output {dst} is the input itself (use --in-place, "
                                  f"--suffix, --format or --out-dir)"))
        elif os.path.lexists(dst) and not (same or args.overwrite):
            failures.append((src, f"{dst} exists (use --overwrite)"))
        elif key in seen and os.path.realpath(seen[key]) == os.path.realpath(src):
            continue  # the same file named twice
        elif key in seen:
            failures.append((src, f"{dst} is also the output of {seen[key]}"))
        else:
            seen[key] = src
            tasks.append((src, dst, same))
    return tasks, failures


def _walk(top, recursive, out_dir):
    """Files under ``top`` in a stable order, skipping ``out_dir`` and hidden entries."""
    skip = os.path.realpath(out_dir) if out_dir else None
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if recursive and not d.startswith(".")
                         and os.path.realpath(os.path.join(root, d)) != skip)
        yield from (os.path.join(root, f) for f in sorted(files) if not f.startswith("."))


def _run(tasks, jobs):
    """Yield ``(src, reason or None)`` per task, in order."""
    if jobs <= 1 or len(tasks) <= 1:
        yield from map(_one, tasks)
        return
    pool = multiprocessing.get_context("spawn").Pool(jobs, initializer=_worker_init)
    try:
        yield from pool.imap(_one, tasks)
        pool.close()
    except BaseException:
        pool.terminate()  # SIGTERM: each worker removes its temporary file and exits
        raise
    finally:
        pool.join()


def _one(task):
    """Resize one file; return ``(src, None)`` or ``(src, reason)``."""
    src, dst, o = task
    from cresize.image import open_image, resize_image, save_image
    try:
        if not os.path.isfile(src):
            return src, "not a regular file"
        image = open_image(src)
        result = resize_image(image, **o["geometry"], mode=o["mode"], antialias=o["antialias"],
                              align_corners=o["align_corners"], num_threads=o["num_threads"])
        os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
        save_image(result, dst, format=o["format"], quality=o["quality"], overwrite=o["overwrite"])
    except MemoryError:
        return src, "too large for memory"
    except Exception as exc:
        if type(exc).__name__ == "UnidentifiedImageError":
            return src, "not an image, or a format Pillow cannot read"
        return src, f"{type(exc).__name__}: {exc}"
    return src, None


def _worker_init():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which terminates us
    signal.signal(signal.SIGTERM, _exit)


def _exit(signum, frame):
    # An exception raised inside a finalizer or import callback is printed and
    # dropped; the alarm ends a worker that went on, rather than hang the pool.
    if hasattr(signal, "alarm"):
        signal.alarm(_GRACE_S)
    raise SystemExit(128 + signum)  # unwinds save_image, which removes its temporary file


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _main_thread():
    import threading
    return threading.current_thread() is threading.main_thread()


class _Progress:
    def __init__(self, total, enabled):
        self.total, self.count, self.enabled = total, 0, enabled and total > 0

    def step(self):
        self.count += 1
        if self.enabled:
            filled = 30 * self.count // self.total
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.count}/{self.total}")
            sys.stderr.flush()

    def clear(self):
        if self.enabled:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
