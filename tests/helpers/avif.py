"""The small AVIF files in tests/data/avif/ and the pixels they hold.

Made once with ``python tests/helpers/avif.py`` (OpenCV 5.1.0 with libavif 1.4.2 and
pyvips 3.2 with libvips 8.18, libheif), and vendored: an OpenCV built without libavif
(older opencv-python wheels) writes none, and the writers' output may change. Every
file is lossless, so the pixels it holds are ``pattern(bits, channels)`` exactly, a
check of a decode that needs no other decoder (each is checked against pyvips' libheif
decode here when it is made).

- ``rgb8.avif``, ``rgb10.avif``, ``rgba12.avif``, ``grey10.avif``: OpenCV's
  ``imwrite`` (``IMWRITE_AVIF_DEPTH``, ``IMWRITE_AVIF_QUALITY`` 100: lossless, identity
  matrix), 8 x 6 pixels, no orientation, no ICC profile; grey10 is monochrome AV1.
- ``orient2.avif`` to ``orient8.avif``: pyvips' ``heifsave`` (``bitdepth=10,
  lossless=True``) of ``pattern(10, 3)`` as stored, with the EXIF orientation 2 to 8,
  which libheif writes as ``irot`` and ``imir`` boxes (Pillow reads them back as the
  orientation); ``upright(o)`` is the image shown.
- ``late10.avif``: pyvips' ``heifsave`` (``bitdepth=10, lossless=True``) of
  ``scrambled()``, whose EXIF item libheif puts after the pixels, beyond the first
  bytes OpenCV 5.1 looks at to recognise the format: it returned None for the file.
- ``greya10.avif``: grey (monochrome AV1) and alpha, 10 bits, 8 x 6: neither OpenCV nor
  libheif writes one (libheif makes grey RGB), so it is ``rgba10`` (OpenCV's 10-bit
  RGBA of ``pattern(10, 4)``, not vendored) with its colour item replaced by
  ``grey10.avif``'s: that item's AV1 data (appended to ``mdat``), its ``av1C`` and
  ``pixi`` (the alpha's, the same bytes) and a ``colr`` of unspecified matrix (not the
  identity, which needs 4:4:4). ``grey_alpha()`` is what libheif decodes.
- ``turned10.avif``: pyvips' ``heifsave`` (``bitdepth=10, lossless=True``) of the 6 x 8
  (upright) pattern rotated to 8 x 6 as stored, with an ``irot`` box (a quarter turn:
  EXIF orientation 6, which Pillow reports) and an sRGB ICC profile (``colr``).
"""

import os

import numpy as np

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "avif")
H, W = 6, 8  # as stored


def path(name):
    return os.path.join(HERE, name)


def pattern(bits, channels, h=H, w=W):
    """The ``(h, w, channels)`` (RGB, RGBA; 1: ``(h, w)`` grey) samples of ``bits`` bits
    (uint8 for 8, else uint16 of 0 to 2**bits - 1): ramps in x, y and x + y, and an
    alpha of four levels."""
    top = (1 << bits) - 1
    y, x = np.mgrid[0:h, 0:w]
    planes = [x * top // (w - 1), y * top // (h - 1), (x + y) * top // (w + h - 2)]
    planes.append((3 * x + y) % 4 * top // 3)
    out = np.stack(planes[:channels] if channels > 1 else planes[2:3], -1)
    out = out.astype(np.uint8 if bits == 8 else np.uint16)
    return out[..., 0] if channels == 1 else out


#: name -> (bits, channels) of the stored pattern
OPENCV_FILES = {
    "rgb8.avif": (8, 3),
    "rgb10.avif": (10, 3),
    "rgba12.avif": (12, 4),
    "grey10.avif": (10, 1),
}


#: EXIF orientation -> the stored (h, w, c) array turned upright, by the EXIF definitions
#: (1: as stored; 2: mirrored left-right; 3: turned half; 4: mirrored top-bottom; 5:
#: transposed; 6: turned a quarter clockwise; 7: transversed; 8: a quarter anticlockwise)
_UPRIGHT = {
    1: lambda a: a,
    2: lambda a: a[:, ::-1],
    3: lambda a: a[::-1, ::-1],
    4: lambda a: a[::-1],
    5: lambda a: np.transpose(a, (1, 0, 2)),
    6: lambda a: np.rot90(a, -1),
    7: lambda a: np.transpose(a[::-1, ::-1], (1, 0, 2)),
    8: lambda a: np.rot90(a, 1),
}
ORIENTED = {o: f"orient{o}.avif" for o in range(2, 9)}


def upright(orientation):
    """The upright 10-bit pixels of ``ORIENTED[orientation]``."""
    return np.ascontiguousarray(_UPRIGHT[orientation](pattern(10, 3)))


def scrambled():
    """The (6, 8, 3) 10-bit pixels of late10.avif: no ramp (they compress less)."""
    return (np.arange(H * W * 3).reshape(H, W, 3) * 37 % 1024).astype(np.uint16)


def turned():
    """The upright 8 x 6 (h, w) pixels of turned10.avif: stored turned a quarter turn."""
    return pattern(10, 3, W, H)


def grey_alpha():
    """The (6, 8, 2) 10-bit grey and alpha of greya10.avif."""
    return np.stack([pattern(10, 1), pattern(10, 4)[..., 3]], -1)


def _grey_alpha(rgba, grey):  # pragma: no cover - run by hand
    """greya10.avif's bytes from OpenCV's 10-bit RGBA file ``rgba`` and grey10.avif's
    bytes ``grey`` (both libavif's layout: iloc of 4-byte offsets and lengths, one
    extent an item, mdat last; ipco: ispe, pixi, av1C, colr, then the alpha's pixi,
    av1C and auxC)."""
    out = bytearray(rgba)
    at = grey.index(b"iloc") + 4 + 4 + 2 + 2 + 6  # FullBox, sizes, count; id, ref, count
    start, length = (int.from_bytes(grey[at + i : at + i + 4], "big") for i in (0, 4))
    pixels = grey[start : start + length]
    at = out.index(b"iloc") + 4 + 4 + 2 + 2 + 6
    assert out[at - 6 : at - 4] == b"\0\1"  # item 1, the colour
    out[at : at + 8] = len(out).to_bytes(4, "big") + length.to_bytes(4, "big")
    colr = out.index(b"colrnclx") + 8 + 4  # primaries, transfer; then the matrix
    assert out[colr : colr + 2] == b"\0\0"  # identity
    out[colr : colr + 2] = b"\0\2"  # unspecified
    ipma = out.index(b"ipma") + 4
    item = out.index(bytes.fromhex("0001040102830400"), ipma)  # ispe, pixi, av1C, colr
    out[item : item + 8] = bytes.fromhex("0001040105860400")  # the alpha's pixi, av1C
    mdat = out.index(b"mdat") - 4
    size = int.from_bytes(out[mdat : mdat + 4], "big")
    assert mdat + size == len(out)
    out[mdat : mdat + 4] = (size + length).to_bytes(4, "big")
    return bytes(out + pixels)


def _make():  # pragma: no cover - run by hand
    import cv2
    import pyvips
    from PIL import ImageCms

    os.makedirs(HERE, exist_ok=True)
    for name, (bits, channels) in OPENCV_FILES.items():
        pixels = pattern(bits, channels)
        if channels > 1:
            pixels = pixels[..., [2, 1, 0, 3][:channels]]  # OpenCV's BGR(A)
        settings = [cv2.IMWRITE_AVIF_DEPTH, bits, cv2.IMWRITE_AVIF_QUALITY, 100]
        assert cv2.imwrite(path(name), np.ascontiguousarray(pixels), settings)
    # stored as the upright image turned clockwise, with irot 3 (anticlockwise): upright
    stored = np.rot90(turned(), 1)  # (6, 8, 3)
    image = pyvips.Image.new_from_array(np.ascontiguousarray(stored) << 6)
    image = image.copy(interpretation="rgb16")
    image.set_type(pyvips.GValue.gint_type, "orientation", 6)
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    image.set_type(pyvips.GValue.blob_type, "icc-profile-data", icc)
    image.heifsave(path("turned10.avif"), bitdepth=10, compression="av1", lossless=True)
    for orientation, name in ORIENTED.items():
        image = pyvips.Image.new_from_array(np.ascontiguousarray(pattern(10, 3)) << 6)
        image = image.copy(interpretation="rgb16")
        image.set_type(pyvips.GValue.gint_type, "orientation", orientation)
        image.heifsave(path(name), bitdepth=10, compression="av1", lossless=True)
        got = pyvips.Image.new_from_file(path(name)).numpy() >> 6
        assert np.array_equal(got, upright(orientation)), name
    image = pyvips.Image.new_from_array(scrambled() << 6).copy(interpretation="rgb16")
    image.heifsave(path("late10.avif"), bitdepth=10, compression="av1", lossless=True)
    assert np.array_equal(pyvips.Image.new_from_file(path("late10.avif")).numpy() >> 6, scrambled())
    assert cv2.imread(path("late10.avif"), cv2.IMREAD_UNCHANGED) is None  # as it was made
    rgba = os.path.join(HERE, "rgba10.tmp.avif")
    settings = [cv2.IMWRITE_AVIF_DEPTH, 10, cv2.IMWRITE_AVIF_QUALITY, 100]
    assert cv2.imwrite(rgba, np.ascontiguousarray(pattern(10, 4)[..., [2, 1, 0, 3]]), settings)
    with open(rgba, "rb") as f, open(path("grey10.avif"), "rb") as g:
        made = _grey_alpha(f.read(), g.read())
    os.remove(rgba)
    with open(path("greya10.avif"), "wb") as f:
        f.write(made)
    got = pyvips.Image.new_from_file(path("greya10.avif")).numpy() >> 6  # as RGBA
    assert np.array_equal(got[..., [0, 3]], grey_alpha()), "greya10.avif"
    # check: libheif's decode (upright, 16 bits: the samples shifted up)
    for name, (bits, channels) in OPENCV_FILES.items():
        got = pyvips.Image.new_from_file(path(name)).numpy()
        want = pattern(bits, channels)
        if channels == 1 and got.ndim == 3:
            got = got[..., 0]
        assert np.array_equal(got >> (16 - bits if bits > 8 else 0), want), name
    got = pyvips.Image.new_from_file(path("turned10.avif")).numpy() >> 6
    assert np.array_equal(got, turned())


if __name__ == "__main__":
    _make()
