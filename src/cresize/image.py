"""Resize images: paths, ``PIL.Image`` objects and HW/HWC NumPy arrays.

The pixels are computed by the core kernels (``cresize.resize(..., axes=(0, 1))``),
never by Pillow's resize; Pillow (``pip install "cresize[image]"``) only reads and
writes files. OpenCV (``opencv-python-headless``, also in the ``image`` extra)
reads and writes what Pillow cannot (16-bit RGB(A) PNG and TIFF, 16-bit PPM), decodes the
pixels of RGB and grey JPEGs (the same pixels as Pillow's, without a copy) and
encodes PNG fast; without it Pillow does all but 16-bit colour. tifffile (also
in the extra) writes 16-bit TIFF with its ICC profile. Arrays need none of them.
See docs/files.md.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import numbers
import os
import struct
import threading
import warnings
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any, NamedTuple, TypeGuard, cast, overload

import numpy as np

from cresize import _optional, _spec
from cresize._api import resize
from cresize._atomic import _write_atomic
from cresize._dtypes import round_to

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

    import numpy.typing as npt
    import PIL.Image

__all__ = ["ImageArray", "narrows", "open_image", "resize_image", "save_image", "target_size"]

INSTALL_HINT = 'Pillow is needed to read and write image files: pip install "cresize[image]"'
OPENCV_HINT = (
    "OpenCV reads and writes 16-bit colour (Pillow would keep 8 bits): "
    'pip install "cresize[image]" (or opencv-python-headless)'
)
TIFFFILE_HINT = 'pip install "cresize[image]" (or tifffile) to keep it in 16-bit TIFF'
TIFFFILE_READ_HINT = 'pip install "cresize[image]" (or tifffile) to read them'
OPENCV = "OpenCV (cv2)"
#: What happens instead of a broken OpenCV / tifffile (``_optional.load``'s warning).
OPENCV_FALLBACK = "Pillow decodes and encodes without it (16-bit colour needs it)"
TIFFFILE_FALLBACK = "OpenCV writes 16-bit TIFF, without an ICC profile"

#: Shrink-on-load: a JPEG is decoded reduced by 2, 4 or 8 (DCT scaling) only to
#: a size at least this many times the target, then resampled exactly (like
#: Pillow's ``reducing_gap``, 2.0 in ``thumbnail``). The reduced decode aliases
#: near its Nyquist limit; the exact resample filters most of that out when it
#: still shrinks by this much. Photo-like images stay above 54 dB PSNR against
#: the full decode with 1.5; a zone plate (rings up to the Nyquist limit, the
#: worst case) needs 2.5 for about 40 dB (35.5 dB with 2). See docs/files.md.
SHRINK_ON_LOAD_MARGIN = 2.5
#: The longest side libjpeg writes (its JPEG_MAX_DIMENSION; the format's own is 65,535).
JPEG_MAX_SIDE = 65500
#: The longest side a GIF holds (its width and height are 16-bit fields).
GIF_MAX_SIDE = 65535
#: The longest side libwebp writes (WEBP_MAX_DIMENSION; the format's fields hold 14 bits).
WEBP_MAX_SIDE = 16383
#: Most bytes of EXIF a JPEG holds (one APP1 segment, "Exif\0\0" included: Pillow's
#: ``MAX_BYTES_IN_MARKER``); a longer one is left out rather than fail the write.
JPEG_EXIF_MAX = 65533
#: Most bytes of XMP a JPEG holds (one APP1 segment less its 29-byte namespace header:
#: Pillow's limit); a longer one (Extended XMP, which Pillow does not write) is left out.
JPEG_XMP_MAX = 65504
#: Most dots an inch a JPEG holds (JFIF density: 16 bits; Pillow's writer wraps a
#: larger one, 70,000 dpi to 4,464); a larger DPI is left out.
JPEG_DPI_MAX = 65535
#: Formats that hold 16 bits per colour channel (written with OpenCV).
SIXTEEN_BIT_FORMATS = ("PNG", "TIFF")

#: ``--format`` names -> (Pillow format, file extension).
FORMATS = {
    "png": ("PNG", ".png"),
    "jpeg": ("JPEG", ".jpg"),
    "jpg": ("JPEG", ".jpg"),
    "webp": ("WEBP", ".webp"),
    "tiff": ("TIFF", ".tif"),
    "tif": ("TIFF", ".tif"),
    "bmp": ("BMP", ".bmp"),
    "gif": ("GIF", ".gif"),
    "avif": ("AVIF", ".avif"),  # where Pillow has AVIF (features.check("avif"))
}

# Modes resampled as they are; anything else is converted first (see _pixels).
_KEEP = {
    "L",
    "LA",
    "RGB",
    "RGBA",
    "I",
    "I;16",
    "I;16L",
    "I;16B",
    "I;16N",
    "F",
    "CMYK",
    "YCbCr",
    "LAB",
    "HSV",
}
# Modes each writer takes; others are converted (see _for_format). TIFF: Pillow's list.
_WRITES = {
    "JPEG": ("L", "RGB", "CMYK"),
    # Pillow writes L as RGB: converted here, so that a grey ICC profile is left out
    "WEBP": ("RGB", "RGBA"),
    # Pillow's AVIF writer converts the others itself, clipping I;16 to 8 bits (and I, F)
    "AVIF": ("L", "RGB", "RGBA"),
    "BMP": ("L", "RGB"),
    "PNG": ("L", "LA", "RGB", "RGBA", "I;16"),
    # Pillow keeps an RGBA image's transparent pixels (alpha 0) as the transparent index,
    # but flattens LA, and clips I;16 to 8 bits (and I, F): those go RGBA and rounded
    "GIF": ("1", "L", "P", "RGB", "RGBA"),
}


class ImageArray(np.ndarray):
    """A NumPy array with the ``info`` of the image it holds, as ``PIL.Image.info``.

    What ``open_image`` and ``resize_image`` return for 16-bit colour (and 16-bit
    grey and alpha), which Pillow cannot hold: the pixels as an ordinary array
    (a subclass of ``ndarray``) and the file's ``info`` (``"icc_profile"``,
    ``"exif"`` without the orientation tag, ``"dpi"``, ...), which ``save_image``
    writes as it writes a Pillow image's. Make one of your own array with
    ``ImageArray(pixels, {"icc_profile": profile_bytes})``. Views, slices and the
    results of arithmetic keep the ``info`` (a copy of the dict; of the first
    ``ImageArray`` operand); a reduction to one value (``a.max()``) is a NumPy
    scalar, as for an ndarray; ``np.asarray(a)`` is the plain array.

    Parameters
    ----------
    pixels : array_like
        The pixels (viewed, not copied, when already an array).
    info : mapping, optional
        The image's ``info``, copied into a dict. Default: the ``info`` of
        ``pixels`` when it is an ``ImageArray`` (``ImageArray(a)`` keeps it),
        else empty; ``{}`` gives an empty one.
    """

    info: dict[str, Any]

    def __new__(cls, pixels: Any, info: Mapping[str, Any] | None = None) -> ImageArray:
        if info is None and isinstance(pixels, ImageArray):
            info = pixels.info
        array = np.asarray(pixels).view(cls)
        array.info = dict(info or {})
        return array

    def __array_finalize__(self, obj: Any) -> None:
        self.info = dict(getattr(obj, "info", None) or {})

    def __array_wrap__(self, array: Any, context: Any = None, return_scalar: bool = False) -> Any:
        # One value (a.max(), a.sum(), (a == b).all()) is a NumPy scalar, as for an
        # ndarray, not a 0-d ImageArray (unhashable, not np.isscalar). NumPy < 2
        # passes no return_scalar: a 0-d result is one value there.
        array = super().__array_wrap__(array, context)
        return array[()] if return_scalar or array.ndim == 0 else array

    def __reduce__(self) -> Any:  # pickled (processes, dask) with its info
        rebuild, args, state = cast(tuple[Any, Any, Any], super().__reduce__())
        return rebuild, args, (state, self.info)

    def __setstate__(self, state: Any) -> None:
        array_state, self.info = state
        super().__setstate__(array_state)


def _pil():
    return _optional.load("PIL.Image", "Pillow", missing=INSTALL_HINT)


def open_image(
    path: str | bytes | os.PathLike[str] | IO[bytes],
) -> PIL.Image.Image | np.ndarray:
    """Read an image file completely and apply its EXIF orientation.

    Parameters
    ----------
    path : str, bytes, os.PathLike or binary file object
        The file to read; its format is found from its content, not its name (a bytes
        name is the file ``os.fsdecode`` names, as for Pillow). A file
        object (``io.BytesIO``, ``open(name, "rb")``: ``read``, ``seek`` and ``tell``) is
        read from its start, whatever its position, as Pillow's ``Image.open`` reads
        one, and its position is put back as it was; it is not closed. One that cannot
        seek (a pipe, or an object with ``read`` only) is read from where it is to its
        end. A file opened in text mode is a ``TypeError``. A 16-bit TIFF stored plane
        by plane, and a TIFF that Pillow cannot open (read by tifffile), are read from
        a file name only: from a file object, a ``ValueError`` says so.

    Returns
    -------
    PIL.Image.Image or ndarray
        The first frame of an animated GIF, PNG or WebP, the first page of a
        multi-page TIFF. Fully decoded (a corrupt or truncated file raises here,
        not later), upright, with ``info`` (ICC profile, EXIF without the orientation tag)
        kept; a JPEG's or AVIF's chroma subsampling is ``info["subsampling"]``, kept in
        JPEG and AVIF output, and a lossless WebP has ``info["lossless"]``: kept lossless in WebP
        output. A 16-bit RGB(A) PNG or TIFF (or an RGB PPM, JPEG 2000 or AVIF of more than
        8 bits), which Pillow would read as 8-bit, is returned as an ``(H, W, 3 or 4)``
        uint16 ``ImageArray`` read with OpenCV (a TIFF stored plane by plane: with
        tifffile), with the same ``info``, read by Pillow from the header; without OpenCV it
        is a ``ValueError`` rather than lost bits, and so is a 16-bit CMYK TIFF
        or grey-and-alpha JPEG 2000 (OpenCV cannot read them), and so is an AVIF of
        10 or 12 bits where OpenCV reads no AVIF, or of grey and alpha (its grey is read
        as mode ``I;16``).
        A 16-bit grey-and-alpha PNG is an ``(H, W, 2)`` uint16 ``ImageArray``; a 16-bit grey
        image with a transparent value (PNG ``tRNS``) stays Pillow's mode ``I;16`` with
        ``info["transparency"]`` (``resize_image`` makes it grey and alpha, ``(H, W, 2)``),
        and a 16-bit RGB PNG's ``tRNS`` colour is alpha (read as RGBA), not in ``info``. A TIFF that Pillow cannot open (float
        RGB(A), float16, float64, 16-bit grey and alpha) or decode (8-bit alpha
        stored plane by plane but straight RGBA) is read by tifffile as an
        ``ImageArray`` (float16 as float32); without tifffile, a ``ValueError``
        says so. A quarter turn (EXIF orientation 5-8)
        swaps the x and y resolution in ``info`` too (see docs/files.md).

    Raises
    ------
    TypeError
        ``path`` not a file name or a binary file object (a file opened in text mode
        too).
    OSError
        A missing file (``FileNotFoundError``), or one that is empty, not an image
        or cut short (Pillow's ``UnidentifiedImageError`` and its other errors).
    ValueError
        Pixels that would be read narrowed or not at all (above: a 16-bit CMYK TIFF,
        a TIFF only tifffile reads given as a file object or without tifffile, ...).
    ImportError
        ``BrokenDependencyError``: a package the file needs (Pillow, OpenCV,
        tifffile) is installed but fails to import.
    PIL.Image.DecompressionBombError
        More than twice Pillow's ``PIL.Image.MAX_IMAGE_PIXELS`` pixels (Pillow's
        guard, kept: an ``Exception``, neither an ``OSError`` nor a ``ValueError``;
        see docs/files.md).
    """
    with _source(path, "path", "open_image") as source:
        return _read(source)[0]


def _is_file_object(given):
    """Whether ``given`` is read as a file object (``open_image``, ``resize_image``): an
    object with a ``read`` method that is not a name."""
    return not isinstance(given, (str, bytes, os.PathLike)) and hasattr(given, "read")


@contextlib.contextmanager
def _source(given, name, caller):
    """What ``_read`` reads for ``given``, the argument ``name`` of ``caller``
    (``open_image``, ``resize_image``): a file name (a str, ``_path``), or a binary file
    object, read from its start (as Pillow's ``Image.open`` does), its position put back
    on the way out, never closed; one that cannot seek (a pipe, an object with ``read``
    only) is read on to its end into a ``BytesIO``. A text-mode file is a TypeError."""
    given = _path(given, name, file_object=caller)
    if isinstance(given, str):
        yield given
        return
    if _is_text(given):  # else a UnicodeDecodeError of its first bytes
        raise TypeError(
            f"{name}: a file object opened in text mode ({type(given).__name__}) cannot be "
            f"read; open the file in binary mode, open(name, 'rb'), or give its name"
        )
    # a pipe, or an object with read() only (Pillow reads one): read on, as Pillow does
    can_seek = hasattr(given, "seek") and hasattr(given, "tell")
    if not getattr(given, "seekable", lambda: can_seek)():
        yield io.BytesIO(given.read())
        return
    where = given.tell()
    try:
        yield given
    finally:
        given.seek(where)  # as it was given


def _is_text(given):
    """Whether the file object ``given`` reads text: an ``io.TextIOBase`` (``open(name)``,
    ``io.StringIO``), or one whose ``read(0)`` gives a str rather than bytes (a
    ``tempfile.SpooledTemporaryFile(mode="w+")``, a ``codecs`` stream reader), which
    consumes nothing. Its ``mode`` is not asked: a ``zipfile.ZipExtFile``'s is ``"r"``,
    binary all the same. A ``read`` that takes no size (called once, for all it holds)
    is taken as binary, as before."""
    if isinstance(given, io.TextIOBase):
        return True
    try:
        return isinstance(given.read(0), str)
    except TypeError:  # read() takes no size
        return False


def _path(path, name="path", *, file_object=None):
    """``path`` as ``os.fspath`` gives it, a bytes name as its str (``os.fsdecode``: the
    same file; Pillow takes either, and cresize's messages, extensions and temporary
    names want a str), else a TypeError naming
    ``name`` (Pillow's own for an int or None was an AttributeError: 'int' object has no
    attribute 'read'); a NUL byte in it is a ValueError naming it. ``file_object``: the
    name of the function that takes a file object too (``open_image``): an object with
    a ``read`` method (a file Pillow reads) passes unchanged."""
    if file_object and _is_file_object(path):
        return path
    try:
        path = os.fspath(path)
    except TypeError:
        taken = "a str, bytes or os.PathLike (a file name)"
        if file_object:  # (one with a read method: _is_file_object)
            taken += " or a binary file object"
        raise TypeError(f"{name} must be {taken}; got {type(path).__name__}") from None
    if isinstance(path, bytes) and b"\0" in path:  # an image's bytes, not a name
        raise ValueError(
            f"{name} must not contain a NUL character; got {len(path):,} bytes beginning "
            f"{path[:16]!r}: a file's contents rather than its name?"
            + (f" {file_object}(io.BytesIO(data)) reads them" if file_object else "")
        )
    if isinstance(path, str) and "\0" in path:
        raise ValueError(f"{name} must not contain a NUL character; got {path!r}")
    return os.fsdecode(path)


def _shown(path):
    """``path`` in a message: its name, or what a file object given instead is."""
    if isinstance(path, (str, bytes, os.PathLike)):
        return os.fspath(path)
    return f"the {type(path).__name__} given"


def _by_name_only(path, what):
    """A ``ValueError`` where ``path`` is a file object (``open_image`` and
    ``resize_image`` take one for what Pillow reads itself): ``what`` is read from a file
    name only."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise ValueError(
            f"{what} is read from a file name only, not from a file object "
            f"({_shown(path)}); give the file's name (or save the bytes to a file)"
        )


def _read(path, geometry=None, opencv=False):
    """``(image, (width, height) of the upright full image)``.

    With ``geometry`` (``target_size``'s keywords), a JPEG is decoded reduced
    (DCT scaling, ``Image.draft``) to no less than ``SHRINK_ON_LOAD_MARGIN``
    times the target. With ``opencv``, an RGB or grey JPEG is decoded by OpenCV
    when it is installed, and comes back as a ``_Decoded``: see ``_decode_jpeg``.
    """
    Image = _pil()
    from PIL import ImageOps

    _refuse_png_chunk_flood(path)
    try:
        opened = _open(path)
    except Image.UnidentifiedImageError:
        pixels = _read_tiff_pillow_cannot(path)  # the error again, if not a TIFF
        return pixels, (pixels.shape[1], pixels.shape[0])
    with opened as im:
        if im.format == "TIFF" and not {_X_RESOLUTION, _Y_RESOLUTION} <= im.tag_v2.keys():
            # Pillow gives a TIFF without its resolution a made-up 1x1 dpi (a missing
            # tag's default), which the output would have claimed: it has none
            for key in ("dpi", "resolution"):
                im.info.pop(key, None)
        avif = _avif_header(im)  # (bits, grey, sampling): its header parsed once a read
        # a JPEG's or an AVIF's chroma subsampling: kept in JPEG and AVIF output (_save)
        sampling = _jpeg_subsampling(im) or (avif[2] if avif else None)
        if sampling:
            im.info["subsampling"] = sampling
        maxval, signed = _sample_maxval(im, avif)
        sixteen = _16bit_colour_mode(im, maxval, avif)  # before getexif, which may load a PNG
        if sixteen and im.format == "JPEG2000":
            _refuse_jpeg2000(path, sixteen, maxval.bit_length(), signed)
        if sixteen and im.format == "AVIF":
            _refuse_avif(path, sixteen, maxval.bit_length())
        orientation = _orientation(im, path)  # (the first to parse the EXIF)
        turned = orientation in _QUARTER_TURNS
        stored = _stored_size(im)
        full = stored[::-1] if turned else stored
        # a TIFF's EXIF is tags of its own directory: as a JPEG's, set once the pixels
        # are upright (``exif_transpose`` would write every tag of the directory there)
        tiff_exif = _exif_of_tiff(im.getexif()) if im.format == "TIFF" else None
        if sixteen:
            planar = _planar_16bit_tiff(im)
            # OpenCV's TIFF decoder turns the pixels upright itself (with any flags) by
            # the TIFF's orientation tag; one found in its XMP only is turned here
            by_opencv = im.format == "TIFF" and not planar and _tiff_tag(im, 0x0112, 1)[0] != 1
            turn = 1 if by_opencv else orientation
            pixels = _read_16bit(path, sixteen, turn, im.size, planar, im.format)
            if im.format == "AVIF" and pixels.max(initial=0) > maxval:  # a header that lies
                raise OSError(
                    f"{_shown(path)} holds samples above the {maxval.bit_length()} bits "
                    f"its header says (a damaged file?)"
                )
            if maxval is not None and maxval != 65535:  # OpenCV gives 0-maxval: scaled
                wide = pixels.astype(np.uint32) * 65535  # as Pillow scales 16-bit grey
                pixels = ((wide + maxval // 2) // maxval).astype(np.uint16)
            if im.format == "TIFF" and _tiff_tag(im, _EXTRA_SAMPLES, 0)[0] == 1:
                pixels = _straight_alpha(pixels)  # OpenCV and tifffile give them as stored
            info = dict(im.info, exif=tiff_exif) if tiff_exif else im.info
            info = _upright_info(info, orientation)
            if pixels.ndim == 3 and pixels.shape[2] in (2, 4):
                # a PNG's tRNS colour, alpha now (OpenCV's): out of info, as resize_image
                # takes it out of a Pillow image's once it is alpha
                info = _without_transparency(info)
            if sixteen == "L":  # an AVIF's grey: Pillow's 16-bit grey, as a PNG's is read
                grey = Image.fromarray(pixels)
                grey.info = info
                return grey, full
            return ImageArray(pixels, info), full
        if im.format == "WEBP" and _file_header(im, _webp_lossless):  # kept lossless
            im.info["lossless"] = True
        scale = 1
        if geometry is not None and im.format in ("JPEG", "MPO"):
            (w, h), _ = target_size(*full, **geometry)
            if turned:
                w, h = h, w
            if 2 * w <= im.size[0] and 2 * h <= im.size[1]:
                width = im.size[0]
                drafted = im.draft(
                    None,
                    (math.ceil(w * SHRINK_ON_LOAD_MARGIN), math.ceil(h * SHRINK_ON_LOAD_MARGIN)),
                )
                if drafted is not None:  # (mode, box of the full image / scale)
                    scale = round(width / drafted[1][2])
        if opencv and im.format == "JPEG" and im.mode in ("RGB", "L"):
            decoded = _decode_jpeg(path, im, scale, orientation)
            if decoded is not None:
                return decoded, full
        try:
            _load(im, path)
        except ValueError:  # "unknown raw mode": 8-bit alpha stored plane by plane
            if im.format != "TIFF" or _tiff_tag(im, _PLANAR_CONFIGURATION, 1)[0] != 2:
                raise
            pixels = _read_tiff_pillow_cannot(path, im)
            return pixels, (pixels.shape[1], pixels.shape[0])
        if im.mode == "I" and _unsigned_32bit_tiff(im) and np.asarray(im).min() < 0:
            raise ValueError(
                f"{_shown(path)} holds unsigned 32-bit samples from 2**31 up, which "
                f"Pillow reads as negative numbers; convert it to float32 or 16 bits first"
            )
        core = im.im
        try:
            ImageOps.exif_transpose(im, in_place=True)
        except _EXIF_ERRORS as exc:
            if im.im is core:  # not the write-back after the turn
                raise
            im.info = _exif_unwritable_left_out(im.info, exc)
        if tiff_exif:
            im.info["exif"] = tiff_exif
        if im.format == "TIFF" and im.info.get("xmp"):
            # its EXIF has no orientation tag (applied): an XMP orientation that the tag
            # overrode (tag 1, XMP 6) is taken out too, or the output's reader turned it
            im.info = _upright_info(im.info, 1)
        if turned:
            im.info = _turned_info(im.info)
        if im.format == "PPM" and im.mode == "I":
            # a PGM of more than 8 bits: Pillow gives it its 32-bit mode I, scaled to
            # 0-65535 (white is maxval), which no 8-bit format takes and TIFF would write
            # at 32 bits: it is 16-bit grey, as a 16-bit PNG's I;16
            sixteen_grey = Image.fromarray(np.asarray(im).astype(np.uint16))
            sixteen_grey.info = im.info
            return sixteen_grey, full
    return im, full


#: Pillow's ``JpegImagePlugin.get_sampling`` -> its JPEG writer's ``subsampling=``
_JPEG_SAMPLINGS = {0: "4:4:4", 1: "4:2:2", 2: "4:2:0"}


def _jpeg_subsampling(im):
    """The chroma subsampling of the JPEG open in Pillow as ``im`` (``"4:4:4"``,
    ``"4:2:2"``, ``"4:2:0"``; from its frame header, read as Pillow opened it), or None:
    not a JPEG, one of grey or CMYK, or another sampling."""
    if im.format not in ("JPEG", "MPO"):
        return None
    from PIL import JpegImagePlugin

    return _JPEG_SAMPLINGS.get(JpegImagePlugin.get_sampling(im))


def _stored_size(im):
    """(width, height) of the pixels of ``im`` (open in Pillow) as stored, before EXIF
    orientation: newer Pillow gives a TIFF's size already turned."""
    if im.format == "TIFF":
        return (im.tag_v2.get(256, im.size[0]), im.tag_v2.get(257, im.size[1]))
    return im.size


class _Header(NamedTuple):
    """What ``_header`` reads of a file without decoding its pixels."""

    size: tuple[int, int]  #: (width, height) as stored, before EXIF orientation
    #: (width, height) upright, after EXIF orientation (a PNG's EXIF after its pixels
    #: too: ``_png_orientation``)
    upright: tuple[int, int]
    #: images in the file, of which ``open_image`` reads the first; None: more than
    #: one, those after the first unreadable (a damaged or truncated file)
    frames: int | None
    unit: str  #: "frames" (animated GIF, PNG, WebP) or "pages" (TIFF)
    #: True: the orientation is not known before the pixels are decoded (a PNG of more
    #: chunks after its pixels than ``_png_orientation`` reads); ``upright`` is then
    #: the stored size, and the upright image may be either way: ``uprights``
    unsure: bool = False

    @property
    def uprights(self) -> tuple[tuple[int, int], ...]:
        """The upright sizes the image may have: ``upright``, and turned where ``unsure``."""
        return (self.upright, self.upright[::-1]) if self.unsure else (self.upright,)


def _header(path):
    """The ``_Header`` of the file at ``path``. Only GIF, PNG, WebP and TIFF count their
    frames or pages; other formats count 1: an MPO's second image is a preview or a
    depth map, not content."""
    _refuse_png_chunk_flood(path)
    try:
        opened = _open(path)
    except _pil().UnidentifiedImageError:
        page = _tiff_first_page(path)  # None: not a TIFF (Pillow's error again)
        if page is None:
            raise
        (h, w), frames, turned = page
        return _Header((w, h), (h, w) if turned else (w, h), frames, "pages")
    with opened as im:
        _without_damaged_exif(im, path, warn=False)  # (_read says so)
        frames: int | None = 1
        if im.format in ("GIF", "PNG", "WEBP", "TIFF"):
            try:  # reads the header of every frame or page
                frames = getattr(im, "n_frames", 1)
            except Exception:  # one after the first is damaged: the first is still read
                frames = None
        stored = _stored_size(im)
        if im.format == "PNG" and "exif" not in im.info:  # else getexif decodes a PNG
            orientation = _png_orientation(im, path)
        else:
            orientation = im.getexif().get(0x0112, 1)
        turned = orientation in _QUARTER_TURNS
        upright = stored[::-1] if turned else stored
        unit = "pages" if im.format == "TIFF" else "frames"
        return _Header(stored, upright, frames, unit, unsure=orientation is None)


#: The PNG chunks after the pixel data that can hold an EXIF orientation for Pillow's
#: ``getexif``: EXIF, text (a "Raw profile type exif", XMP in an iTXt)
_PNG_EXIF_CHUNKS = (b"eXIf", b"tEXt", b"zTXt", b"iTXt")
#: The bytes of them read, all together (Pillow's bound on a PNG's text,
#: ``MAX_TEXT_MEMORY``): a longer chunk, or one beyond it, is skipped
_PNG_TEXT_MAX = 64 << 20
#: The chunk headers read after the first of the pixel data, at most (besides one per
#: ``_PNG_BYTES_A_CHUNK`` bytes of the file): beyond them, the orientation is unknown.
#: Real files have a handful of chunks there besides the pixel data's (libpng's 8 KiB
#: ones, Pillow's 64 KiB ones); reading a crafted million of them took 1.6 s.
_PNG_CHUNKS_MAX = 4096
_PNG_BYTES_A_CHUNK = 4096
#: The first 8 bytes of a PNG file
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_chunks(read, at, limit):
    """``(kind, body offset, length)`` of the chunks of a PNG whose headers are read from
    the offset ``at`` on, 8 bytes a chunk (one ``read(offset, 8)`` each: ``_file_reads``;
    the bodies and CRCs skipped: the caller may read a body between two), at most
    ``limit`` of them; then ``None`` where the list goes on (the caller's bound is
    reached: the chunks beyond are not read). The list ends at the end of the file (a
    header cut short); a length that runs past it gives a header cut short next."""
    for _ in range(limit):
        head = read(at, 8)
        if len(head) != 8:
            return
        length, kind = struct.unpack(">I4s", head)
        yield kind, at + 8, length
        at += 8 + length + 4  # the header, the body and the CRC
    yield None


#: The chunks that hold a PNG's pixel data (an APNG's later frames: fdAT)
_PNG_PIXEL_CHUNKS = (b"IDAT", b"fdAT")


def _png_orientation(im, path):
    """The EXIF orientation of the PNG at ``path`` open in Pillow as ``im`` (whose EXIF,
    if any, is not before its pixels), as ``im.getexif()`` gives it without decoding the
    pixels: Pillow decodes them to read the chunks after them (an EXIF chunk, text with
    a raw EXIF profile or XMP). Those chunks are found by the chunk list's headers
    (``_png_chunks``) from the first of the pixel data on (where Pillow's ``open``
    stopped), the pixel data skipped (and the chunks beyond ``_PNG_TEXT_MAX`` bytes in
    all); up to the end, or the next frame of an animated PNG, as Pillow reads them.
    Read as the chunks of a 1x1 PNG after ``im.info`` (the chunks before the pixels,
    where a raw profile or XMP may be too; a later value replaces an earlier one, as in
    Pillow's ``info``), with Pillow's own rules (``Image.getexif``). A damaged chunk
    list ends the search. None: more than ``_PNG_CHUNKS_MAX`` chunk headers (besides
    one per ``_PNG_BYTES_A_CHUNK`` bytes of the file) would have to be read, and the
    orientation is unknown: Pillow would read them all, in Python."""
    Image = _pil()
    late, budget = [], _PNG_TEXT_MAX
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))  # reads unbuffered
        try:
            read = _file_reads(fd)
            chunks = _PNG_CHUNKS_MAX + os.fstat(fd).st_size // _PNG_BYTES_A_CHUNK
            first = im.tile[0][2] - 8 if im.tile else 8  # the first pixel chunk's header
            found = next(_png_chunks(read, first, 1), None)
            if found is None or found[0] not in _PNG_PIXEL_CHUNKS:  # not where Pillow stopped
                # the first pixel chunk, within as many chunks as _refuse_png_chunk_flood lets by
                walk = _png_chunks(read, 8, _PNG_CHUNKS_BEFORE_MAX)
                found = next((c for c in walk if c is None or c[0] in _PNG_PIXEL_CHUNKS), False)
                if found is None:
                    return None
                first = found[1] - 8 if found else os.fstat(fd).st_size  # False: no pixels
            # the pixel chunks, and the chunks after them to the end (not counted): the
            # search gives up at the one after the bound
            for chunk in _png_chunks(read, first, chunks + 1):
                if chunk is None:
                    return None
                kind, at, length = chunk
                if kind == b"IEND" or (kind == b"fcTL" and im.n_frames > 1):
                    break
                if chunks == 0:
                    return None
                chunks -= 1
                if kind in _PNG_EXIF_CHUNKS and length <= budget:
                    body = read(at, length)
                    if len(body) != length:
                        break
                    budget -= length  # in all (each alone: the file size bounded the memory)
                    late.append(_png_chunk(kind, body))  # its CRC, as Pillow's decoder skips it
        finally:
            os.close(fd)
        grey = _png_chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))  # 1x1
        data = _PNG_SIGNATURE + grey + b"".join(late) + _png_chunk(b"IEND", b"")
        with Image.open(io.BytesIO(data)) as found_exif:
            found_exif.info = {**im.info, **found_exif.info}
            return Image.Image.getexif(found_exif).get(0x0112, 1)  # Image's: PNG's decodes
    except (OSError, ValueError, SyntaxError, struct.error):
        return 1


#: The chunks before a PNG's first pixel data that ``_refuse_png_chunk_flood`` allows
_PNG_CHUNKS_BEFORE_MAX = 4096


def _refuse_png_chunk_flood(path):
    """A ``ValueError`` for a PNG of more than ``_PNG_CHUNKS_BEFORE_MAX`` chunks before its first
    pixel data: Pillow's ``open`` reads each of them in Python, about 3 us a chunk, so a
    13 MB file of a million empty chunks took 3.4 s to open (twice a file in the
    command: the header, then the pixels), long before ``--max-pixels`` could refuse it.
    Real files have a handful there. The chunk headers are read 8 bytes a chunk
    (``_png_chunks``; a normal PNG: about five reads), from a file name unbuffered, from
    a binary file object (seekable: ``_source`` gives one and puts its position back) by
    ``seek`` and ``read``; a path that is not a regular file, or not a PNG, is left to
    Pillow."""
    if _is_file_object(path):
        if _walks_a_png_chunk_flood(_file_reads(path)):
            raise ValueError(_png_chunk_flood_said(_shown(path)))
        return
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0))
    except (OSError, TypeError, ValueError):  # Pillow gives the reason
        return
    try:
        import stat

        flood = stat.S_ISREG(os.fstat(fd).st_mode) and _walks_a_png_chunk_flood(_file_reads(fd))
    finally:
        os.close(fd)
    if flood:
        raise ValueError(_png_chunk_flood_said(os.fspath(path)))


def _walks_a_png_chunk_flood(read):
    """Whether the file that ``read(offset, n)`` reads is a PNG of more than
    ``_PNG_CHUNKS_BEFORE_MAX`` chunks before its first pixel data (or its end)."""
    if read(0, 8) != _PNG_SIGNATURE:
        return False
    for chunk in _png_chunks(read, 8, _PNG_CHUNKS_BEFORE_MAX):
        if chunk is None:  # as many, and more
            return True
        if chunk[0] in (b"IDAT", b"IEND"):
            return False
    return False  # the end of the file


def _png_chunk_flood_said(name):
    return (
        f"{name} is a PNG of more than {_PNG_CHUNKS_BEFORE_MAX:,} chunks before its "
        f"pixels (real files have a handful; a damaged or hostile file?): not read"
    )


def _file_reads(f):
    """``read(offset, n)``: the bytes at ``offset`` (at most ``n``) of ``f``, a file
    descriptor (read unbuffered: ``os.lseek``, ``os.read``) or a seekable binary file
    object (``seek``, ``read``: its position moved)."""
    if isinstance(f, int):

        def read(offset, n):
            os.lseek(f, offset, os.SEEK_SET)
            return os.read(f, n)

        return read

    def read_object(offset, n):
        f.seek(offset)
        return f.read(n)

    return read_object


class _Decoded(NamedTuple):
    """A JPEG decoded by OpenCV: upright ``pixels`` (BGR or grey) and Pillow's ``info``."""

    pixels: np.ndarray
    info: dict


def _decode_jpeg(path, im, scale, orientation):
    """``path``, an RGB or grey JPEG open in Pillow as ``im``, decoded by OpenCV.

    The same libjpeg-turbo decode as Pillow's, DCT scaling by ``scale`` (1, 2, 4
    or 8) included, with the same pixels bit for bit, but straight into a NumPy
    array (Pillow's pixels need a copy into NumPy), in BGR order: the resample
    works channel by channel, so only the small result needs reordering. The
    ``info`` is what ``ImageOps.exif_transpose`` leaves (the orientation tag
    removed), taken from the header. None without OpenCV, or when OpenCV cannot
    decode the file (Pillow then decodes it, or says what is wrong).
    """
    cv2 = _opencv()
    if cv2 is None:
        return None
    grey = im.mode == "L"
    flags = {
        1: cv2.IMREAD_GRAYSCALE if grey else cv2.IMREAD_COLOR,
        2: cv2.IMREAD_REDUCED_GRAYSCALE_2 if grey else cv2.IMREAD_REDUCED_COLOR_2,
        4: cv2.IMREAD_REDUCED_GRAYSCALE_4 if grey else cv2.IMREAD_REDUCED_COLOR_4,
        8: cv2.IMREAD_REDUCED_GRAYSCALE_8 if grey else cv2.IMREAD_REDUCED_COLOR_8,
    }[scale]
    try:
        pixels = cv2.imdecode(_file_bytes(path), flags | cv2.IMREAD_IGNORE_ORIENTATION)
    except cv2.error:  # e.g. beyond OpenCV's pixel limit (CV_IO_MAX_IMAGE_PIXELS)
        return None
    if pixels is None or pixels.shape[:2] != im.size[::-1]:  # im.size: after the draft
        return None
    return _Decoded(_orient(pixels, orientation), _upright_info(im.info, orientation))


def _upright_info(info, orientation):
    """``info`` of an image of EXIF ``orientation`` as on the upright image, for pixels
    turned upright without Pillow: as ``ImageOps.exif_transpose`` leaves it (the
    orientation tag removed), then ``_turned_info`` for a quarter turn."""
    from PIL import ImageOps

    stand_in = _pil().new("L", (1, 1))  # Pillow's own rule for the metadata
    stand_in.info = dict(info)
    try:
        ImageOps.exif_transpose(stand_in, in_place=True)
    except _EXIF_ERRORS as exc:  # getexif parsed it before (_orientation)
        stand_in.info = _exif_unwritable_left_out(info, exc)
    return _turned_info(stand_in.info) if orientation in _QUARTER_TURNS else stand_in.info


def _exif_unwritable_left_out(info, exc):
    """``info`` of an image turned upright by its EXIF orientation, where Pillow's
    ``exif_transpose`` failed (``exc``) to write the EXIF back without the orientation
    tag, after the turn: a tag stored as another type than Pillow's table gives it (a
    Make as a rational; ``_exif_unwritable``). The EXIF is left out, with a
    ``UserWarning`` (``cresize resize``: a note on the file), as a damaged one is
    (``_without_damaged_exif``), and an XMP orientation is taken out as Pillow would
    have. Caught where it fails rather than tested before: a second ``tobytes`` on
    every turned read (0.1-0.3 ms)."""
    from PIL import ImageOps

    why = _error_line(exc)
    warnings.warn(
        f"its EXIF cannot be written back without its orientation ({why}) and is left out",
        UserWarning,
        stacklevel=5,
    )
    stand_in = _pil().new("L", (1, 1))
    stand_in.info = {k: v for k, v in info.items() if k not in ("exif", "Raw profile type exif")}
    ImageOps.exif_transpose(stand_in, in_place=True)  # an XMP orientation out, as Pillow's
    return stand_in.info


#: EXIF orientations that turn the stored image a quarter turn (or transpose it):
#: the upright image's width is the stored height.
_QUARTER_TURNS = (5, 6, 7, 8)
#: ``info`` entries that are (x, y) pairs of the stored pixels' axes (PNG's ``aspect``,
#: TIFF's unitless ``resolution``, JPEG's ``jfif_density``): see ``_turned_info``.
_XY_INFO = ("dpi", "resolution", "aspect", "jfif_density")
_X_RESOLUTION, _Y_RESOLUTION, _RESOLUTION_UNIT = 0x011A, 0x011B, 0x0128  # EXIF (TIFF) tags


def _turned_info(info):
    """``info`` (with the orientation tag already removed) of an image turned a
    quarter turn upright: its x and y resolutions swapped, as the pixels' axes are.

    A 300x150 dpi scan stored on its side is 150x300 dpi upright. Pillow's
    ``exif_transpose`` leaves the DPI as stored; libvips' ``autorot`` swaps it. The
    pairs of ``_XY_INFO`` and the EXIF XResolution and YResolution are swapped (the
    resolution unit is one for both axes); anything else is kept."""
    info = dict(info)
    for key in _XY_INFO:
        value = info.get(key)
        if isinstance(value, tuple) and len(value) == 2:
            info[key] = value[::-1]
    exif = _exif_loaded(info.get("exif"))[0]  # (a damaged one: left out when read)
    if info.get("exif") and exif is not None:
        x, y = exif.get(_X_RESOLUTION), exif.get(_Y_RESOLUTION)
        if x != y:
            for tag, value in ((_X_RESOLUTION, y), (_Y_RESOLUTION, x)):
                if value is None:
                    del exif[tag]
                else:
                    exif[tag] = value
            info["exif"] = exif.tobytes()
    return info


#: TIFF tag ImageDescription, and the beginnings of the descriptions that are not a
#: caption but the layout of the file's pixels (tifffile's shaped JSON, ImageJ's
#: hyperstack), which would misdescribe the resized ones
_IMAGE_DESCRIPTION, _LAYOUT_DESCRIPTIONS = 270, ('{"shape":', "ImageJ=")


def _exif_of_tiff(stored):
    """The EXIF of a TIFF whose tags are ``stored`` (Pillow's ``Exif``: ``getexif()`` of
    the TIFF open in Pillow, or ``_tiff_directory``), as the bytes of a JPEG's (Pillow's
    ``info["exif"]`` of other formats), or None: the text tags of its directory
    (``_TIFF_EXIF_TEXT``: Make, Model, Copyright, ...) and its Exif and GPS IFDs, which
    Pillow keeps only in the TIFF's tags, where no writer looks (they were lost). The
    layout and resolution tags are not EXIF (the DPI is ``info["dpi"]``), nor is a
    description of the layout (``_LAYOUT_DESCRIPTIONS``), and the orientation is
    applied to the pixels. None too where Pillow cannot write the tags it read back
    (a damaged file's: a GPSLatitude stored as text raised TypeError, the pixels unread)."""
    exif = _pil().Exif()
    for tag in _TIFF_EXIF_TEXT:
        if isinstance(stored.get(tag), str) and not (
            tag == _IMAGE_DESCRIPTION and stored[tag].startswith(_LAYOUT_DESCRIPTIONS)
        ):
            exif[tag] = stored[tag]
    try:
        exif.update(_exif_ifds(stored))
        return exif.tobytes() if len(exif) else None
    except (TypeError, ValueError, OverflowError, struct.error):
        return None


def _16bit_colour_mode(im, maxval, avif=None):
    """The mode of ``im``'s (not loaded) samples (``"RGB"``, ``"RGBA"``, ``"LA"``,
    ``"CMYK"``; ``"L"``: an AVIF's grey) where Pillow would read them as 8-bit from
    samples of more bits, else None.
    The raw mode says it: Pillow 13 opens a 16-bit grey-and-alpha PNG as RGBA.
    ``maxval``: ``_sample_maxval(im, avif)``; ``avif``: ``_avif_header(im)``, whose
    grey (Pillow 13 opens a monochrome AVIF as ``L``, Pillow 11 as ``RGB``) says it."""
    grey = im.mode in ("L", "LA") or (avif is not None and avif[1])
    if im.format == "AVIF" and (maxval or 0) > 255 and grey:
        # monochrome: Pillow's AVIF plugin reads it as 8-bit grey (11: RGB), and with an
        # alpha item as RGBA (13 too): grey and alpha, which ``_refuse_avif`` refuses
        return "LA" if im.mode in ("LA", "RGBA") else "L"
    if im.mode not in ("RGB", "RGBA", "LA", "CMYK") or not im.tile:
        return None
    raw = im.tile[0][3]  # (codec, extents, offset, args): a plain tuple before Pillow 11
    raw = raw[0] if isinstance(raw, tuple) else raw
    if isinstance(raw, str) and ";16" in raw:
        return "LA" if raw.startswith("LA;") else im.mode
    if _planar_16bit_tiff(im):
        # Uncompressed, Pillow gives each plane one letter of the raw mode ("R" of
        # "RGB;16L"): the 16-bit samples were read as 8-bit ones, garbage.
        return im.mode
    if (maxval or 0) > 255:  # a PPM's Pillow scales to 8 bits; a JPEG 2000's, the high 8
        return im.mode
    return None


def _sample_maxval(im, avif=None):
    """``(maxval, signed)``: the largest sample value a PPM, AVIF or JPEG 2000 file open
    in Pillow as ``im`` holds (``_ppm_maxval``; an AVIF's from ``avif``, its
    ``_avif_header(im)``; ``_jpeg2000_depth``: the latter two read the file's header),
    or None (other formats), and whether its samples are signed (only a JPEG 2000's
    may be): read once a file, by ``_read``."""
    maxval = _ppm_maxval(im)
    if maxval:
        return maxval, False
    if avif is not None:
        return (1 << avif[0]) - 1, False
    depth = _jpeg2000_depth(im)
    if depth is None:
        return None, False
    bits, signed = depth
    return (1 << bits) - 1, signed


def _ppm_maxval(im):
    """The largest sample value (white) of a PPM file open in Pillow as ``im``, or None:
    not a PPM (nor PGM, PBM), or one Pillow reads as float."""
    if im.format != "PPM" or not im.tile:
        return None
    args = im.tile[0][3]  # (raw mode, maxval) for Pillow's ppm decoders, else a raw mode
    return args[-1] if isinstance(args, tuple) and isinstance(args[-1], int) else None


#: the end given to ``_isobmff_boxes`` for a JPEG 2000's boxes: past any box (see
#: ``_jpeg2000_file_depth``)
_JP2_END = 1 << 64
#: ``_jpeg2000_file_depth`` reads at most this many box headers before the codestream's
#: (real files have a handful: the signature, ftyp, jp2h, maybe res, xml, uuid boxes)
_JP2_BOXES_MAX = 256
#: The most components a JPEG 2000 codestream has (its SIZ marker's Csiz: 1 to 16,384)
_JPEG2000_COMPONENTS_MAX = 16384


def _jpeg2000_depth(im):
    """``(bits, signed)`` of a JPEG 2000 file open in Pillow as ``im``
    (``_jpeg2000_file_depth``), or None: not JPEG 2000, or a header this does not find.
    Pillow reads RGB(A) and LA of more than 8 bits as 8-bit and does not say so (only
    grey gets mode I;16), and gives no bit depth (Pillow 11 to 13)."""
    return _file_header(im, _jpeg2000_file_depth) if im.format == "JPEG2000" else None


def _jpeg2000_file_depth(f):
    """``(bits, signed)`` of the JPEG 2000 file ``f`` (binary, seekable): its deepest
    component's bits a sample and whether any component's samples are signed, from the
    codestream's SIZ marker (ISO/IEC 15444-1 A.5.1); or None: a header this does not
    find, or a damaged one (a SIZ whose length is not its components', a depth of more
    than 38 bits), which OpenJPEG refuses too. A codestream (J2K), or a JP2 file's
    boxes (``_isobmff_boxes``, at most ``_JP2_BOXES_MAX``, skipped by seeking; lengths
    0 and 1: to the end, 64 bits) to its ``jp2c`` box's. Reads the box headers and the
    SIZ marker, no more."""

    size = f.seek(0, os.SEEK_END)

    def read(offset, n):  # nothing past the end (a box's 64-bit length: past any offset)
        if offset >= size:
            return b""
        f.seek(offset)
        return f.read(n)

    start = 0
    if read(0, 4) != _SOC_SIZ:
        # boxes of any length: Pillow reads the codestream by its markers, whatever its
        # box's length says (one longer than the file: a 16-bit image read as 8-bit, else)
        boxes = _isobmff_boxes(read, 0, _JP2_END, _JP2_BOXES_MAX)
        start = next((first for kind, first, _ in boxes if kind == b"jp2c"), -1)
        if start < 0 or read(start, 4) != _SOC_SIZ:
            return None
    # SOC, SIZ, Lsiz, Rsiz, 8 sizes of 4 bytes, Csiz, then 3 bytes a component (Ssiz first)
    head = read(start, 42)
    length, count = int.from_bytes(head[4:6], "big"), int.from_bytes(head[40:42], "big")
    if len(head) < 42 or not 1 <= count <= _JPEG2000_COMPONENTS_MAX or length != 38 + 3 * count:
        return None
    depths = read(start + 42, 3 * count)[::3]
    # Ssiz: bits - 1 (1 to 38 bits), and the top bit: signed
    if len(depths) != count or max(d & 0x7F for d in depths) > 37:
        return None
    return max(d & 0x7F for d in depths) + 1, any(d & 0x80 for d in depths)


def _refuse_jpeg2000(path, mode, bits, signed):
    """A ``ValueError`` for a JPEG 2000 of more-than-8-bit ``mode`` (``_16bit_colour_mode``:
    RGB, RGBA, LA) samples of ``bits`` bits (``signed``) that OpenCV, which reads the
    others, does not read: grey and alpha, signed samples, more than 16 bits. Pillow
    would keep 8 bits of them; OpenCV fails without saying why ("could not read")."""
    if mode != "LA" and bits <= 16 and not signed:
        return
    kind = "grey-and-alpha" if mode == "LA" else mode
    raise ValueError(
        f"{_shown(path)} is a {bits}-bit {'signed ' if signed else ''}{kind} JPEG 2000, "
        f"which neither Pillow (8 bits) nor OpenCV reads; cresize reads a JPEG 2000 of "
        f"8-bit samples or of grey (Pillow), or of unsigned RGB or RGBA samples of up to "
        f"16 bits (OpenCV); convert it to unsigned 16-bit PNG or TIFF first"
    )


#: ``ftyp`` brands (major or compatible) of AVIF: a still image, an image sequence
_AVIF_BRANDS = (b"avif", b"avis")
#: ``_avif_file_header`` reads at most this many box headers a level (the file's top-level
#: boxes, the ``meta`` box's): real files have a handful (ftyp, meta, mdat; hdlr, pitm,
#: iloc, iinf, iref, iprp, idat). Each is one 16-byte read.
_AVIF_BOXES_MAX = 64
#: ... and reads the ``iprp`` box (the item properties and their associations: some
#: hundred bytes, some kilobytes for a grid of many tiles) only if at most this long:
#: a longer one is not looked into (the depth is unknown).
_AVIF_IPRP_MAX = 256 << 10


def _avif_header(im):
    """``(bits, grey, sampling)`` of the AVIF file open in Pillow as ``im`` (``_avif_file_header``),
    or None: not AVIF, or a header this does not find. Parsed once a read, by
    ``_read``, which passes it on."""
    return _file_header(im, _avif_file_header) if im.format == "AVIF" else None


def _file_header(im, parse):
    """``parse(f)`` of the file ``f`` that Pillow has open as ``im`` (binary, seekable:
    a parser of its header), the file's position kept; None where ``im`` has no file
    or the parse fails (``OSError``, ``ValueError``)."""
    if im.fp is None:
        return None
    where = im.fp.tell()
    try:
        return parse(im.fp)
    except (OSError, ValueError):
        return None
    finally:
        im.fp.seek(where)


#: ``_webp_lossless`` reads at most this many chunk headers (VP8X, ICCP, ANIM, ANMF,
#: ALPH, ...: a handful before the first image's) before it gives up: 8 bytes each
_WEBP_CHUNKS_MAX = 64


def _webp_lossless(f):
    """Whether the WebP file ``f`` (binary, seekable) holds its first image losslessly:
    its first image chunk is ``VP8L`` (lossless), not ``VP8 `` (lossy; its alpha, if
    any, in an ``ALPH`` chunk), an animation's in its first frame (``ANMF``). Found by
    the chunk headers, read one by one (at most ``_WEBP_CHUNKS_MAX``) and the chunks
    skipped; False for anything else (not a WebP, cut short, not found)."""
    f.seek(0)
    head = f.read(12)
    if head[:4] != b"RIFF" or head[8:12] != b"WEBP":
        return False
    at = 12
    for _ in range(_WEBP_CHUNKS_MAX):
        f.seek(at)
        chunk = f.read(8)
        if len(chunk) < 8:
            return False
        kind, size = chunk[:4], int.from_bytes(chunk[4:], "little")
        if kind in (b"VP8L", b"VP8 "):
            return kind == b"VP8L"
        # a frame: its 16-byte header (place, size, duration), then its image's chunks
        at += 8 + (16 if kind == b"ANMF" else size + (size & 1))  # chunks: even lengths
    return False


def _avif_file_header(f):
    """``(bits, grey, sampling)`` of the AVIF file ``f`` (binary, seekable), or None: not
    AVIF, or a header this does not find. ``bits``: bits a sample (8, 10 or 12); Pillow's
    AVIF plugin reads 10 and 12 bits as 8 and does not say so (the mode is RGB(A) or L
    either way). ``grey``: monochrome by the header (an ``av1C`` mono_chrome flag, else a
    ``pixi`` of one channel): Pillow 13 opens one as ``L``, Pillow 11 as ``RGB``.
    ``sampling``: the chroma subsampling (``_av1c_sampling``; None: grey, no ``av1C``,
    or tiles of different ones), which Pillow's AVIF reader does not give.

    The primary item's (``pitm``) properties, by ``meta`` -> ``iprp``: its ``av1C``
    (the AV1 sequence header's high_bitdepth and twelve_bit flags), else its ``pixi``
    (bits a channel, the deepest); an item with neither (a ``grid`` of tiles) takes the
    deepest ``av1C`` of all. Boxes are found by their headers and skipped by seeking
    (``_AVIF_BOXES_MAX`` a level); only ``ftyp``, ``pitm`` and ``iprp`` (at most
    ``_AVIF_IPRP_MAX`` bytes) are read."""

    def read(offset, n):
        f.seek(offset)
        return f.read(n)

    top = _isobmff_boxes(read, 0, f.seek(0, os.SEEK_END))
    first = next(top, None)
    if first is None or first[0] != b"ftyp":
        return None
    ftyp = read(first[1], min(first[2] - first[1], 4 * _AVIF_BOXES_MAX))
    brands = {ftyp[i : i + 4] for i in range(0, len(ftyp) - 3, 4) if i != 4}  # 4: version
    meta = next((box for box in top if box[0] == b"meta"), None)
    if not brands & set(_AVIF_BRANDS) or meta is None:
        return None
    primary, iprp = None, None
    for kind, start, end in _isobmff_boxes(read, meta[1] + 4, meta[2]):  # FullBox: + 4
        if kind == b"pitm":
            body = read(start, 8)
            primary = int.from_bytes(body[4:6] if body[:1] == b"\0" else body[4:8], "big")
        elif kind == b"iprp" and iprp is None and end - start <= _AVIF_IPRP_MAX:
            iprp = read(start, end - start)
    if iprp is None:
        return None
    properties, associated = [], set()
    for kind, start, end in _isobmff_boxes(lambda o, n: iprp[o : o + n], 0, len(iprp)):
        if kind == b"ipco":
            properties = [
                (k, iprp[s:e])
                for k, s, e in _isobmff_boxes(lambda o, n: iprp[o : o + n], start, end, None)
            ]
        elif kind == b"ipma":
            associated |= _ipma_of(iprp[start:end], primary)
    depths = {}
    for index, (kind, body) in enumerate(properties, 1):
        bits = (
            _av1c_bits(body) if kind == b"av1C" else _pixi_bits(body) if kind == b"pixi" else None
        )
        if bits is not None:  # grey: av1C's mono_chrome flag, a pixi of one channel
            grey = bool(body[2] & 0x10) if kind == b"av1C" else body[4] == 1
            sampling = _av1c_sampling(body) if kind == b"av1C" else None
            depths.setdefault(kind, {})[index] = (bits, grey, sampling)
    for kind in (b"av1C", b"pixi"):
        mine = [found for index, found in depths.get(kind, {}).items() if index in associated]
        if mine:
            return _avif_found(mine)
    tiles = list(depths.get(b"av1C", {}).values())
    return _avif_found(tiles) if tiles else None


def _avif_found(found):
    """``(bits, grey, sampling)`` of an image of the AV1 items (or ``pixi``) ``found``,
    each ``(bits, grey, sampling)``: the most bits, grey where all are, their one
    sampling (None where they differ)."""
    samplings = {sampling for _, _, sampling in found}
    return (
        max(bits for bits, _, _ in found),
        all(grey for _, grey, _ in found),
        samplings.pop() if len(samplings) == 1 else None,
    )


def _isobmff_boxes(read, start, end, limit=_AVIF_BOXES_MAX):
    """``(type, content start, content end)`` of the ISOBMFF boxes from ``start`` to
    ``end`` (``read(offset, n)``: the bytes there), at most ``limit`` of them (None: as
    many as fit, for bytes in memory); a box that does not fit ends the list."""
    count = 0
    while start + 8 <= end and (limit is None or count < limit):
        head = read(start, 16)
        if len(head) < 8:
            return
        size, kind, header = int.from_bytes(head[:4], "big"), head[4:8], 8
        if size == 1:  # the 64-bit size follows the type
            size, header = int.from_bytes(head[8:16], "big"), 16
        elif size == 0:  # to the end
            size = end - start
        if size < header or start + size > end or len(head) < header:
            return
        yield kind, start + header, start + size
        start += size
        count += 1


def _hide_avif_metadata(data):
    """Rename, in ``data`` (a whole AVIF file's bytes: a writable uint8 array), the item
    type of its ``Exif`` and ``mime`` (XMP) items to ``xxxx``: one OpenCV (5.1) fails
    to read (``None``) when such an item lies beyond the first bytes it looks at to
    recognise the format (libavif's parse reads the item; libheif writes it after the
    pixels). libavif skips an item of an unknown type; the pixels are the same, and
    the metadata is Pillow's, from the file. The ``infe`` boxes of ``meta`` ->
    ``iinf`` (read as ``_avif_file_header`` reads its boxes; an ``iinf`` of at most
    ``_AVIF_IPRP_MAX`` bytes); a file this does not find them in is left as it is."""

    def read(offset, n):
        return data[offset : offset + n].tobytes()

    top = _isobmff_boxes(read, 0, len(data))
    meta = next((box for box in top if box[0] == b"meta"), None)
    if meta is None:
        return
    for kind, start, end in _isobmff_boxes(read, meta[1] + 4, meta[2]):
        if kind != b"iinf" or end - start > _AVIF_IPRP_MAX:
            continue
        head = read(start, 4)  # FullBox: version, flags; then the entry count
        first = start + 4 + (2 if head[:1] == b"\0" else 4)
        for entry, at, stop in _isobmff_boxes(read, first, end, None):
            version = read(at, 1)
            if entry != b"infe" or version not in (b"\2", b"\3"):
                continue  # versions 0 and 1 have no item type
            where = at + 4 + (2 if version == b"\2" else 4) + 2  # item_ID, protection
            if where + 4 <= stop and read(where, 4) in (b"Exif", b"mime"):
                data[where : where + 4] = np.frombuffer(b"xxxx", np.uint8)


def _ipma_of(body, item):
    """The 1-based indices of the ``ipco`` properties that the ``ipma`` box ``body``
    associates with ``item`` (None: no primary item given: every item's)."""
    version, flags = body[0] if body else 0, int.from_bytes(body[1:4], "big")
    id_bytes, index_bytes = (2 if version < 1 else 4), (2 if flags & 1 else 1)
    at, found = 8, set()  # version and flags, entry count
    while at + id_bytes + 1 <= len(body):
        item_id = int.from_bytes(body[at : at + id_bytes], "big")
        count = body[at + id_bytes]
        at += id_bytes + 1
        indices = body[at : at + count * index_bytes]
        at += count * index_bytes
        if item is None or item_id == item:
            mask = 0x7FFF if index_bytes == 2 else 0x7F  # the top bit: "essential"
            found.update(
                int.from_bytes(indices[i : i + index_bytes], "big") & mask
                for i in range(0, len(indices) - index_bytes + 1, index_bytes)
            )
    return found


def _av1c_bits(body):
    """Bits a sample of an ``av1C`` box's content: its third byte's high_bitdepth
    (0x40: 10 bits) and twelve_bit (0x20: 12) flags; None: too short."""
    if len(body) < 3:
        return None
    return 12 if body[2] & 0x60 == 0x60 else 10 if body[2] & 0x40 else 8


def _av1c_sampling(body):
    """The chroma subsampling of an ``av1C`` box's content, as Pillow's JPEG and AVIF
    writers name it (``"4:4:4"``, ``"4:2:2"``, ``"4:2:0"``): its third byte's
    chroma_subsampling_x (0x08) and chroma_subsampling_y (0x04) flags; None: too short,
    monochrome (0x10), or x whole and y halved (no AV1 profile has it)."""
    if len(body) < 3 or body[2] & 0x10:
        return None
    return {0x00: "4:4:4", 0x08: "4:2:2", 0x0C: "4:2:0"}.get(body[2] & 0x0C)


def _pixi_bits(body):
    """The most bits a channel of a ``pixi`` box's content (a FullBox: version and
    flags, a count, bits a channel), or None: none, or not a depth AV1 has (8, 10, 12)."""
    channels = body[5 : 5 + body[4]] if len(body) > 4 else b""
    bits = max(channels) if channels else None
    return bits if bits in (8, 10, 12) else None


#: The start of a JPEG 2000 codestream: the markers SOC and SIZ
_SOC_SIZ = b"\xff\x4f\xff\x51"

#: TIFF tags: BitsPerSample, PlanarConfiguration (1 interleaved, the default; 2 plane
#: by plane), SampleFormat (1 unsigned integers, the default; 2 signed; 3 float)
_BITS_PER_SAMPLE, _PLANAR_CONFIGURATION, _SAMPLE_FORMAT = 258, 284, 339


#: TIFF tag ExtraSamples: 1 is alpha premultiplied into the colour (associated), 2 is
#: straight (unassociated) alpha
_EXTRA_SAMPLES = 338


def _straight_alpha(pixels):
    """The ``(H, W, C)`` ``pixels``, whose colour is premultiplied by their last channel
    (alpha: a TIFF's associated alpha), with straight colour, as Pillow turns an 8-bit
    one (``RGBa``, ``La``) into RGBA and LA: OpenCV and tifffile give the samples as
    stored, and every writer takes straight alpha. Integers are rounded to the nearest
    (and clipped: a colour above its alpha is not premultiplied), float divided; colour
    under alpha 0 (or below: float) is 0. Pillow's 8-bit division truncates instead
    (64 under alpha 128 is 127, here 128) and keeps the colour under alpha 0."""
    colour, alpha = pixels[..., :-1].astype(np.float64), pixels[..., -1:].astype(np.float64)
    top = float(np.iinfo(pixels.dtype).max) if pixels.dtype.kind in "iu" else 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        straight = np.where(alpha > 0, colour * top / alpha, 0.0)
    out = pixels.copy()
    if pixels.dtype.kind in "iu":
        straight = np.minimum(np.floor(straight + 0.5), top)
    out[..., :-1] = straight
    return out


def _tiff_tag(im, tag, default=None):
    """The values of the TIFF tag ``tag`` of ``im`` (open in Pillow) as a tuple (Pillow
    gives one number for a count of 1)."""
    value = im.tag_v2.get(tag, default)
    return value if isinstance(value, tuple) else (value,)


def _unsigned_32bit_tiff(im):
    """Whether ``im`` (open in Pillow) is a TIFF of unsigned 32-bit integer samples,
    which Pillow reads into its signed mode I: values from 2**31 up wrap around."""
    return (
        im.format == "TIFF"
        and _tiff_tag(im, _BITS_PER_SAMPLE)[0] == 32
        and _tiff_tag(im, _SAMPLE_FORMAT, 1)[0] == 1
    )


def _planar_16bit_tiff(im):
    """Whether ``im`` (open in Pillow) is a TIFF of 16-bit samples stored plane by plane
    (PlanarConfiguration 2: all the red, then all the green, ...). Pillow (uncompressed)
    and OpenCV (any compression) read such a file's pixels wrongly; tifffile reads it."""
    return (
        im.format == "TIFF"
        and _tiff_tag(im, _PLANAR_CONFIGURATION, 1)[0] == 2
        and set(_tiff_tag(im, _BITS_PER_SAMPLE)) == {16}
    )


def _tifffile():
    """tifffile; None when it is not installed, or installed but broken (warned once:
    OpenCV writes the 16-bit TIFF, without its ICC profile)."""
    return _optional.load("tifffile", fallback=TIFFFILE_FALLBACK)


def _opencv(needed=None):
    """OpenCV; None when it is not installed. Installed but broken: where Pillow can do
    the work (``needed`` None) a warning, once, and None; where only OpenCV can
    (``needed``: a sentence saying what needs it), ``BrokenDependencyError`` with it."""
    if needed is None:
        return _optional.load("cv2", OPENCV, fallback=OPENCV_FALLBACK)
    return _optional.load("cv2", OPENCV, hint=needed)


#: ``_opencv_quiet``: the calls inside it, OpenCV's log level before the first (one
#: level a process, and the CLI's threads decode at once: the last one out restores it)
#: and the level the first set (restored only if still set: a level the user set while
#: inside is kept).
_QUIET = {"inside": 0, "level": 0, "set": 0}
_QUIET_LOCK = threading.Lock()


#: OpenCV's log level of errors only (``LOG_LEVEL_ERROR`` in OpenCV 5's ``cv2.utils.logging``;
#: OpenCV 4.x's ``cv2.setLogLevel`` takes the same numbers)
_OPENCV_LOG_ERROR = 2


@contextlib.contextmanager
def _opencv_quiet(cv2):
    """OpenCV's warnings off while inside (its errors are still printed, and raised or
    returned as None): its JPEG 2000 decoder writes "Image has unknown or unspecified
    color space, SRGB is assumed" to stderr for a colour codestream without a JP2
    colour box (a bare J2K file holds none), assuming sRGB, as Pillow does silently for
    8-bit ones. A level the user set lower (errors only, or none) is kept, and so is
    one set while inside (by another thread: the last one out restored the level from
    before, undoing it). OpenCV 5 has the level in ``cv2.utils.logging``, 4.x as
    ``cv2.getLogLevel``/``setLogLevel`` (the same numbers: 2 errors, 3 warnings); with
    neither the warning is printed."""
    logging = getattr(getattr(cv2, "utils", None), "logging", None) or cv2
    if not (hasattr(logging, "getLogLevel") and hasattr(logging, "setLogLevel")):
        yield
        return
    with _QUIET_LOCK:
        if _QUIET["inside"] == 0:
            _QUIET["level"] = logging.getLogLevel()
            _QUIET["set"] = min(_QUIET["level"], _OPENCV_LOG_ERROR)
            logging.setLogLevel(_QUIET["set"])
        _QUIET["inside"] += 1
    try:
        yield
    finally:
        with _QUIET_LOCK:
            _QUIET["inside"] -= 1
            if _QUIET["inside"] == 0 and logging.getLogLevel() == _QUIET["set"]:
                logging.setLogLevel(_QUIET["level"])


#: What ``_refuse_avif`` calls each mode's samples
_AVIF_KINDS = {"L": "grey", "LA": "grey-and-alpha", "RGB": "RGB", "RGBA": "RGBA"}


def _refuse_avif(path, mode, bits):
    """A ``ValueError`` for an AVIF of ``bits``-bit (10, 12) ``mode`` samples
    (``_16bit_colour_mode``) where no OpenCV that reads AVIF is installed: Pillow would
    keep 8 bits of them. OpenCV reads AVIF only where built with libavif (opencv-python's
    wheels were not, up to 4.10 at least): ``cv2.haveImageWriter(".avif")`` says (its
    AVIF reader and writer come together). Not ``haveImageReader`` of the file: that is
    libavif's parse of the file's first bytes, false for some that OpenCV has the reader
    for (see ``_hide_avif_metadata``; ``_read_16bit`` says what it still fails on).
    Installed but broken: ``BrokenDependencyError``. Grey and alpha (``"LA"``) is
    refused whatever is installed: OpenCV (5.1) reads a monochrome AVIF with an alpha
    item as two channels, then fails ("AVIF only supports 1, 3, 4 channels"), after
    logging the error; Pillow (11, 13) reads it as 8-bit RGBA."""
    name = f"{_shown(path)} is a {bits}-bit {_AVIF_KINDS.get(mode, mode)} AVIF"
    if mode == "LA":
        raise ValueError(
            f"{name}, which neither Pillow (8 bits) nor OpenCV (grey without alpha, RGB, "
            f"RGBA) reads; {_AVIF_CONVERT}"
        )
    cv2 = _opencv(f"{name}, which only OpenCV reads at {bits} bits")
    if cv2 is None:
        raise ValueError(
            f"{name}, which Pillow reads as 8 bits; OpenCV reads it at {bits} bits (one "
            f"built with AVIF, as opencv-python-headless 5.1 for Linux is): pip install "
            f'"cresize[image]" (or opencv-python-headless), or {_AVIF_CONVERT}'
        )
    have = getattr(cv2, "haveImageWriter", None)
    try:
        built = have is None or bool(have(".avif"))
    except Exception:  # cv2.error: the decode will tell
        built = True
    if not built:
        version = getattr(cv2, "__version__", "")
        raise ValueError(
            f"{name}, which Pillow reads as 8 bits, and OpenCV {version} here reads no "
            f"AVIF (built without libavif); install one that does, or {_AVIF_CONVERT}"
        )


#: What to do with a deep AVIF that cresize does not read (``_refuse_avif``)
_AVIF_CONVERT = (
    "convert the file to 16-bit PNG or TIFF first (avifdec --depth 16 in.avif "
    "out.png), or to 8 bits if 8 are enough"
)


def _file_bytes(path):
    """The bytes of the file at ``path``, or of the file object ``path`` (``_source``'s:
    from its start, as Pillow reads it; ``_source`` puts its position back), as a
    writable uint8 array (``_hide_avif_metadata`` writes in it), for OpenCV's
    ``imdecode``."""
    if isinstance(path, (str, bytes, os.PathLike)):
        return np.fromfile(path, np.uint8)  # imdecode: any path, any platform
    path.seek(0)
    return np.frombuffer(bytearray(path.read()), np.uint8)


def _read_16bit(path, mode, orientation, size, planar=False, fmt=None):
    if mode == "CMYK":  # OpenCV reads no CMYK TIFF; Pillow would keep the high bytes
        raise ValueError(
            f"{_shown(path)} has 16-bit CMYK pixels, which neither Pillow (8 bits) nor "
            f"OpenCV reads; convert it to 16-bit RGB (or to 8-bit CMYK) first"
        )
    if planar:
        return _read_planar_tiff(path, mode, orientation)
    cv2 = _opencv(f"{_shown(path)} has 16-bit {mode} pixels, which only OpenCV reads")
    if cv2 is None:
        raise ValueError(f"{_shown(path)} has 16-bit {mode} pixels; {OPENCV_HINT}")
    data = _file_bytes(path)
    if fmt == "AVIF":
        _hide_avif_metadata(data)
    try:
        if fmt == "JPEG2000":
            with _opencv_quiet(cv2):
                bgr = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
        else:
            bgr = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    except cv2.error as exc:
        if "CV_IO_MAX_IMAGE_PIXELS" not in str(exc):
            raise
        (w, h), limit = size, os.environ.get("OPENCV_IO_MAX_IMAGE_PIXELS")
        raise ValueError(
            f"{_shown(path)} is {w}x{h} ({w * h:,} pixels), more than OpenCV, which reads "
            f"16-bit colour, decodes: its limit OPENCV_IO_MAX_IMAGE_PIXELS is "
            f"{limit or '1,073,741,824 (2**30) by default'}, read from the environment when "
            f"OpenCV is loaded; for a file you trust, set it higher before Python starts"
        ) from None
    if fmt == "AVIF" and bgr is not None and bgr.shape[:2] != size[::-1]:
        # OpenCV 5.1 leaves irot and imir to the caller (Pillow reads them as an EXIF
        # orientation); one that applied them would be turned twice
        raise OSError(
            f"OpenCV read {_shown(path)} as {bgr.shape[1]}x{bgr.shape[0]}, not the "
            f"{size[0]}x{size[1]} stored"
        )
    if mode == "L" and bgr is not None and bgr.dtype == np.uint16:  # an AVIF's grey
        grey = bgr if bgr.ndim == 2 else bgr[..., 0]  # (OpenCV 5.1 gives it as it is)
        return np.ascontiguousarray(_orient(grey, orientation))
    if bgr is None or bgr.dtype != np.uint16 or bgr.ndim != 3:
        if fmt == "AVIF":  # a file OpenCV's libavif refuses: Pillow's may read it
            raise OSError(
                f"OpenCV could not read {_shown(path)}, an AVIF of more than 8 bits "
                f"(which Pillow reads as 8); {_AVIF_CONVERT}"
            )
        raise OSError(f"OpenCV could not read {_shown(path)} as 16-bit colour")
    order = {3: [2, 1, 0], 4: [2, 1, 0, 3]}[bgr.shape[2]]
    if mode == "LA":
        order = [0, 3] if bgr.shape[2] == 4 else [0]
    return np.ascontiguousarray(_orient(bgr[..., order], orientation))


def _read_planar_tiff(path, mode, orientation):
    """The 16-bit ``mode`` (RGB, RGBA) pixels of the planar TIFF at ``path``, upright,
    read by tifffile (see ``_planar_16bit_tiff``)."""
    _by_name_only(path, "a 16-bit TIFF stored plane by plane (read by tifffile)")
    tifffile = _tifffile()
    if tifffile is None:
        raise ValueError(
            f"{os.fspath(path)} stores its 16-bit {mode} samples plane by plane, which "
            f"Pillow and OpenCV read wrongly; {TIFFFILE_READ_HINT}"
        )
    with tifffile.TiffFile(path) as tif:
        planes = _tiff_pixels(path, tif.pages.first)  # (samples, height, width)
    if planes.ndim != 3 or planes.shape[0] != len(mode) or planes.dtype.itemsize != 2:
        raise OSError(f"tifffile read {os.fspath(path)} as {planes.shape} {planes.dtype}")
    pixels = np.moveaxis(planes, 0, -1).astype(np.uint16)  # native byte order, a copy
    return np.ascontiguousarray(_orient(pixels, orientation))


#: The first bytes of a TIFF (little-, big-endian) and of a BigTIFF.
_TIFF_SIGNATURES = (b"II*\0", b"MM\0*", b"II+\0", b"MM\0+")


def _tiff_header(path):
    """``(is a TIFF, has a directory)`` of the file at ``path`` (or the binary file
    object ``path``, from its start, its position kept), by its header: whether it
    begins as a TIFF or BigTIFF does, and whether the header is whole and points to a
    first directory (IFD) inside the file that has at least one entry. A TIFF without
    one (``II*\\0`` alone, an offset of 0 or past the end, a directory of no entries)
    is damaged: tifffile raised ``struct.error`` on a cut header and logged "contains
    no pages" or "invalid offset to first page" for the others, before the caller's
    error said so, and it read a directory of no entries as a page of no pixels (a
    "TIFF of 1 float64 sample(s)")."""
    if isinstance(path, (str, bytes, os.PathLike)):
        with open(path, "rb") as f:
            return _tiff_header_of(f)
    where = path.tell()
    try:
        return _tiff_header_of(path)
    finally:
        path.seek(where)


def _tiff_header_of(f):
    """``_tiff_header`` of the binary file ``f``, read from its start (position moved)."""
    f.seek(0)
    head = f.read(16)
    if head[:4] not in _TIFF_SIGNATURES:
        return False, False
    order = "<" if head[:2] == b"II" else ">"
    big = head[2:4] in (b"+\0", b"\0+")
    layout = order + ("8xQ" if big else "4xI")
    if len(head) < struct.calcsize(layout):
        return True, False
    (first,) = struct.unpack_from(layout, head)
    size = f.seek(0, os.SEEK_END)
    if not struct.calcsize(layout) <= first < size:
        return True, False
    count = order + ("Q" if big else "H")  # the directory's number of entries
    f.seek(first)
    entries = f.read(struct.calcsize(count))
    return True, len(entries) == struct.calcsize(count) and struct.unpack(count, entries)[0] > 0


@contextlib.contextmanager
def _tiff_file(path):
    """tifffile's ``TiffFile`` of the TIFF at ``path`` (a file name: tifffile reads it
    there), open while inside; None where the file is not a TIFF or is one without a
    directory (``_tiff_header``), for which the callers raise Pillow's
    ``UnidentifiedImageError`` naming the file. Without tifffile, ``_tiff_reader``'s
    ValueError says why. ``_header`` and ``_read`` both come here: the same file, the
    same error."""
    _, has_directory = _tiff_header(path)
    if not has_directory:
        yield None
        return
    with _tiff_reader(path).TiffFile(path) as tif:
        yield tif if tif.pages else None  # (pages unread: damaged, tifffile said so)


def _tiff_first_page(path):
    """``((height, width), pages, quarter turn)`` of the TIFF at ``path`` by tifffile, or
    None: not a TIFF, or one without a directory tifffile reads (damaged). Without
    tifffile, ``_tiff_reader``'s ValueError says why."""
    with _tiff_file(path) as tif:
        if tif is None:  # not a TIFF; a TIFF's signature, no directory: damaged
            return None
        page = tif.pages.first
        turned = (page.tags.valueof(274) or 1) in _QUARTER_TURNS  # read upright
        return (page.imagelength, page.imagewidth), len(tif.pages), turned


def _tiff_reader(path):
    """tifffile, to read the TIFF at ``path`` that Pillow cannot open; without it, a
    ValueError saying so (``_header`` and ``_read`` both: the CLI reads the header
    first)."""
    tifffile = _tifffile()
    if tifffile is None:
        raise ValueError(
            f"{os.fspath(path)} is a TIFF that Pillow cannot read (float colour, float16 or "
            f"float64, or 16-bit grey and alpha samples, say); {TIFFFILE_READ_HINT}"
        ) from None
    return tifffile


#: TIFF photometric interpretations (tag 262) by name, for ``_read_tiff_pillow_cannot``'s
#: refusal: it reads grey and RGB only; others read as such would be wrong colours
_PHOTOMETRICS = {
    1: "grey",
    2: "RGB",
    0: "grey, white is zero (min-is-white)",
    3: "palette colour",
    4: "a transparency mask",
    5: "separated colour (CMYK, or other inks)",
    6: "YCbCr",
    8: "CIELab",
    9: "ICCLab",
    10: "ITULab",
    32844: "LogL",
    32845: "LogLuv",
}
#: The photometric interpretations of what it reads, by samples a pixel: grey
#: (min-is-black, 1) and grey and alpha, RGB (2) and RGBA
_PHOTOMETRIC_OF = {1: 1, 2: 1, 3: 2, 4: 2}


def _read_tiff_pillow_cannot(path, im=None):
    """The first page of the TIFF at ``path``, which Pillow cannot open (float RGB,
    float16 and float64 samples, 16-bit grey and alpha) or decode (8-bit grey or colour
    and alpha stored plane by plane, but for straight RGBA; open in Pillow as ``im``),
    read by tifffile: an ``ImageArray`` (H, W) or (H, W, 2-4), upright, with the ICC
    profile, the EXIF (``_exif_of_tiff``) and the XMP (tag 700), the orientation taken
    out of both. Float16 becomes float32 (exact), float32 and float64 stay; grey and
    alpha is uint8 or uint16 (H, W, 2), as a grey-and-alpha PNG is read. Only grey
    (min-is-black) and RGB samples are read: CMYK, palette, YCbCr, Lab and the like
    are refused (a ValueError naming them), not taken as grey or RGB(A). Re-raises
    Pillow's error for a file that is not a TIFF; a ValueError says why another TIFF
    is not read, and Pillow's error is raised again for a TIFF with no directory
    tifffile can read (a damaged one)."""
    if not _tiff_header(path)[1]:  # not a TIFF, or a TIFF's signature with no directory
        raise  # Pillow's UnidentifiedImageError, being handled by the caller
    _by_name_only(path, "a TIFF that Pillow cannot open (read by tifffile)")
    with _tiff_file(path) as tif:
        if tif is None:  # no directory tifffile reads: damaged ("IndexError: 0")
            raise  # Pillow's UnidentifiedImageError, naming the file
        page = tif.pages.first
        pixels = _tiff_pixels(path, page)
        axes = page.axes
        icc = page.tags.valueof(34675)
        xmp = page.tags.valueof(_XMP_TAG)
        orientation = page.tags.valueof(274)
        associated = tuple(page.extrasamples)[:1] == (1,)
        photometric = int(page.photometric)
    if axes.startswith("S"):  # stored plane by plane
        pixels = np.moveaxis(pixels, 0, -1)
        axes = axes[1:] + "S"
    samples = pixels.shape[2] if pixels.ndim == 3 else 1
    kind = pixels.dtype
    if axes in ("YX", "YXS") and photometric != _PHOTOMETRIC_OF.get(samples):
        what = _PHOTOMETRICS.get(photometric, f"photometric interpretation {photometric}")
        raise ValueError(
            f"{os.fspath(path)} is a TIFF of {what}, {samples} {kind} sample(s) a pixel, "
            f"which neither Pillow nor cresize reads at this depth (read as grey or RGB(A), "
            f"its colours would be wrong); convert it to 8/16-bit or float32 grey or "
            f"RGB(A) first"
        )
    known = (
        (kind.kind == "f" and samples in (1, 3, 4))
        or (kind == np.uint16 and samples == 2)
        or (kind == np.uint8 and samples in (2, 4))
    )
    if axes not in ("YX", "YXS") or not known:
        raise ValueError(
            f"{os.fspath(path)} is a TIFF of {samples} {kind} sample(s) a pixel ({axes}), "
            f"which neither Pillow nor cresize reads; convert it to 8/16-bit or float32 "
            f"grey or RGB(A) first"
        )
    if kind == np.float16:
        pixels = pixels.astype(np.float32)
    pixels = pixels.astype(pixels.dtype.newbyteorder("="), copy=False)
    if associated and samples in (2, 4):
        pixels = _straight_alpha(pixels)
    info = {"icc_profile": bytes(icc)} if isinstance(icc, bytes) and icc else {}
    if isinstance(xmp, bytes) and xmp:
        info["xmp"] = xmp
    info.update(_tiff_metadata(im.getexif()) if im is not None else _tiff_file_metadata(path))
    if orientation is None:  # none in the tag: the XMP's, as Pillow's getexif finds it
        stand_in = _pil().new("L", (1, 1))
        stand_in.info = dict(info, exif=None)
        orientation = stand_in.getexif().get(0x0112, 1)
    info = _upright_info(info, int(orientation))  # out of the XMP too (and the tag's)
    return ImageArray(np.ascontiguousarray(_orient(pixels, int(orientation))), info)


class _Unread(OSError):
    """A reader failed on a damaged or truncated file: on its header (Pillow's
    ``Image.open``, ``_open``) or on the pixel data of a file whose header it accepted
    (``_load``, ``_tiff_pixels``): an ``OSError`` naming the file, as Pillow's and
    OpenCV's failures there are ``OSError``; the reader's own exception is its
    ``__cause__``, which the command quotes, without the file's name, as it quotes a
    reader's parsing error (``_cli_resize._reason``). Made from its one message
    (``failed``), as ``OSError`` is: pickled and rebuilt from its ``args`` (a worker's
    error sent back by ``multiprocessing`` or ``concurrent.futures``), an ``__init__`` of
    other arguments failed there and broke the pool."""

    @classmethod
    def failed(cls, path, reader, exc):
        """``reader`` ("Pillow failed reading its pixels") failed on ``path`` with
        ``exc``."""
        return cls(f"{_shown(path)}: a damaged file? {reader}: {type(exc).__name__}: {exc}")


def _open(path):
    """``Image.open(path)``: Pillow's own ``OSError`` there (a JPEG cut inside its
    header: "Truncated File Read", a cut WebP: "could not create decoder object", which
    name no file) is an ``_Unread`` naming it; ``UnidentifiedImageError`` (which names
    it) and one of the system's (an ``errno``: a missing file, the disk's, which names
    it too) are left as they are."""
    Image = _pil()
    try:
        return Image.open(path)
    except OSError as exc:
        if exc.errno is not None or isinstance(exc, Image.UnidentifiedImageError):
            raise
        raise _Unread.failed(path, "Pillow failed reading its header", exc) from exc


def _load(im, path):
    """``im.load()`` of ``im``, open in Pillow from ``path``: Pillow's own ``OSError``
    there ("image file is truncated", which names no file) is an ``_Unread`` naming
    it; one of the system's (an ``errno``: the disk's, the file object's) is left as
    it is, not called a damaged file."""
    try:
        im.load()
    except OSError as exc:
        if exc.errno is not None:
            raise
        raise _Unread.failed(path, "Pillow failed reading its pixels", exc) from exc


def _tiff_pixels(path, page):
    """The pixels of ``page``, a page of the TIFF at ``path`` that tifffile opened (its
    header accepted). A compression or predictor that tifffile decodes only with
    imagecodecs, not installed, is a ValueError saying so (not a damaged file); any
    other failure of the read is an ``_Unread`` naming the file (tifffile's
    "failed to read 230400 bytes, got 115056" of a truncated file named none), but a
    failed allocation, left to be the ``MemoryError`` it is."""
    codecs = _tifffile().TIFF
    for what, key, known in (
        ("compression", page.compression, codecs.DECOMPRESSORS),
        ("predictor", page.predictor, codecs.UNPREDICTORS),
    ):
        if key != 1 and key not in known:
            raise ValueError(
                f"{_shown(path)} is a TIFF of {what} {getattr(key, 'name', key)} ({int(key)}), "
                f"which tifffile decodes only with imagecodecs: pip install imagecodecs"
            )
    try:
        return page.asarray(maxworkers=1)
    except MemoryError:
        raise
    except Exception as exc:
        raise _Unread.failed(path, "tifffile failed reading its pixels", exc) from exc


def _tiff_resolution(tags):
    """``info``'s ``dpi`` and ``resolution`` of a TIFF whose first directory's tags are
    ``tags`` (Pillow's ``Exif``), as Pillow's TIFF reader sets them for a file it opens:
    XResolution and YResolution by ResolutionUnit, 2 (inch) or none: ``dpi`` (none:
    ``resolution`` too), 3 (centimetre): ``dpi``, times 2.54; another (1, no absolute
    unit): ``resolution`` only. Empty without both tags (``_read`` drops the 1x1 dpi
    Pillow makes up for a TIFF without them), or with a zero one, as Pillow."""
    x, y = tags.get(_X_RESOLUTION), tags.get(_Y_RESOLUTION)
    if x is None or y is None or not (x and y):
        return {}
    unit = tags.get(_RESOLUTION_UNIT)
    if unit == 2:
        return {"dpi": (x, y)}
    if unit == 3:
        return {"dpi": (x * 2.54, y * 2.54)}
    if unit is None:
        return {"dpi": (x, y), "resolution": (x, y)}
    return {"resolution": (x, y)}


def _tiff_metadata(stored):
    """``info``'s ``exif`` (``_exif_of_tiff``), ``dpi`` and ``resolution``
    (``_tiff_resolution``) of a TIFF whose first directory's tags are ``stored``."""
    exif = _exif_of_tiff(stored)
    return dict(_tiff_resolution(stored), **({"exif": exif} if exif else {}))


def _tiff_file_metadata(path):
    """``_tiff_metadata`` of the first directory of the TIFF at ``path``, read by Pillow
    (the tags of ``Image.getexif`` of a TIFF that Pillow opens, its Exif and GPS IFDs
    read as the file is open), for a TIFF that Pillow cannot open; empty where Pillow
    cannot parse its tags (a damaged file)."""
    from PIL import TiffImagePlugin

    stored = _pil().Exif()
    with open(path, "rb") as f:
        try:
            if f.read(4) not in _TIFF_SIGNATURES[2:]:
                f.seek(0)
                stored.load_from_fp(f)
            else:  # BigTIFF: Pillow's directory reads it from its 16-byte header, which
                # load_from_fp (8 bytes) does not read: its steps, with that header
                f.seek(0)
                stored.head = f.read(16)
                stored._info = TiffImagePlugin.ImageFileDirectory_v2(stored.head)
                stored.endian, stored.fp = stored._info._endian, f
                f.seek(stored._info.next)
                stored._info.load(f)
            return _tiff_metadata(stored)
        except (OSError, ValueError, SyntaxError, struct.error, KeyError, AttributeError):
            return {}


def _orient(array, orientation):
    """``array`` (HW or HWC) turned upright for an EXIF orientation 1-8, as a view."""
    turns = {
        1: lambda a: a,
        2: lambda a: a[:, ::-1],
        3: lambda a: a[::-1, ::-1],
        4: lambda a: a[::-1],
        5: lambda a: a.swapaxes(0, 1),
        6: lambda a: a.swapaxes(0, 1)[:, ::-1],
        7: lambda a: a.swapaxes(0, 1)[::-1, ::-1],
        8: lambda a: a.swapaxes(0, 1)[::-1],
    }
    return turns.get(orientation, turns[1])(array)


def save_image(
    image: PIL.Image.Image | np.ndarray,
    path: str | bytes | os.PathLike[str],
    *,
    format: str | None = None,
    quality: _spec.Int | None = None,
    overwrite: bool = False,
) -> None:
    """Write an image atomically: to a temporary file next to ``path``, flushed
    to the disk (``fsync``), then renamed.

    An exception or Ctrl-C while writing leaves neither a partial ``path`` nor
    the temporary file.

    Parameters
    ----------
    image : PIL.Image.Image or ndarray
        ICC profile, EXIF, DPI and XMP in ``image.info`` are written where the format
        allows (the ICC profile only where the written pixels keep its colour
        space: not on a CMYK image converted to RGB); a JPEG's chroma subsampling,
        ``info["subsampling"]`` (``"4:4:4"``, ``"4:2:2"``, ``"4:2:0"``: what
        ``open_image`` reads from a JPEG or AVIF, or that of a JPEG opened in Pillow and
        given as it is), is
        kept in JPEG and AVIF output (RGB, and RGBA for AVIF; else Pillow's
        4:2:0); an image with
        ``info["lossless"]`` (a lossless WebP's) is written as lossless WebP where no
        ``quality`` is given. Modes the format cannot
        hold are converted: alpha is flattened on white for JPEG and BMP,
        16-bit becomes 8-bit for JPEG, WebP, BMP and AVIF (``narrows`` tells). An
        ``(H, W, 3 or 4)`` uint16 array (16-bit colour) is written at 16 bits as
        PNG (OpenCV) or TIFF (tifffile; OpenCV, without the ICC profile, EXIF and
        XMP and with the DPI rounded to whole numbers, when tifffile is not
        installed); an ``(H, W, 2)`` one (grey and alpha) as a
        16-bit grey-and-alpha PNG (with a grey ICC profile), or as a 16-bit RGBA
        TIFF, its grey in each colour channel (a grey profile is left out: Pillow
        reads no 16-bit grey-and-alpha TIFF). An ``ImageArray``'s ``info`` is
        written as a Pillow image's is (to a 16-bit TIFF: the ICC profile, DPI
        and EXIF: its text tags in IFD0, its Exif and GPS IFDs).
        An ``(H, W, 3 or 4)`` float32 or float64 array (float RGB(A)) is written
        as TIFF only, by tifffile.
        32-bit grey images (int32, float) need TIFF; as PNG, an integer one is
        written at 16 bits when every value fits (0 to 65535). Samples the format
        cannot hold are refused with a ``ValueError`` that names the format as given
        and what it holds. A
        JPEG is at most 65,500 pixels wide and high (libjpeg), a WebP 16,383
        (libwebp), a GIF 65,535: a larger image is refused (``ValueError``); an EXIF of more than 65,533 bytes (a large
        thumbnail or maker note), more than a JPEG holds, is left out of it. An image
        with no pixels (a side of 0) is refused (``ValueError``).
    path : str, bytes or os.PathLike
        The file to write (a bytes name: the file ``os.fsdecode`` names).
    format : str, optional
        One of ``png, jpeg, webp, tiff, bmp, gif, avif`` (or a Pillow format name); by
        default taken from the extension of ``path``.
    quality : int, optional
        JPEG/WebP quality 1-100 (default 90; WebP: lossless for an image with
        ``info["lossless"]``); AVIF's (default Pillow's, 75).
    overwrite : bool
        Replace an existing ``path`` (the new file takes its permission bits);
        otherwise ``FileExistsError``. True or False (a NumPy bool too); anything
        else is a ``TypeError``.

    Raises
    ------
    TypeError
        ``image`` not a Pillow image or NumPy array, ``path`` not a file name, or an
        option of the wrong type.
    ValueError
        A format that cannot be told or written, samples or a size the format cannot
        hold (above), an image with no pixels, a ``quality`` outside 1-100.
    OSError
        ``FileExistsError`` for an existing ``path`` without ``overwrite``, or what the
        system refuses (a missing folder, a full disk); no partial file is left.
    ImportError
        ``BrokenDependencyError``: a package the write needs (OpenCV, tifffile) is
        installed but fails to import.
    """
    _save(image, path, format, quality, overwrite)


class _Saved(NamedTuple):
    """What ``_save`` did."""

    pending: Future[None] | None  #: the ``fsync`` and rename, when run ``later``, else None
    #: why the image's ICC profile is not in the file (for the CLI's note), or None
    icc_lost: str | None
    #: the metadata left out of the file, and why (for the CLI's notes, one a line):
    #: "its EXIF is left out: ...", "its XMP is left out: ...", "its DPI is left out: ..."
    left_out: tuple[str, ...] = ()


def _save(
    image: PIL.Image.Image | np.ndarray,
    path: str | bytes | os.PathLike[str],
    format: str | None = None,
    quality: _spec.Int | None = None,
    overwrite: bool = False,
    later: Executor | None = None,
) -> _Saved:
    """``save_image``; with ``later`` (a ``concurrent.futures`` executor) the
    temporary file's ``fsync`` and rename run there (see ``_write_atomic``) and
    their future is returned in the ``_Saved``. A damaged EXIF (``_exif_damage``) is
    left out of every format (``_metadata``), and its note is the first of
    ``left_out``."""
    _pil()  # Pillow is needed from here on: say so before anything else
    path = cast(str, _path(path))  # a str: a bytes name decoded
    _check_image(image)
    if 0 in (image.shape[:2] if isinstance(image, np.ndarray) else image.size):
        what = f"shape {image.shape}" if isinstance(image, np.ndarray) else f"size {image.size}"
        raise ValueError(f"image has no pixels: {what}; nothing to write to {_shown(path)}")
    fmt = _format(path, format)
    overwrite = _spec.flag(overwrite, "overwrite")  # "no" replaced the file
    _check_info(getattr(image, "info", None) or {})
    if quality is not None:
        quality = _spec.integer(quality, "quality", "an int from 1 to 100")
        if not 1 <= quality <= 100:
            raise ValueError(f"quality must be an int from 1 to 100; got {quality!r}")
    info = getattr(image, "info", None) or {}  # a PIL.Image's or an ImageArray's
    why = _exif_damage(info.get("exif"))  # (_metadata leaves a damaged one out)
    noted = () if why is None else (f"its EXIF is left out: damaged ({why})",)
    size = image.shape[1::-1] if isinstance(image, np.ndarray) else image.size
    if _is_16bit_array(image) and fmt == "PNG" and image.shape[2] == 2:  # grey and alpha
        params = _metadata(info, "LA", size)  # a grey profile fits: kept
        dropped = _dpi_left_out(params, fmt)
        data = _png_grey_alpha(np.asarray(image), params)
        lost = _icc_lost(info, params, fmt, "LA")
        write = _write_atomic(path, lambda f: f.write(data), overwrite, later)
        return _Saved(write, lost, noted + dropped)
    if _is_16bit_array(image) and fmt in SIXTEEN_BIT_FORMATS:
        cv2 = _opencv(f"writing 16-bit colour to {path} needs it")
        if cv2 is None:
            raise ValueError(f"writing 16-bit colour to {path} needs OpenCV; {OPENCV_HINT}")
        mode = "RGB" if image.shape[2] == 3 else "RGBA"  # grey and alpha: grey in R, G and B
        params = _metadata(info, mode, size)
        pixels = np.asarray(image)
        if fmt == "TIFF" and _tifffile() is not None:
            rgb = np.ascontiguousarray(
                pixels[..., [0, 0, 0, 1]] if pixels.shape[2] == 2 else pixels, np.uint16
            )
            lost = _icc_lost(info, params, fmt, mode)
            # written strip by strip into the file: no copy of the file in memory
            write = _write_atomic(path, lambda f: _tiff_encode(rgb, params, f), overwrite, later)
            return _Saved(write, lost, noted)
        else:
            dropped = _dpi_left_out(params, fmt)  # PNG's; a TIFF's: _opencv_tiff_dpi
            if fmt == "TIFF" and params.pop("icc_profile", None):  # OpenCV writes none
                lost = f"OpenCV writes 16-bit TIFF without one; {TIFFFILE_HINT}"
            else:
                lost = _icc_lost(info, params, fmt, mode)
            if fmt == "TIFF":  # nor EXIF or XMP: said, as the profile is; the DPI, whole
                dropped = tuple(
                    f"its {name} is left out: OpenCV writes 16-bit TIFF without one; "
                    f"{TIFFFILE_HINT}"
                    for key, name in (("exif", "EXIF"), ("xmp", "XMP"))
                    if params.get(key)
                )
                dropped += _opencv_tiff_dpi(params)
            bgr = {2: [0, 0, 0, 1], 3: [2, 1, 0], 4: [2, 1, 0, 3]}[pixels.shape[2]]
            data = _opencv_encode(fmt, np.ascontiguousarray(pixels[..., bgr], np.uint16), params)
        return _Saved(
            _write_atomic(path, lambda f: f.write(data), overwrite, later), lost, noted + dropped
        )
    if isinstance(image, np.ndarray) and _is_float_colour(image):
        what = f"a float {'RGB' if image.shape[2] == 3 else 'RGBA'} image"
        if fmt != "TIFF":
            raise ValueError(_cannot_hold(what, _format_name(path, format), fmt))
        if _tifffile() is None:
            raise ValueError(
                f"cannot write {what} as {_format_name(path, format)} without tifffile, "
                f"which writes float RGB(A) TIFF; {TIFFFILE_HINT}; or {_CONVERT_FLOAT}"
            )
        mode = "RGB" if image.shape[2] == 3 else "RGBA"
        params = _metadata(info, mode, size)
        floats = np.ascontiguousarray(image, image.dtype.newbyteorder("="))
        lost = _icc_lost(info, params, fmt, mode)
        write = _write_atomic(path, lambda f: _tiff_encode(floats, params, f), overwrite, later)
        return _Saved(write, lost, noted)
    if _is_16bit_array(image):
        image = _to_8bit(image)
    if isinstance(image, np.ndarray):
        pil_image: PIL.Image.Image = _from_array(np.asarray(image))
        pil_image.info = dict(info)
    else:
        pil_image = image
    too_large = _too_large_for(fmt, *pil_image.size)
    if too_large is not None:
        raise ValueError(too_large)
    image = _for_format(pil_image, fmt, _format_name(path, format))
    params = _metadata(image.info, size=size)
    lost = _icc_lost(info, params, fmt, image.mode)
    if fmt == "WEBP" and quality is None and image.info.get("lossless") is True:
        params["lossless"] = True  # a lossless WebP's (_read); quality: Pillow's effort
    elif fmt in ("JPEG", "WEBP"):
        params["quality"] = 90 if quality is None else int(quality)
    elif fmt == "AVIF" and quality is not None:  # else Pillow's default, 75
        params["quality"] = int(quality)
    # a JPEG's (_read's, or read from a JPEG the caller opened in Pillow): kept, at any
    # quality, in JPEG and AVIF (whose writer takes the same values, default 4:2:0)
    sampling = image.info.get("subsampling") or _jpeg_subsampling(pil_image)
    if sampling in _JPEG_SAMPLINGS.values() and (
        (fmt in ("JPEG", "MPO") and image.mode == "RGB")
        or (fmt == "AVIF" and image.mode in ("RGB", "RGBA"))
    ):
        params["subsampling"] = sampling
    left_out = [*noted, *_dpi_left_out(params, fmt)]  # (first: it may put the DPI in the EXIF)
    if fmt == "TIFF" and params.get("exif"):  # Pillow's TIFF writer writes its tags anew
        why = _exif_unwritable(params["exif"])
        if why is not None:  # a tag of another type than Pillow's: its writer's TypeError
            del params["exif"]
            left_out.append(f"its EXIF is left out: Pillow cannot write it to a TIFF ({why})")
    for key, most in (("exif", JPEG_EXIF_MAX), ("xmp", JPEG_XMP_MAX)):
        if fmt in ("JPEG", "MPO") and len(params.get(key, b"")) > most:
            left_out.append(
                f"its {key.upper()} is left out: {len(params.pop(key)):,} bytes, more than a "
                f"JPEG holds ({most:,})"
            )
    cv2 = None
    if fmt == "PNG" and image.mode in _OPENCV_PNG and max(image.size) <= PNG_OPENCV_MAX_SIDE:
        cv2 = _opencv()  # else Pillow's writer, which has no such limit
    if cv2 is not None:
        to_bgr = _OPENCV_PNG[image.mode]
        pixels = np.asarray(image)
        pixels = pixels.astype(pixels.dtype.newbyteorder("="), copy=False)
        if to_bgr is not None:
            pixels = cv2.cvtColor(pixels, getattr(cv2, to_bgr))
        data = _opencv_encode(fmt, pixels, params)
        write = _write_atomic(path, lambda f: f.write(data), overwrite, later)
        return _Saved(write, lost, tuple(left_out))
    colour = {key: params.pop(key) for key in _PNG_COLOUR if key in params}
    unitless = params.pop("resolution", None)  # a TIFF's of no unit: to TIFF only
    if unitless and fmt == "TIFF":
        params.update(x_resolution=unitless[0], y_resolution=unitless[1], resolution_unit=1)
    if params.get("exif") and fmt in ("BMP", "GIF"):  # Pillow's writers drop it
        del params["exif"]
        left_out.append(f"its EXIF is left out: {fmt} files hold none")
    xmp = params.pop("xmp", None)
    if xmp and fmt in ("JPEG", "MPO", "WEBP", "AVIF"):  # Pillow's xmp=
        params["xmp"] = xmp  # (one too long for a JPEG is in left_out)
    elif xmp and fmt == "TIFF":  # tag 700, beside the EXIF's tags in the image's IFD
        exif = _exif_loaded(params.get("exif"))[0] or _pil().Exif()  # (damaged: none)
        exif[_XMP_TAG] = xmp
        params["exif"] = exif
    elif xmp and fmt != "PNG":  # BMP, GIF (and Pillow's other writers) hold none
        left_out.append(f"its XMP is left out: {fmt} files hold none")
    if fmt == "TIFF":
        image = _without_source_xmp(image, xmp, params)
    chunks = _png_colour_chunks(dict(colour, icc_profile=params.get("icc_profile")))
    chunks += _png_xmp_chunk(xmp)
    if fmt == "PNG" and chunks:
        from PIL import PngImagePlugin

        params["pnginfo"] = PngImagePlugin.PngInfo()
        for kind, body in chunks:
            params["pnginfo"].add(kind, body)
    pending = _write_atomic(path, lambda f: image.save(f, format=fmt, **params), overwrite, later)
    return _Saved(pending, lost, tuple(left_out))


#: Pillow's writers that store an ICC profile (``icc_profile=``); cresize's own
#: PNG (OpenCV's pixels) gets the chunk from ``_opencv_encode``.
_ICC_WRITERS = ("AVIF", "JPEG", "MPO", "PNG", "TIFF", "WEBP")


def _metadata(info, mode=None, size=None):
    """The ICC profile, EXIF, DPI and XMP of ``info`` to write (``icc_profile``, ``exif``,
    ``dpi``, ``xmp``: Pillow's ``save`` keywords; XMP as bytes), and a TIFF's resolution
    of no unit where it has no DPI (``resolution``, floats: TIFF writers only). With ``mode``, the mode of the pixels
    written, a profile of another colour space (see ``_ICC_SPACES``) is left out:
    it would be invalid in the file. With ``size``, the (width, height) written, the
    EXIF's pixel dimensions are made that size: see ``_exif_sized``."""
    params = {key: info[key] for key in ("icc_profile", "exif") if info.get(key)}
    if "exif" in params and _exif_damage(params["exif"]) is not None:
        del params["exif"]  # damaged: left out (_save's note), no writer given junk
    dpi = _given_dpi(info.get("dpi"))  # (x, y), a NumPy array's too
    if dpi is not None:
        params["dpi"] = dpi
    for key in ("icc_profile", "exif"):  # a bytearray (_check_info takes one): Pillow's
        if isinstance(params.get(key), bytearray):  # encoders and TIFF writer want bytes
            params[key] = bytes(params[key])
    if "dpi" in params and not _dpi_writable(params["dpi"]):
        del params["dpi"]  # a damaged resolution tag's: no file holds it
    try:  # a TIFF's of no unit (ResolutionUnit 1, no dpi): written to TIFF only
        unitless = tuple(float(d) for d in info.get("resolution") or ())
    except (TypeError, ValueError, ZeroDivisionError):
        unitless = ()
    if "dpi" not in params and len(unitless) == 2 and _dpi_writable(unitless):
        params["resolution"] = unitless
    if isinstance(params.get("exif"), bytes) and params["exif"].startswith(_TIFF_SIGNATURES[:2]):
        # a WebP's or AVIF's as Pillow reads it (no "Exif\0\0"): Pillow's JPEG writer
        # wrote it as it was, an APP1 that no reader takes (the orientation lost too)
        params["exif"] = b"Exif\0\0" + params["exif"]
    if "exif" in params and size is not None:
        params["exif"] = _exif_sized(params["exif"], size)
    if "icc_profile" in params and not _profile_fits(params["icc_profile"], mode):
        del params["icc_profile"]
    xmp = info.get("xmp")  # bytes (str from some of Pillow's readers)
    if xmp:
        params["xmp"] = xmp.encode() if isinstance(xmp, str) else bytes(xmp)
    # PNG's gAMA, cHRM and sRGB as Pillow reads them; only PNG writers take them
    params.update((key, info[key]) for key in _PNG_COLOUR if info.get(key) is not None)
    return params


#: The largest DPI that every writer holds: PNG's ``pHYs``, pixels a metre in 32 bits
#: (a TIFF's rational holds up to 2**32 - 1; a JPEG or a small one: ``_dpi_left_out``)
_DPI_MAX = 0xFFFFFFFF * 0.0254


def _dpi_writable(dpi):
    """Whether the ``info["dpi"]`` pair ``dpi`` can be written: both above 0 and at
    most ``_DPI_MAX``. Pillow's TIFF reader (and ``_tiff_resolution``) gives a zero
    denominator as NaN and 2**32 - 1 dots a centimetre as 1.1e10 dpi, on which every
    PNG and JPEG writer and tifffile's failed (Pillow 11's zero-denominator rational
    raises ZeroDivisionError as a float). Anything but a pair of numbers is left to the
    writer to refuse."""
    try:
        x, y = (float(d) for d in dpi)
    except ZeroDivisionError:
        return False
    except (TypeError, ValueError):
        return True
    return 0 < x <= _DPI_MAX and 0 < y <= _DPI_MAX  # NaN: False


#: Pillow's writers whose files hold a DPI of their own (``dpi=``: JPEG's JFIF density,
#: PNG's ``pHYs``, the TIFF and BMP headers, PDF's page size), those that hold one only in their EXIF's
#: XResolution and YResolution (as libvips writes it), and those with an EXIF that
#: ``_dpi_left_out`` makes say the DPI (a TIFF's resolution tags are the DPI's).
_DPI_WRITERS = ("JPEG", "MPO", "PNG", "TIFF", "BMP", "PDF")
_EXIF_DPI_WRITERS = ("WEBP", "AVIF")
_EXIF_WRITERS = ("JPEG", "MPO", "PNG", "WEBP", "AVIF")


def _dpi_left_out(params, fmt):
    """``params``' DPI made what a ``fmt`` file holds, and the note that says what was left
    out (empty where kept): the one rule for every writer's DPI.

    Taken out, with a note, where the file cannot hold it: a JPEG's JFIF density is whole
    dots an inch, 16 bits (Pillow's writer wrapped one above ``JPEG_DPI_MAX``, 70,000 to
    4,464, and wrote one that rounds to 0 as 0), PNG's ``pHYs`` and BMP's header whole
    pixels a metre (0 under 0.0127 dpi); GIF (and Pillow's other writers without one)
    hold none. A TIFF's rationals hold any that ``_dpi_writable`` passes (OpenCV's 16-bit
    TIFF: ``_opencv_tiff_dpi``). One left out of a JPEG's density or PNG's ``pHYs`` is
    written in the EXIF (made if none; the note says so): it holds any. A DPI that is kept is also the EXIF's XResolution and
    YResolution (inches) where the file has an EXIF (``_exif_with_dpi``), as libvips
    writes them: a JPEG's EXIF said 72 dpi beside a density of 300 (or nothing, which
    readers that take the EXIF read as 72). WebP and AVIF hold it only there: their
    ``params`` get an EXIF of the DPI (made if there was none) and no ``dpi``."""
    try:
        x, y = (float(d) for d in params.get("dpi") or ())
    except (TypeError, ValueError):  # none, or left to the writer to refuse
        return ()
    if fmt in ("JPEG", "MPO") and max(x, y) > JPEG_DPI_MAX:
        why = f"more than a JPEG holds ({JPEG_DPI_MAX:,})"
    elif fmt in ("JPEG", "MPO") and min(round(x), round(y)) < 1:
        why = "which a JPEG holds as 0 dots an inch (whole numbers)"
    elif fmt in ("PNG", "BMP") and min(int(d / 0.0254 + 0.5) for d in (x, y)) < 1:
        why = f"which a {fmt} holds as 0 pixels a metre (whole numbers)"
    elif fmt not in _DPI_WRITERS + _EXIF_DPI_WRITERS:
        why = f"{fmt} files hold none"
    else:
        if fmt in _EXIF_DPI_WRITERS or (params.get("exif") and fmt in _EXIF_WRITERS):
            exif = _exif_with_dpi(params.get("exif"), (x, y))
            if exif is not None:  # (None: none made; Pillow 11's WebP writer takes no None)
                params["exif"] = exif
        if fmt in _EXIF_DPI_WRITERS:  # (Pillow's WebP and AVIF writers take no dpi)
            del params["dpi"]
        return ()
    del params["dpi"]
    shown = "x".join(f"{d:.2g}" if d < 1 else f"{d:,.2f}".rstrip("0").rstrip(".") for d in (x, y))
    if fmt not in _EXIF_WRITERS:
        return (f"its DPI is left out: {shown}, {why}",)
    # JPEG's density, PNG's pHYs: an EXIF rational holds it (made if none), as WebP's
    # does; else the EXIF kept the source's old one (72) or the DPI was lost
    exif = _exif_with_dpi(params.get("exif"), (x, y))
    if exif is params.get("exif") and not _exif_says_dpi(exif, (x, y)):
        # not written there: one Pillow cannot write back, or with a thumbnail (_exif_with_dpi)
        return (f"its DPI is left out: {shown}, {why}",)
    params["exif"] = exif
    where = "JFIF density" if fmt in ("JPEG", "MPO") else "pHYs chunk"
    return (f"its DPI is left out of the {where}: {shown}, {why}; its EXIF holds it",)


#: What Pillow raises on an EXIF it cannot parse or write back (AttributeError: a tag
#: stored as another type than its table's, ``IFDRational.encode`` on writing a Make)
_EXIF_ERRORS = (
    AttributeError,
    OSError,
    ValueError,
    SyntaxError,
    struct.error,
    KeyError,
    TypeError,
    ZeroDivisionError,
)


def _error_line(exc):
    """``exc`` as a note or warning quotes it: its type and message, on one line."""
    return " ".join(f"{type(exc).__name__}: {exc}".split())


def _exif_damage(exif):
    """Why Pillow cannot parse the EXIF ``exif`` (bytes, a bytearray, or an ``Exif``: its
    bytes), its error on one line, or None (none, or one it parses): a damaged EXIF, junk
    bytes where its TIFF structure should be, as cameras and editors write; Pillow's
    ``getexif`` raised ``SyntaxError: not a TIFF file``. The one test of a damaged EXIF:
    it is left out wherever it is met, read (``_without_damaged_exif``) or written
    (``_metadata``), with a note, as other metadata a file cannot hold. Only the header
    is read, where ``Exif.load`` raises (a damaged directory after it is Pillow's
    "Corrupt EXIF data" warning, not an error): no warning of its own, a few microseconds."""
    try:
        data = bytes(exif.tobytes() if isinstance(exif, _pil().Exif) else exif or b"")
        taken = 0  # as Exif.load takes them off (Pillow asked only of a third)
        while data.startswith(b"Exif\0\0") and (taken < 2 or _exif_prefixes_taken() is None):
            data, taken = data[6:], taken + 1
        if data:  # (Pillow's TIFF plugin imported only then, as Exif.load imports it)
            from PIL import TiffImagePlugin

            TiffImagePlugin.ImageFileDirectory_v2(data[:8])  # its header, as Exif.load's
    except _EXIF_ERRORS as exc:
        return _error_line(exc)
    return None


@functools.cache
def _exif_prefixes_taken():
    """How many ``Exif\\0\\0`` prefixes Pillow's ``Exif.load`` takes off an EXIF: None
    for every one (Pillow 11), or 2 (later Pillows: a third is then where the TIFF
    header should be, ``SyntaxError: not a TIFF file``). Asked of Pillow once."""
    try:
        _pil().Exif().load(b"Exif\0\0" * 3)
    except SyntaxError:
        return 2
    return None


def _exif_unwritable(exif):
    """Why Pillow cannot write the EXIF ``exif`` (bytes, or Pillow's ``Exif``) back, its
    error on one line, or None (it can, or it is damaged: ``_exif_damage``): a tag stored
    as another type than Pillow's table gives it (an XResolution as text, a Make as a
    rational) is parsed, but its writers fail on it (``Exif.tobytes``, the TIFF writer,
    ``exif_transpose``; not tested before that one, on reading a turned image: a second
    ``tobytes``, 0.1-0.3 ms, on every such read)."""
    parsed = exif if isinstance(exif, _pil().Exif) else _exif_loaded(exif)[0]
    try:
        if parsed is not None:
            parsed.tobytes()
    except _EXIF_ERRORS as exc:
        return _error_line(exc)
    return None


def _exif_loaded(exif):
    """``(parsed, None)``: Pillow's ``Exif`` of the EXIF ``exif`` (bytes, a bytearray, or
    an ``Exif``: parsed from its bytes, the caller's never changed; an empty one for
    none), or ``(None, why)`` where it is damaged (``_exif_damage``)."""
    why = _exif_damage(exif)
    if why is not None:
        return None, why
    parsed = _pil().Exif()
    try:
        raw = exif.tobytes() if isinstance(exif, _pil().Exif) else exif
        if raw:
            parsed.load(bytes(raw))
    except _EXIF_ERRORS as exc:
        return None, _error_line(exc)
    return parsed, None


def _orientation(im, path):
    """The EXIF orientation of ``im`` (just opened in Pillow from ``path``), as
    ``im.getexif()`` gives it, a damaged EXIF left out first (``_without_damaged_exif``):
    a PNG's after its pixels too, which Pillow's ``getexif`` decodes the pixels to find
    (done here first, as it would)."""
    if im.format == "PNG" and "exif" not in im.info:
        _load(im, path)
    _without_damaged_exif(im, path)
    return im.getexif().get(0x0112, 1)


def _without_damaged_exif(im, path, warn=True):
    """``im`` (just opened in Pillow from ``path``) without ``info["exif"]`` where it is
    damaged (``_exif_damage``), before anything parses it: the pixels are read as those of
    an image without EXIF (orientation 1, unless an XMP orientation says otherwise, as
    Pillow reads one without), and a ``UserWarning`` (``warn``) says so, as Pillow's
    "Corrupt EXIF data" does (``cresize resize``: a note on the file). Pillow opens such
    a file and shows it, and libvips resizes it; Pillow's ``getexif`` raised
    ``SyntaxError`` (and its JPEG reader made its DPI 72 of it: kept, as Pillow reads
    it)."""
    # what Pillow's getexif parses: "exif", else a PNG's text of ImageMagick's hex profile
    key = "exif" if im.info.get("exif") is not None else "Raw profile type exif"
    given, why = im.info.get(key), None
    if isinstance(given, str):
        try:
            given = bytes.fromhex("".join(given.split("\n")[3:]))
        except ValueError as exc:
            why = f"ValueError: {exc}"
    why = why or _exif_damage(given)
    if why is None:
        return
    del im.info[key]
    if warn:
        warnings.warn(
            f"its EXIF is damaged ({why}) and left out, with any orientation in it",
            UserWarning,
            stacklevel=5,
        )


def _exif_with_dpi(exif, dpi):
    """The EXIF ``exif`` (bytes, Pillow's ``Exif`` or None: a new one) whose IFD0
    XResolution and YResolution are ``dpi`` (x, y floats) and ResolutionUnit 2 (inch), as
    bytes; ``exif`` as it is where it says so already (ResolutionUnit 2: Pillow's JPEG
    reader takes none without it), or where Pillow cannot write it back (a damaged one,
    which Pillow cannot parse, is left out by ``_metadata`` first: ``_exif_damage``). The caller's ``Exif`` is not changed.
    Patched in its bytes where it has the three tags (``_exif_dpi_patched``); written
    back by Pillow only where it lacks one, and then not where it has a thumbnail (IFD1),
    which Pillow's ``Exif.tobytes`` leaves out."""
    raw = exif.tobytes() if isinstance(exif, _pil().Exif) else exif
    if isinstance(raw, bytes):
        patched = _exif_dpi_patched(raw, dpi)
        if patched is not None:
            return exif if patched == raw else patched
    parsed = _exif_loaded(raw)[0]
    if parsed is None:  # damaged: left out by _metadata before this
        return exif
    try:
        if _parsed_says_dpi(parsed, dpi):
            return exif
        if exif and _has_thumbnail(raw):  # which Pillow's tobytes would leave out
            return exif
        parsed[_X_RESOLUTION], parsed[_Y_RESOLUTION] = dpi
        parsed[_RESOLUTION_UNIT] = 2
        return parsed.tobytes()
    except _EXIF_ERRORS:
        return exif


def _has_thumbnail(raw):
    """Whether the EXIF bytes ``raw`` have an IFD1 (a thumbnail's), parsed apart: Pillow
    11's ``Exif.tobytes`` fails ("argument out of range") on an ``Exif`` whose
    ``get_ifd(IFD1)`` was asked, even for an empty one."""
    probe = _exif_loaded(raw)[0]
    return probe is not None and bool(probe.get_ifd(_pil().ExifTags.IFD.IFD1))


def _exif_says_dpi(exif, dpi):
    """Whether the EXIF ``exif`` (bytes or Pillow's ``Exif``) says ``dpi`` (x, y): its
    XResolution and YResolution, ResolutionUnit 2 (Pillow's JPEG reader takes none
    without it). False for none, or one Pillow cannot parse."""
    parsed = _exif_loaded(exif)[0]
    try:
        return parsed is not None and _parsed_says_dpi(parsed, dpi)
    except _EXIF_ERRORS:  # a value Pillow cannot read as a number
        return False


def _parsed_says_dpi(parsed, dpi):
    """``_exif_says_dpi`` of Pillow's parsed ``Exif`` ``parsed``."""
    said = (parsed.get(_X_RESOLUTION), parsed.get(_Y_RESOLUTION))
    return parsed.get(_RESOLUTION_UNIT) == 2 and all(
        value is not None and math.isclose(float(value), d, rel_tol=1e-6)
        for value, d in zip(said, dpi)
    )


#: EXIF tags PixelXDimension and PixelYDimension, in the Exif IFD
_PIXEL_DIMENSIONS = (0xA002, 0xA003)
#: their tag ids as bytes, in either byte order: an EXIF with none of them is not parsed
_PIXEL_DIMENSION_BYTES = tuple(
    tag.to_bytes(2, order) for tag in _PIXEL_DIMENSIONS for order in ("big", "little")
)


def _exif_sized(exif, size):
    """The EXIF ``exif`` (bytes, or Pillow's ``Exif``) of an image of ``size`` (width,
    height): its PixelXDimension and PixelYDimension, where it has them, are that size
    (a resized image's said the old one), as libvips writes them (Pillow's
    ``exif_transpose`` leaves them as they were). Tags it lacks are not added; an EXIF
    without them (checked by their bytes first), or that Pillow cannot parse, is
    returned as it is. Bytes are patched in place where the values fit their fields
    (``_exif_patched``: a parse by Pillow costs about 0.2 ms a file)."""
    if isinstance(exif, _pil().Exif):  # the caller's: its bytes (as Pillow's save
        exif = exif.tobytes()  # writes it), never the caller's object changed
    if not isinstance(exif, bytes) or not any(tag in exif for tag in _PIXEL_DIMENSION_BYTES):
        return exif  # (another kind of value goes to the writer as before)
    patched = _exif_patched(exif, size)
    if patched is not None:
        return patched
    parsed = _exif_loaded(exif)[0]
    if parsed is None:  # damaged: left out by _metadata before this
        return exif
    try:
        fields = parsed.get_ifd(_EXIF_IFD)
        changed = False
        for tag, length in zip(_PIXEL_DIMENSIONS, size):
            if tag in fields and fields[tag] != length:
                fields[tag], changed = int(length), True
        return parsed.tobytes() if changed else exif
    except _EXIF_ERRORS:
        # one whose Exif IFD Pillow cannot read, or that it cannot write back (a
        # GPSLatitude stored as text: TypeError), goes as it is, as before
        return exif


def _exif_patched(exif, size):
    """``_exif_sized`` of the EXIF bytes ``exif`` (a TIFF structure, after "Exif\\0\\0"
    or not) by patching the values of its Exif IFD's PixelXDimension and
    PixelYDimension entries, one SHORT or LONG each (the value in the entry itself), or
    None: entries of another kind, a value too large for a SHORT, a structure that does
    not fit in the bytes (then Pillow parses it)."""
    start, order = _exif_start(exif)
    if order is None:
        return None
    out = bytearray(exif)
    try:

        def entries(ifd):  # (offset of the entry, tag, type, count)
            return _ifd_entries(exif, start, order, ifd)

        (ifd0,) = struct.unpack_from(order + "I", exif, start + 4)
        pointers = [at for at, tag, kind, n in entries(ifd0) if tag == _EXIF_IFD]
        if len(pointers) != 1:
            return None
        (exif_ifd,) = struct.unpack_from(order + "I", exif, pointers[0] + 8)
        for at, tag, kind, n in entries(exif_ifd):
            if tag in _PIXEL_DIMENSIONS:
                length = size[_PIXEL_DIMENSIONS.index(tag)]
                if n != 1 or kind not in (3, 4) or (kind == 3 and length > 0xFFFF):
                    return None
                struct.pack_into(order + ("H" if kind == 3 else "I"), out, at + 8, length)
    except struct.error:  # an offset past the end
        return None
    return bytes(out)


def _exif_start(exif):
    """``(start, order)`` of the EXIF bytes ``exif``: where its TIFF structure begins
    (after "Exif\\0\\0" or not) and its ``struct`` byte order, None where it has none."""
    start = 6 if exif.startswith(b"Exif\0\0") else 0
    return start, {b"II": "<", b"MM": ">"}.get(exif[start : start + 2])


def _ifd_entries(exif, start, order, ifd):
    """``(offset of the entry, tag, type, count)`` of each entry of the IFD at ``ifd`` of
    the EXIF bytes ``exif`` (``_exif_start``'s ``start`` and ``order``); struct.error
    where it does not fit in them."""
    (count,) = struct.unpack_from(order + "H", exif, start + ifd)
    for i in range(count):
        at = start + ifd + 2 + 12 * i
        yield (at, *struct.unpack_from(order + "HHI", exif, at))


def _exif_dpi_patched(exif, dpi):
    """``_exif_with_dpi`` of the EXIF bytes ``exif`` by patching its IFD0's XResolution
    and YResolution (one RATIONAL each, its 8 bytes where the entry points) and
    ResolutionUnit (one SHORT) in place: every other byte kept (a thumbnail, IFD1, that
    Pillow's ``Exif.tobytes`` leaves out; a maker note's offsets), or None: a tag missing
    or of another kind, a value that fits no RATIONAL, a structure that does not fit
    in the bytes (then Pillow parses it)."""
    start, order = _exif_start(exif)
    if order is None:
        return None
    import fractions

    out = bytearray(exif)
    try:
        (ifd0,) = struct.unpack_from(order + "I", exif, start + 4)
        found = {tag: (at, kind, n) for at, tag, kind, n in _ifd_entries(exif, start, order, ifd0)}
        unit = found.get(_RESOLUTION_UNIT)
        if unit is None or unit[1:] != (3, 1):
            return None
        rationals = [found.get(tag) for tag in (_X_RESOLUTION, _Y_RESOLUTION)]
        if any(r is None or r[1:] != (5, 1) for r in rationals):
            return None
        places = [struct.unpack_from(order + "I", exif, r[0] + 8)[0] for r in rationals]
        if places[0] == places[1]:  # one value for both: Pillow's, then
            return None
        struct.pack_into(order + "H", out, unit[0] + 8, 2)
        for where, d in zip(places, dpi):
            said = struct.unpack_from(order + "II", exif, start + where)
            if said[1] and math.isclose(said[0] / said[1], d, rel_tol=1e-6):
                continue  # as it was
            value = fractions.Fraction(d).limit_denominator(
                max(1, min(0xFFFFFFFF, int(0xFFFFFFFF / d)))
            )
            if not 0 < value.numerator <= 0xFFFFFFFF:
                return None
            struct.pack_into(order + "II", out, start + where, value.numerator, value.denominator)
    except (struct.error, ValueError, OverflowError, ZeroDivisionError):
        return None
    return bytes(out)


#: ``info`` keys of a PNG's colour chunks (Pillow reads them, and writes them only
#: when given as chunks): gAMA, cHRM and sRGB; see ``_png_colour_chunks``.
_PNG_COLOUR = ("gamma", "chromaticity", "srgb")


#: TIFF tag XMP (XML packet, bytes)
_XMP_TAG = 700


#: TIFF tags IPTC-NAA and Photoshop: blocks that Pillow's TIFF writer copies, as it
#: copies the XMP, from the TIFF an image was read from
_TIFF_BLOCKS = (33723, 34377)


def _without_source_xmp(
    image: PIL.Image.Image, xmp: bytes | None, params: dict[str, Any]
) -> PIL.Image.Image:
    """``image`` (Pillow) to write as TIFF with the XMP ``xmp`` (bytes or None) of
    ``params``' EXIF. Pillow's TIFF writer writes the XMP of the TIFF that ``image`` was
    read from (its ``tag_v2``, as read: with an orientation since applied to the
    pixels) over the one given: then a copy, which has no ``tag_v2``, with its IPTC and
    Photoshop blocks (``_TIFF_BLOCKS``, copied from ``tag_v2`` too) put in ``params``'
    EXIF. The image itself is not changed."""
    source = getattr(image, "tag_v2", None)
    if source is None or source.get(_XMP_TAG) in (None, xmp):
        return image
    exif = params.get("exif")
    if not isinstance(exif, _pil().Exif):
        exif = _exif_loaded(exif)[0] or _pil().Exif()  # (damaged: left out by _metadata)
    for tag in _TIFF_BLOCKS:
        if isinstance(source.get(tag), bytes):
            exif[tag] = source[tag]
    if len(exif):
        params["exif"] = exif
    return image.copy()


def _png_xmp_chunk(xmp):
    """``[(kind, body)]``: the iTXt chunk of the XMP packet ``xmp`` (bytes), as Adobe's
    XMP specification puts it in a PNG (keyword ``XML:com.adobe.xmp``, uncompressed, no
    language); none without one."""
    return [(b"iTXt", b"XML:com.adobe.xmp\0\0\0\0\0" + xmp)] if xmp else []


def _png_colour_chunks(params):
    """The gAMA, cHRM and sRGB chunks, ``(kind, body)``, of ``params``' ``gamma``,
    ``chromaticity`` and ``srgb`` (Pillow's ``info``). No sRGB beside an ICC profile:
    a PNG has one or the other (as Pillow writes)."""
    import struct

    chunks = []
    gamma = params.get("gamma")
    if isinstance(gamma, numbers.Real) and 0 < gamma < 42949:  # 4 bytes, in 1/100000
        chunks.append((b"gAMA", struct.pack(">I", round(gamma * 100000))))
    white_and_primaries = params.get("chromaticity")
    if isinstance(white_and_primaries, tuple) and len(white_and_primaries) == 8:
        values = [round(v * 100000) for v in white_and_primaries]
        if all(0 <= v < 2**31 for v in values):
            chunks.append((b"cHRM", struct.pack(">8I", *values)))
    intent = params.get("srgb")
    if intent in (0, 1, 2, 3) and not params.get("icc_profile"):
        chunks.append((b"sRGB", bytes([intent])))
    return chunks


def _profile_fits(icc, mode):
    """Whether the ICC profile ``icc`` can describe pixels of ``mode`` (None: any)."""
    space = _ICC_SPACES.get(mode)
    return space is None or icc[16:20] == space


def _icc_lost(info, params, fmt, mode):
    """Why the ICC profile of ``info`` is not written with ``params`` as ``fmt``
    (``mode`` pixels), or None: it is, or there is none."""
    icc = info.get("icc_profile")
    if not icc:
        return None
    if fmt not in _ICC_WRITERS:
        return f"{fmt} files hold none"
    if not params.get("icc_profile"):
        space = icc[16:20].decode("latin-1").strip()
        return f"it describes {space} pixels, and {mode} pixels are written"
    return None


def _from_array(image: np.ndarray) -> PIL.Image.Image:
    """``Image.fromarray(image)``, or a ``TypeError`` saying which arrays can be written."""
    try:
        if image.ndim not in (2, 3):  # Pillow's error for a 0-d one was an IndexError
            raise TypeError
        return _pil().fromarray(image)
    except TypeError:
        raise TypeError(
            f"image array of shape {image.shape} and dtype {image.dtype} cannot be "
            f"written: save_image takes (H, W) grey arrays (8/16/32-bit integers, "
            f"float32, float64), (H, W, 2/3/4) uint8 (LA, RGB, RGBA) and "
            f"(H, W, 2/3/4) uint16 (16 bits as PNG or TIFF), (H, W, 3/4) float32 and "
            f"float64 (as TIFF, with tifffile); {_CONVERT_FLOAT}"
        ) from None


#: Pillow modes written as PNG by OpenCV -> the conversion to OpenCV's BGR(A), or None.
#: OpenCV's PNG encoder (zlib at its fast default, no adaptive filter search)
#: makes files about as small as Pillow's default in about a tenth of the time.
#: The longest side of a PNG that OpenCV writes (libpng's default limit,
#: PNG_USER_WIDTH_MAX and PNG_USER_HEIGHT_MAX; the format's own is 2**31 - 1): a longer
#: 8-bit image is written by Pillow, a 16-bit colour one refused.
PNG_OPENCV_MAX_SIDE = 1_000_000
_OPENCV_PNG = {"L": None, "I;16": None, "RGB": "COLOR_RGB2BGR", "RGBA": "COLOR_RGBA2BGRA"}
#: How OpenCV writes PNG: zlib level (0-9), zlib strategy, row filter (these are
#: OpenCV's defaults, spelled out). libvips' ``pngsave`` default is level 6, the
#: default strategy and no filter: files about 1.5 times as large, and slower to
#: write (docs/files.md).
PNG_ZLIB = {"level": 1, "strategy": "rle", "filter": "sub"}


#: The largest DPI that OpenCV writes to a 16-bit TIFF exactly: it takes whole numbers,
#: which libtiff stores through a float (2**24 + 1 is written as 2**24).
OPENCV_TIFF_DPI_MAX = 2**24


def _opencv_tiff_dpi(params):
    """``params``' DPI (or, without one, its ``resolution`` of no unit) made what OpenCV
    writes to a TIFF: both rounded to whole numbers (``_opencv_encode`` writes them);
    one that rounds to 0 or is above ``OPENCV_TIFF_DPI_MAX`` is taken out, and the note
    that says so returned."""
    key = "dpi" if params.get("dpi") else "resolution"
    if not params.get(key):
        return ()
    x, y = (float(d) for d in params[key])
    whole = (round(x), round(y))
    if 1 <= min(whole) and max(whole) <= OPENCV_TIFF_DPI_MAX:
        params[key] = whole
        return ()
    del params[key]
    return (
        f"its {'DPI' if key == 'dpi' else key} is left out: {x:,.2f}x{y:,.2f}; OpenCV "
        f"writes a 16-bit TIFF's in whole numbers from 1 to {OPENCV_TIFF_DPI_MAX:,}; "
        f"{TIFFFILE_HINT}",
    )


def _too_large_for(fmt, width, height):
    """Why a ``width`` x ``height`` image cannot be written as ``fmt`` (a Pillow format
    name: ``_format``'s) for its size, or None: the one rule of ``save_image`` and of
    the CLI, which asks it before resizing. Else Pillow fails late and obscurely:
    "broken data stream" (JPEG), "OverflowError: int too big to convert" (GIF),
    "encoding error 5" (WebP, after the whole encode was set up)."""
    longest = {"JPEG": JPEG_MAX_SIDE, "GIF": GIF_MAX_SIDE, "WEBP": WEBP_MAX_SIDE}.get(fmt)
    if longest is None or max(width, height) <= longest:
        return None
    return (
        f"a {'WebP' if fmt == 'WEBP' else fmt} is at most {longest:,} pixels wide "
        f"and high; this image is {width}x{height}: write PNG, TIFF or BMP"
    )


def _opencv_encode(fmt, pixels, params):
    """The file's bytes, from OpenCV; a PNG gets ``params``' ICC profile, EXIF, DPI and
    XMP, a TIFF its DPI or resolution of no unit (whole: ``_opencv_tiff_dpi``)."""
    cv2 = _opencv()
    settings = []
    if fmt == "TIFF" and (params.get("dpi") or params.get("resolution")):
        x, y = params.get("dpi") or params["resolution"]
        unit = 2 if params.get("dpi") else 1  # ResolutionUnit 2: inch; 1: none
        settings = [cv2.IMWRITE_TIFF_RESUNIT, unit, cv2.IMWRITE_TIFF_XDPI, x]
        settings += [cv2.IMWRITE_TIFF_YDPI, y]
    if fmt == "PNG":
        strategy = getattr(cv2, f"IMWRITE_PNG_STRATEGY_{PNG_ZLIB['strategy'].upper()}")
        row_filter = getattr(cv2, f"IMWRITE_PNG_FILTER_{PNG_ZLIB['filter'].upper()}", None)
        settings = [
            *(cv2.IMWRITE_PNG_COMPRESSION, PNG_ZLIB["level"]),
            *(cv2.IMWRITE_PNG_STRATEGY, strategy),
        ]
        if hasattr(cv2, "IMWRITE_PNG_FILTER"):  # OpenCV 4.11+; before, always "sub"
            settings += [cv2.IMWRITE_PNG_FILTER, row_filter]
    if fmt == "PNG" and max(pixels.shape[:2]) > PNG_OPENCV_MAX_SIDE:  # 16-bit colour
        h, w = pixels.shape[:2]
        raise ValueError(
            f"a 16-bit colour PNG is written by OpenCV, whose libpng writes at most "
            f"{PNG_OPENCV_MAX_SIDE:,} pixels a side; this image is {w}x{h}: write TIFF"
        )
    ext = ".png" if fmt == "PNG" else ".tif"
    ok, data = cv2.imencode(ext, np.ascontiguousarray(pixels), settings)
    if not ok:
        raise OSError(f"OpenCV could not encode a {pixels.shape} {pixels.dtype} image as {fmt}")
    data = data.tobytes()
    return _png_with_metadata(data, params) if fmt == "PNG" else data


def _png_chunk(kind, body):
    """A PNG chunk: length, ``kind``, ``body``, CRC."""
    import struct
    import zlib

    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png_with_metadata(data, params):
    """The PNG file ``data`` with ``params``' colour (gAMA, cHRM, sRGB), XMP, ICC
    profile, EXIF and DPI chunks."""
    import struct
    import zlib

    chunks = _png_colour_chunks(params) + _png_xmp_chunk(params.get("xmp"))
    if params.get("icc_profile"):
        chunks.append((b"iCCP", b"ICC Profile\0\0" + zlib.compress(params["icc_profile"])))
    if params.get("exif"):  # as Pillow writes it: without the JPEG "Exif\0\0" header
        exif = params["exif"]
        chunks.append((b"eXIf", exif[6:] if exif.startswith(b"Exif\0\0") else exif))
    if params.get("dpi"):
        x, y = (int(d / 0.0254 + 0.5) for d in params["dpi"])
        chunks.append((b"pHYs", struct.pack(">IIB", x, y, 1)))
    extra = b"".join(_png_chunk(kind, body) for kind, body in chunks)
    return data[:33] + extra + data[33:]  # after the signature and IHDR


#: Most bytes of one IDAT chunk that ``_png_grey_alpha`` writes (the zlib stream is cut
#: into as many as it needs): PNG allows a chunk at most 2**31 - 1 bytes; 1 GiB.
PNG_IDAT_MAX = 2**30
#: PNG row filters (``PNG_ZLIB["filter"]``) that ``_png_grey_alpha`` applies; others
#: (OpenCV's adaptive ``paeth``, ``avg``, ``fast``) are written as ``sub``.
_PNG_FILTERS = {"none": 0, "sub": 1, "up": 2}


def _png_grey_alpha(pixels, params):
    """A 16-bit grey-and-alpha PNG's bytes (colour type 4, which OpenCV does not
    write) of the ``(H, W, 2)`` uint16 ``pixels``, with ``params``' ICC profile, EXIF
    and DPI: NumPy filters the rows and zlib compresses them as ``PNG_ZLIB`` says."""
    import struct
    import zlib

    h, w = pixels.shape[:2]
    raw = np.ascontiguousarray(pixels, ">u2").view(np.uint8).reshape(h, 4 * w)
    kind = _PNG_FILTERS.get(PNG_ZLIB["filter"], 1)
    rows = np.empty((h, 4 * w + 1), np.uint8)
    rows[:, 0], rows[:, 1:] = kind, raw
    if kind == 1:  # sub: minus the same byte of the pixel on the left (4 bytes a pixel)
        rows[:, 5:] -= raw[:, :-4]
    elif kind == 2:  # up: minus the byte above
        rows[1:, 1:] -= raw[:-1]
    name = PNG_ZLIB["strategy"].upper()
    strategy = getattr(zlib, "Z_DEFAULT_STRATEGY" if name == "DEFAULT" else f"Z_{name}")
    deflate = zlib.compressobj(PNG_ZLIB["level"], zlib.DEFLATED, 15, 9, strategy)
    header = struct.pack(">IIBBBBB", w, h, 16, 4, 0, 0, 0)  # 16 bits, grey and alpha
    stream = deflate.compress(rows) + deflate.flush()
    step = PNG_IDAT_MAX
    data = b"".join(
        [
            _PNG_SIGNATURE,
            _png_chunk(b"IHDR", header),
            *(_png_chunk(b"IDAT", stream[i : i + step]) for i in range(0, len(stream), step)),
            _png_chunk(b"IEND", b""),
        ]
    )
    return _png_with_metadata(data, params)


#: How 16-bit TIFF is written with tifffile: deflate (zlib) at this level with the
#: horizontal predictor (plain tifffile compresses with zlib, not LZW, which needs
#: imagecodecs). On a photo-like 2000x1500 image: 25% smaller than OpenCV's LZW,
#: 1.45 times its CPU time (Python's zlib; docs/files.md).
TIFF_ZLIB_LEVEL = 1

#: Pixels and metadata (``_tiff_bytes``) of more bytes than this are written as
#: BigTIFF (64-bit offsets): a classic TIFF's 32-bit offsets end at 4 GiB, and deflate
#: leaves noisy pixels about as large as they were (tifffile's own margin, which it applies only to uncompressed data:
#: compressed, it failed with ``struct.error: 'I' format requires ...``).
TIFF_BIG = 2**32 - 2**25


def _tiff_bytes(pixels, params):
    """What a 16-bit TIFF of ``pixels`` and ``params`` holds besides its layout, for the
    choice of BigTIFF (``TIFF_BIG``): the pixels, the ICC profile, and twice the EXIF
    (its text in IFD0, its Exif and GPS IFDs re-encoded: each at most about its size).
    Pixels just under ``TIFF_BIG`` with a large EXIF or profile made a classic TIFF
    whose IFDs were past 4 GiB (``struct.error``, no file written)."""
    icc, exif = params.get("icc_profile") or b"", params.get("exif") or b""
    return pixels.nbytes + len(icc) + 2 * len(exif) + len(params.get("xmp") or b"")


def _tiff_encode(pixels, params, file):
    """A 16-bit (or float) RGB(A) TIFF from tifffile, with ``params``' ICC profile, DPI
    and EXIF (see ``_tiff_exif``), written into ``file`` (a binary file open for reading
    and writing, at its start) one compressed strip at a time. Floats get no predictor
    (tifffile's floating-point one needs imagecodecs)."""
    big = _tiff_bytes(pixels, params) > TIFF_BIG
    tags: dict[str, Any] = {}
    if params.get("icc_profile"):
        tags["iccprofile"] = params["icc_profile"]
    if params.get("dpi"):
        # floats: tifffile takes no IFDRational (Pillow's type for a TIFF's or EXIF's dpi)
        tags.update(resolution=tuple(map(float, params["dpi"])), resolutionunit="INCH")
    elif params.get("resolution"):  # a TIFF's of no unit (_metadata)
        tags.update(resolution=tuple(map(float, params["resolution"])), resolutionunit="NONE")
    text, ifds = _tiff_exif(params.get("exif"))
    if 305 in text:  # the camera's or editor's Software, in place of "tifffile.py"
        tags["software"] = text.pop(305)
    pointer = "Q" if big else "I"  # patched by _append_ifds once the IFDs are written
    extratags = [(tag, "s", 0, value, True) for tag, value in text.items()]
    if params.get("xmp"):
        extratags.append((_XMP_TAG, "B", len(params["xmp"]), params["xmp"], True))
    extratags += [(tag - 1, pointer, 1, 0, True) for tag in ifds]  # see _append_ifds
    _tifffile().imwrite(
        file,
        pixels,
        photometric="rgb",
        extrasamples=["unassalpha"] if pixels.shape[2] == 4 else None,  # straight alpha
        compression="zlib",
        compressionargs={"level": TIFF_ZLIB_LEVEL},
        predictor=pixels.dtype.kind != "f",
        bigtiff=big,
        byteorder="<",  # as _append_ifds writes
        metadata=None,  # no JSON description of its own
        maxworkers=1,  # one thread, as OpenCV's encoders: the CLI splits the cores
        extratags=extratags,
        **tags,
    )
    if ifds:
        _append_ifds(file, ifds, big)


#: IFD0 tags of an image's EXIF that its 16-bit TIFF gets, besides the Exif and GPS
#: IFDs: the descriptive text (ImageDescription, Make, Model, Software, DateTime,
#: Artist, Copyright). The layout tags are tifffile's, the resolution the DPI's, and the
#: orientation is gone (the pixels are upright).
_TIFF_EXIF_TEXT = (270, 271, 272, 305, 306, 315, 33432)
_EXIF_IFD, _GPS_IFD, _INTEROP_IFD = 0x8769, 0x8825, 0xA005


def _tiff_exif(exif_bytes):
    """``(text, ifds)`` of the EXIF ``exif_bytes`` (or None) for a TIFF:
    ``{tag: bytes}`` of ``_TIFF_EXIF_TEXT`` and ``{pointer tag: {tag: value}}`` of its
    Exif and GPS IFDs, the Exif IFD with its Interoperability IFD nested (a dict), as
    Pillow's ``Exif.tobytes`` nests it."""
    exif = _exif_loaded(exif_bytes)[0]  # (damaged: left out by _metadata)
    if not exif_bytes or exif is None:
        return {}, {}
    text = {  # the bytes as stored (Pillow decodes them as Latin-1): UTF-8 stays UTF-8
        tag: exif[tag].encode("latin-1", "replace")
        for tag in _TIFF_EXIF_TEXT
        if isinstance(exif.get(tag), str)
    }
    return text, _exif_ifds(exif)


def _exif_ifds(exif):
    """``{pointer tag: {tag: value}}`` of the Exif and GPS IFDs of ``exif`` (a Pillow
    ``Exif``) that hold anything, the Exif IFD with its Interoperability IFD nested (a
    dict), as Pillow's ``Exif.tobytes`` nests it."""
    ifds = {}
    for pointer in (_EXIF_IFD, _GPS_IFD):
        fields = dict(exif.get_ifd(pointer))
        if pointer == _EXIF_IFD and _INTEROP_IFD in fields:
            fields[_INTEROP_IFD] = dict(exif.get_ifd(_INTEROP_IFD))
        if fields:
            ifds[pointer] = fields
    return ifds


def _append_ifds(file, ifds, big):
    """Write ``ifds`` ({pointer tag: fields}, Pillow's IFD writer) at the end of the
    little-endian TIFF (BigTIFF if ``big``) in ``file``, and point IFD0 at them.

    tifffile writes no Exif or GPS IFD pointer (it filters the tags out of
    ``extratags``), so each is written as a stand-in, the tag before it (34664,
    34852: no tag is between, so IFD0's tags stay in ascending order) with the value
    0, and turned here into the pointer tag with the IFD's offset."""
    import struct

    from PIL import TiffImagePlugin

    head = b"II+\x00\x08\x00\x00\x00" + bytes(8) if big else b"II*\x00" + bytes(4)
    count, entry, value_at, offset = ("<Q", 20, 12, "<Q") if big else ("<H", 12, 8, "<I")
    file.flush()
    file.seek(8 if big else 4)
    first = struct.unpack(offset, file.read(struct.calcsize(offset)))[0]
    file.seek(first)
    n = struct.unpack(count, file.read(struct.calcsize(count)))[0]
    table = file.read(n * entry)
    start = first + struct.calcsize(count)
    where = {
        struct.unpack_from("<H", table, i * entry)[0]: start + i * entry + value_at
        for i in range(n)
    }
    for pointer, fields in ifds.items():
        at = where[pointer - 1]  # the stand-in's value; its tag is at - value_at
        end = file.seek(0, os.SEEK_END)
        if end % 2:  # IFDs start on a word boundary
            file.write(b"\0")
            end += 1
        ifd = TiffImagePlugin.ImageFileDirectory_v2(head, group=pointer)
        for tag, value in fields.items():
            ifd[tag] = value
        file.write(ifd.tobytes(end))
        file.seek(at - value_at)
        file.write(struct.pack("<H", pointer))
        file.seek(at)
        file.write(struct.pack(offset, end))
    file.seek(0, os.SEEK_END)


def _is_float_colour(image: np.ndarray) -> bool:
    """An (H, W, 3 or 4) float32 or float64 array: float RGB(A), written as TIFF."""
    return image.ndim == 3 and image.shape[2] in (3, 4) and image.dtype in (np.float32, np.float64)


def _is_16bit_array(image: object) -> TypeGuard[np.ndarray]:
    """A 16-bit colour (or grey + alpha) array, which Pillow cannot hold."""
    return (
        isinstance(image, np.ndarray)
        and image.dtype.kind == "u"
        and image.dtype.itemsize == 2
        and image.ndim == 3
        and image.shape[2] in (2, 3, 4)
    )


def _to_8bit(pixels):
    """16-bit samples rounded to 8 bits: ``round(v * 255 / 65535)``."""
    wide = np.asarray(pixels).astype(np.uint32)
    return ((wide * 255 + 32767) // 65535).astype(np.uint8)


def _check_image(image):
    """A TypeError unless ``image`` is what ``save_image`` writes: a Pillow image or a
    NumPy array."""
    if not isinstance(image, (np.ndarray, _pil().Image)):
        raise TypeError(
            f"image must be a PIL.Image.Image or a NumPy array; got {type(image).__name__}"
        )


def _check_info(info):
    """A TypeError naming the key where a value of ``info`` that ``_metadata`` writes is
    not of a type a writer takes (an ``ImageArray`` of the caller's own ``info``:
    ``{"icc_profile": "sRGB"}`` was "can't concat str to bytes", ``{"dpi": 300}`` "'int'
    object is not iterable"). Empty values are not written: not checked."""
    byte_types = (bytes, bytearray)
    allowed = {
        "icc_profile": (byte_types, "bytes (an ICC profile)"),
        "exif": ((*byte_types, _pil().Exif), "bytes or a PIL.Image.Exif"),
        "xmp": ((*byte_types, str), "bytes or a str (an XMP packet)"),
    }
    for key, (types, what) in allowed.items():
        value = info.get(key)
        if value and not isinstance(value, types):
            raise TypeError(f"image.info[{key!r}] must be {what}; got {value!r:.80}")
    exif = info.get("exif")
    why = _exif_unwritable(exif) if isinstance(exif, _pil().Exif) else None
    if why is not None:  # the caller's own, with a value a tag cannot hold: not a damaged
        raise TypeError(  # EXIF (_exif_damage: junk bytes, left out of the file)
            f"image.info['exif'] is a PIL.Image.Exif that Pillow cannot write ({why}): a "
            f"tag holds a value of a type it cannot (text for a number?)"
        )
    _given_dpi(info.get("dpi"))


def _given_dpi(dpi):
    """The ``info["dpi"]`` value ``dpi`` as a tuple ``(x, y)`` (from a NumPy array of two
    numbers too: its truth value was NumPy's "ambiguous" ValueError), or None where it is
    empty (None, ``()``, an empty array: not written); anything else is a TypeError
    naming it."""
    if isinstance(dpi, np.ndarray):
        if dpi.size == 0:
            return None
        if dpi.shape == (2,) and dpi.dtype.kind in "iuf":
            return tuple(dpi.tolist())  # Python numbers: every writer takes them
    elif not dpi:
        return None
    elif isinstance(dpi, (tuple, list)) and len(dpi) == 2:
        if all(isinstance(d, numbers.Real) for d in dpi):
            return tuple(dpi)
    raise TypeError(
        f"image.info['dpi'] must be a (x, y) pair of numbers; got {dpi!r:.80} (a tuple, "
        f"list or NumPy array of two numbers is taken)"
    )


def narrows(image: PIL.Image.Image | np.ndarray, format: str) -> bool:
    """Whether writing ``image`` as ``format`` rounds 16-bit samples to 8 bits.

    Parameters
    ----------
    image : PIL.Image.Image or ndarray
        What ``resize_image`` returns.
    format : str
        A Pillow format name (``"JPEG"``) or a name as ``save_image`` takes
        (``"jpeg"``); one that ``save_image`` refuses is refused here too
        (``TypeError``, ``ValueError``), as is an ``image`` it cannot write.

    Returns
    -------
    bool
        True when ``image`` holds 16-bit samples and ``format`` keeps only 8.
    """
    _check_image(image)
    fmt = _given_format(format)  # save_image's refusals: a TypeError, an unknown format
    if fmt in SIXTEEN_BIT_FORMATS:
        return False
    if isinstance(image, np.ndarray):
        return image.dtype.itemsize == 2 and image.dtype.kind in "iu"
    return image.mode.startswith("I;16")


#: The ``(width, height)`` pairs ``target_size`` and ``resize_image`` take: a tuple or
#: a list (a ``range`` or an array is refused), entries None where ``size`` allows it.
_SizePair = tuple[_spec.Int | None, _spec.Int | None] | list[_spec.Int | None]
_BoxPair = tuple[_spec.Int, _spec.Int] | list[_spec.Int]
_ScalePair = tuple[_spec.Real, _spec.Real] | list[_spec.Real]


def target_size(
    width: int,
    height: int,
    size: _SizePair | None = None,
    *,
    scale: _spec.Real | _ScalePair | None = None,
    fit: _BoxPair | None = None,
    fill: _BoxPair | None = None,
    allow_upscale: bool = False,
) -> tuple[tuple[int, int], tuple[int, int, int, int] | None]:
    """The resized size and the centre crop for a ``width x height`` image.

    Exactly one of ``size``, ``scale``, ``fit`` and ``fill``. Sizes are
    ``(width, height)``, as in Pillow; lengths are rounded half up, never below 1.

    Parameters
    ----------
    width, height : int
        The image's size before resizing.
    size : (int or None, int or None)
        Exact size; one entry None keeps the aspect ratio. Each pair here is a
        tuple or a list.
    scale : float or (float, float)
        Factor per axis: ``round(width * f)``.
    fit : (int, int)
        The largest size inside the box with the aspect ratio kept.
    fill : (int, int)
        The smallest size covering the box with the aspect ratio kept, then
        cropped to the box around the centre.
    allow_upscale : bool
        For ``fit``/``fill``: enlarge small images. Without it an image that
        would be enlarged keeps its size (``fill`` then crops it to at most the box).

    Returns
    -------
    (int, int), tuple or None
        ``(new_width, new_height)`` and the crop box ``(left, top, right, bottom)``
        in the resized image, or None when nothing is cropped.
    """
    image_size = (width, height)
    width, height = (
        _spec.integer(n, "width and height", "positive ints", image_size) for n in image_size
    )
    if width < 1 or height < 1:
        raise ValueError(f"width and height must be positive ints; got {image_size!r}")
    given: dict[str, Any] = {  # one value, of the type of its keyword
        k: v for k, v in dict(size=size, scale=scale, fit=fit, fill=fill).items() if v is not None
    }
    if len(given) != 1:
        raise ValueError(
            f"give exactly one of size, scale, fit, fill; got {sorted(given) or 'none'}"
        )
    ((name, value),) = given.items()
    allow_upscale = _spec.flag(allow_upscale, "allow_upscale")
    if name == "scale":
        pair = value if isinstance(value, (tuple, list)) else (value, value)
        wanted = "a positive finite number, or a (width, height) tuple or list of them"
        if len(pair) != 2:
            raise ValueError(f"scale must be {wanted}; got {value!r}")
        factors = []
        for f in pair:
            f = _spec.real(f, "scale", wanted, value)
            if not 0 < f < math.inf:
                raise ValueError(f"scale must be {wanted}; got {value!r}")
            factors.append(f)
        fx, fy = factors
        new = (width * fx, height * fy)  # floats: 1e308 gave an OverflowError below
        if not max(new) < _spec.MAX_LENGTH:
            raise ValueError(
                f"scale={value!r} gives {new[0]:g} x {new[1]:g} pixels; each side must be "
                f"< {_spec.MAX_LENGTH}"
            )
        return (max(1, math.floor(new[0] + 0.5)), max(1, math.floor(new[1] + 0.5))), None
    if not (isinstance(value, (tuple, list)) and len(value) == 2):
        raise TypeError(f"{name} must be a (width, height) tuple or list; got {value!r}")
    allowed = "positive ints or None" if name == "size" else "positive ints"
    entries = [
        None if v is None else _spec.integer(v, f"{name} entries", allowed, value) for v in value
    ]
    if any(v is not None and v < 1 for v in entries):
        raise ValueError(f"{name} entries must be {allowed}; got {value!r}")
    w, h = entries
    if name == "size":
        if w is None and h is None:
            raise ValueError("size must give a width, a height or both; got (None, None)")
        return (w or _ratio(width, h, height), h or _ratio(height, w, width)), None
    if w is None or h is None:
        raise ValueError(f"{name} entries must be positive ints; got {value!r}")
    by_width = (w * height <= h * width) == (name == "fit")  # the width decides
    new = (w, _ratio(height, w, width)) if by_width else (_ratio(width, h, height), h)
    if not allow_upscale and (new[0] > width or new[1] > height):
        new = (width, height)
    if max(new) >= _spec.MAX_LENGTH:  # named here: resize's error named its size
        raise ValueError(
            f"{name}={value!r} gives {new[0]} x {new[1]} pixels; each side must be "
            f"< {_spec.MAX_LENGTH}"
        )
    if name == "fit":
        return new, None
    crop_w, crop_h = min(w, new[0]), min(h, new[1])
    left, top = (new[0] - crop_w) // 2, (new[1] - crop_h) // 2
    crop = (left, top, left + crop_w, top + crop_h)
    return new, (None if (crop_w, crop_h) == new else crop)


def _ratio(length, new_other, other):
    """``round(length * new_other / other)``, half up, exact, at least 1."""
    return max(1, (2 * length * new_other + other) // (2 * other))


# By input: an array gives an array of its dtype (an ImageArray its info: an ImageArray);
# a file (a name or a file object) or a Pillow image gives a Pillow image, or an
# ImageArray where Pillow holds no such pixels (16-bit colour, float; 16-bit grey
# with a transparent value: grey and alpha).
@overload
def resize_image(
    image: ImageArray,
    size: _SizePair | None = None,
    *,
    scale: _spec.Real | _ScalePair | None = None,
    fit: _BoxPair | None = None,
    fill: _BoxPair | None = None,
    mode: str = "lanczos3",
    antialias: bool = True,
    align_corners: bool | None = False,
    allow_upscale: bool = False,
    alpha: bool | None = None,
    num_threads: _spec.Int | None = None,
    exact: bool = False,
) -> ImageArray: ...
@overload
def resize_image(
    image: npt.NDArray[_spec.Scalar],
    size: _SizePair | None = None,
    *,
    scale: _spec.Real | _ScalePair | None = None,
    fit: _BoxPair | None = None,
    fill: _BoxPair | None = None,
    mode: str = "lanczos3",
    antialias: bool = True,
    align_corners: bool | None = False,
    allow_upscale: bool = False,
    alpha: bool | None = None,
    num_threads: _spec.Int | None = None,
    exact: bool = False,
) -> npt.NDArray[_spec.Scalar]: ...
@overload
def resize_image(
    image: str | bytes | os.PathLike[str] | IO[bytes] | PIL.Image.Image,
    size: _SizePair | None = None,
    *,
    scale: _spec.Real | _ScalePair | None = None,
    fit: _BoxPair | None = None,
    fill: _BoxPair | None = None,
    mode: str = "lanczos3",
    antialias: bool = True,
    align_corners: bool | None = False,
    allow_upscale: bool = False,
    alpha: bool | None = None,
    num_threads: _spec.Int | None = None,
    exact: bool = False,
) -> PIL.Image.Image | ImageArray: ...
def resize_image(
    image: str | bytes | os.PathLike[str] | IO[bytes] | PIL.Image.Image | np.ndarray,
    size: _SizePair | None = None,
    *,
    scale: _spec.Real | _ScalePair | None = None,
    fit: _BoxPair | None = None,
    fill: _BoxPair | None = None,
    mode: str = "lanczos3",
    antialias: bool = True,
    align_corners: bool | None = False,
    allow_upscale: bool = False,
    alpha: bool | None = None,
    num_threads: _spec.Int | None = None,
    exact: bool = False,
) -> PIL.Image.Image | np.ndarray:
    """Resize an image with the core kernels, Pillow-style.

    Parameters
    ----------
    image : str, bytes, os.PathLike, binary file object, PIL.Image.Image or ndarray
        A path (a file name; read as ``open_image`` reads it: the first frame or page of a
        file that holds several, made upright by its EXIF orientation, the tag
        removed), a binary file object (``io.BytesIO``, ``open(name, "rb")``, an object
        with ``read`` only: read as ``open_image`` reads one, from its start, its
        position put back, not closed; shrink-on-load included), a Pillow image (resampled as stored, its orientation tag kept in
        ``info``, as Pillow's ``resize`` does: the file ``save_image`` writes is
        turned by viewers as the input was), or a HW / HWC array
        of any integer or float dtype. The input is never modified.
    size, scale, fit, fill, allow_upscale
        The geometry, as in ``target_size``: sizes are ``(width, height)``.
    mode : str
        Any of ``cresize.MODES`` (default ``"lanczos3"``).
    antialias : bool
        Widen the kernel when shrinking (default True; Pillow's rule, so
        ``lanczos3``, ``bicubic`` and ``bilinear`` match ``Image.LANCZOS``,
        ``BICUBIC`` and ``BILINEAR``). Ignored by nearest, nearest-exact and area.
    align_corners : bool
        As in ``cresize.resize``.
    alpha : bool, optional
        Whether the last channel of an array is alpha; default: arrays with 2
        or 4 channels (LA, RGBA). True needs an ``(H, W, C)`` array, ``C >= 2``.
        Pillow images: modes LA and RGBA. Colour is resampled premultiplied by
        alpha, so transparent pixels leave no fringes.
    num_threads : int, optional
        OpenMP threads, as in ``cresize.resize``.
    exact : bool
        For a JPEG file (a path or a file object): decode it at full size. By default a JPEG that
        shrinks enough is decoded reduced by 2, 4 or 8 (shrink-on-load) to no
        less than ``SHRINK_ON_LOAD_MARGIN`` (2.5) times the target, then
        resampled exactly: photos come out above 50 dB PSNR against the exact
        result (a zone plate, the worst case, about 40 dB), in less time.

    Returns
    -------
    PIL.Image.Image or ndarray
        An array for an array (same dtype: integers rounded and clipped), else a
        Pillow image of the same mode, with ``info`` (ICC profile, EXIF) kept.
        Palette, bilevel and other modes are resampled as RGB(A) or L. A path
        to a 16-bit colour PNG or TIFF gives a uint16 ``ImageArray`` (see
        ``open_image``; an ``ImageArray`` given gives one with the same ``info``),
        and a 16-bit grey image with a transparent value (PNG ``tRNS``) a uint16
        ``(H, W, 2)`` array, grey and alpha.

    Raises
    ------
    TypeError
        ``image`` not a path, binary file object, Pillow image or HW / HWC array of
        an integer or float dtype, or an option of the wrong type.
    ValueError
        Not exactly one of ``size``, ``scale``, ``fit`` and ``fill``, a geometry or
        option that ``target_size`` or ``cresize.resize`` refuses, ``alpha=True``
        without an ``(H, W, C >= 2)`` array, and ``open_image``'s.
    OSError, ImportError, PIL.Image.DecompressionBombError
        For a path or file object, as ``open_image`` raises them.

    Notes
    -----
    Integer images are rounded once, at the end; Pillow rounds and clips its
    8-bit intermediate between the horizontal and vertical pass, so near hard
    edges that overshoot 0 or 255 the two can differ by more than 1.

    Examples
    --------
    >>> import numpy as np
    >>> from cresize.image import resize_image
    >>> rgb = np.zeros((300, 400, 3), np.uint8)
    >>> resize_image(rgb, fit=(200, 200)).shape
    (150, 200, 3)
    """
    antialias = _spec.flag(antialias, "antialias")
    if alpha is not None:
        alpha = _spec.flag(alpha, "alpha", "None, True or False")
    exact = _spec.flag(exact, "exact")
    geometry: dict[str, Any] = dict(
        size=size, scale=scale, fit=fit, fill=fill, allow_upscale=allow_upscale
    )
    options = dict(
        mode=mode,
        align_corners=align_corners,
        num_threads=num_threads,
        antialias=bool(antialias) and _spec.takes_antialias(mode),
    )
    if isinstance(image, np.ndarray):
        if image.ndim not in (2, 3) or image.dtype.kind not in "uif":
            raise TypeError(
                f"image array must be HW or HWC with an integer or float dtype; "
                f"got shape {image.shape} and dtype {image.dtype}"
            )
        if 0 in image.shape:
            raise ValueError(f"image array has no pixels: shape {image.shape}")
        if alpha and not (image.ndim == 3 and image.shape[2] >= 2):
            raise ValueError(
                f"alpha=True needs an (H, W, C) array with C >= 2 (colour channels, "
                f"then alpha); got shape {image.shape}"
            )
        has_alpha = alpha if alpha is not None else image.ndim == 3 and image.shape[2] in (2, 4)
        return _with_info(
            image, _resize_array(np.asarray(image), bool(has_alpha), geometry, options)
        )
    full = None
    if isinstance(image, (str, bytes, os.PathLike)) or _is_file_object(image):
        target_size(1, 1, **geometry)  # bad geometry is an error before the file is read
        with _source(image, "image", "resize_image") as source:
            image, full = _read(source, None if exact else geometry, opencv=True)
        if isinstance(image, np.ndarray):  # 16-bit colour, a float TIFF: an ImageArray
            alpha = image.ndim == 3 and image.shape[2] in (2, 4)
            out = _resize_array(np.asarray(image), alpha, geometry, options, full)
            return _with_info(image, out)
    Image = _pil()
    if isinstance(image, _Decoded):  # a JPEG decoded by OpenCV: BGR or grey
        out = _resize_array(image.pixels, False, geometry, options, full)
        if out.ndim == 3:
            cv2 = _opencv()
            out = cv2.cvtColor(out, cv2.COLOR_BGR2RGB)
        result = Image.fromarray(out)
        result.info = image.info
        return result
    if not isinstance(image, Image.Image):
        raise TypeError(
            f"image must be a path, a binary file object, a PIL.Image or a HW/HWC NumPy "
            f"array; got {type(image).__name__}"
        )
    if image.mode.startswith("I;16") and "transparency" in image.info:
        # 16-bit grey with a transparent value (PNG tRNS): Pillow's LA and RGBA hold 8 bits
        grey = np.asarray(image).astype(np.uint16)
        opaque = np.where(grey == image.info["transparency"], 0, 65535).astype(np.uint16)
        out = _resize_array(np.dstack([grey, opaque]), True, geometry, options, full)
        return ImageArray(out, _without_transparency(image.info))
    image = _pixels(image)
    out = _resize_array(np.asarray(image), image.mode in ("LA", "RGBA"), geometry, options, full)
    if image.mode in ("CMYK", "YCbCr", "LAB", "HSV"):
        result = Image.frombytes(image.mode, out.shape[1::-1], out.tobytes())
    else:
        result = Image.fromarray(out)
    result.info = _without_transparency(image.info)
    return result


def _without_transparency(info):
    """``info`` less its transparent value (a PNG ``tRNS`` colour, a palette's index), for
    pixels that hold alpha instead: a resized image's (its input's ``info``), a 16-bit
    RGB PNG's read as RGBA (``_read``)."""
    return {k: v for k, v in info.items() if k != "transparency"}


def _with_info(image, out):
    """``out``, the resized ``image``, with ``image``'s ``info`` when it has one (an
    ``ImageArray``); a plain array stays plain."""
    return ImageArray(out, image.info) if isinstance(image, ImageArray) else out


def _pixels(image: PIL.Image.Image) -> PIL.Image.Image:
    """``image`` in a mode that is resampled channel by channel."""
    if image.mode in ("P", "PA") or "transparency" in image.info:
        return image.convert("RGBA" if image.has_transparency_data else "RGB")
    if image.mode == "1":
        return image.convert("L")
    if image.mode in ("La", "RGBa"):
        return _straight(image)
    if image.mode not in _KEEP:
        return image.convert("RGBA" if "A" in image.mode or "a" in image.mode else "RGB")
    return image


def _resize_array(array, has_alpha, geometry, options, full=None):
    """Resize to ``target_size`` of ``full`` (the size before shrink-on-load) and crop."""
    height, width = array.shape[:2]
    (new_w, new_h), crop = target_size(*(full or (width, height)), **geometry)
    picks = _spec.canonical_mode(options["mode"]) in ("nearest", "nearest-exact")
    premultiply = has_alpha and not picks and (new_h, new_w) != (height, width)
    if not premultiply:
        out = resize(array, (new_h, new_w), axes=(0, 1), **options)
    else:
        integer = array.dtype.kind in "iu"
        x = array.astype(_spec.compute_dtype(array.dtype))  # the core's sum dtype
        top = float(np.iinfo(array.dtype).max) if integer else 1.0
        x[..., :-1] *= x[..., -1:] / top
        y = resize(x, (new_h, new_w), axes=(0, 1), **options)
        a = y[..., -1:]
        with np.errstate(divide="ignore", invalid="ignore"):
            y[..., :-1] = np.where(a > 0, y[..., :-1] * top / a, 0)
        out = round_to(array.dtype, y) if integer else y.astype(array.dtype.newbyteorder("="))
    if crop is not None:
        left, top_, right, bottom = crop
        out = np.ascontiguousarray(out[top_:bottom, left:right])
    return out


def _format(path, format):
    """The Pillow format that ``save_image`` writes ``path`` as: ``format``'s
    (``_given_format``), else its extension's (a ValueError where it has none)."""
    if format is not None:
        return _given_format(format)
    ext = os.path.splitext(path)[1].lower()
    fmt = _extension_format(ext, "SAVE")
    if fmt is None:
        raise ValueError(
            f"cannot tell the image format from the extension {ext!r} of {path}; "
            f"give format= (one of {', '.join(FORMATS)})"
        )
    return fmt


def _given_format(format):
    """The Pillow format named by ``format`` (``"jpg"``, ``"JPEG"``), one Pillow writes;
    else a TypeError (not a str) or a ValueError (no such format) naming ``format``."""
    Image = _pil()
    if not isinstance(format, str):
        raise TypeError(f"format must be a string such as 'png'; got {format!r}")
    fmt = FORMATS.get(format.lower(), (format.upper(), None))[0]
    _plugins(lambda: fmt in Image.SAVE)
    if fmt not in Image.SAVE:
        raise ValueError(
            f"format must be one of {', '.join(FORMATS)} (or a Pillow format "
            f"that can be written); got {format!r}"
        )
    return fmt


def _extension_format(ext, table="OPEN"):
    """The Pillow format of the extension ``ext`` (``".jpg"``) if Pillow can
    ``"OPEN"`` (read) or ``"SAVE"`` (write) it, else None."""
    Image = _pil()
    _plugins(lambda: getattr(Image, table).get(Image.EXTENSION.get(ext)) is not None)
    fmt = Image.EXTENSION.get(ext)
    return fmt if fmt in getattr(Image, table) else None


def _plugins(enough):
    """Pillow's common plugins (``Image.preinit``: JPEG, PNG, GIF, BMP, PPM), and
    all of them (``Image.init``, some 15 ms more) only where ``enough()`` is false."""
    Image = _pil()
    Image.preinit()
    if not enough():
        Image.init()


def _straight(image: PIL.Image.Image) -> PIL.Image.Image:
    """A premultiplied La / RGBa image as its straight LA / RGBA (the mode Pillow converts
    it to); any other image as it is."""
    return image.convert(image.mode.upper()) if image.mode in ("La", "RGBa") else image


def _for_format(image: PIL.Image.Image, fmt: str, name: str | None = None) -> PIL.Image.Image:
    """``image`` converted, where needed, to a mode that ``fmt`` can write; one it cannot
    hold (32-bit samples) is refused (``_cannot_hold``), naming the format ``name`` (as
    the caller gave it: ``_format_name``; default ``fmt``)."""
    allowed = _WRITES.get(fmt)
    if fmt == "TIFF":  # every mode but a few (HSV, premultiplied La/RGBa): Pillow's list
        from PIL import TiffImagePlugin

        allowed = tuple(TiffImagePlugin.SAVE_INFO)
    if allowed is None or image.mode in allowed:
        return image
    Image = _pil()
    info = image.info
    image = _straight(image)  # written as its straight mode (the steps below see LA/RGBA)
    if image.mode.startswith("I;16") and "I;16" in allowed:  # another byte order
        image = Image.fromarray(np.asarray(image).astype(np.uint16))
    elif image.mode.startswith("I;16"):
        image = Image.fromarray(_to_8bit(image))
    elif image.mode in ("I", "F"):
        pixels = np.asarray(image)
        if image.mode == "F":
            raise ValueError(_cannot_hold("a float grey image", name or fmt, fmt))
        if "I;16" not in allowed or not (pixels.min() >= 0 and pixels.max() <= 65535):
            values = f" with values from {pixels.min()} to {pixels.max()}"
            what = "a 32-bit integer grey image" + (values if "I;16" in allowed else "")
            raise ValueError(_cannot_hold(what, name or fmt, fmt))
        image = Image.fromarray(pixels.astype(np.uint16))  # 16 bits hold every value
    if image.mode in ("RGBA", "LA") and image.mode not in allowed:
        if "RGBA" in allowed:
            image = image.convert("RGBA")
        else:  # flatten on white
            flat = Image.new(image.mode[:-1], image.size, 255 if image.mode == "LA" else (255,) * 3)
            flat.paste(image.convert(image.mode[:-1]), mask=image.getchannel("A"))
            image = flat
    if image.mode not in allowed:
        image = image.convert(
            "RGBA" if image.has_transparency_data and "RGBA" in allowed else "RGB"
        )
    image.info = dict(info)
    icc = info.get("icc_profile")
    if icc and not _profile_fits(icc, image.mode):  # CMYK (LAB, ...) became RGB
        del image.info["icc_profile"]  # a profile of other pixels: invalid in the file
    return image


#: The samples that the formats of ``_WRITES`` hold, as ``_cannot_hold`` says them
#: (PNG: 16-bit grey from 32-bit integers that fit, 16-bit colour from uint16 arrays).
_SAMPLES = {"PNG": "8 and 16-bit integer samples (0 to 65535)"}
#: How to make a float image 8-bit, for the refusals of one
_CONVERT_FLOAT = (
    "convert it first, for example a float image in [0, 1] with "
    "np.clip(a * 255 + 0.5, 0, 255).astype(np.uint8)"
)


def _format_name(path, format):
    """The output format as the caller gave it: ``format``, else the extension of
    ``path`` without its dot (``"webp"`` for ``format="webp"`` or ``"a.webp"``)."""
    return format if format is not None else os.path.splitext(path)[1].lstrip(".")


def _cannot_hold(what, name, fmt):
    """The ``ValueError`` message for ``what`` (``"a float grey image"``), whose samples
    (float, or 32-bit integers) a ``fmt`` file, named ``name`` as the caller gave it,
    cannot hold: the one wording of ``_save``'s and ``_for_format``'s refusals."""
    kind = "float" if "float" in what else "32-bit integer"
    holds = _SAMPLES.get(fmt, "8-bit integer samples") if fmt in _WRITES else None
    return (
        f"cannot write {what} as {name}: "
        + (f"{name} holds {holds}; " if holds else "")
        + f"of the formats written, only TIFF holds {kind} samples: write TIFF"
        + (f", or {_CONVERT_FLOAT}" if kind == "float" else "")
    )


#: The ICC data colour space (profile header bytes 16-20) of the modes ``_for_format``
#: converts to: a profile of another colour space is not written with them.
_ICC_SPACES = {"L": b"GRAY", "LA": b"GRAY", "RGB": b"RGB ", "RGBA": b"RGB "}
