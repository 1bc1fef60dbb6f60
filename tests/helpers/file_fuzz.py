"""Damaged and hostile image files through ``cresize resize`` (a campaign, not a test module).

Small well-formed seed files of every format the command reads (PNG 8 and 16-bit, APNG;
JPEG baseline, progressive, CMYK, EXIF-rotated; WebP lossy, lossless, animated; TIFF 8,
16-bit, float, planar, multi-page, BigTIFF; BMP; GIF; PPM and PGM; AVIF 8 and 10-bit from
tests/data/avif; JPEG 2000) are mutated with a seeded generator: bit flips and byte runs,
truncations at each chunk, marker, box, block or directory and within them, length and
count fields set to huge, zero or negative values, dimensions set to 65535 and beyond
(decompression bombs), TIFF directories that point back (loops), wrong magic under a
right extension and the reverse, empty and zero-filled files. ``special_files`` adds the
files of no format: a million-chunk PNG, a folder and a FIFO named like images.

Each file goes through ``cresize._cli_resize._one`` (the command's own per-file path:
header, ``--max-pixels`` guard, ``resize_image``, the atomic write) and ``image._read`` in
a worker process under a memory limit (``RLIMIT_AS``) and a time limit; a worker that
dies (a decoder's segfault or abort) is the file's "crash", and a new worker goes on.
Every ``--cli-every`` files, a folder of them is also run through ``python -m cresize
resize --jobs 1`` and ``--jobs 2`` (``check_cli``): one line per failed file naming it,
no traceback, exit status 1 (or 0), the summary's counts, no temporary or partial output
left, every input's bytes unchanged.

Run from the repository root::

    PYTHONPATH=src:tests python -m helpers.file_fuzz --seed 1 --minutes 20

The outcome of each file is counted by format and kind (``ok``, ``refused``: a clear
one-line reason, ``crash``, ``hang``, ``memory``, ``slow``, ``bad-reason``: a reason of
several lines or an exception that escaped ``_one``); every file that is not ``ok`` or
``refused`` is kept under ``--keep`` with its reason, to rerun alone::

    PYTHONPATH=src:tests python -m helpers.file_fuzz --replay FILE
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import io
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

__all__ = ["check_cli", "mutants", "seeds", "special_files"]

HERE = os.path.dirname(os.path.abspath(__file__))


def _cresize_root():
    """The folder holding the cresize this process imports (the source tree's src/, or
    site-packages where it is installed, as in CI: src/ has no built modules there)."""
    import cresize

    return os.path.dirname(cresize.__path__[0])


POSIX = os.name == "posix"
AVIF_DIR = os.path.join(HERE, "..", "data", "avif")
#: ``--max-pixels`` of the campaign: a file that passes it decodes in well under
#: ``MEMORY`` (about 100 MB of 16-bit RGBA), so a worker that runs out of memory
#: allocated before the guard.
MAX_PIXELS = 10_000_000
#: The address space of a worker (``RLIMIT_AS``): the interpreter, NumPy, OpenCV,
#: Pillow and OpenMP take about 1.5 GiB of it before any file.
MEMORY = 3 << 30
#: Seconds a file may take in a worker before it counts as a hang (and is killed).
HANG_S = 30.0
#: Seconds after which a file that finished counts as slow.
SLOW_S = 5.0
#: What the command's per-file options are in the campaign: PNG output of at most
#: 24x24 pixels, as a thumbnailer would.
GEOMETRY = {"fit": (24, 24), "allow_upscale": False}


# ---------------------------------------------------------------------------- seeds


def _rgb(h=24, w=32):
    y, x = np.mgrid[0:h, 0:w]
    return np.dstack([x * 255 // (w - 1), y * 255 // (h - 1), (x + y) * 4 % 256]).astype(np.uint8)


def seeds():
    """``{name: (extension, bytes)}``: the well-formed seed files."""
    import cv2
    import tifffile
    from PIL import Image

    rgb = _rgb()
    im = Image.fromarray(rgb)
    out = {}

    def pil(name, ext, image, fmt, **kw):
        b = io.BytesIO()
        image.save(b, fmt, **kw)
        out[name] = (ext, b.getvalue())

    pil("png8", ".png", im, "PNG")
    pil("png-palette", ".png", im.convert("P"), "PNG", transparency=3)
    _ok, png16 = cv2.imencode(".png", (rgb.astype(np.uint16) * 257)[..., ::-1])
    out["png16"] = (".png", png16.tobytes())
    frames = [im, Image.fromarray(rgb[::-1].copy())]
    pil("apng", ".png", frames[0], "PNG", save_all=True, append_images=frames[1:])
    exif = Image.Exif()
    exif[0x0112] = 6
    pil("jpeg", ".jpg", im, "JPEG", quality=80)
    pil("jpeg-progressive", ".jpg", im, "JPEG", progressive=True)
    pil("jpeg-cmyk", ".jpg", im.convert("CMYK"), "JPEG")
    pil("jpeg-exif6", ".jpg", im, "JPEG", exif=exif.tobytes())
    pil("jpeg-grey", ".jpg", im.convert("L"), "JPEG")
    pil("webp-lossy", ".webp", im, "WEBP", quality=70)
    pil("webp-lossless", ".webp", im.convert("RGBA"), "WEBP", lossless=True)
    pil("webp-anim", ".webp", frames[0], "WEBP", save_all=True, append_images=frames[1:])
    pil("tiff8", ".tif", im, "TIFF")
    pil("tiff-lzw-exif", ".tif", im, "TIFF", compression="tiff_lzw", exif=exif.tobytes())
    pil("tiff-multipage", ".tif", frames[0], "TIFF", save_all=True, append_images=frames[1:])

    def tif(name, data, **kw):
        b = io.BytesIO()
        tifffile.imwrite(b, data, **kw)
        out[name] = (".tif", b.getvalue())

    tif("tiff16", rgb.astype(np.uint16) * 257, photometric="rgb")
    tif("tiff-float", rgb.astype(np.float32) / 255, photometric="rgb")
    tif("tiff-planar", np.moveaxis(rgb, -1, 0), photometric="rgb", planarconfig="separate")
    tif("tiff-big", rgb, photometric="rgb", bigtiff=True)
    pil("bmp", ".bmp", im, "BMP")
    pil("bmp8", ".bmp", im.convert("P"), "BMP")
    pil("gif", ".gif", im.convert("P"), "GIF")
    pil(
        "gif-anim",
        ".gif",
        frames[0].convert("P"),
        "GIF",
        save_all=True,
        append_images=[frames[1].convert("P")],
    )
    pil("ppm", ".ppm", im, "PPM")
    pil("pgm", ".pgm", im.convert("L"), "PPM")
    grey16 = rgb[..., 0].astype(">u2") * 257
    out["pgm16"] = (".pgm", b"P5\n32 24\n65535\n" + grey16.tobytes())
    try:
        pil("jp2", ".jp2", im, "JPEG2000")
        pil("j2k", ".j2k", im, "JPEG2000")
    except OSError:  # no OpenJPEG in this Pillow
        pass
    for name in sorted(os.listdir(AVIF_DIR)):
        if name in ("rgb8.avif", "rgb10.avif", "orient6.avif", "greya10.avif", "rgba12.avif"):
            with open(os.path.join(AVIF_DIR, name), "rb") as f:
                out["avif-" + name[:-5]] = (".avif", f.read())
    return out


# --------------------------------------------------------------- structure of a file
#
# Each parser gives the structural points of a file: ``cuts`` (offsets to truncate at)
# and ``fields`` (offset, size, byte order, kind) of lengths, counts, offsets and
# dimensions ("len", "count", "off", "dim") to set to hostile values.


class _S:
    def __init__(self):
        self.cuts, self.fields = set(), []

    def field(self, kind, off, size, order=">"):
        self.fields.append((kind, off, size, order))


def _png(d, s):
    off = 8
    while off + 8 <= len(d):
        (n,), kind = struct.unpack(">I", d[off : off + 4]), d[off + 4 : off + 8]
        s.cuts.update((off, off + 4, off + 8, off + 8 + n // 2, off + 8 + n))
        s.field("len", off, 4)
        body = off + 8
        if kind == b"IHDR":
            s.field("dim", body, 4)
            s.field("dim", body + 4, 4)
            s.field("count", body + 8, 1)  # bit depth
            s.field("count", body + 9, 1)  # colour type
            s.field("count", body + 12, 1)  # interlace
        elif kind == b"acTL":
            s.field("count", body, 4)
        elif kind == b"fcTL":
            for k in range(4):
                s.field("dim", body + 4 + 4 * k, 4)
        off += 12 + n


def _jpeg(d, s, base=0):
    off = 2
    while off + 4 <= len(d) and d[off] == 0xFF:
        marker = d[off + 1]
        s.cuts.update((off, off + 2, off + 4))
        if 0xD0 <= marker <= 0xD9 or marker == 0x01:
            off += 2
            continue
        (n,) = struct.unpack(">H", d[off + 2 : off + 4])
        s.field("len", off + 2, 2)
        s.cuts.add(off + 2 + n // 2)
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            s.field("count", off + 4, 1)  # precision
            s.field("dim", off + 5, 2)
            s.field("dim", off + 7, 2)
            s.field("count", off + 9, 1)  # components
            s.field("count", off + 11, 1)  # sampling factors
        elif marker == 0xE1 and d[off + 4 : off + 10] == b"Exif\0\0":
            _tiff(d, s, off + 10)
        elif marker == 0xDA:
            s.cuts.update((off + 2 + n + 10, (off + len(d)) // 2, len(d) - 2))
            return
        off += 2 + n


def _tiff(d, s, base=0):
    order = "<" if d[base : base + 2] == b"II" else ">"
    try:
        (magic,) = struct.unpack(order + "H", d[base + 2 : base + 4])
    except struct.error:
        return
    big = magic == 43
    osz, csz, esz, fmt = (8, 8, 20, "Q") if big else (4, 2, 12, "I")
    first_at = base + (8 if big else 4)
    s.field("off", first_at, osz, order)
    seen = set()
    at = first_at
    while True:
        try:
            (ifd,) = struct.unpack(order + fmt, d[at : at + osz])
            (n,) = struct.unpack(order + ("Q" if big else "H"), d[base + ifd : base + ifd + csz])
        except struct.error:
            return
        if ifd in seen or n > 200:
            return
        seen.add(ifd)
        start = base + ifd
        s.field("count", start, csz, order)
        s.cuts.update((start, start + csz))
        for k in range(n):
            e = start + csz + k * esz
            s.cuts.add(e)
            s.field("count", e + 4, osz, order)
            s.field("off", e + 4 + osz, osz, order)
            (tag,) = struct.unpack(order + "H", d[e : e + 2])
            if tag in (256, 257):
                s.field("dim", e + 4 + osz, osz, order)
            if tag in (273, 279, 324, 325):  # strip/tile offsets and byte counts
                s.field("len", e + 4 + osz, osz, order)
        at = start + csz + n * esz
        s.field("loop", at, osz, order)  # the next directory's offset
        s.cuts.add(at)


def _riff(d, s, start=12, end=None):
    if start == 12:
        s.field("len", 4, 4, "<")
    off, end = start, len(d) if end is None else end
    while off + 8 <= end:
        kind = d[off : off + 4]
        (n,) = struct.unpack("<I", d[off + 4 : off + 8])
        s.cuts.update((off, off + 8, off + 8 + n // 2, off + 8 + n))
        s.field("len", off + 4, 4, "<")
        body = off + 8
        if kind == b"VP8X":
            s.field("dim", body + 4, 3, "<")
            s.field("dim", body + 7, 3, "<")
        elif kind == b"VP8 ":
            s.field("dim", body + 6, 2, "<")
            s.field("dim", body + 8, 2, "<")
        elif kind == b"VP8L":
            s.field("dim", body + 1, 4, "<")
        elif kind == b"ANMF":
            for k in range(4):
                s.field("dim", body + 3 * k, 3, "<")
            _riff(d, s, body + 16, body + n)
        off += 8 + n + (n & 1)


def _boxes(d, s, start=0, end=None, depth=0):
    off, end = start, len(d) if end is None else end
    while off + 8 <= end and depth < 6:
        (n,), kind = struct.unpack(">I", d[off : off + 4]), d[off + 4 : off + 8]
        head = 8
        if n == 1:
            (n,) = struct.unpack(">Q", d[off + 8 : off + 16])
            head = 16
            s.field("len", off + 8, 8)
        elif n == 0:
            n = end - off
        s.field("len", off, 4)
        s.cuts.update((off, off + head, off + n // 2, off + n))
        body = off + head
        if kind in (b"meta",):
            _boxes(d, s, body + 4, off + n, depth + 1)
        elif kind in (b"iprp", b"ipco", b"jp2h", b"dinf", b"res "):
            _boxes(d, s, body, off + n, depth + 1)
        elif kind == b"ispe":
            s.field("dim", body + 4, 4)
            s.field("dim", body + 8, 4)
        elif kind == b"ihdr":
            s.field("dim", body, 4)
            s.field("dim", body + 4, 4)
            s.field("count", body + 8, 2)
            s.field("count", body + 10, 1)
        elif kind == b"pixi":
            s.field("count", body + 4, 1)
            s.field("count", body + 5, 1)
        elif kind == b"iloc":
            for k in range(body, min(off + n, body + 64), 2):
                s.field("off", k, 2)
        elif kind == b"jp2c":
            _j2k(d, s, body)
        if n <= 0:
            return
        off += n


def _j2k(d, s, base=0):
    at = d.find(b"\xff\x51", base)
    if at < 0:
        return
    s.field("len", at + 2, 2)
    for k in range(8):  # Xsiz, Ysiz, XOsiz, YOsiz, XTsiz, YTsiz, XTOsiz, YTOsiz
        s.field("dim" if k in (0, 1, 4, 5) else "off", at + 6 + 4 * k, 4)
    s.field("count", at + 38, 2)  # components
    s.field("count", at + 40, 1)  # depth
    for m in (b"\xff\x52", b"\xff\x90", b"\xff\x93", b"\xff\xd9"):
        k = d.find(m, base)
        if k >= 0:
            s.cuts.update((k, k + 2))


def _bmp(d, s):
    for off, kind in ((2, "len"), (10, "off"), (14, "len"), (18, "dim"), (22, "dim")):
        s.field(kind, off, 4, "<")
    s.field("count", 28, 2, "<")  # bits a pixel
    s.field("count", 30, 4, "<")  # compression
    s.field("len", 34, 4, "<")
    s.field("count", 46, 4, "<")  # colours used
    s.cuts.update((2, 14, 18, 54, (54 + len(d)) // 2))


def _gif(d, s):
    s.field("dim", 6, 2, "<")
    s.field("dim", 8, 2, "<")
    s.field("count", 10, 1)
    off = 13 + (3 << ((d[10] & 7) + 1) if d[10] & 0x80 else 0)
    s.cuts.update((6, 13, off))
    while off < len(d):
        s.cuts.add(off)
        if d[off] == 0x21:  # extension: label, then sub-blocks
            off += 2
        elif d[off] == 0x2C:
            for k in range(4):
                s.field("dim", off + 1 + 2 * k, 2, "<")
            s.field("count", off + 9, 1)
            flags = d[off + 9]
            off += 10 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
            s.field("count", off, 1)  # LZW minimum code size
            off += 1
        else:
            return
        while off < len(d) and d[off]:
            s.field("len", off, 1)
            s.cuts.update((off, off + 1 + d[off] // 2))
            off += 1 + d[off]
        off += 1


def structure(d):
    """The ``_S`` of ``d`` by its magic."""
    s = _S()
    try:
        if d.startswith(b"\x89PNG"):
            _png(d, s)
        elif d.startswith(b"\xff\xd8"):
            _jpeg(d, s)
        elif d[:4] in (b"II*\0", b"MM\0*", b"II+\0", b"MM\0+"):
            _tiff(d, s)
        elif d.startswith(b"RIFF"):
            _riff(d, s)
        elif d[4:8] in (b"ftyp", b"jP  "):
            _boxes(d, s)
        elif d.startswith(b"\xff\x4f\xff\x51"):
            _j2k(d, s)
        elif d.startswith(b"BM"):
            _bmp(d, s)
        elif d.startswith(b"GIF8"):
            _gif(d, s)
    except (struct.error, IndexError):
        pass
    s.cuts = sorted(c for c in s.cuts if 0 <= c < len(d))
    s.fields = [f for f in s.fields if 0 <= f[1] and f[1] + f[2] <= len(d)]
    return s


# -------------------------------------------------------------------------- mutations

_HOSTILE = {
    1: (0, 1, 0x7F, 0x80, 0xFF),
    2: (0, 1, 0x7FFF, 0x8000, 0xFFFF),
    3: (0, 1, 0x3FFF, 0xFFFFFF),
    4: (0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 65535, 65536, 0x10000000, 0xFFFFFFF0),
    8: (0, 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 1),
}
_BOMB = {1: 0xFF, 2: 0xFFFF, 3: 0xFFFFFF, 4: 65535, 8: 65535}


def _put(d, off, size, order, value):
    value &= (1 << (8 * size)) - 1
    raw = value.to_bytes(size, "little" if order == "<" else "big")
    d[off : off + size] = raw


def _fix_png_crcs(d):
    off = 8
    while off + 12 <= len(d):
        (n,) = struct.unpack(">I", d[off : off + 4])
        if off + 12 + n > len(d):
            return
        d[off + 8 + n : off + 12 + n] = struct.pack(">I", zlib.crc32(d[off + 4 : off + 8 + n]))
        off += 12 + n


def _ppm_mutant(d, rng):
    head = d.split(maxsplit=4)
    if len(head) < 5:
        return d
    k = rng.randrange(1, 4)
    head[k] = rng.choice(
        [b"0", b"-1", b"65535", b"99999999999999999999", b"4294967297", b"65536", b"x", b"1e9"]
    )
    return b"\n".join(head[:4]) + b"\n" + head[4]


MAGICS = (
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff\xe0",
    b"II*\0",
    b"MM\0+",
    b"RIFF\0\0\0\0WEBPVP8 ",
    b"\0\0\0\x1cftypavif",
    b"\0\0\0\x0cjP  \r\n\x87\n",
    b"BM",
    b"GIF89a",
    b"P6\n",
    b"\xff\x4f\xff\x51",
)


def mutants(name, ext, data, rng):
    """An endless stream of ``(label, extension, bytes)`` mutants of the seed ``data``."""
    s = structure(data)
    while True:
        d = bytearray(data)
        roll = rng.random()
        if roll < 0.18 and s.cuts:
            cut = rng.choice(s.cuts) + rng.choice((0, 0, 0, -1, 1))
            label, d = f"cut@{cut}", d[: max(cut, 0)]
        elif roll < 0.42 and s.fields:
            kind, off, size, order = rng.choice(s.fields)
            value = rng.choice(_HOSTILE[size])
            label = f"{kind}@{off}={value:#x}"
            _put(d, off, size, order, value)
            if kind == "loop":  # to the first directory, or to itself
                first = next(f for f in s.fields if f[0] == "off")
                base = 0 if data[:2] in (b"II", b"MM") else first[1] - 4
                (head,) = struct.unpack(
                    order + ("Q" if size == 8 else "I"), data[first[1] : first[1] + size]
                )
                value = rng.choice((head, off - size - base - 2, 8))
                label = f"loop@{off}={value}"
                _put(d, off, size, order, value)
        elif roll < 0.52 and any(f[0] == "dim" for f in s.fields):
            value = None
            for kind, off, size, order in s.fields:
                if kind == "dim":
                    value = rng.choice((_BOMB[size], _BOMB[size], 30000, 3163, 100000))
                    _put(d, off, size, order, value)
            label = f"bomb={value}"
        elif roll < 0.70:
            n = rng.choice((1, 1, 2, 4, 16))
            for _ in range(n):
                k = rng.randrange(len(d))
                d[k] ^= 1 << rng.randrange(8)
            label = f"flip{n}"
        elif roll < 0.80:
            k = rng.randrange(len(d))
            n = rng.choice((1, 4, 16, 256))
            d[k : k + n] = bytes([rng.choice((0, 0xFF, rng.randrange(256)))]) * n
            label = f"run@{k}x{n}"
        elif roll < 0.86 and ext in (".ppm", ".pgm"):
            label, d = "ppm-header", bytearray(_ppm_mutant(bytes(d), rng))
        elif roll < 0.92:
            magic = rng.choice(MAGICS)
            label = f"magic={magic[:4]!r}"
            d[: len(magic)] = magic
        elif roll < 0.95:
            label, d = "zeros", bytearray(len(d))
        else:
            k = rng.randrange(len(d))
            label, d = f"dup@{k}", d[:k] + d[k // 2 :]
        if data.startswith(b"\x89PNG") and rng.random() < 0.7:
            _fix_png_crcs(d)  # else most PNG mutants stop at a CRC error
            label += "+crc"
        if rng.random() < 0.05:  # the right magic under another extension, and back
            ext = rng.choice((".png", ".jpg", ".webp", ".tif", ".bmp", ".gif", ".avif", ".ppm"))
            label += f"+as{ext}"
        yield label, ext, bytes(d)


def million_chunk_png(chunks=1_000_000, where="before"):
    """A 24x32 PNG with ``chunks`` empty ancillary chunks before (or after) its pixels."""
    from PIL import Image

    b = io.BytesIO()
    Image.fromarray(_rgb()).save(b, "PNG")
    d = b.getvalue()
    empty = struct.pack(">I", 0) + b"teXx" + struct.pack(">I", zlib.crc32(b"teXx"))
    at = d.find(b"IDAT") - 4 if where == "before" else d.find(b"IEND") - 4
    return d[:at] + empty * chunks + d[at:]


def special_files(folder, million=1_000_000):
    """Files of no format, made in ``folder``: ``[(path, what)]``; ``million`` empty
    chunks in the many-chunk PNGs."""
    made = []

    def write(name, data, what):
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(data)
        made.append((path, what))

    write("empty.png", b"", "empty")
    write("zeros.jpg", bytes(1 << 16), "zeros")
    write("text.tif", b"hello, this is not an image\n" * 10, "text")
    write("million-before.png", million_chunk_png(million), "million-chunk")
    write("million-after.png", million_chunk_png(million, where="after"), "million-chunk")
    os.mkdir(os.path.join(folder, "folder.png"))
    made.append((os.path.join(folder, "folder.png"), "folder"))
    if hasattr(os, "mkfifo"):
        os.mkfifo(os.path.join(folder, "fifo.jpg"))
        made.append((os.path.join(folder, "fifo.jpg"), "fifo"))
    os.symlink("/dev/zero", os.path.join(folder, "devzero.webp"))
    made.append((os.path.join(folder, "devzero.webp"), "device"))
    os.symlink("loop.gif", os.path.join(folder, "loop.gif"))
    made.append((os.path.join(folder, "loop.gif"), "symlink-loop"))
    return made


# ---------------------------------------------------------------- checks in a worker


def check_file(path, out_dir):
    """``(outcome, reason, seconds)`` of one file through the command's per-file path
    and ``image._read``, in this process. Outcomes: ``ok``, ``refused`` (a one-line
    reason naming no traceback), ``bad-reason`` (several lines, or an exception that
    escaped ``_one``), ``memory``, ``slow``."""
    from cresize import _cli_resize, image

    t = time.perf_counter()
    dst = os.path.join(out_dir, "out.png")
    options = dict(
        geometry=GEOMETRY,
        mode="lanczos3",
        antialias=True,
        align_corners=False,
        format="png",
        quality=None,
        num_threads=1,
        exact=False,
        max_pixels=MAX_PIXELS,
        overwrite=True,
    )
    pil = image._pil()
    saved, pil.MAX_IMAGE_PIXELS = pil.MAX_IMAGE_PIXELS, None
    try:
        _, reason, _ = _cli_resize._one((path, dst, options))
    except BaseException as exc:
        return "bad-reason", f"escaped _one: {type(exc).__name__}: {exc}", time.perf_counter() - t
    finally:
        pil.MAX_IMAGE_PIXELS = saved
    seconds = time.perf_counter() - t
    leftovers = [n for n in os.listdir(out_dir) if n != "out.png"]
    if leftovers:
        return "bad-reason", f"left in the output folder: {leftovers}", seconds
    if reason is not None and os.path.exists(dst):
        return "bad-reason", "failed, but an output was written", seconds
    with _quiet_fd(2):
        try:  # the library's own reader: no traceback-worthy error either (Pillow's limit on)
            if os.path.isfile(path) and (reason is None or "max-pixels" not in str(reason)):
                image._read(path)
        except Exception:
            pass
    if os.path.exists(dst):
        os.remove(dst)
    if reason is None:
        return ("slow" if seconds > SLOW_S else "ok"), None, seconds
    reason = str(reason)
    if "memory" in reason:
        return "memory", reason, seconds
    if "\n" in reason or "Traceback" in reason or not reason.strip():
        return "bad-reason", reason, seconds
    return ("slow" if seconds > SLOW_S else "refused"), reason, seconds


class _quiet_fd:
    """Library warnings on a file descriptor (libpng, libtiff) into /dev/null."""

    def __init__(self, fd):
        self.fd = fd

    def __enter__(self):
        self.saved = os.dup(self.fd)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, self.fd)
        os.close(null)

    def __exit__(self, *exc):
        os.dup2(self.saved, self.fd)
        os.close(self.saved)


def _worker():
    """Read paths from stdin; for each: ``S`` before, the JSON outcome after."""
    out_dir = tempfile.mkdtemp(prefix="cresize-fuzz-out-")
    os.environ.setdefault("OPENCV_LOG_LEVEL", "OFF")
    for line in sys.stdin:
        path = line.rstrip("\n")
        sys.stdout.write("S\n")
        sys.stdout.flush()
        outcome, reason, seconds = check_file(path, out_dir)
        sys.stdout.write(json.dumps([outcome, reason, round(seconds, 3)]) + "\n")
        sys.stdout.flush()
    shutil.rmtree(out_dir, ignore_errors=True)


def _limit_memory(limit):
    def preexec():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return preexec


class Workers:
    """A worker process (restarted after a crash or a hang) that checks files one by one."""

    def __init__(self, memory=MEMORY):
        self.memory, self.proc = memory, None

    def _start(self):
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        env["PYTHONPATH"] = os.pathsep.join([_cresize_root(), os.path.join(HERE, "..")])
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "helpers.file_fuzz", "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            preexec_fn=_limit_memory(self.memory),
            start_new_session=True,
        )

    def check(self, path, timeout=HANG_S):
        """``(outcome, reason, seconds)`` of ``path`` in the worker."""
        import selectors

        if self.proc is None or self.proc.poll() is not None:
            self._start()
            self.buffer = b""
        self.proc.stdin.write((path + "\n").encode())
        self.proc.stdin.flush()
        fd = self.proc.stdout.fileno()
        lines, start = [], time.perf_counter()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while len(lines) < 2:
                if b"\n" in self.buffer:
                    line, self.buffer = self.buffer.split(b"\n", 1)
                    lines.append(line)
                    start = time.perf_counter()  # from the file's start (after imports)
                    continue
                left = timeout + (120 if not lines else 0) - (time.perf_counter() - start)
                if left <= 0 or not sel.select(left):
                    self.kill()
                    return "hang", f"killed after {timeout:.0f} s", timeout
                chunk = os.read(fd, 65536)
                if not chunk:
                    code = self.proc.wait()
                    self.proc = None
                    what = signal.Signals(-code).name if code < 0 else f"exit {code}"
                    return "crash", f"the worker died: {what}", time.perf_counter() - start
                self.buffer += chunk
        return tuple(json.loads(lines[1]))

    def kill(self):
        if self.proc is not None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            self.proc = None


# ------------------------------------------------------------------------ the CLI


def _hash(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def check_cli(folder, out_dir, jobs, timeout=300, memory=MEMORY, extra=()):
    """Run ``cresize resize folder --out-dir out_dir --jobs N`` on a folder of files;
    a list of problems (empty: as documented). The regular files of ``folder`` must each
    be either resized or named once on a one-line ``cresize resize: PATH: reason``."""
    inputs = {}  # the regular files by their hash, the rest by None
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        regular = os.path.isfile(path) and not os.path.islink(path)
        inputs[path] = _hash(path) if regular else None
    env = dict(os.environ)  # OpenCV's log as a user has it
    env["PYTHONPATH"] = _cresize_root()
    cmd = [
        sys.executable,
        "-m",
        "cresize",
        "resize",
        folder,
        "--out-dir",
        out_dir,
        "--format",
        "png",
        "--fit",
        "24x24",
        "--jobs",
        str(jobs),
        "--max-pixels",
        str(MAX_PIXELS),
        *extra,
    ]
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_limit_memory(memory),
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return [f"hung: killed after {timeout} s; stderr: {err[-2000:]}"], {}
    seconds = time.perf_counter() - start
    problems = []
    if proc.returncode not in (0, 1):
        problems.append(f"exit status {proc.returncode}; stderr ends: {err[-3000:]}")
    if "Traceback" in err:
        problems.append(f"a traceback: {err[-3000:]}")
    failed, noise = {}, []
    for line in err.splitlines():
        if not line.startswith("cresize resize: "):
            noise.append(line)  # a library's own message, naming no file
            continue
        rest = line[len("cresize resize: ") :]
        path = next(
            (p for p in sorted(inputs, key=len, reverse=True) if rest.startswith(p + ": ")), None
        )
        if path is None:
            if not rest.startswith("note:") and not rest.startswith(folder):
                problems.append(f"a line naming no input: {line!r}")
            continue
        if rest[len(path) + 2 :].startswith("note:"):
            continue
        if path in failed:
            problems.append(f"{path} named twice: {line!r}")
        failed[path] = rest[len(path) + 2 :]
    written = set()
    for _root, _, files in os.walk(out_dir):
        for name in files:
            if name.startswith(".") or not name.endswith(".png"):
                problems.append(f"a stray file in the output folder: {name}")
            written.add(os.path.splitext(name)[0])
    for path, digest in inputs.items():
        stem = os.path.splitext(os.path.basename(path))[0]
        if digest is None:
            continue
        if os.path.exists(path) and _hash(path) != digest:
            problems.append(f"{path}: the input was changed")
        if path in failed and stem in written:
            problems.append(f"{path}: failed ({failed[path]}), but an output was left")
        if path not in failed and stem not in written and proc.returncode in (0, 1):
            lines = [line for line in err.splitlines() if path in line]  # broken up?
            problems.append(f"{path}: neither resized nor reported; lines naming it: {lines}")
    summary = [line[len("cresize resize: ") :] for line in out.splitlines() if " resized, " in line]
    if proc.returncode in (0, 1) and not summary:
        problems.append(f"no summary line: {out!r}")
    if summary and proc.returncode in (0, 1):
        done, bad = summary[-1].split(" resized, ")[0], summary[-1].split(" resized, ")[1]
        if int(done) != len(written) or int(bad.split()[0]) < len(failed):
            problems.append(f"summary {summary[-1]!r}: {len(written)} written, {len(failed)} named")
    if (proc.returncode == 1) != bool(failed):
        problems.append(f"exit status {proc.returncode} with {len(failed)} failed file(s)")
    return problems, {
        "seconds": seconds,
        "failed": len(failed),
        "written": len(written),
        "reasons": failed,
        "noise": noise,
    }


# ---------------------------------------------------------------------- the campaign


def _family(name):
    """The format of a seed: "tiff16" -> "tiff", "jp2" and "j2k" -> "jpeg2000"."""
    if name in ("jp2", "j2k"):
        return "jpeg2000"
    return name.split("-")[0].rstrip("0123456789")


def campaign(seed, minutes, keep, cli_every=60, log=None):
    rng = random.Random(seed)
    corpus = seeds()
    streams = {
        name: mutants(name, ext, data, random.Random(rng.random()))
        for name, (ext, data) in corpus.items()
    }
    names = sorted(corpus)
    counts = collections.Counter()
    by_format = collections.defaultdict(collections.Counter)
    reasons, noise = collections.Counter(), collections.Counter()
    problems = []
    workers = Workers()
    work = tempfile.mkdtemp(prefix="cresize-fuzz-")
    os.makedirs(keep, exist_ok=True)
    end = time.monotonic() + 60 * minutes
    batch, n, cli_runs = [], 0, 0
    logf = open(log, "a") if log else None
    try:
        special = os.path.join(work, "special")
        os.mkdir(special)
        for path, what in special_files(special):
            outcome, reason, seconds = workers.check(path)
            counts[outcome] += 1
            by_format["special"][outcome] += 1
            print(f"special {what}: {outcome} {seconds:.2f} s: {reason}", flush=True)
            if outcome not in ("ok", "refused"):
                problems.append((path, what, outcome, reason))
        for jobs in (1, 2):
            out_dir = os.path.join(work, f"special-out{jobs}")
            found, info = check_cli(special, out_dir, jobs)
            cli_runs += 1
            print(
                f"special CLI --jobs {jobs}: {info.get('failed')} failed in {info.get('seconds', 0):.1f} s; {found or 'as documented'}",
                flush=True,
            )
            problems += [("special", "cli", "cli", p) for p in found]
            shutil.rmtree(out_dir, ignore_errors=True)
        while time.monotonic() < end:
            name = names[n % len(names)]
            label, ext, data = next(streams[name])
            path = os.path.join(work, f"f{n:06d}-{name}{ext}")
            with open(path, "wb") as f:
                f.write(data)
            digest = _hash(path)
            outcome, reason, seconds = workers.check(path)
            if _hash(path) != digest:
                outcome, reason = "bad-reason", "the input was changed"
            counts[outcome] += 1
            by_format[_family(name)][outcome] += 1
            if outcome == "refused":
                reasons[_short(reason)] += 1
            record = {
                "n": n,
                "seed": name,
                "mutation": label,
                "outcome": outcome,
                "reason": reason,
                "seconds": seconds,
            }
            if logf:
                logf.write(json.dumps(record) + "\n")
            if outcome not in ("ok", "refused"):
                kept = os.path.join(keep, os.path.basename(path))
                shutil.copy(path, kept)
                problems.append((kept, label, outcome, reason))
                print(f"{outcome}: {kept} ({label}): {reason} [{seconds:.1f} s]", flush=True)
            batch.append(path)
            n += 1
            if len(batch) >= cli_every:
                folder = os.path.join(work, "batch")
                os.mkdir(folder)
                for p in batch:
                    os.rename(p, os.path.join(folder, os.path.basename(p)))
                for jobs in (1, 2):
                    out_dir = os.path.join(work, "out")
                    found, info = check_cli(folder, out_dir, jobs)
                    cli_runs += 1
                    noise.update(_short(line) for line in info.get("noise", ()))
                    for p in found:
                        print(f"CLI --jobs {jobs}: {p}", flush=True)
                        problems.append(("cli", f"--jobs {jobs}", "cli", p))
                    if found:
                        dest = os.path.join(keep, f"batch{cli_runs}")
                        shutil.copytree(folder, dest)
                    shutil.rmtree(out_dir, ignore_errors=True)
                shutil.rmtree(folder)
                batch = []
                print(
                    f"{n} files, {time.monotonic() - end + 60 * minutes:.0f} s: {dict(counts)}",
                    flush=True,
                )
    finally:
        workers.kill()
        shutil.rmtree(work, ignore_errors=True)
        if logf:
            logf.close()
    print(
        f"\n{n} mutated files from {len(corpus)} seeds ({len(by_format)} families), "
        f"{cli_runs} CLI runs"
    )
    for fam, c in sorted(by_format.items()):
        print(f"  {fam:10s} {dict(c)}")
    print(f"outcomes: {dict(counts)}")
    print("most frequent reasons:")
    for r, k in reasons.most_common(40):
        print(f"  {k:6d}  {r}")
    print(f"lines of the CLI's stderr not its own (libraries'), {sum(noise.values())}:")
    for r, k in noise.most_common(30):
        print(f"  {k:6d}  {r}")
    print(f"problems: {len(problems)}")
    for p in problems[:100]:
        print("  ", p)
    return problems


def _short(reason):
    """A reason without its path and numbers, to count kinds of reason."""
    import re

    reason = re.sub(r"/\S*fuzz\S*", "PATH", reason)
    return re.sub(r"\d+", "N", reason)[:150]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--minutes", type=float, default=1.0)
    p.add_argument("--keep", default="/tmp/cresize-file-fuzz-kept")
    p.add_argument("--cli-every", type=int, default=60)
    p.add_argument("--log")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--replay", metavar="FILE")
    args = p.parse_args(argv)
    if args.worker:
        return _worker()
    if args.replay:
        print(Workers().check(os.path.abspath(args.replay)))
        return 0
    return 1 if campaign(args.seed, args.minutes, args.keep, args.cli_every, args.log) else 0


if __name__ == "__main__":
    sys.exit(main())
