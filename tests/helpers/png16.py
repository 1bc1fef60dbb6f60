"""16-bit colour PNGs with metadata, written independently of cresize's writer.

OpenCV encodes the pixels; the ICC profile (``iCCP``), EXIF (``eXIf``) and DPI
(``pHYs``) chunks are added here by the PNG specification, so that a test of
cresize's reading and writing does not check cresize's chunk code against itself.
"""

import functools
import struct
import zlib

import numpy as np


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png16(path, rgb, icc=None, exif=None, dpi=None):
    """Write the (H, W, 3 or 4) uint16 ``rgb`` to ``path`` as a 16-bit PNG with the
    given ``icc`` profile bytes, ``exif`` bytes (TIFF header first, as in ``eXIf``)
    and ``dpi`` (pixels per inch: one number for both axes, or an (x, y) pair);
    return ``path``."""
    import cv2

    order = [2, 1, 0, 3][: rgb.shape[2]]
    ok, data = cv2.imencode(".png", np.ascontiguousarray(rgb[..., order]))
    assert ok
    data = data.tobytes()
    assert data[12:16] == b"IHDR"
    extra = b""
    if icc is not None:
        extra += chunk(b"iCCP", b"a profile\0\0" + zlib.compress(icc))
    if dpi is not None:
        x, y = dpi if isinstance(dpi, tuple) else (dpi, dpi)
        extra += chunk(b"pHYs", struct.pack(">IIB", round(x / 0.0254), round(y / 0.0254), 1))
    if exif is not None:
        extra += chunk(b"eXIf", exif[6:] if exif.startswith(b"Exif\0\0") else exif)
    path.write_bytes(data[:33] + extra + data[33:])  # after the signature and IHDR
    return path


def png16_grey_alpha(path, pixels, icc=None):
    """Write the (H, W, 2) uint16 grey-and-alpha ``pixels`` to ``path`` as a 16-bit
    PNG of colour type 4 (which OpenCV does not write: rows unfiltered, by the PNG
    specification) with the given ``icc`` profile; return ``path``."""
    h, w = pixels.shape[:2]
    rows = np.zeros((h, 4 * w + 1), np.uint8)  # filter byte 0: none
    rows[:, 1:] = np.ascontiguousarray(pixels, ">u2").view(np.uint8).reshape(h, 4 * w)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 4, 0, 0, 0))
    if icc is not None:
        data += chunk(b"iCCP", b"a profile\0\0" + zlib.compress(icc))
    data += chunk(b"IDAT", zlib.compress(rows.tobytes())) + chunk(b"IEND", b"")
    path.write_bytes(data)
    return path


@functools.cache
def srgb_icc() -> bytes:
    """An sRGB ICC profile, made once: LittleCMS stamps each new profile with the time,
    so two made a second apart differ (a test comparing them failed when the clock
    ticked)."""
    from PIL import ImageCms

    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
