"""``cresize resize``: resize image files from the command line.

Each file is read with Pillow and OpenCV (``cresize.image``: 16-bit colour and
JPEG pixels by OpenCV), resized by the core kernels and written atomically. ``--jobs`` files are done at
once in a thread pool: Pillow's and OpenCV's codecs and cresize's kernels release
the GIL, so decoding, resizing and encoding overlap without process start-up
(a spawn pool was measured slower, see docs/files.md); the usable CPUs are split
between files and OpenMP threads. The whole batch is planned before any file is
touched.
"""

import argparse
import concurrent.futures
import contextlib
import logging
import os
import signal
import sys
import threading
import time
import unicodedata
import warnings
from typing import NamedTuple

from cresize import _optional, _spec
from cresize._tables import MODES

#: The reason a worker returns for a file it did not start (or did not write) after Ctrl-C.
_CANCELLED = object()

#: Default of ``--max-pixels``: OpenCV's own limit (``CV_IO_MAX_IMAGE_PIXELS``). It
#: replaces Pillow's decompression-bomb limit (``MAX_IMAGE_PIXELS``, which refuses
#: more than 179 million pixels: a 200-megapixel phone photo) while the command runs.
MAX_PIXELS = 2**30


class _Notes(NamedTuple):
    """What the run says about a file it wrote: the format its 16-bit samples were
    rounded for (once a run), that only its first frame or page was resized, and
    why its ICC profile was not kept (once a run for each reason), what metadata was
    left out and why (each file: ``_Saved.left_out``), and what its readers warned of
    (each file: ``_warnings_per_file``)."""

    narrowed: str | None
    several: str | None
    icc_lost: str | None = None
    left_out: tuple[str, ...] = ()
    warned: tuple[str, ...] = ()


EPILOG = """examples:
  cresize resize photo.jpg --fit 1024x1024 -o small.jpg
  cresize resize photos/ -r --width 800 --out-dir thumbs --format webp --jobs 2
  cresize resize 'scans/*.tif' --scale 0.5 --suffix _half

exit status:
  0    every file done (or listed, with -n)
  1    an input failed (each one said, the rest done; with -n: would be refused),
       or the batch was refused before it started (with --overwrite, an output
       would replace another input)
  2    a usage error, or the command's own output (stdout) cannot be written
  130  interrupted (Ctrl-C, SIGTERM)
  141  whatever read the command's output has gone (| head)
"""


def _pair(text):
    try:
        w, h = text.lower().replace("\u00d7", "x").split("x")
        w, h = int(w), int(h)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected WIDTHxHEIGHT such as 800x600; got {text!r}"
        ) from None
    if w < 1 or h < 1:
        raise argparse.ArgumentTypeError(f"width and height must be >= 1; got {text!r}")
    for name, n in (("the width", w), ("the height", h)):
        _length(n, name, text)
    return (w, h)


def _length(n, name, text):
    """``n`` refused as ``_spec.length`` refuses an axis length (2**40 or more), in the
    words of an option: else a file failed with "size must be < ...; got (H, W)"."""
    try:
        _spec.length(n, name, text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive(kind, name=None):
    """A parser of a positive ``kind``; an int (``name``: what it is, a length) below
    ``_spec.MAX_LENGTH``, a float below it too (a factor as large is too large even for
    a one-pixel image)."""

    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            number = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"expected {number}; got {text!r}") from None
        if not value > 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"must be > 0; got {text!r}")
        if kind is int:
            _length(value, name, text)
        elif not value < _spec.MAX_LENGTH:  # a 1-pixel side would be too long already
            raise argparse.ArgumentTypeError(
                f"must be < {_spec.MAX_LENGTH} (the longest side an image can have, "
                f"from one pixel); got {text!r}"
            )
        return value

    return parse


class _AsTyped(argparse.Action):
    """Stores an option's value, parsed by ``parse`` (a ``type=`` function: its
    ``ArgumentTypeError`` is argparse's usage error, in the same words), and the text it
    was given as, in ``namespace.typed`` (by ``dest``): messages quote the option as it
    was typed (``--scale 1e12``, not Python's ``1000000000000.0``; see ``_typed``)."""

    def __init__(self, option_strings, dest, parse, **kwargs):
        super().__init__(option_strings, dest, **kwargs)
        self.parse = parse

    def __call__(self, parser, namespace, values, option_string=None):
        try:
            value = self.parse(values)
        except argparse.ArgumentTypeError as exc:
            raise argparse.ArgumentError(self, str(exc)) from None
        setattr(namespace, self.dest, value)
        namespace.typed = {**getattr(namespace, "typed", {}), self.dest: values.strip()}


def _quality(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 100:
        raise argparse.ArgumentTypeError(f"must be an int from 1 to 100; got {text!r}")
    return value


def _mode(text):
    """A mode name or alias; argparse's "invalid choice" words, and the near miss."""
    try:
        _spec.canonical_mode(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid choice: {text!r} (choose from {', '.join(_spec.NAMES)})"
            + _spec.mode_hint(text)
        ) from None
    return text


def _parser():
    from cresize.image import FORMATS

    p = argparse.ArgumentParser(
        prog="cresize resize",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Resize image files with cresize's kernels.",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="files, directories or glob patterns")
    p.add_argument("-o", "--output", metavar="FILE", help="output file (one input only)")
    p.add_argument("--out-dir", metavar="DIR", help="output directory (mirrors the input tree)")
    p.add_argument("-r", "--recursive", action="store_true", help="descend into subdirectories")
    p.add_argument("--suffix", default="", help="appended to each output's stem, e.g. _small")
    p.add_argument(
        "--format",
        choices=sorted(FORMATS),
        help="convert to this format (alpha is flattened on white for jpeg and bmp)",
    )
    g = p.add_argument_group(
        "geometry (one of them; --width and --height together give that exact size)"
    )
    typed = dict(action=_AsTyped)  # the text given is kept for messages (_typed)
    p.set_defaults(typed={})
    g.add_argument("--size", parse=_pair, metavar="WxH", help="exact size", **typed)
    g.add_argument(
        "--width",
        parse=_positive(int, "the width"),
        metavar="W",
        help="width (alone: aspect kept)",
        **typed,
    )
    g.add_argument(
        "--height",
        parse=_positive(int, "the height"),
        metavar="H",
        help="height (alone: aspect kept)",
        **typed,
    )
    g.add_argument("--scale", parse=_positive(float), metavar="F", help="scale factor", **typed)
    g.add_argument(
        "--fit", parse=_pair, metavar="WxH", help="largest size inside WxH, aspect kept", **typed
    )
    g.add_argument(
        "--fill", parse=_pair, metavar="WxH", help="cover WxH, then crop the centre", **typed
    )
    g.add_argument(
        "--allow-upscale", action="store_true", help="let --fit/--fill enlarge (with them only)"
    )
    q = p.add_argument_group("quality")
    q.add_argument(
        "--mode",
        default="lanczos3",
        type=_mode,
        metavar="MODE",
        help=f"{', '.join(MODES)} (default lanczos3)",
    )
    q.add_argument(
        "--no-antialias",
        dest="antialias",
        action="store_false",
        help="do not widen the kernel when shrinking",
    )
    q.add_argument("--align-corners", action="store_true")
    q.add_argument(
        "--quality",
        type=_quality,
        metavar="1-100",
        help="JPEG/WebP/AVIF quality (default 90; AVIF: Pillow's 75; a lossless WebP "
        "written as WebP: lossless unless given)",
    )
    q.add_argument(
        "--exact", action="store_true", help="decode JPEGs at full size (no shrink-on-load; slower)"
    )
    r = p.add_argument_group("running")
    r.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=1,
        help="files at once, in threads (0: one per usable CPU; default 1)",
    )
    r.add_argument(
        "--max-pixels",
        type=int,
        default=MAX_PIXELS,
        metavar="N",
        help=(
            f"refuse images of more than N pixels, read or resized (0: no limit; "
            f"default 2**30 = {MAX_PIXELS:,})"
        ),
    )
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary")
    r.add_argument("--overwrite", action="store_true", help="replace existing outputs")
    r.add_argument(
        "--skip-existing",
        action="store_true",
        help="leave existing outputs, and their inputs unread (resume a batch; the "
        "outputs are written whole or not at all)",
    )
    r.add_argument(
        "--in-place",
        action="store_true",
        help="allow an output to replace its own input (an error where none would)",
    )
    r.add_argument(
        "-n",
        "--dry-run",
        action="store_true",
        help="list what would be done, and what refused (each input's header is read)",
    )
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
        args = parser.parse_args(_joined_values(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return exc.code
    geometry = _geometry(parser, args)
    if geometry is None:
        return 2
    message = _usage_error(args)
    if message is not None:
        parser.print_usage(sys.stderr)
        print(f"cresize resize: error: {message}", file=sys.stderr)
        return 2
    tasks, failures, skipped, existing = _plan(args)
    message = _in_place_unused(args, tasks)
    if message is not None:
        parser.print_usage(sys.stderr)
        print(f"cresize resize: error: {message}", file=sys.stderr)
        return 2
    if args.output and len(tasks) + len(failures) + len(existing) > 1:
        print(
            "cresize resize: error: -o/--output takes one input; use --out-dir for many",
            file=sys.stderr,
        )
        return 2
    clashes = _clashes(tasks, failures + existing)
    if clashes:
        for src, dst, other in clashes:
            same = os.path.realpath(dst) == os.path.realpath(other)
            print(
                f"cresize resize: error: the output {dst} of {src} would replace the input "
                f"{other} before it is read"
                + ("" if same else " (one name on a case-insensitive file system)"),
                file=sys.stderr,
            )
        print(
            "cresize resize: nothing was done; choose another --suffix or --out-dir",
            file=sys.stderr,
        )
        return 1
    quality_unused = _quality_unused(args, tasks)
    if quality_unused and quality_unused[1]:
        parser.print_usage(sys.stderr)
        print(f"cresize resize: error: {quality_unused[0]}", file=sys.stderr)
        return 2
    for src, reason in failures:
        print(f"cresize resize: {src}: {reason}", file=sys.stderr)
    if quality_unused:
        print(f"cresize resize: note: {quality_unused[0]}", file=sys.stderr)
    jobs, threads = split_cores(args.jobs, len(tasks))
    options = dict(
        geometry=geometry,
        mode=args.mode,
        antialias=args.antialias,
        align_corners=args.align_corners,
        format=args.format,
        quality=args.quality,
        num_threads=threads,
        exact=args.exact,
        max_pixels=args.max_pixels,
        option=_typed(args),
    )
    if args.dry_run:
        refused = 0
        with _without_pillow_limit(image._pil()), _warnings_per_file():
            for src, dst, same in tasks:
                reason = _would_refuse(src, dst, dict(options, in_place=same))
                refused += reason is not None
                print(f"{src} -> {dst}" if reason is None else f"{src}: would be refused: {reason}")
        for src in skipped:
            print(f"{src}: skipped (an output of this batch)")
        for src, dst in existing:
            print(f"{src}: skipped (its output {dst} exists)")
        return 1 if failures or refused else 0
    start, results = time.perf_counter(), []
    counts = {"done": 0, "bad": len(failures), "narrowed": False}
    icc_said = set()  # the reasons already given for dropped ICC profiles
    bar = _progress(len(tasks), enabled=not args.quiet and sys.stderr.isatty())

    def report(src, reason, notes):
        if reason is _CANCELLED:
            return
        narrowed, several, icc_lost, left_out, warned = notes or _Notes(None, None)
        if reason is None:
            counts["done"] += 1
        else:
            counts["bad"] += 1
            bar.clear()
            print(f"cresize resize: {src}: {reason}", file=sys.stderr)
        if several:
            bar.clear()
            print(f"cresize resize: {src}: note: {several}", file=sys.stderr)
        if narrowed and not counts["narrowed"]:
            counts["narrowed"] = True
            bar.clear()
            print(
                f"cresize resize: note: 16-bit samples are rounded to 8 bits for "
                f"{narrowed} output (write PNG or TIFF to keep 16 bits)",
                file=sys.stderr,
            )
        if icc_lost and icc_lost not in icc_said:
            icc_said.add(icc_lost)
            bar.clear()
            print(
                f"cresize resize: {src}: note: its ICC colour profile is dropped: {icc_lost} "
                f"(said once a run)",
                file=sys.stderr,
            )
        for what in left_out:
            bar.clear()
            print(f"cresize resize: {src}: note: {what}", file=sys.stderr)
        if warned and reason is None:  # a failed file's one line says why
            bar.clear()
            more = f" (and {len(warned) - 3} more)" if len(warned) > 3 else ""
            print(
                f"cresize resize: {src}: note: written, but its reader warned: "
                f"{'; '.join(warned[:3])}{more}",
                file=sys.stderr,
            )
        bar.step()

    _reuse_freed_memory()
    stop = threading.Event()
    todo = [
        (src, dst, dict(options, overwrite=args.overwrite or same, in_place=same))
        for src, dst, same in tasks
    ]
    try:
        with _stop_on_signals(stop), _without_pillow_limit(image._pil()), _warnings_per_file():
            _run(todo, jobs, report, results, stop)
    except KeyboardInterrupt:
        bar.close()
        done = sum(reason is None for _, reason, _ in results)
        print(
            f"cresize resize: interrupted after {done} file(s); no partial outputs were left",
            file=sys.stderr,
        )
        return 130
    bar.close()
    if not args.quiet:
        seconds = time.perf_counter() - start
        also = f", {len(skipped)} skipped (outputs of this batch)" if skipped else ""
        also += f", {len(existing)} skipped (their outputs exist)" if existing else ""
        print(
            f"cresize resize: {counts['done']} resized, {counts['bad']} failed{also} in "
            f"{seconds:.2f} s"
        )
    return 1 if counts["bad"] else 0


#: glibc's ``mallopt`` parameters (malloc.h) and the values the CLI sets.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD = 32 << 20  # glibc's largest: buffers above it still come from mmap
_TRIM_THRESHOLD = 128 << 20


def _reuse_freed_memory():
    """glibc only: let the large per-file buffers (a 12-MP JPEG decoded at 1/2 is
    9 MB) be reused file after file from the heap.

    By default each comes from a fresh ``mmap``, whose pages the kernel faults in
    and zeroes again for every file: about 2,300 page faults a file. Set here, in
    the command's own process, as ``MALLOC_MMAP_THRESHOLD_`` /
    ``MALLOC_TRIM_THRESHOLD_`` would (those, when set, win). The cost: up to
    ``_TRIM_THRESHOLD`` of freed memory is kept until the run ends.
    """
    if any(name in os.environ for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")):
        return
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
            return
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, ValueError, OSError, TypeError):  # not glibc, or no confstr
        return
    mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
    mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)


def usable_cpus():
    """The CPUs this process may run on (affinity, ``PYTHON_CPU_COUNT``), at least 1."""
    if hasattr(os, "process_cpu_count"):  # Python 3.13+
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def split_cores(jobs, n_tasks):
    """``(files at once, OpenMP threads each)`` with ``files * threads <= usable_cpus()``.

    ``jobs=0`` means one file per usable CPU; never more files than tasks or
    CPUs; the threads are also capped by OpenMP's default (``OMP_NUM_THREADS``).
    """
    from cresize import _threads

    cpus = usable_cpus()
    jobs = max(1, min(jobs or cpus, cpus, n_tasks))
    return jobs, max(1, min(_threads.default(), cpus // jobs))


def _usage_error(args):
    """The first error among options that argparse cannot check one by one, or None."""
    if args.align_corners and not _spec.takes_align_corners(args.mode):
        return (
            f"--align-corners is not defined for --mode {args.mode}; it is allowed for "
            f"{_spec.listed(_spec.ALIGN_CORNERS_MODES)}"
        )
    if args.output and args.out_dir:
        return "give -o/--output or --out-dir, not both"
    if args.skip_existing and args.overwrite:
        return "give --overwrite or --skip-existing, not both"
    # Each output of --in-place is its input, which exists whether it was resized or not.
    if args.skip_existing and args.in_place:
        return (
            "--skip-existing cannot tell which inputs --in-place has resized already (each "
            "output is its input, which exists either way); give one or the other"
        )
    # An unset variable in a script (--out-dir "$DEST") was taken as no option at all:
    # the outputs went beside the inputs.
    for name, value, what in (
        ("-o/--output", args.output, "file"),
        ("--out-dir", args.out_dir, "folder"),
    ):
        if value == "":
            return f"{name} is empty; give a {what} name"
    # "-" names standard output to most command-line tools (ImageMagick's "-"): it wrote
    # a file named "-" in the working folder, and a pipe got the summary line.
    if args.output == "-":
        return (
            "-o/--output - would be a file named '-', not standard output (images are "
            "written to files only); give a file name (./- for that one)"
        )
    if args.output and args.output.endswith(tuple(sep for sep in (os.sep, os.altsep) if sep)):
        return (
            f"-o/--output {args.output} ends with a path separator: a folder's name; use "
            f"--out-dir {args.output}"
        )
    if any(sep and sep in args.suffix for sep in (os.sep, os.altsep)):
        return (
            f"--suffix must not contain a path separator; got {args.suffix!r} (use "
            f"--out-dir for another folder)"
        )
    if args.output and args.suffix:
        return (
            "--suffix has no effect with -o/--output (the output is named there); give one "
            "or the other"
        )
    if args.output and os.path.isdir(args.output):
        return f"-o/--output is a directory; use --out-dir {args.output}"
    # else each file failed with "FileExistsError: [Errno 17] File exists: 'DIR'"
    if args.out_dir and os.path.exists(args.out_dir) and not os.path.isdir(args.out_dir):
        return f"--out-dir {args.out_dir} is a file, not a directory"
    folder = os.path.dirname(args.output or "")
    if folder and os.path.exists(folder) and not os.path.isdir(folder):
        return f"-o/--output {args.output}: its directory {folder} is a file"
    if args.output and args.format:  # -o a.png --format jpeg wrote a JPEG named a.png
        from cresize.image import FORMATS, _extension_format

        named = _extension_format(os.path.splitext(args.output)[1].lower(), "SAVE")
        if named is not None and named != FORMATS[args.format][0]:
            return (
                f"-o/--output {args.output} is a {named} file name, and --format "
                f"{args.format} writes {FORMATS[args.format][0]}; give one of them (or a "
                f"name without a known extension)"
            )
    # Accepted and ignored: --width 2000 --allow-upscale enlarges with or without it.
    if args.allow_upscale and args.fit is None and args.fill is None:
        given = [
            f"--{name}" for name in ("size", "width", "height", "scale") if getattr(args, name)
        ]
        return (
            f"--allow-upscale has no effect with {' and '.join(given)} (it lets --fit and "
            f"--fill enlarge; the other sizes are made as given); give one or the other"
        )
    for name, value in (("--jobs", args.jobs), ("--max-pixels", args.max_pixels)):
        if value < 0:
            return f"{name} must be >= 0; got {value}"
    return None


#: Options whose value may begin with "-": ``--size -3x5`` reaches ``_pair``'s message
#: (argparse takes "-3x5" for an option, "expected one argument"), see ``_joined_values``.
_VALUE_OPTIONS = ("--size", "--fit", "--fill", "--width", "--height", "--scale", "--quality")


def _in_place_unused(args, tasks):
    """Why ``--in-place`` has no effect on the batch ``tasks``, or None: it lets an output
    replace its own input, and with ``-o``, ``--out-dir``, ``--suffix`` or ``--format``
    no output may be its input (``-o a.png`` of the input ``a.png`` is). A usage error,
    as ``--quality`` where no output takes it: it was accepted and did nothing."""
    if not args.in_place or not tasks or any(same for _, _, same in tasks):
        return None
    given = [
        name
        for name, value in (
            ("-o/--output", args.output),
            ("--out-dir", args.out_dir),
            ("--suffix", args.suffix),
            ("--format", args.format),
        )
        if value
    ]
    return (
        f"--in-place has no effect with {' and '.join(given)}: no output of this batch is "
        f"its own input (--in-place lets an output replace its input); give one or the other"
    )


def _joined_values(argv):
    """``argv`` with each of ``_VALUE_OPTIONS`` followed by a value that begins with "-"
    and a digit or point written as one word (``--size=-3x5``)."""
    out, i = [], 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return out + list(argv[i:])
        following = argv[i + 1] if i + 1 < len(argv) else ""
        if arg in _VALUE_OPTIONS and len(following) > 1 and following[0] == "-":
            if following[1].isdigit() or following[1] == ".":
                out.append(f"{arg}={following}")
                i += 2
                continue
        out.append(arg)
        i += 1
    return out


#: Output formats that ``--quality`` sets (image._save).
QUALITY_FORMATS = ("JPEG", "WEBP", "AVIF")


def _quality_unused(args, tasks):
    """``(message, error)`` when ``--quality`` is given and some outputs are of formats
    that take none (PNG, GIF, TIFF, BMP): an error when none of them takes it (as
    ``--suffix`` with ``-o``), a note when only some do; else None."""
    from cresize.image import _format

    if args.quality is None or not tasks:
        return None
    formats = set()
    for _, dst, _ in tasks:
        try:
            formats.add(_format(dst, args.format))
        except (ValueError, TypeError):  # the file fails later, with the reason
            continue
    unused = sorted(formats.difference(QUALITY_FORMATS))
    if not unused:
        return None
    listed = ", ".join(unused)
    if formats & set(QUALITY_FORMATS):
        return (
            f"--quality is used for JPEG, WebP and AVIF output only, not for the {listed} files",
            False,
        )
    return f"--quality has no effect on {listed} output (it sets JPEG, WebP and AVIF quality)", True


def _geometry(parser, args):
    given = [name for name in ("size", "scale", "fit", "fill") if getattr(args, name) is not None]
    if args.width is not None or args.height is not None:
        given.append("width/height")
    if len(given) != 1:
        parser.print_usage(sys.stderr)
        print(
            "cresize resize: error: give one of --size, --width/--height, --scale, --fit, --fill"
            + (f"; got {', '.join(given)}" if given else ""),
            file=sys.stderr,
        )
        return None
    if given == ["width/height"]:
        return dict(size=(args.width, args.height))
    return {given[0]: getattr(args, given[0]), "allow_upscale": args.allow_upscale}


def _typed(args):
    """The geometry option as it was typed (``--fit 800x600``, ``--scale 1e12``; width
    first), for the messages of a file."""
    names = ("width", "height") if {"width", "height"} & args.typed.keys() else args.typed
    return " ".join(f"--{name} {args.typed[name]}" for name in names if name in args.typed)


def _plan(args):
    """``[(src, dst, dst is src)]`` to do, ``[(src, reason)]`` refused before starting,
    the files found that are this batch's own outputs (not inputs), and ``[(src, dst)]``
    not done because ``dst`` exists (``--skip-existing``: a regular file, or a link to
    one; not read at all). Such a file is planned as any other: its output is still
    taken, so a second input of that output name is refused as without the option."""
    from cresize.image import FORMATS, _extension_format

    sources, failures = [], []
    for item in args.inputs:
        if os.path.isdir(item):
            found = [
                (path, item)
                for path in _walk(item, args.recursive, args.out_dir, failures)
                if _extension_format(os.path.splitext(path)[1].lower()) is not None
            ]
            if not found:  # as a pattern that matches no file: said, not a silent no-op
                failures.append((item, _no_images(item, args.recursive, args.out_dir)))
            sources += found
        elif os.path.lexists(item):
            sources.append((item, None))
        elif any(c in item for c in "*?["):
            base = item[: min(item.index(c) for c in "*?[" if c in item)]
            import glob

            matches = [m for m in sorted(glob.glob(item, recursive=True)) if not os.path.isdir(m)]
            sources += [(m, os.path.dirname(base) or ".") for m in matches]
            if not matches:
                failures.append((item, "the pattern matches no file"))
        else:
            failures.append((item, "no such file or directory"))
    planned = []
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
        planned.append((src, base, dst, os.path.realpath(src), os.path.realpath(dst)))
    # A file found in a folder or by a pattern that is this batch's own output for
    # another input (a_small.jpg of a.jpg, left by an earlier run) is not an input:
    # a re-run would otherwise make a_small_small.jpg.
    outputs = {key for _, _, _, real, key in planned if key != real}
    tasks, seen, folded, skipped, existing = [], {}, {}, [], []
    for src, base, dst, real, key in planned:
        if base is not None and real in outputs:
            skipped.append(src)
            continue
        # The input itself also under another name of a case-insensitive folder (a.PNG
        # -> a.png): the input's own folder says whether it folds the two names.
        fold = _name_key(key)
        same = key == real or (
            fold == _name_key(real) and os.path.lexists(key) and os.path.samefile(key, real)
        )
        out_ext = os.path.splitext(dst)[1].lower()
        if not args.format and _extension_format(out_ext, "SAVE") is None:
            failures.append(
                (
                    src,
                    f"cannot tell the output format from the extension {out_ext!r} of "
                    f"{dst}; give --format (one of {', '.join(FORMATS)})",
                )
            )
        elif os.path.isdir(dst):  # else "exists (use --overwrite)", then EISDIR with it
            failures.append((src, f"the output {dst} is a folder"))
        elif same and not args.in_place:
            failures.append(
                (
                    src,
                    f"the output {dst} is the input itself"
                    + ("" if key == real else " on a case-insensitive file system")
                    + " (use --in-place, --suffix, --format or --out-dir)",
                )
            )
        elif os.path.lexists(dst) and not (
            same or args.overwrite or (args.skip_existing and os.path.isfile(dst))
        ):
            failures.append((src, f"{dst} exists (use --overwrite)"))
        elif key in seen and os.path.realpath(seen[key]) == real:
            continue  # the same file named twice
        elif key in seen:
            failures.append((src, f"{dst} is also the output of {seen[key]}"))
        elif fold in folded and _one_file(key, folded[fold][0]):
            other_dst, other_src = folded[fold][1:]
            failures.append(
                (
                    src,
                    f"{dst} and {other_dst} (the output of {other_src}) differ only in "
                    f"letter case or Unicode normalization (an accent as one character or "
                    f"two): one file on a case-insensitive file system (macOS, Windows, "
                    f"exFAT, SMB); rename one of the inputs",
                )
            )
        else:
            seen[key] = src
            folded.setdefault(fold, (key, dst, src))
            if args.skip_existing and os.path.isfile(dst):  # never `same`: no --in-place
                existing.append((src, dst))
            else:
                tasks.append((src, dst, same))
    return tasks, failures, skipped, existing


def _name_key(path):
    """``path`` as a case-insensitive, normalization-insensitive file system compares
    names: Unicode's canonical caseless match, ``NFD(casefold(NFD(path)))``. This is
    APFS's own rule (case-insensitive variant: NFD, then full case folding, so
    ``\u00e9`` = ``e\u0301``, ``A`` = ``a``, ``\u00df`` = ``ss``); HFS+ (NFD) and
    exFAT, NTFS and SMB (an up-case table) fold less. Compatibility forms (NFKC:
    full-width ``\uff21`` and ``A``, ``\u00b2`` and ``2``) stay two names, as they
    are on all of them."""
    nfd = unicodedata.normalize("NFD", path)
    return unicodedata.normalize("NFD", nfd.casefold())


def _one_file(key, other):
    """Whether the real paths ``key`` and ``other`` of one ``_name_key`` are one file
    on a case-insensitive file system. The rule is by name (the output folder may not
    exist yet, and a file system can fold case in one folder and not in the next),
    except that two names that the folder already holds as two files are two files
    there (in place, or a re-run)."""
    both = os.path.lexists(key) and os.path.lexists(other)
    return not (both and not os.path.samefile(key, other))


def _no_images(folder, recursive, out_dir):
    """Why a folder given as an input gave no file (without -r, its subfolders are not
    read; hidden ones and ``out_dir`` never are, as in ``_walk``)."""
    skip = os.path.realpath(out_dir) if out_dir else None
    subfolders = links = 0  # links to folders: -r does not enter them either
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith(".") or not entry.is_dir():
                    continue
                if entry.is_symlink():
                    links += 1
                elif os.path.realpath(entry) != skip:
                    subfolders += 1
    except OSError:
        pass
    if links > 1:
        linked = (
            f" (its {links} symbolic links to folders are not followed, even with -r: "
            f"name them to resize what they hold)"
        )
    elif links:
        linked = (
            " (its symbolic link to a folder is not followed, even with -r: name it to "
            "resize what it holds)"
        )
    else:
        linked = ""
    if subfolders and not recursive:
        return (
            f"no image file in the folder; it has {subfolders} subfolder"
            f"{'s' if subfolders > 1 else ''}: -r/--recursive descends into them{linked}"
        )
    return "no image file in the folder" + (" or its subfolders" if recursive else "") + linked


def _walk(top, recursive, out_dir, failures):
    """Files under ``top`` in a stable order, skipping ``out_dir`` and hidden entries;
    a folder that cannot be listed is added to ``failures`` as ``(folder, reason)``."""
    skip = os.path.realpath(out_dir) if out_dir else None

    def unreadable(exc):
        failures.append((exc.filename, f"cannot read the folder: {exc.strerror}"))

    for root, dirs, files in os.walk(top, onerror=unreadable):
        dirs[:] = sorted(
            d
            for d in dirs
            if recursive
            and not d.startswith(".")
            and os.path.realpath(os.path.join(root, d)) != skip
        )
        yield from (os.path.join(root, f) for f in sorted(files) if not f.startswith("."))


def _clashes(tasks, failures):
    """``[(src, dst, other input)]`` where an output is another input of the batch:
    the same file, or a name that is one file with it on a case-insensitive file
    system (``_name_key``, ``_one_file``: the rule for two outputs)."""
    named = [src for src, _ in failures if os.path.isfile(src)] + [src for src, _, _ in tasks]
    inputs = {}
    for other in named:
        real = os.path.realpath(other)
        inputs.setdefault(_name_key(real), []).append((other, real))
    clashes = []
    for src, dst, _ in tasks:
        key, own = os.path.realpath(dst), os.path.realpath(src)
        clashes += [
            (src, dst, other)
            for other, real in inputs.get(_name_key(key), [])
            if other != src and real != own and _one_file(key, real)
        ]
    return clashes


def _run(tasks, jobs, report, results, stop=None):
    """Do ``tasks`` in a pool of ``jobs`` threads; ``report(src, reason, notes)`` each.

    Each file's ``fsync`` and rename into place (``_atomic._commit``) run in one
    more thread, so the worker goes on with its next file while the disk
    catches up; a file is reported, in order, once it is renamed (or failed).
    Each file's final ``(src, reason, notes)`` is appended to ``results`` as
    soon as it is known. When ``stop`` is set (Ctrl-C or SIGTERM, see
    ``_stop_on_signals``), no new file is started and none is written any more;
    the files being written are finished and the pending syncs waited for (each
    file is renamed into place whole, or removed); then KeyboardInterrupt is
    raised, here, at a known point, and ``results`` counts exactly the files
    written.
    """
    cancel = stop if stop is not None else threading.Event()
    syncs = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="cresize-sync")

    def work(task):
        src, reason, notes = _one(task, cancel, syncs)
        if not isinstance(reason, concurrent.futures.Future):
            results.append((src, reason, notes))
            return src, reason, notes, None
        reason.add_done_callback(lambda done: results.append(_synced(src, notes, done)))
        return src, None, notes, reason

    def waits_for(future):
        """What the in-order report of ``future`` waits for now, or None: ready."""
        if not future.done():
            return future
        pending = future.result()[3]
        return None if pending is None or pending.done() else pending

    pool = concurrent.futures.ThreadPoolExecutor(jobs, thread_name_prefix="cresize-resize")
    unreported, queue = [], iter(tasks)
    try:
        while True:
            while len(unreported) < 2 * jobs:
                task = next(queue, None)
                if task is None:
                    break
                unreported.append(pool.submit(work, task))
            if not unreported:
                break
            # Reports go in order, so only the first file's work or sync can free a
            # place: wait for it alone (later files that are done would wake this
            # loop at once, again and again). The timeout bounds how long a stop
            # request waits to be seen.
            first = waits_for(unreported[0])
            if first is not None:
                concurrent.futures.wait([first], timeout=0.1)
            while unreported and waits_for(unreported[0]) is None:  # in order
                src, reason, notes, pending = unreported.pop(0).result()
                report(
                    *(_synced(src, notes, pending) if pending is not None else (src, reason, notes))
                )
            if cancel.is_set():
                raise KeyboardInterrupt
    except BaseException:
        cancel.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)
        syncs.shutdown(wait=True)  # never cancelled: each pending file is renamed or removed


def _one(task, cancel=None, later=None):
    """Resize one file; return ``(src, reason or None, _Notes or None)``.

    With ``later`` (an executor), the file is only written to its temporary
    file here; ``reason`` is then the future of its ``fsync`` and rename. What
    its readers warned of (``_warnings_per_file``) is in the notes of a file
    written.
    """
    _FILE.warned = []
    try:
        src, reason, notes = _resize_one(task, cancel, later)
        if notes is not None and _FILE.warned:
            notes = notes._replace(warned=tuple(dict.fromkeys(_FILE.warned)))
        return src, reason, notes
    finally:
        _FILE.warned = None


def _resize_one(task, cancel, later):
    """``_one`` of a file, but for its warnings."""
    src, dst, o = task
    from cresize.image import _format, _save, narrows, resize_image

    if cancel is not None and cancel.is_set():
        return src, _CANCELLED, None
    reading = True
    try:
        refused, header = _refused(src, dst, o)
        if refused is not None:
            return src, refused, None
        result = resize_image(
            src,
            **o["geometry"],
            mode=o["mode"],
            antialias=o["antialias"],
            align_corners=o["align_corners"],
            num_threads=o["num_threads"],
            exact=o["exact"],
        )
        fmt = _format(dst, o["format"])
        if header.frames is None:
            several = f"the {header.unit} after the first cannot be read (a damaged file?)"
        elif header.frames > 1:
            several = f"{header.frames} {header.unit}"
        else:
            several = None
        notes = _Notes(
            fmt if narrows(result, fmt) else None,
            several and f"{several}; only the first was resized",
        )
        if cancel is not None and cancel.is_set():
            return src, _CANCELLED, None
        reading = False
        os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
        saved = _save(result, dst, o["format"], o["quality"], o["overwrite"], later)
    except Exception as exc:
        return src, _reason(exc, reading), None
    return src, saved.pending, notes._replace(icc_lost=saved.icc_lost, left_out=saved.left_out)


def _would_refuse(src, dst, o):
    """Why the real run would refuse ``src`` (to be written to ``dst``) before decoding
    its pixels (``_refused``,
    a failure to read its header included), or None; for ``-n/--dry-run``. Its readers'
    warnings are not said: the real run says them once the file is written."""
    _FILE.warned = []
    try:
        return _refused(src, dst, o)[0]
    except Exception as exc:
        return _reason(exc, reading=True)
    finally:
        _FILE.warned = None


def _refused(src, dst, o):
    """``(reason, header)``: why the input ``src`` is refused before its pixels are
    decoded, with the output ``dst`` and the options ``o`` of its task (None: it is
    not), and its header (None where it was not read). What reading the header raises
    is raised. The real run and ``-n/--dry-run`` (``_dry_run``) ask the same."""
    from cresize.image import _format, _header, _too_large_for, target_size

    if not os.path.isfile(src):
        return _not_a_file(src), None
    if os.path.getsize(src) == 0:  # an interrupted copy or download, say
        return "an empty file (0 bytes)", None
    header = _header(src)
    (w, h), limit = header.size, o["max_pixels"]
    if limit and w * h > limit:
        return (
            f"{w}x{h} is {w * h:,} pixels, more than --max-pixels {limit:,} (raise it "
            f"for a file you trust; the limit guards against decompression bombs)",
            header,
        )
    if o.get("in_place") and header.frames != 1:  # the others would be lost for good
        several = f"{header.frames} {header.unit}" if header.frames else f"several {header.unit}"
        return (
            f"{several}: --in-place would replace it with the first only, the others "
            f"lost; write it elsewhere (--out-dir or --suffix)",
            header,
        )
    # The resized image too (a typo, --scale 10 for 0.1, took minutes and gigabytes
    # a file); of the upright image, as resize_image computes it: the larger of
    # either way where its orientation is not known before its pixels are decoded.
    try:
        planned = [target_size(*upright, **o["geometry"]) for upright in header.uprights]
    except ValueError:  # a side of _spec.MAX_LENGTH or more: its message names scale=
        planned = None
    sizes = None if planned is None else [size for size, _ in planned]
    ow, oh = max(sizes or [(0, 0)], key=lambda size: size[0] * size[1])
    # In the option's words (target_size's, resize's name Python keywords: "scale=",
    # "size must be < ...; got (H, W)", "check size or scale_factor"); no --max-pixels
    # lets such a size be made.
    if sizes is None or max(ow, oh) >= _spec.MAX_LENGTH or ow * oh * 4 > _spec.MAX_ELEMENTS:
        made = "" if sizes is None else f"{ow}x{oh}, "
        return (
            f"{o['option']} would make this {w}x{h} image {made}larger than any image "
            f"can be (each side < {_spec.MAX_LENGTH:,} pixels, and at most "
            f"{_spec.MAX_ELEMENTS // 4:,} pixels of 4 samples)",
            header,
        )
    if limit and ow * oh > limit:
        unknown = (
            " (its EXIF orientation, after more chunks than are read before decoding, is not known)"
            if header.unsure
            else ""
        )
        return (
            f"resized ({o['option']}), it {'could' if header.unsure else 'would'} be "
            f"{ow}x{oh}{unknown}, {ow * oh:,} pixels, more than --max-pixels {limit:,} (raise it if you mean it)",
            header,
        )
    # save_image's refusal of a side its format cannot hold, before the resize: of the
    # image written, after a --fill crop; where its orientation is not known, only if
    # either way is refused (else the real run writes the one that fits, and save_image
    # refuses the other after the resize)
    fmt = _format(dst, o["format"])
    reasons = [
        _too_large_for(fmt, *((box[2] - box[0], box[3] - box[1]) if box else size))
        for size, box in planned
    ]
    return (reasons[0] if None not in reasons else None), header


def _not_a_file(path):
    """Why the input ``path``, which is no regular file, is not read: a folder, FIFO,
    device or loop of links "not a regular file"; a broken link, or a file gone since
    the batch was planned, as such."""
    try:
        os.stat(path)
    except FileNotFoundError:
        try:
            return f"a symbolic link to a file that does not exist ({os.readlink(path)})"
        except OSError:  # not a link
            return "no such file (gone since the batch was planned)"
    except OSError:  # a loop of links
        pass
    return "not a regular file"


def _synced(src, notes, pending):
    """``(src, reason or None, notes)`` of a file whose ``fsync`` and rename ran as ``pending``."""
    exc = pending.exception()
    return (src, None, notes) if exc is None else (src, _reason(exc), None)


#: Exceptions that a reader's own parsing raises on a damaged file (fuzzed files gave
#: "IndexError: 0", "ZeroDivisionError: integer division or modulo by zero" from
#: Pillow's and tifffile's header code): ``_reason`` says so.
_PARSING_ERRORS = (
    ArithmeticError,
    AttributeError,
    EOFError,
    IndexError,
    KeyError,
    SyntaxError,  # Pillow's "broken PNG file", "not a TIFF file"
    TypeError,
    UnicodeError,
    RecursionError,
)


def _reason(exc, reading=False):
    """What the CLI prints for a file that failed with ``exc`` (``reading``: while its
    header or pixels were read, not written)."""
    if isinstance(exc, MemoryError):  # cresize's refusals name the sizes; a failed allocation not
        if not str(exc) and reading:  # within --max-pixels: a length of the file said more
            return (
                "too large for memory while read (within --max-pixels: a damaged file, a "
                "length in it larger than the file?)"
            )
        return f"too large for memory: {exc}" if str(exc) else "too large for memory"
    if type(exc).__name__ == "UnidentifiedImageError":
        return "not an image, or a format Pillow cannot read"
    from cresize.image import _Unread

    # a reader's failure on a damaged file (its header or its pixels): its own error
    unread = exc.__cause__ if reading and isinstance(exc, _Unread) else None
    if unread is not None:
        exc = unread
    said = _one_line(f"{type(exc).__name__}: {exc}")
    if unread is not None or (
        reading and (isinstance(exc, _PARSING_ERRORS) or type(exc).__name__ == "TiffFileError")
    ):
        return f"a damaged file? its reader failed: {said}"
    return said


#: The file a thread is doing: ``warned``, the warnings its readers gave (None: no file).
_FILE = threading.local()
#: Runs in progress and what ``_warnings_per_file`` replaced; under ``_LIFTED_LOCK``.
_caught: dict = {"runs": 0, "saved": None}


class _ToTheFile(logging.Handler):
    """tifffile's log records (a damaged TIFF's "missing data offset tag") as warnings
    of the file being read (``_FILE``); outside a file, to the handlers they went to
    before (the parent loggers', where the logger propagated, else Python's last
    resort)."""

    def __init__(self, propagate):
        super().__init__()
        self.propagate = propagate

    def emit(self, record):
        warned = getattr(_FILE, "warned", None)
        if warned is not None:
            warned.append(_one_line(record.getMessage()))
        elif self.propagate and logging.getLogger().hasHandlers():
            logging.getLogger().callHandlers(record)
        elif logging.lastResort is not None and record.levelno >= logging.lastResort.level:
            logging.lastResort.handle(record)


def _one_line(text):
    return " ".join(str(text).split())


def _show(message, category, filename, lineno, file=None, line=None):
    """``warnings.showwarning`` while a run is in progress: a ``UserWarning`` given while
    a file is read (Pillow's "Truncated File Read", "Corrupt EXIF data") is that
    file's; others (cresize's own ``RuntimeWarning`` of a broken optional package, of
    the whole run) are shown as they were."""
    warned = getattr(_FILE, "warned", None)
    if warned is None or not issubclass(category, UserWarning):
        _caught["saved"][0](message, category, filename, lineno, file, line)
    else:
        warned.append(_one_line(message))


@contextlib.contextmanager
def _warnings_per_file():
    """While a run is in progress, the warnings of Python (Pillow's) and the log
    records of tifffile given while a file is read are that file's (``_FILE``), said
    on one line naming it once it is written (``report``), each time (Pillow's
    ``UserWarning`` not once a process only, as Python's default filter has it, but
    where ``-W`` or ``PYTHONWARNINGS`` says): not a two-line warning naming Pillow's
    source, or a bare log line, that names no file, between the command's lines. As
    ``_without_pillow_limit``, the first run to start replaces and the last to end
    restores (``_while_runs``)."""
    tiff_log = logging.getLogger("tifffile")

    def replace():
        catcher = warnings.catch_warnings()
        catcher.__enter__()
        if not sys.warnoptions:  # -W or PYTHONWARNINGS: the user's filters rule
            warnings.filterwarnings("always", category=UserWarning)  # Pillow's
        handler = _ToTheFile(tiff_log.propagate)
        saved = (warnings.showwarning, catcher, handler, tiff_log.propagate)
        warnings.showwarning = _show
        tiff_log.addHandler(handler)
        tiff_log.propagate = False
        return saved

    def restore(saved):
        _, catcher, handler, propagate = saved
        tiff_log.removeHandler(handler)
        tiff_log.propagate = propagate
        catcher.__exit__(None, None, None)  # the filters and showwarning before

    with _while_runs(_caught, replace, restore):
        yield


#: Runs in progress (``main`` may run in several threads at once) and the Pillow
#: ``MAX_IMAGE_PIXELS`` the first of them found; under ``_LIFTED_LOCK``.
_lifted = {"runs": 0, "saved": None}
_LIFTED_LOCK = threading.Lock()


@contextlib.contextmanager
def _while_runs(state, replace, restore):
    """A process-wide setting changed while any run is in progress (``main`` may run in
    several threads at once): the first run to start calls ``replace()`` and keeps what
    it returns in ``state["saved"]``, the last to end calls ``restore`` with it;
    ``state["runs"]`` counts the runs, under ``_LIFTED_LOCK``."""
    with _LIFTED_LOCK:
        if not state["runs"]:
            state["saved"] = replace()
        state["runs"] += 1
    try:
        yield
    finally:
        with _LIFTED_LOCK:
            state["runs"] -= 1
            if not state["runs"]:
                restore(state["saved"])


@contextlib.contextmanager
def _without_pillow_limit(pillow):
    """Pillow's decompression-bomb limit (``MAX_IMAGE_PIXELS``, a global of the whole
    process) off while a run is in progress, ``--max-pixels`` in its place: the first
    run to start saves it and the last to end restores it (``_while_runs``), so that
    runs in several threads neither end up under Pillow's limit nor leave it off."""

    def lift():
        saved, pillow.MAX_IMAGE_PIXELS = pillow.MAX_IMAGE_PIXELS, None
        return saved

    def restore(saved):
        pillow.MAX_IMAGE_PIXELS = saved

    with _while_runs(_lifted, lift, restore):
        yield


@contextlib.contextmanager
def _stop_on_signals(stop):
    """While running, SIGINT and SIGTERM only set ``stop``; a second one (``stop``
    already set) ends the process at once (``_stop_at_once``).

    The handlers raise nothing: an exception raised by a signal inside library
    code (say, while ``concurrent.futures`` holds a future's lock) can leave a
    lock held and hang the pool. ``_run`` sees ``stop`` and ends at a known point.

    A signal the process was started ignoring (a script's background job ignores
    SIGINT; ``nohup``) stays ignored, as Python itself leaves an ignored SIGINT; one
    whose handler was installed from C (``getsignal`` gives None) is left alone too.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # signals are delivered to the main thread only
        return
    names = [name for name in ("SIGINT", "SIGTERM") if hasattr(signal, name)]
    previous = {name: signal.getsignal(getattr(signal, name)) for name in names}
    names = [name for name in names if previous[name] not in (None, signal.SIG_IGN)]

    def handler(signum, frame):
        if not stop.is_set():
            stop.set()
            return
        _stop_at_once()

    for name in names:
        signal.signal(getattr(signal, name), handler)
    try:
        yield
    finally:
        for name in names:
            signal.signal(getattr(signal, name), previous[name])


def _stop_at_once():
    """A second Ctrl-C (or SIGTERM): abandon the files in progress and exit 130 now.

    The worker threads cannot be stopped inside a decoder or a kernel, so the
    process ends under them (``os._exit``), after ``_atomic._abandon_temporaries``
    has removed their temporary files and keeps any other from being made or
    renamed: outputs already in place stay, no partial one is left, and inputs are
    untouched (an ``--in-place`` input is replaced only by a rename). The message
    goes straight to the file descriptor: the interrupted main thread may be inside
    a write to ``sys.stderr``.
    """
    from cresize import _atomic

    abandoned = _atomic._abandon_temporaries()
    with contextlib.suppress(Exception):  # RuntimeError: a reentrant flush
        sys.stdout.flush()
    message = (
        f"cresize resize: stopped at once (a second interrupt); {abandoned} file(s) being "
        f"written abandoned and removed, no partial outputs were left\n"
    )
    with contextlib.suppress(Exception):  # stderr closed, or None
        os.write(2, (("\n" if sys.stderr.isatty() else "") + message).encode())
    os._exit(130)


def _progress(total, enabled):
    """tqdm's bar on a terminal when tqdm is installed (and imports), else a plain one."""
    if enabled and total > 0:
        tqdm = _optional.load("tqdm", fallback="the plain progress bar is shown")
        if tqdm is not None:
            return _Tqdm(
                tqdm.tqdm(
                    total=total,
                    file=sys.stderr,
                    unit="file",
                    leave=False,
                    mininterval=0,
                    dynamic_ncols=True,
                )
            )
    return _Progress(total, enabled)


class _Tqdm:
    def __init__(self, bar):
        self.bar = bar

    def step(self):
        self.bar.update(1)

    def clear(self):
        self.bar.clear()

    def close(self):
        self.bar.close()


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

    close = clear
