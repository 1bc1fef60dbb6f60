"""``python -m cresize`` / the ``cresize`` console script.

Argparse subcommands; each lives in its own module, imported on demand, which
parses the rest of the command line itself. Without a subcommand: print the
build configuration and self-check every mode (``selfcheck``).
"""

import argparse
import codecs
import gc
import importlib
import os
import sys

SUBCOMMANDS = {
    # name: (module, one-line help)
    "selfcheck": ("cresize._selfcheck", "print the build configuration and check every mode"),
    "check": ("cresize._check", "run the gradient verification matrix"),
    "golden": ("cresize._golden", "write or verify golden test vectors"),
    "resize": ("cresize._cli_resize", "resize image files"),
    "demo": ("cresize._demo", "write a PNG comparing every mode on a built-in test pattern"),
}

#: Subcommands that never call BLAS: NumPy's OpenBLAS runs one thread in them.
NO_BLAS = frozenset({"resize", "demo"})


def parser():
    p = argparse.ArgumentParser(
        prog="cresize",
        description="Exact forward and backward image resizing for NumPy.",
        epilog="Without a subcommand: selfcheck. 'cresize SUBCOMMAND -h' shows its options.",
    )
    p.add_argument(
        "-V", "--version", action="store_true", help="print the version and build configuration"
    )
    sub = p.add_subparsers(dest="command", metavar="SUBCOMMAND", title="subcommands")
    for name, (_, text) in SUBCOMMANDS.items():
        # No arguments here: the subcommand's own parser reads the rest, -h included.
        sub.add_parser(name, help=text, add_help=False)
    return p


def main(argv=None):
    """Run the command; ``argv=None`` (the process's own command line) also ends
    the process quickly, see ``_ending``."""
    if argv is None:
        _standard_descriptors()
        if sys.stdout is not None:
            _names_as_written(sys.stdout)
            sys.stdout = _CheckedStdout(sys.stdout)
        try:
            code = main(sys.argv[1:])
            if sys.stdout is not None:
                sys.stdout.flush()  # what is buffered fails here, not unreported at exit
            return _ending(code)
        except StdoutError as exc:
            # stdout cannot be written (a full disk, /dev/full, a read-only descriptor):
            # one line, as for the subcommands' other errors, not a traceback. What is
            # still buffered goes to the null device, so the exit adds no second error.
            _silence_stdout()
            command = sys.argv[1] if sys.argv[1:2] and sys.argv[1] in SUBCOMMANDS else None
            print(
                f"cresize{' ' + command if command else ''}: cannot write the output "
                f"(stdout): {exc}",
                file=sys.stderr,
            )
            return 2
        except KeyboardInterrupt:
            # Ctrl-C outside a subcommand's own handling (while modules load, or as the
            # process ends): no traceback, the shell's status for an interrupt.
            return 130
        except BrokenPipeError:
            # Whatever read the output stopped (``cresize golden --verify DIR | head``):
            # stop quietly, with the shell's status for a process ended by SIGPIPE, as
            # other command-line tools do. Later writes (the interpreter flushes stdout
            # as it exits) go to the null device, so no second error is printed.
            _silence_stdout()
            return 141
    argv = list(argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "-V", "--version")):
        argv = ["selfcheck", *argv]  # no subcommand: the self-check takes the options
    try:
        args, rest = parser().parse_known_args(argv)
    except SystemExit as exc:
        return exc.code
    if args.version:
        from cresize import show_config

        show_config()
        return 0
    if args.command in NO_BLAS and "numpy" not in sys.modules:
        # OpenBLAS starts a thread per core when NumPy loads, and they spin for a while
        # (a tenth of a second of CPU per run, measured); these commands never use them.
        # A value the user set wins.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    return importlib.import_module(SUBCOMMANDS[args.command][0]).main(rest)


class StdoutError(Exception):
    """Writing to stdout failed, other than a closed pipe (``BrokenPipeError``): not an
    ``OSError``, so that a subcommand's handling of its files' errors lets it through."""


class _CheckedStdout:
    """``sys.stdout`` whose ``write`` and ``flush`` raise ``StdoutError`` for an
    ``OSError`` (``BrokenPipeError`` stays itself); the rest is the stream's own."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StdoutError(exc) from exc

    def flush(self):
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StdoutError(exc) from exc

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _standard_descriptors():
    """Open the null device on whichever of file descriptors 0, 1 and 2 is closed
    (``cresize resize ... 2>&-``, a daemon's closed stderr), and give Python's missing
    ``sys.stdout`` / ``sys.stderr`` a stream on it.

    Python leaves ``sys.stderr`` None there: ``cresize resize`` failed on it
    (``AttributeError``, shown nowhere, exit status 1), and the descriptor went to the
    next file opened, an output being written, where C libraries' messages to stderr
    (libjpeg's ``Corrupt JPEG data``) could have landed inside the image.
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: fd
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if sys.stdout is None:
        sys.stdout = open(1, "w", closefd=False)
    if sys.stderr is None:
        sys.stderr = open(2, "w", errors="backslashreplace", closefd=False)


def _names_as_written(stream):
    """Let ``stream`` write what its encoding cannot, as ``ls`` and ``find`` print it,
    rather than fail (``_name_errors``).

    A file name whose bytes are not text in the locale's encoding (``caf\\xe9.jpg``,
    Latin-1, in a UTF-8 locale) reaches Python as lone surrogates (``surrogateescape``),
    and a character outside stdout's code page (a Windows pipe or file is written in
    cp1252) has no form there: either was a ``UnicodeEncodeError`` traceback in
    ``cresize resize -n``'s listing, at the first such file. A stream that already
    escapes or passes through (not ``strict``) is left as it is; stderr is Python's
    ``backslashreplace``.
    """
    if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
        codecs.register_error(_NAME_ERRORS, _name_errors)
        stream.reconfigure(errors=_NAME_ERRORS)


_NAME_ERRORS = "cresize.names"


def _name_errors(exc):
    """The error handler of ``_names_as_written``: a name's undecodable byte (a lone
    surrogate U+DC80-U+DCFF) is written as that byte, as ``surrogateescape`` writes it;
    any other character the encoding lacks as an escape (``\\u6f22``), as
    ``backslashreplace`` writes it."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    code = ord(exc.object[exc.start])
    if 0xDC80 <= code <= 0xDCFF:
        return bytes([code - 0xDC00]), exc.start + 1
    escape = (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )
    return escape, exc.start + 1


def _silence_stdout():
    """Point file descriptor 1 at the null device (stdout's reader has gone)."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, sys.stdout.fileno())
    finally:
        os.close(null)


def _ending(code):
    """Return ``code``, with every object alive now moved out of the garbage collector's way.

    The process ends next: at exit the interpreter collects garbage over all
    of NumPy's, OpenCV's and Pillow's module objects, about 15 ms of CPU a run
    (``gc.freeze``: measured 120 -> 105 ms for those imports alone). Frozen
    objects are still finalized at exit as before (atexit handlers run, files
    are flushed and closed); only the cycle search skips them. Not done for
    ``main(argv)`` called in a longer-lived process.
    """
    gc.freeze()
    return code


if __name__ == "__main__":
    sys.exit(main())
