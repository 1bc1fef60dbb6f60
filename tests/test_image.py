"""cresize.image: resize_image / open_image / save_image / target_size.

Pillow's own resize is the oracle: LANCZOS, BICUBIC and BILINEAR are
lanczos3, bicubic and bilinear with antialias=True (docs/spec.md section 4).
"""

import errno
import io
import os
import re
import struct
import sys
import warnings
import zlib

import numpy as np
import pytest

import cresize
from cresize.image import open_image, resize_image, save_image, target_size

Image = pytest.importorskip("PIL.Image")
from PIL import ExifTags, ImageOps, features  # noqa: E402

from helpers import avif  # noqa: E402
from helpers.faults import FailingWrites  # noqa: E402
from helpers.png16 import srgb_icc  # noqa: E402

FILTERS = {"lanczos3": Image.LANCZOS, "bicubic": Image.BICUBIC, "bilinear": Image.BILINEAR}


def photo(h, w, channels=3, seed=0):
    """Smooth, photo-like uint8 pixels in [80, 200] with soft shapes, edges and noise.

    Kept away from 0 and 255 so that Pillow's clipped 8-bit intermediate pass
    never clips (see resize_image's Notes).
    """
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w] / max(h, w)
    planes = []
    for c in range(channels):
        a, b, p = rng.uniform(2, 9, 3)
        disc = (x - 0.3 - 0.1 * c) ** 2 + (y - 0.6) ** 2 < 0.06
        planes.append(0.5 + 0.2 * np.sin(a * x + p) * np.cos(b * y) + 0.15 * disc)
    v = np.stack(planes, -1) + rng.normal(0, 0.01, (h, w, channels))
    out = np.clip(np.rint(30 + 190 * v), 0, 255).astype(np.uint8)
    return out[..., 0] if channels == 1 else out


def diff(a, b):
    return int(np.abs(np.asarray(a).astype(np.int64) - np.asarray(b).astype(np.int64)).max())


@pytest.mark.parametrize("mode", list(FILTERS))
@pytest.mark.parametrize("pil_mode,fmt", [("RGB", "PNG"), ("L", "PNG"), ("RGB", "JPEG")])
@pytest.mark.parametrize("size", [(40, 29), (33, 50), (150, 110)])
def test_matches_pillow_8bit(tmp_path, mode, pil_mode, fmt, size):
    path = tmp_path / f"in.{fmt.lower()}"
    Image.fromarray(photo(71, 97, 1 if pil_mode == "L" else 3)).save(path, fmt)
    got = resize_image(path, size, mode=mode)
    with Image.open(path) as im:
        want = im.resize(size, FILTERS[mode])
        other = im.resize(size, Image.NEAREST)  # the comparison can fail
    assert got.mode == want.mode == pil_mode and got.size == size
    assert diff(got, want) <= 1
    assert diff(got, other) > 1


@pytest.mark.parametrize("mode", list(FILTERS))
def test_noise_rounds_once(mode):
    # Pillow clips its 8-bit intermediate; its float path does not: per channel,
    # rounded once, it is the exact oracle even for noise that overshoots.
    noise = np.random.default_rng(1).integers(0, 256, (30, 41, 3), dtype=np.uint8)
    for size in [(17, 13), (77, 64)]:
        got = resize_image(noise, size, mode=mode)
        want = np.stack(
            [
                np.asarray(
                    Image.fromarray(noise[..., c].astype(np.float32)).resize(size, FILTERS[mode])
                )
                for c in range(3)
            ],
            -1,
        )
        assert got.dtype == np.uint8 and got.shape == (size[1], size[0], 3)
        assert diff(got, np.clip(np.rint(want), 0, 255)) <= 1


@pytest.mark.parametrize("mode", list(FILTERS))
def test_16bit_tiff_matches_pillow(tmp_path, mode):
    pixels = (photo(50, 64, 1, seed=2).astype(np.uint16) * 257) ^ 0x5A  # uses the low byte too
    Image.fromarray(pixels).save(tmp_path / "in.tif")
    got = resize_image(tmp_path / "in.tif", (23, 19), mode=mode)
    with Image.open(tmp_path / "in.tif") as im:
        want = im.resize((23, 19), FILTERS[mode])
    assert got.mode == "I;16" and np.asarray(got).dtype == np.uint16
    assert np.asarray(got).max() > 255
    assert diff(got, want) <= 1


def test_float_tiff_matches_pillow(tmp_path):
    pixels = np.random.default_rng(3).standard_normal((40, 52)).astype(np.float32)
    Image.fromarray(pixels).save(tmp_path / "in.tif")
    got = resize_image(str(tmp_path / "in.tif"), scale=0.4)
    with Image.open(tmp_path / "in.tif") as im:
        want = im.resize((21, 16), Image.LANCZOS)
    assert got.mode == "F" and got.size == (21, 16)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-5)


def test_rgba_has_no_dark_fringes():
    rgba = np.zeros((60, 80, 4), np.uint8)
    rgba[:, :37] = (255, 0, 0, 255)  # opaque red next to transparent black
    out = resize_image(rgba, (29, 23))
    seen = out[..., 3] > 0
    assert 0 < seen.sum() < seen.size and 0 < out[..., 3][seen].min() < 255  # a soft edge
    assert out[..., 0][seen].min() >= 254 and out[..., 1:3][seen].max() <= 1
    straight = cresize.resize(rgba, (23, 29), mode="lanczos3", antialias=True, axes=(0, 1))
    assert straight[..., 0][seen].min() < 200  # what non-premultiplied resizing does


@pytest.mark.parametrize("pil_mode", ["RGBA", "LA"])
def test_alpha_matches_pillow(pil_mode):
    n = len(pil_mode)
    im = Image.fromarray(photo(48, 64, n, seed=4), pil_mode)
    got, want = resize_image(im, (30, 22)), im.resize((30, 22), Image.LANCZOS)
    g, w = np.asarray(got).astype(int), np.asarray(want).astype(int)
    assert got.mode == pil_mode
    assert diff(g[..., -1], w[..., -1]) <= 1
    # Pillow premultiplies and un-premultiplies in 8 bits: compare premultiplied colour.
    assert diff(g[..., :-1] * g[..., -1:] / 255, w[..., :-1] * w[..., -1:] / 255) <= 2


def test_palette_images_become_rgb_or_rgba():
    rgb = Image.fromarray(photo(40, 50)).quantize(64)
    got = resize_image(rgb, (20, 16))
    assert rgb.mode == "P" and got.mode == "RGB"
    assert diff(got, rgb.convert("RGB").resize((20, 16), Image.LANCZOS)) <= 1
    rgb.info["transparency"] = 0
    got = resize_image(rgb, (20, 16))
    assert got.mode == "RGBA" and "transparency" not in got.info
    assert np.asarray(got)[..., 3].min() < 255


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_exif_orientation_applied_and_metadata_kept(tmp_path, fmt):
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise on display
    exif[0x010F] = "cresize-test"
    src = tmp_path / f"in.{fmt.lower()}"
    Image.fromarray(photo(40, 60)).save(src, fmt, exif=exif.tobytes(), icc_profile=srgb_icc())
    got = resize_image(src, fit=(20, 20))
    assert got.size == (13, 20)  # upright is 40 wide, 60 high
    if fmt == "PNG":
        with Image.open(src) as im:
            want = ImageOps.exif_transpose(im).resize((13, 20), Image.LANCZOS)
        assert diff(got, want) <= 1
    save_image(got, tmp_path / f"out.{fmt.lower()}")
    with Image.open(tmp_path / f"out.{fmt.lower()}") as back, Image.open(src) as opened:
        assert back.size == (13, 20)
        assert back.getexif().get(0x0112, 1) == 1 and back.getexif()[0x010F] == "cresize-test"
        assert back.info["icc_profile"] == opened.info["icc_profile"]


def test_arrays_keep_dtype_and_are_not_modified():
    rng = np.random.default_rng(5)
    for array in [
        photo(30, 40, 1),
        photo(30, 40),
        rng.random((30, 40, 3), np.float32),
        rng.integers(0, 65536, (30, 40, 4), dtype=np.uint16),
        rng.random((30, 40)),
    ]:
        before = array.copy()
        out = resize_image(array, fill=(16, 16), mode="bicubic")
        assert out.dtype == array.dtype and out.shape == (16, 16) + array.shape[2:]
        np.testing.assert_array_equal(array, before)
    rgb = photo(30, 40)
    np.testing.assert_array_equal(  # no alpha: exactly the core call
        resize_image(rgb, (19, 13), mode="bicubic"),
        cresize.resize(rgb, (13, 19), mode="bicubic", antialias=True, axes=(0, 1)),
    )


def test_alpha_flag_for_arrays():
    four = np.zeros((20, 20, 4), np.uint8)
    four[:, :9] = (200, 100, 50, 255)
    auto = resize_image(four, (7, 7))
    as_cmyk = resize_image(four, (7, 7), alpha=False)
    assert auto[..., 0][auto[..., 3] > 0].min() >= 199
    assert as_cmyk[..., 0][as_cmyk[..., 3] > 0].min() < 150


@pytest.mark.parametrize("shape", [(20, 20), (20, 20, 1)])
def test_alpha_true_needs_a_colour_and_an_alpha_channel(shape):
    # A HW array has no channel axis: alpha=True used to take its last *column*
    # as alpha and return wrong pixels without a word.
    grey = np.arange(np.prod(shape), dtype=np.uint8).reshape(shape)
    with pytest.raises(ValueError, match=r"alpha=True needs an \(H, W, C\) array with C >= 2"):
        resize_image(grey, (5, 5), alpha=True)
    np.testing.assert_array_equal(  # alpha=False (and the default) is the plain resize
        resize_image(grey, (5, 5), alpha=False), resize_image(grey, (5, 5))
    )


def test_nearest_and_area_ignore_antialias_and_pick_pixels():
    rgba = np.random.default_rng(6).integers(0, 256, (12, 15, 4), dtype=np.uint8)
    out = resize_image(rgba, (7, 5), mode="nearest")  # antialias=True is the default
    np.testing.assert_array_equal(out, rgba[(np.arange(5) * 12) // 5][:, (np.arange(7) * 15) // 7])
    assert resize_image(rgba[..., 0], (5, 4), mode="area").shape == (4, 5)


@pytest.mark.parametrize(
    "w,h,kwargs,size,crop",
    [
        (4000, 3000, dict(fit=(800, 800)), (800, 600), None),
        (3000, 4000, dict(fit=(800, 800)), (600, 800), None),
        (100, 50, dict(fit=(800, 800)), (100, 50), None),
        (100, 50, dict(fit=(800, 800), allow_upscale=True), (800, 400), None),
        (3, 1, dict(fit=(2, 2)), (2, 1), None),
        (4000, 3000, dict(fill=(800, 800)), (1067, 800), (133, 0, 933, 800)),
        (3000, 4000, dict(fill=(800, 400)), (800, 1067), (0, 333, 800, 733)),
        (100, 50, dict(fill=(80, 80)), (100, 50), (10, 0, 90, 50)),
        (100, 50, dict(fill=(80, 80), allow_upscale=True), (160, 80), (40, 0, 120, 80)),
        (400, 300, dict(fill=(200, 150)), (200, 150), None),
        (4000, 3000, dict(size=(1000, None)), (1000, 750), None),
        (4000, 3000, dict(size=(None, 1000)), (1333, 1000), None),
        (10, 1000, dict(size=(1, None)), (1, 100), None),
        (1000, 10, dict(size=(10, None)), (10, 1), None),
        (101, 101, dict(scale=0.5), (51, 51), None),
        (100, 80, dict(scale=(2.0, 0.5)), (200, 40), None),
        (3, 3, dict(scale=0.01), (1, 1), None),
        (640, 480, dict(size=(32, 32)), (32, 32), None),
    ],
)
def test_target_size(w, h, kwargs, size, crop):
    assert target_size(w, h, **kwargs) == (size, crop)


def test_fill_is_centre_crop_of_cover():
    rgb = photo(30, 50)
    out = resize_image(rgb, fill=(20, 20))
    cover = resize_image(rgb, (33, 20))
    np.testing.assert_array_equal(out, cover[:, 6:26])


@pytest.mark.parametrize(
    "kwargs,error,words",
    [
        (dict(), ValueError, "exactly one of size, scale, fit, fill"),
        (dict(size=(4, 4), fit=(4, 4)), ValueError, "exactly one"),
        (dict(size=(0, 4)), ValueError, "size entries must be positive"),
        (dict(size=4), TypeError, "size must be a (width, height) tuple or list; got 4"),
        # annotated Sequence, taken only as a tuple or list: the message says so
        (dict(size=range(4, 6)), TypeError, "size must be a (width, height) tuple or list"),
        (dict(fit=range(4, 6)), TypeError, "fit must be a (width, height) tuple or list"),
        (dict(scale=range(1, 3)), TypeError, "scale must be a positive finite number, or a"),
        # a scale of 1 or 3 entries was Python's "not enough values to unpack"
        (dict(scale=(1.0,)), ValueError, "or a (width, height) tuple or list of them; got"),
        (dict(scale=[1, 2, 3]), ValueError, "scale must be a positive finite number, or a"),
        (dict(size=(None, None)), ValueError, "size must give a width"),
        (dict(fit=(4, None)), ValueError, "fit entries"),
        (dict(scale=-1.0), ValueError, "scale must be a positive"),
        # a value of the wrong type is a TypeError (a ValueError before), as in resize
        (dict(scale="1"), TypeError, "scale must be a positive"),
        (dict(scale=(1.0, True)), TypeError, "scale must be a positive"),
        (dict(size=(4.0, 4)), TypeError, "size entries must be positive ints or None"),
        (dict(fit=("4", 4)), TypeError, "fit entries must be positive ints; got ('4', 4)"),
        (dict(fill=(4, np.True_)), TypeError, "fill entries must be positive ints"),
        (dict(size=(4, 4), exact=1), TypeError, "exact must be True or False"),
        (dict(fit=(4, 4), allow_upscale="no"), TypeError, "allow_upscale must be True or"),
        (dict(size=(4, 4), mode="sinc"), ValueError, "mode must be one of"),
        (dict(size=(4, 4), antialias="yes"), TypeError, "antialias"),
        (dict(size=(4, 4), alpha=1), TypeError, "alpha"),
        (dict(size=(4, 4), mode="nearest", align_corners=True), ValueError, "align_corners"),
    ],
)
def test_bad_arguments(kwargs, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        resize_image(photo(8, 8), **kwargs)


def test_geometry_takes_what_resize_takes():
    # NumPy integer and float scalars and 0-d arrays, as cresize.resize's size and
    # scale_factor take them (0-d arrays were refused)
    for n in (3, np.int64(3), np.array(3), np.array(3, np.uint8)):
        assert target_size(8, 6, (n, 4)) == ((3, 4), None)
        assert target_size(8, 6, fit=(n, n)) == ((3, 2), None)
        assert target_size(8, 6, fill=(n, n)) == ((4, 3), (0, 0, 3, 3))
    for f in (0.5, np.float32(0.5), np.array(0.5), np.array(1, np.int16) / 2):
        assert target_size(8, 6, scale=f) == ((4, 3), None)
        assert target_size(8, 6, scale=(f, 1)) == ((4, 6), None)


@pytest.mark.parametrize(
    "width,height,error",
    [
        ("400", 300, TypeError),  # "'<=' not supported between instances of 'int' and 'str'"
        (400.0, 300, TypeError),  # gave ((100, 75.0), None): a float height
        (None, 300, TypeError),  # "unsupported operand type(s) for *: 'int' and 'NoneType'"
        (True, 300, TypeError),  # gave ((1, 100), None)
        (0, 300, ValueError),  # gave ((0, 300), None)
        (400, -5, ValueError),  # gave ((400, -5), None)
    ],
)
def test_target_size_checks_the_image_size(width, height, error):
    with pytest.raises(error, match=r"width and height must be positive ints; got \("):
        target_size(width, height, fit=(100, 100))
    assert target_size(np.int64(400), np.array(300), fit=(100, 100)) == ((100, 75), None)


def test_bad_images():
    with pytest.raises(TypeError, match="image array must be HW or HWC"):
        resize_image(np.zeros((2, 3, 4, 5), np.uint8), (2, 2))
    with pytest.raises(TypeError, match="image array must be HW or HWC"):
        resize_image(np.zeros((4, 4), bool), (2, 2))
    with pytest.raises(
        TypeError, match=r"image must be a path, a binary file object, a PIL\.Image"
    ):
        resize_image([[1, 2], [3, 4]], (2, 2))


def test_corrupt_and_truncated_files(tmp_path):
    (tmp_path / "text.png").write_bytes(b"this is not an image")
    with pytest.raises(Image.UnidentifiedImageError):
        open_image(tmp_path / "text.png")
    for fmt in ("PNG", "JPEG"):
        path = tmp_path / f"whole.{fmt.lower()}"
        Image.fromarray(photo(64, 64)).save(path, fmt)
        (tmp_path / "cut").write_bytes(path.read_bytes()[: path.stat().st_size // 2])
        with pytest.raises(OSError):
            open_image(tmp_path / "cut")
    with pytest.raises(FileNotFoundError):
        open_image(tmp_path / "missing.png")


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "GIF", "TIFF", "BMP"])
def test_a_truncated_file_pillow_reads_is_an_oserror_naming_the_file(tmp_path, fmt, capsys):
    # Pillow's "OSError: image file is truncated" came out as it was, naming no file
    # (tifffile's failure on a truncated TIFF's pixels names it); the command, which
    # names the file itself, names it once and quotes Pillow's words
    from cresize._cli_resize import main

    whole = tmp_path / f"whole.{fmt.lower()}"
    Image.fromarray(photo(64, 64)).save(whole, fmt)
    src = tmp_path / f"cut.{fmt.lower()}"
    cut = whole.read_bytes()[: whole.stat().st_size * 3 // 4]  # in the pixels
    src.write_bytes(cut)
    reads = (open_image, lambda f: resize_image(f, scale=0.5))
    for read, given, named in [(r, src, re.escape(str(src))) for r in reads] + [
        (r, io.BytesIO(cut), "the BytesIO given") for r in reads
    ]:
        with pytest.raises(OSError, match=rf"^{named}: a damaged file\? Pillow failed") as caught:
            read(given)
        assert isinstance(caught.value.__cause__, OSError)  # Pillow's, chained
        assert "truncated" in str(caught.value.__cause__)
    assert main([str(src), "--scale", "0.5", "-o", str(tmp_path / "o.png")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        f"cresize resize: {src}: a damaged file? its reader failed: OSError: image file is"
    ), err
    assert err.count(src.name) == 1, err
    assert src.read_bytes() == cut and not (tmp_path / "o.png").exists()

    class Failing(io.BytesIO):  # a read that fails past the header: the system's error
        def read(self, n=-1):
            if n < 0 or self.tell() + n > len(self.getbuffer()) // 2:
                raise OSError(errno.EIO, "Input/output error")
            return super().read(n)

    with pytest.raises(OSError, match=r"^\[Errno 5\] Input/output error$"):
        open_image(Failing(whole.read_bytes()))


@pytest.mark.parametrize("keep", [100, None], ids=["header", "pixels"])
def test_a_damaged_files_error_survives_pickling(tmp_path, keep):
    # a worker's exception goes back to the parent pickled (multiprocessing.Pool,
    # ProcessPoolExecutor) and is rebuilt from its args: the damaged file's error took
    # (path, reader, exc) in __init__, so rebuilding it raised TypeError in the parent,
    # which broke the ProcessPoolExecutor (BrokenProcessPool) and left Pool.get waiting
    import pickle

    whole = io.BytesIO()
    Image.fromarray(photo(256, 256)).save(whole, "JPEG")
    keep = keep or len(whole.getvalue()) // 2  # 100 bytes: cut in its header
    src = tmp_path / "cut.jpg"
    src.write_bytes(whole.getvalue()[:keep])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow's "Truncated File Read"
        with pytest.raises(OSError, match="a damaged file") as caught:
            open_image(src)
    back = pickle.loads(pickle.dumps(caught.value))
    assert type(back) is type(caught.value) and str(back) == str(caught.value)
    assert back.args == caught.value.args and str(src) in str(back)
    assert ("header" if keep == 100 else "pixels") in str(back)


@pytest.mark.parametrize("fmt,keep", [("JPEG", 100), ("WEBP", 300)])
def test_a_file_cut_in_its_header_is_an_oserror_naming_the_file(tmp_path, fmt, keep, capsys):
    # Pillow's Image.open failed naming no file: "Truncated File Read" (a JPEG cut inside
    # its header), "could not create decoder object" (a cut WebP)
    from cresize._cli_resize import main

    whole = io.BytesIO()
    Image.fromarray(photo(64, 64)).save(whole, fmt)
    cut = whole.getvalue()[:keep]
    src = tmp_path / f"cut.{fmt.lower()}"
    src.write_bytes(cut)
    reads = (open_image, lambda f: resize_image(f, scale=0.5))
    for read, given, named in [(r, src, re.escape(str(src))) for r in reads] + [
        (r, io.BytesIO(cut), "the BytesIO given") for r in reads
    ]:
        with pytest.raises(
            OSError, match=rf"^{named}: a damaged file\? Pillow failed reading its header: "
        ) as caught:
            read(given)
        assert type(caught.value.__cause__) is OSError  # Pillow's, chained
        assert str(caught.value).endswith(str(caught.value.__cause__))
    assert main([str(src), "--scale", "0.5", "-o", str(tmp_path / "o.png")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"cresize resize: {src}: a damaged file? its reader failed: OSError: "), (
        err
    )
    assert err.count(src.name) == 1, err
    assert src.read_bytes() == cut and not (tmp_path / "o.png").exists()

    class Failing(io.BytesIO):  # the system's error in the header: kept as it is
        def read(self, n=-1):
            raise OSError(errno.EIO, "Input/output error")

    with pytest.raises(OSError, match=r"^\[Errno 5\] Input/output error$") as caught:
        open_image(Failing(whole.getvalue()))
    assert caught.value.errno == errno.EIO
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "missing.jpg"))):
        open_image(tmp_path / "missing.jpg")


@pytest.mark.filterwarnings("ignore:Corrupt EXIF data:UserWarning")  # Pillow's, on the header
@pytest.mark.parametrize("read", [open_image, lambda path: resize_image(path, scale=0.5)])
def test_a_tiff_header_with_no_page_is_pillow_s_error(tmp_path, read):
    # A TIFF signature and no readable directory: Pillow cannot identify it, and
    # tifffile (tried for the TIFFs Pillow cannot open) found no page: "IndexError: 0".
    pytest.importorskip("tifffile", reason="tifffile reads the TIFFs Pillow cannot open")
    path = tmp_path / "damaged.tif"
    path.write_bytes(b"II*\x00" + b"\xff" * 100)
    with pytest.raises(Image.UnidentifiedImageError, match=r"damaged\.tif"):
        read(path)
    with pytest.raises(Image.UnidentifiedImageError):  # the command's header, its dry run
        cresize.image._header(path)
    assert path.read_bytes() == b"II*\x00" + b"\xff" * 100


@pytest.mark.filterwarnings("ignore:Corrupt EXIF data:UserWarning")  # Pillow's, on the header
@pytest.mark.parametrize(
    "data",
    [
        b"II*\0",  # the signature alone: tifffile's "struct.error: unpack requires a buffer"
        b"MM\0*\0\0",  # a header cut short
        b"II+\0\x08\0\0\0",  # a BigTIFF's, cut short
        b"II*\0" + bytes(8),  # no directory (offset 0): tifffile logged "contains no pages"
        b"II*\0" + struct.pack("<I", 1000) + bytes(4),  # one past the end: "invalid offset"
        b"II+\0\x08\0\0\0" + bytes(8),  # a BigTIFF's offset 0
        # a first directory of no entries: tifffile read a page of no pixels, and the
        # error was "a TIFF of 1 float64 sample(s) a pixel ()"
        b"II*\0" + struct.pack("<IHI", 8, 0, 0),
        b"MM\0*" + struct.pack(">IHI", 8, 0, 0),
        b"II+\0\x08\0\0\0" + struct.pack("<QQQ", 16, 0, 0),
        b"II*\0" + struct.pack("<I", 8) + b"\0",  # its number of entries cut short
    ],
)
def test_a_tiff_header_with_no_directory_is_pillow_s_error(tmp_path, capfd, data):
    # open_image and the command's header read raised tifffile's struct.error for the
    # 4-byte file II*\0, and tifffile logged to stderr for the others, before Pillow's
    # error said the same: now that error, naming the file, and nothing on stderr.
    pytest.importorskip("tifffile", reason="tifffile reads the TIFFs Pillow cannot open")
    path = tmp_path / "header.tif"
    path.write_bytes(data)
    for read in (open_image, lambda p: resize_image(p, scale=0.5), cresize.image._header):
        with pytest.raises(Image.UnidentifiedImageError, match=r"header\.tif"):
            read(path)
    with pytest.raises(Image.UnidentifiedImageError):  # from a file object: the same
        open_image(io.BytesIO(data))
    assert capfd.readouterr().err == ""
    assert path.read_bytes() == data


@pytest.mark.parametrize("ext", ["png", "jpg", "webp", "tif", "gif", "bmp"])
@pytest.mark.parametrize(
    "image",
    [
        np.zeros((0, 4, 3), np.uint8),
        np.zeros((4, 0), np.uint16),
        np.zeros((0, 4, 3), np.uint16),
        np.zeros((4, 0, 2), np.uint16),
        np.zeros((0, 4, 3), np.float32),
        "pillow",
    ],
    ids=["u8", "grey16", "rgb16", "la16", "float", "pillow"],
)
def test_save_refuses_an_image_with_no_pixels(tmp_path, ext, image):
    # OpenCV's "(-215:Assertion failed) !_src.empty()" (cv2.error) for PNG, libwebp's
    # "MemoryError: can't allocate picture frame", tifffile's "cannot use predictor
    # without compression": one ValueError, as resize_image's for such an array.
    image = Image.new("RGB", (0, 5)) if isinstance(image, str) else image
    shape = f"size {image.size}" if isinstance(image, Image.Image) else f"shape {image.shape}"
    with pytest.raises(ValueError, match=re.escape(f"image has no pixels: {shape}")):
        save_image(image, tmp_path / f"a.{ext}")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("overwrite", ["no", "False", 0, 1, None, np.array(True)])
def test_save_takes_overwrite_as_a_bool_only(tmp_path, overwrite):
    # overwrite="no" (a true string) replaced the file; save_image's flag is checked as
    # resize_image's are (exact, antialias, allow_upscale): True or False.
    path = tmp_path / "a.png"
    path.write_bytes(b"precious")
    with pytest.raises(
        TypeError, match=re.escape(f"overwrite must be True or False; got {overwrite!r}")
    ):
        save_image(np.zeros((4, 4), np.uint8), path, overwrite=overwrite)
    assert path.read_bytes() == b"precious"
    assert os.listdir(tmp_path) == ["a.png"]
    save_image(np.zeros((4, 4), np.uint8), path, overwrite=np.True_)  # NumPy's bool is one
    with Image.open(path) as written:
        assert written.size == (4, 4)


def test_a_file_name_as_bytes_is_taken_everywhere_as_its_str(tmp_path):
    # os.fspath gives bytes for a bytes name, as Pillow's open and save take it:
    # open_image took one, but resize_image said "image must be a path" and save_image
    # "cannot tell the image format from the extension b'.png' of b'...'".
    Image.fromarray(photo(30, 40)).save(tmp_path / "in.png")
    name = os.fsencode(tmp_path / "in.png")
    assert np.array_equal(np.asarray(open_image(name)), np.asarray(open_image(tmp_path / "in.png")))
    got = resize_image(name, (20, 15))
    assert diff(got, resize_image(str(tmp_path / "in.png"), (20, 15))) == 0
    save_image(got, os.fsencode(tmp_path / "out.png"))
    assert sorted(os.listdir(tmp_path)) == ["in.png", "out.png"]
    with Image.open(tmp_path / "out.png") as written:
        assert written.size == (20, 15) and diff(written, got) == 0
    with pytest.raises(ValueError, match="image must not contain a NUL"):
        resize_image(os.fsencode(tmp_path / "in.png") + b"\0", (20, 15))


@pytest.mark.parametrize("ext", ["png", "jpg", "tif", "webp"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize(
    "key, value, allowed",
    [
        ("icc_profile", "sRGB", "bytes (an ICC profile)"),
        ("exif", "Make=Cresize", "bytes or a PIL.Image.Exif"),
        ("exif", 5, "bytes or a PIL.Image.Exif"),
        ("xmp", 5, "bytes or a str (an XMP packet)"),
        ("dpi", 300, "a (x, y) pair of numbers"),
        ("dpi", ("300", "300"), "a (x, y) pair of numbers"),
        ("dpi", (300, 300, 300), "a (x, y) pair of numbers"),
        ("dpi", np.array([300, 300, 300]), "a (x, y) pair of numbers"),
        ("dpi", np.array(["300", "300"]), "a (x, y) pair of numbers"),
        ("dpi", np.array(300), "a (x, y) pair of numbers"),
    ],
)
def test_save_names_a_metadata_value_of_the_wrong_type(tmp_path, ext, dtype, key, value, allowed):
    # ImageArray(pixels, {"icc_profile": "sRGB"}) was "TypeError: can't concat str to
    # bytes" (JPEG) or "AttributeError: 'str' object has no attribute 'decode'" (16-bit
    # PNG), {"dpi": 300} "'int' object is not iterable", {"xmp": 5} five NUL bytes
    # written as the XMP packet.
    from cresize.image import ImageArray

    image = ImageArray(np.full((4, 4, 3), 100, dtype), {key: value})
    words = f"image.info[{key!r}] must be {allowed}; got {value!r}"
    with pytest.raises(TypeError, match=re.escape(words)):
        save_image(image, tmp_path / f"a.{ext}")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("ext", ["png", "jpg", "tif"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_save_names_an_exif_object_pillow_cannot_write(tmp_path, ext, dtype):
    # The caller's own Exif with a GPSLatitude given as text (Pillow's tobytes: "bad
    # operand type for abs(): 'str'") was taken for a damaged EXIF (_exif_damage) and
    # left out of the file without a word from save_image: the TypeError naming it.
    from cresize.image import ImageArray

    exif = Image.Exif()
    exif[0x010F] = "Cresize"
    exif.get_ifd(ExifTags.IFD.GPSInfo)[ExifTags.GPS.GPSLatitude] = "12.5"
    image = ImageArray(np.full((4, 4, 3), 100, dtype), {"exif": exif})
    with pytest.raises(TypeError, match=r"image\.info\['exif'\] is a PIL\.Image\.Exif that "):
        save_image(image, tmp_path / f"a.{ext}")
    assert os.listdir(tmp_path) == []
    assert image.info["exif"] is exif and exif[0x010F] == "Cresize"


@pytest.mark.parametrize("ext", ["png", "jpg", "tif"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("dpi", [np.array([300, 150]), np.array([300.0, 150.0])])
def test_save_writes_a_dpi_given_as_a_numpy_array(tmp_path, ext, dtype, dpi):
    # _check_info's and _metadata's truth tests of info["dpi"] raised NumPy's "The truth
    # value of an array with more than one element is ambiguous"
    from cresize.image import ImageArray

    image = ImageArray(np.full((4, 4, 3), 100, dtype), {"dpi": dpi})
    save_image(image, tmp_path / f"a.{ext}")
    with Image.open(tmp_path / f"a.{ext}") as written:
        assert written.info["dpi"] == pytest.approx((300, 150), abs=0.05)  # PNG: a metre's
    assert image.info["dpi"] is dpi  # the caller's value as it was
    # an empty array is not written, as an empty tuple is not
    for name, empty in (("b", np.array([])), ("c", ())):
        save_image(
            ImageArray(np.full((4, 4, 3), 100, dtype), {"dpi": empty}), tmp_path / f"{name}.{ext}"
        )
    with Image.open(tmp_path / f"b.{ext}") as got, Image.open(tmp_path / f"c.{ext}") as want:
        assert got.info.get("dpi") == want.info.get("dpi")


@pytest.mark.parametrize("ext", ["png", "jpg", "tif", "webp"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_save_writes_metadata_given_as_a_bytearray(tmp_path, ext, dtype):
    # _check_info takes a bytearray for icc_profile and exif (as for xmp), but the
    # writers did not: Pillow's JPEG and WebP encoders raised "argument 16 must be
    # read-only bytes-like object, not bytearray", its TIFF writer AttributeError:
    # 'bytearray' object has no attribute 'get', tifffile's struct.error.
    from cresize.image import ImageArray

    exif = Image.Exif()
    exif[0x010F] = "Cresize"
    info = {"icc_profile": bytearray(srgb_icc()), "exif": bytearray(exif.tobytes())}
    pixels = np.full((4, 5, 3), 100, dtype)
    image = ImageArray(pixels, info) if dtype == np.uint16 else Image.fromarray(pixels)
    if dtype == np.uint8:
        image.info.update(info)
    save_image(image, tmp_path / f"a.{ext}")
    with Image.open(tmp_path / f"a.{ext}") as written:
        assert written.size == (5, 4)
        assert written.info.get("icc_profile") == bytes(info["icc_profile"])
        assert written.getexif().get(0x010F) == "Cresize"


def test_save_refuses_to_overwrite(tmp_path):
    path = tmp_path / "a.png"
    path.write_bytes(b"precious")
    with pytest.raises(FileExistsError, match="overwrite"):
        save_image(photo(8, 8), path)
    assert path.read_bytes() == b"precious"
    save_image(photo(8, 8), path, overwrite=True)
    with Image.open(path) as opened:
        assert opened.size == (8, 8)


@pytest.mark.parametrize("writer", ["pillow", "any"])
@pytest.mark.parametrize("exc", [OSError("disk full"), KeyboardInterrupt()])
def test_failed_write_leaves_nothing(tmp_path, monkeypatch, exc, writer):
    (tmp_path / "old.png").write_bytes(b"old")

    def broken(self, fp, *args, **kwargs):
        fp.write(b"\x89PNG half an image")
        raise exc

    if writer == "pillow":  # Pillow writes the PNG (OpenCV, where installed, is faster)
        monkeypatch.setitem(sys.modules, "cv2", None)
        monkeypatch.setattr(Image.Image, "save", broken)
    else:  # whichever library encodes, the file's writes fail
        import cresize._atomic  # the temporary file's writes (image's go through it)

        monkeypatch.setattr(
            cresize._atomic, "open", lambda *a: FailingWrites(open(*a), exc), raising=False
        )
    for name, overwrite in [("new.png", False), ("old.png", True)]:
        with pytest.raises(type(exc)):
            save_image(photo(8, 8), tmp_path / name, overwrite=overwrite)
    assert sorted(os.listdir(tmp_path)) == ["old.png"]
    assert (tmp_path / "old.png").read_bytes() == b"old"


def test_signal_as_the_temporary_file_opens_leaves_nothing(tmp_path, monkeypatch):
    # A signal that arrives during open() raises as soon as open returns, before
    # the file object is bound to anything: the created file must still go.
    import cresize._atomic

    def interrupted(*args, **kwargs):
        open(*args, **kwargs).close()
        raise KeyboardInterrupt

    monkeypatch.setattr(cresize._atomic, "open", interrupted, raising=False)
    with pytest.raises(KeyboardInterrupt):
        save_image(photo(8, 8), tmp_path / "new.png")
    assert os.listdir(tmp_path) == []


def test_save_syncs_the_file_before_it_gets_its_name(tmp_path, monkeypatch):
    # save_image itself waits for the disk: when it returns, the file is synced.
    real, seen = os.fsync, []

    def fsync(fd):
        seen.append(sorted(os.listdir(tmp_path)))
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    save_image(photo(8, 8), tmp_path / "new.png")
    assert len(seen) == 1 and len(seen[0]) == 1 and seen[0][0].startswith(".new.png.")
    assert os.listdir(tmp_path) == ["new.png"]


def test_temporary_name_taken_by_another_file_is_left_alone(tmp_path, monkeypatch):
    import cresize.image

    monkeypatch.setattr(cresize.image.os, "urandom", lambda n: bytes.fromhex("cafe"))
    (tmp_path / ".new.png.cafe.tmp").write_bytes(b"not ours")
    with pytest.raises(FileExistsError):
        save_image(photo(8, 8), tmp_path / "new.png")
    assert os.listdir(tmp_path) == [".new.png.cafe.tmp"]
    assert (tmp_path / ".new.png.cafe.tmp").read_bytes() == b"not ours"


@pytest.mark.parametrize("stem", ["a" * 251, "\u00e9" * 125, "b" * 237])
def test_a_long_name_gets_a_temporary_name_that_fits(tmp_path, stem):
    # The temporary, ".NAME.XXXXXXXX.tmp", is 14 bytes longer than the name: a name of
    # more than 241 bytes (at most 255 a name, NAME_MAX) failed with "[Errno 36] File
    # name too long", naming the output, whose name is valid.
    name = stem + ".png"
    assert len(os.fsencode(name)) <= 255
    save_image(photo(8, 8), tmp_path / name)
    assert os.listdir(tmp_path) == [name]
    with Image.open(tmp_path / name) as opened:
        assert opened.size == (8, 8)
    save_image(photo(6, 6), tmp_path / name, overwrite=True)
    with Image.open(tmp_path / name) as opened:
        assert os.listdir(tmp_path) == [name] and opened.size == (6, 6)


@pytest.mark.parametrize("overwrite", [False, True])
def test_saving_to_a_folders_name_says_so(tmp_path, overwrite):
    # It said "DIR exists (pass overwrite=True, or --overwrite)", and with overwrite=True
    # "IsADirectoryError: [Errno 21] Is a directory: '.DIR.1234abcd.tmp' -> 'DIR'",
    # naming a hidden temporary, after the image was encoded.
    (tmp_path / "thumb.png").mkdir()
    with pytest.raises(IsADirectoryError, match=r"a folder has this name, not a file") as caught:
        save_image(photo(8, 8), tmp_path / "thumb.png", overwrite=overwrite)
    assert caught.value.filename == str(tmp_path / "thumb.png")
    assert os.listdir(tmp_path) == ["thumb.png"] and os.listdir(tmp_path / "thumb.png") == []


def test_save_converts_for_the_format(tmp_path):
    rgba = np.zeros((8, 8, 4), np.uint8)
    rgba[:4] = (0, 0, 255, 255)  # top half blue, bottom half transparent
    save_image(rgba, tmp_path / "a.jpg")
    with Image.open(tmp_path / "a.jpg") as opened:
        assert opened.mode == "RGB"
        jpeg = np.asarray(opened)
    assert jpeg[6:].min() >= 250 and jpeg[:2, :, 2].min() >= 240  # flattened on white
    save_image(np.full((4, 4), 65535, np.uint16), tmp_path / "b.webp")
    with Image.open(tmp_path / "b.webp") as opened:
        assert np.asarray(opened.convert("L")).min() == 255
    la = np.zeros((4, 4, 2), np.uint8)
    la[:, :2] = (90, 255)
    for name, mode in [("la.webp", "RGBA"), ("la.bmp", "L"), ("la.jpg", "L"), ("la.png", "LA")]:
        save_image(la, tmp_path / name)
        with Image.open(tmp_path / name) as opened:
            assert opened.mode == mode
    with pytest.raises(ValueError, match="cannot write a float grey image as bmp"):
        save_image(np.zeros((4, 4), np.float32), tmp_path / "c.bmp")
    for fmt in ("png", "tiff", "bmp", "jpeg", "webp"):
        save_image(photo(9, 7), tmp_path / "d", format=fmt)
        with Image.open(tmp_path / "d") as opened:
            assert opened.size == (7, 9)
        os.remove(tmp_path / "d")
    with pytest.raises(ValueError, match="cannot tell the image format"):
        save_image(photo(4, 4), tmp_path / "e.xyz")
    with pytest.raises(ValueError, match="format must be one of"):
        save_image(photo(4, 4), tmp_path / "e.png", format="nope")
    with pytest.raises(ValueError, match="quality must be"):
        save_image(photo(4, 4), tmp_path / "e.jpg", quality=0)
    # a wrong type is a TypeError (50.0 was taken, "50" a ValueError); 0-d arrays are ints
    for bad in (50.0, "50", True, np.array(50.0), [50]):
        with pytest.raises(TypeError, match="quality must be an int from 1 to 100; got "):
            save_image(photo(4, 4), tmp_path / "e.jpg", quality=bad)
    save_image(photo(4, 4), tmp_path / "e.jpg", quality=np.array(50))
    save_image(photo(4, 4), tmp_path / "f.jpg", quality=50)
    assert (tmp_path / "e.jpg").read_bytes() == (tmp_path / "f.jpg").read_bytes()


def test_premultiplied_modes_are_resized_as_their_straight_modes():
    # A premultiplied grey image (mode La) failed with Pillow's "conversion from La to
    # RGBA not supported": it was converted to RGBA, which Pillow cannot do from La.
    straight = Image.fromarray(photo(20, 30, 2), "LA")
    for mode, plain in [("La", "LA"), ("RGBa", "RGBA")]:
        image = (straight if plain == "LA" else straight.convert("RGBA")).convert(mode)
        got = resize_image(image, (15, 10))
        assert got.mode == plain
        np.testing.assert_array_equal(
            np.asarray(got), np.asarray(resize_image(image.convert(plain), (15, 10)))
        )


def test_lab_images_are_not_given_an_alpha_channel(tmp_path):
    # _for_format took the "A" of "LAB" for alpha: a LAB image (a CIELab TIFF) written
    # as PNG became RGBA with an invented, opaque alpha channel.
    lab = Image.fromarray(photo(8, 10)).convert("LAB")
    assert not lab.has_transparency_data
    save_image(lab, tmp_path / "a.png")
    with Image.open(tmp_path / "a.png") as opened:
        assert opened.mode == "RGB"
    with Image.open(tmp_path / "a.png") as opened:
        assert opened.getpixel((0, 0)) == lab.convert("RGB").getpixel((0, 0))


def _profile_of_space(space):
    """An ICC profile header whose data colour space is ``space`` (enough for a file's
    metadata; not for a colour transform)."""
    header = bytearray(132)
    header[0:4] = (132).to_bytes(4, "big")
    header[8:12], header[12:16], header[16:20] = b"\x02\x10\x00\x00", b"prtr", space
    header[20:24], header[36:40] = b"Lab ", b"acsp"
    return bytes(header)


def test_a_profile_is_not_kept_on_pixels_converted_to_another_colour_space(tmp_path):
    # A CMYK JPEG with its CMYK ICC profile, written as PNG or WebP (RGB): the RGB
    # file carried the CMYK profile, which libpng calls invalid and colour-managed
    # viewers misread or drop. A profile is kept only where it fits the written pixels.
    cmyk_icc = _profile_of_space(b"CMYK")
    src = tmp_path / "print.jpg"
    Image.fromarray(photo(40, 60)).convert("CMYK").save(src, icc_profile=cmyk_icc)
    got = resize_image(src, (30, 20))
    assert got.mode == "CMYK" and got.info["icc_profile"] == cmyk_icc
    for name, mode in [("a.png", "RGB"), ("a.webp", "RGB"), ("a.bmp", "RGB")]:
        save_image(got, tmp_path / name)
        with Image.open(tmp_path / name) as back:
            assert back.mode == mode and not back.info.get("icc_profile"), name
    for name in ("a.jpg", "a.tif"):  # CMYK stays CMYK: the profile fits
        save_image(got, tmp_path / name)
        with Image.open(tmp_path / name) as back:
            assert back.mode == "CMYK" and back.info["icc_profile"] == cmyk_icc, name
    rgba = Image.fromarray(photo(8, 8)).convert("RGBA")  # RGBA -> RGB: the same space
    icc = srgb_icc()  # made once: a profile holds its creation time (to the second)
    rgba.info["icc_profile"] = icc
    save_image(rgba, tmp_path / "b.jpg")
    with Image.open(tmp_path / "b.jpg") as opened:
        assert opened.info["icc_profile"] == icc


@pytest.mark.parametrize(
    "array",
    [
        np.zeros((4, 4, 3), np.int16),
        np.zeros((4, 4, 1), np.uint8),
        np.zeros((4, 4, 5), np.uint8),
        np.zeros((4, 4), np.int64),
    ],
)
def test_save_names_the_arrays_it_cannot_write(tmp_path, array):
    # These reached Pillow's "Cannot handle this data type: (1, 1, 3), <f4".
    words = re.escape(f"image array of shape {array.shape} and dtype {array.dtype} cannot")
    with pytest.raises(TypeError, match=words):
        save_image(array, tmp_path / "a.png")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("given", ["path", "format"])
@pytest.mark.parametrize(
    "array, what",
    [
        (np.zeros((4, 4), np.float32), "a float grey image"),
        (np.zeros((4, 4), np.float64), "a float grey image"),
        (np.zeros((4, 4, 3), np.float32), "a float RGB image"),  # resize_image's for one
        (np.zeros((4, 4, 4), np.float64), "a float RGBA image"),
        (np.full((4, 4), 70000, np.int32), "a 32-bit integer grey image"),
    ],
)
def test_save_refuses_samples_a_format_cannot_hold_in_one_wording(tmp_path, array, what, given):
    # Float grey to WebP said "cannot write a F (32-bit float) image as WEBP" (a
    # ValueError), float RGB "image array of shape (4, 4, 3) and dtype float32 cannot be
    # written as WEBP" (a TypeError): one refusal, a ValueError (a value the format cannot
    # hold), naming the format as given ("webp", "WebP", ".JPG") and what it holds.
    holds = {
        "webp": "8-bit integer samples",
        "WebP": "8-bit integer samples",
        "JPG": "8-bit integer samples",
        "gif": "8-bit integer samples",
        "png": r"8 and 16-bit integer samples \(0 to 65535\)",
    }
    kind = "32-bit integer" if array.dtype.kind == "i" else "float"
    for name in holds:
        path, fmt = (tmp_path / f"out.{name}", None) if given == "path" else (tmp_path / "o", name)
        if given == "format" and name == "JPG":
            continue
        values = " with values from 70000 to 70000" if name == "png" and kind != "float" else ""
        want = (
            f"cannot write {what}{values} as {name}: {name} holds {holds[name]}; of the formats "
            f"written, only TIFF holds {kind} samples: write TIFF"
        )
        with pytest.raises(
            ValueError, match="^" + want + (", or convert" if kind == "float" else "$")
        ):
            save_image(array, path, format=fmt)
    assert os.listdir(tmp_path) == []


def test_float_colour_to_tiff_without_tifffile_is_a_value_error(tmp_path, monkeypatch):
    # was a TypeError, as if the array were of a type never written
    monkeypatch.setitem(sys.modules, "tifffile", None)
    want = r"^cannot write a float RGB image as tif without tifffile, which writes float RGB"
    with pytest.raises(ValueError, match=want):
        save_image(np.zeros((4, 4, 3), np.float32), tmp_path / "a.tif")
    assert os.listdir(tmp_path) == []


def test_32bit_images_to_png(tmp_path):
    # PNG holds at most 16 bits: an "I" image (int32) reached Pillow's "cannot write mode I
    # as PNG" (older Pillow wrote its low 16 bits), and "F" was told to "write PNG or TIFF".
    ints = np.arange(0, 65536, 4369, dtype=np.int32).reshape(4, 4)
    save_image(ints, tmp_path / "fits.png")
    with Image.open(tmp_path / "fits.png") as back:
        assert back.mode.startswith("I;16")
        np.testing.assert_array_equal(np.asarray(back), ints)
    for bad in (ints + 1, ints - 1):  # 65536 and -1 do not fit 16 bits
        with pytest.raises(ValueError, match=r"values from -?\d+ to \d+ as png: .*write TIFF"):
            save_image(bad, tmp_path / "wide.png")
    with pytest.raises(ValueError, match=r"cannot write a float grey image as png: .*TIFF"):
        save_image(np.zeros((4, 4), np.float32), tmp_path / "float.png")
    assert sorted(os.listdir(tmp_path)) == ["fits.png"]
    save_image(ints + 1, tmp_path / "wide.tif")
    with Image.open(tmp_path / "wide.tif") as opened:
        np.testing.assert_array_equal(np.asarray(opened), ints + 1)


def test_save_into_a_missing_folder_names_the_path_asked_for(tmp_path):
    # The error named the hidden temporary file: "No such file or directory:
    # '.../nodir/.a.png.5297af30.tmp'".
    path = tmp_path / "nodir" / "a.png"
    with pytest.raises(FileNotFoundError) as info:
        save_image(photo(4, 4), path)
    assert info.value.filename == str(path) and ".tmp" not in str(info.value)


def test_jpeg_quality(tmp_path):
    for q in (20, 95):
        save_image(photo(64, 64), tmp_path / f"q{q}.jpg", quality=q)
    assert (tmp_path / "q20.jpg").stat().st_size < (tmp_path / "q95.jpg").stat().st_size


@pytest.mark.parametrize("decoder", ["opencv", "pillow"])
def test_a_jpeg_s_chroma_subsampling_is_kept_in_jpeg_output(tmp_path, monkeypatch, decoder):
    # A 4:4:4 JPEG resized to JPEG came out 4:2:0 (Pillow's default): the input JPEG's
    # sampling is kept (as Pillow's subsampling="keep" for an unchanged JPEG), at any
    # quality; other inputs, and JPEGs of another sampling, get Pillow's 4:2:0 as before
    from PIL import JpegImagePlugin

    if decoder == "pillow":
        monkeypatch.setitem(sys.modules, "cv2", None)
    else:
        pytest.importorskip("cv2")

    def sampling(path):
        with Image.open(path) as im:
            return JpegImagePlugin.get_sampling(im)  # 0: 4:4:4, 1: 4:2:2, 2: 4:2:0

    for kept, name in ((0, "4:4:4"), (1, "4:2:2"), (2, "4:2:0")):
        src = tmp_path / f"{kept}.jpg"
        Image.fromarray(photo(120, 160)).save(src, quality=95, subsampling=kept)
        assert sampling(src) == kept
        resized = resize_image(src, scale=0.5)
        assert resized.info["subsampling"] == name
        for quality in (None, 50):
            save_image(resized, tmp_path / "out.jpg", quality=quality, overwrite=True)
            assert sampling(tmp_path / "out.jpg") == kept, (name, quality)
        save_image(open_image(src), tmp_path / "same.jpg", overwrite=True)  # not resized
        assert sampling(tmp_path / "same.jpg") == kept
        with Image.open(src) as im:  # opened by the caller in Pillow: no info key
            save_image(im, tmp_path / "pil.jpg", overwrite=True)
        assert sampling(tmp_path / "pil.jpg") == kept
    Image.fromarray(photo(120, 160)).save(tmp_path / "in.png")
    resized = resize_image(tmp_path / "in.png", scale=0.5)
    assert "subsampling" not in resized.info
    save_image(resized, tmp_path / "png.jpg")
    assert sampling(tmp_path / "png.jpg") == 2  # Pillow's default, as before
    Image.fromarray(photo(120, 160)).convert("L").save(tmp_path / "grey.jpg")
    assert "subsampling" not in open_image(tmp_path / "grey.jpg").info  # one channel


def _avif_sampling(path):
    """The chroma subsampling of the AVIF at ``path`` by its first ``av1C`` box (its
    third byte's chroma_subsampling_x 0x08 and _y 0x04): "4:4:4", "4:2:2" or "4:2:0"."""
    with open(path, "rb") as f:
        data = f.read()
    flags = data[data.index(b"av1C") + 4 + 2]
    return {0x00: "4:4:4", 0x08: "4:2:2", 0x0C: "4:2:0"}[flags & 0x0C]


def test_a_jpeg_s_chroma_subsampling_is_kept_in_avif_output(tmp_path):
    # A 4:4:4 JPEG written as AVIF came out 4:2:0 (Pillow's AVIF default) though the
    # AVIF writer takes subsampling= as the JPEG one does: kept, as in JPEG output,
    # with alpha too; other inputs get Pillow's 4:2:0 as before
    _pillow_avif()
    for kept, name in ((0, "4:4:4"), (1, "4:2:2"), (2, "4:2:0")):
        src = tmp_path / f"{kept}.jpg"
        Image.fromarray(photo(120, 160)).save(src, quality=95, subsampling=kept)
        resized = resize_image(src, scale=0.5)
        for quality in (None, 50):
            save_image(resized, tmp_path / "out.avif", quality=quality, overwrite=True)
            assert _avif_sampling(tmp_path / "out.avif") == name, (name, quality)
        with Image.open(src) as im:  # opened by the caller in Pillow: no info key
            save_image(im, tmp_path / "pil.avif", overwrite=True)
        assert _avif_sampling(tmp_path / "pil.avif") == name
        rgba = Image.fromarray(np.asarray(resized)).convert("RGBA")
        rgba.info["subsampling"] = name
        save_image(rgba, tmp_path / "rgba.avif", overwrite=True)
        assert _avif_sampling(tmp_path / "rgba.avif") == name
    Image.fromarray(photo(120, 160)).save(tmp_path / "in.png")
    save_image(resize_image(tmp_path / "in.png", scale=0.5), tmp_path / "png.avif")
    assert _avif_sampling(tmp_path / "png.avif") == "4:2:0"  # Pillow's default, as before


def test_an_avif_s_chroma_subsampling_is_kept_in_avif_and_jpeg_output(tmp_path):
    # An AVIF's sampling was unknown (Pillow's AVIF reader gives none): a 4:4:4 AVIF
    # resized to AVIF came out 4:2:0, the writer's default. Its av1C box's flags give
    # it (info["subsampling"]), kept in AVIF and JPEG output as a JPEG's is
    from PIL import JpegImagePlugin

    _pillow_avif()
    jpeg = {"4:4:4": 0, "4:2:2": 1, "4:2:0": 2}  # Pillow's get_sampling
    for name in ("4:4:4", "4:2:2", "4:2:0"):
        src = tmp_path / f"{name.replace(':', '')}.avif"
        Image.fromarray(photo(120, 160)).save(src, quality=90, subsampling=name)
        assert _avif_sampling(src) == name
        assert open_image(src).info["subsampling"] == name
        resized = resize_image(src, scale=0.5)
        assert resized.info["subsampling"] == name
        for quality in (None, 50):
            save_image(resized, tmp_path / "out.avif", quality=quality, overwrite=True)
            assert _avif_sampling(tmp_path / "out.avif") == name, (name, quality)
        save_image(resized, tmp_path / "out.jpg", overwrite=True)
        with Image.open(tmp_path / "out.jpg") as back:
            assert JpegImagePlugin.get_sampling(back) == jpeg[name], name
    rgba = tmp_path / "rgba.avif"  # with alpha too
    Image.fromarray(photo(120, 160, 4), "RGBA").save(rgba, subsampling="4:4:4")
    save_image(resize_image(rgba, scale=0.5), tmp_path / "rgba_out.avif")
    assert _avif_sampling(tmp_path / "rgba_out.avif") == "4:4:4"
    # monochrome: no sampling (a vendored monochrome AV1 file's header: Pillow 11's
    # writer makes a grey image RGB, Pillow 13's monochrome)
    with open(avif.path("grey10.avif"), "rb") as f:
        assert cresize.image._avif_file_header(f) == (10, True, None)
    grey = tmp_path / "grey.avif"
    Image.fromarray(photo(120, 160)).convert("L").save(grey)
    with open(grey, "rb") as f:
        if cresize.image._avif_file_header(f)[1]:  # written monochrome (Pillow 13)
            assert "subsampling" not in open_image(grey).info


def test_a_deep_avif_s_chroma_subsampling_is_kept_in_avif_output(tmp_path):
    # a 10-bit AVIF (read by OpenCV, its info by Pillow) keeps its 4:4:4 as an 8-bit one
    _opencv_avif()
    got = resize_image(avif.path("rgb10.avif"), scale=0.5)
    assert got.dtype == np.uint16 and got.info["subsampling"] == "4:4:4"
    save_image(got, tmp_path / "out.avif")
    assert _avif_sampling(tmp_path / "out.avif") == "4:4:4"


def _webp_image_chunk(path):
    """The fourcc of the first image chunk of the WebP at ``path``: ``VP8L`` (lossless),
    ``VP8 `` (lossy); an animation's first frame's."""
    with open(path, "rb") as f:
        data = f.read()
    at = 12
    while at + 8 <= len(data):
        kind, size = data[at : at + 4], int.from_bytes(data[at + 4 : at + 8], "little")
        if kind in (b"VP8L", b"VP8 "):
            return kind
        at += 8 + (16 if kind == b"ANMF" else size + (size & 1))
    return None


@pytest.mark.parametrize("extras", ["plain", "icc", "alpha", "animated"])
def test_a_lossless_webp_stays_lossless_in_webp_output(tmp_path, extras):
    # A lossless WebP (VP8L) resized to WebP came out lossy at quality 90: it stays
    # lossless where no quality is given; with one, lossy at it, as any image
    from cresize import image

    channels = 4 if extras == "alpha" else 3
    frames = [Image.fromarray(photo(60, 80, channels, seed)) for seed in range(2)]
    src = tmp_path / "in.webp"
    options = {"icc_profile": srgb_icc()} if extras == "icc" else {}
    if extras == "animated":
        options.update(save_all=True, append_images=frames[1:], duration=100)
    frames[0].save(src, lossless=True, **options)
    assert _webp_image_chunk(src) == b"VP8L"
    resized = resize_image(src, scale=0.5)
    assert resized.info["lossless"] is True
    save_image(resized, tmp_path / "out.webp")
    assert _webp_image_chunk(tmp_path / "out.webp") == b"VP8L"
    with Image.open(tmp_path / "out.webp") as back:  # exactly the resized pixels
        np.testing.assert_array_equal(np.asarray(back), np.asarray(resized))
    save_image(resized, tmp_path / "q.webp", quality=90)
    assert _webp_image_chunk(tmp_path / "q.webp") == b"VP8 "
    frames[0].save(tmp_path / "lossy.webp", quality=90, **options)
    assert _webp_image_chunk(tmp_path / "lossy.webp") == b"VP8 "
    lossy = resize_image(tmp_path / "lossy.webp", scale=0.5)
    assert "lossless" not in lossy.info
    save_image(lossy, tmp_path / "lossy-out.webp")
    assert _webp_image_chunk(tmp_path / "lossy-out.webp") == b"VP8 "
    frames[0].save(tmp_path / "in.png")  # other inputs: lossy at 90, as before
    save_image(resize_image(tmp_path / "in.png", scale=0.5), tmp_path / "png.webp")
    assert _webp_image_chunk(tmp_path / "png.webp") == b"VP8 "
    with open(src, "rb") as f:
        assert image._webp_lossless(f) is True


def test_a_webp_header_cut_short_or_crafted_is_not_lossless():
    import io

    from cresize import image

    buffer = io.BytesIO()
    Image.fromarray(photo(8, 8)).save(buffer, "WEBP", lossless=True)
    data = buffer.getvalue()
    for n in range(len(data)):  # never an error; lossless once the VP8L header is in
        assert image._webp_lossless(io.BytesIO(data[:n])) is (n >= 20), n
    many = b"".join([data[:12], b"XXXX\0\0\0\0" * 100_000, data[12:]])
    assert image._webp_lossless(io.BytesIO(many)) is False  # bounded: not found
    assert image._webp_lossless(io.BytesIO(b"RIFF\0\0\0\0WAVEfmt ")) is False


def test_a_jpeg_wider_than_libjpeg_writes_is_refused_with_the_limit(tmp_path):
    # libjpeg printed "Maximum supported image dimension is 65500 pixels" and the save
    # failed with "OSError: broken data stream when writing image file".
    from cresize.image import JPEG_MAX_SIDE

    save_image(np.zeros((1, JPEG_MAX_SIDE), np.uint8), tmp_path / "widest.jpg")
    with Image.open(tmp_path / "widest.jpg") as opened:
        assert opened.size == (JPEG_MAX_SIDE, 1)
    for shape in [(1, JPEG_MAX_SIDE + 1), (JPEG_MAX_SIDE + 1, 1, 3)]:
        with pytest.raises(ValueError, match=r"a JPEG is at most 65,500 pixels.*write PNG"):
            save_image(np.zeros(shape, np.uint8), tmp_path / "wide.jpg")
    assert sorted(os.listdir(tmp_path)) == ["widest.jpg"]


def test_a_gif_wider_than_the_format_holds_is_refused_with_the_limit(tmp_path):
    # A GIF's width and height are 16-bit fields: Pillow's writer failed with a bare
    # "OverflowError: int too big to convert" (cresize resize: a 100000x1 --format gif).
    from cresize.image import GIF_MAX_SIDE

    save_image(np.zeros((1, GIF_MAX_SIDE), np.uint8), tmp_path / "widest.gif")
    with Image.open(tmp_path / "widest.gif") as opened:
        assert opened.size == (GIF_MAX_SIDE, 1)
    for shape in [(1, GIF_MAX_SIDE + 1), (GIF_MAX_SIDE + 1, 1, 3), (1, 100_000, 4)]:
        with pytest.raises(ValueError, match=r"a GIF is at most 65,535 pixels.*write PNG"):
            save_image(np.zeros(shape, np.uint8), tmp_path / "wide.gif")
    assert sorted(os.listdir(tmp_path)) == ["widest.gif"]


def test_a_webp_wider_than_libwebp_writes_is_refused_with_the_limit(tmp_path):
    # docs/files.md gives the WebP limit beside JPEG's and GIF's, which are refused in
    # cresize's words; a WebP failed in Pillow's encoder ("encoding error 5: Image size
    # exceeds WebP limit of 16383 pixels").
    from cresize.image import WEBP_MAX_SIDE

    save_image(np.zeros((1, WEBP_MAX_SIDE, 3), np.uint8), tmp_path / "widest.webp")
    with Image.open(tmp_path / "widest.webp") as opened:
        assert opened.size == (WEBP_MAX_SIDE, 1)
    for shape in [(1, WEBP_MAX_SIDE + 1, 3), (WEBP_MAX_SIDE + 1, 1), (1, 20_000, 4)]:
        with pytest.raises(ValueError, match=r"a WebP is at most 16,383 pixels.*write PNG"):
            save_image(np.zeros(shape, np.uint8), tmp_path / "wide.webp")
    assert sorted(os.listdir(tmp_path)) == ["widest.webp"]


def test_a_png_longer_than_opencv_writes(tmp_path):
    # OpenCV's libpng writes at most 1,000,000 pixels a side: a longer PNG failed with
    # "OSError: OpenCV could not encode a (1, 1000001, 3) uint8 image as PNG" (and
    # libpng's and OpenCV's lines on stderr); Pillow writes it.
    pytest.importorskip("cv2")
    from cresize.image import PNG_OPENCV_MAX_SIDE

    longest = PNG_OPENCV_MAX_SIDE + 1
    for shape, mode in [((1, longest, 3), "RGB"), ((longest, 1), "L"), ((1, longest, 4), "RGBA")]:
        pixels = np.arange(np.prod(shape), dtype=np.uint64).reshape(shape).astype(np.uint8)
        save_image(pixels, tmp_path / "long.png", overwrite=True)
        with Image.open(tmp_path / "long.png") as back:
            assert back.mode == mode and back.size == (shape[1], shape[0])
            np.testing.assert_array_equal(np.asarray(back), pixels)
    grey16 = np.arange(longest, dtype=np.uint16).reshape(1, longest)  # I;16: Pillow's
    save_image(grey16, tmp_path / "grey16.png")
    with Image.open(tmp_path / "grey16.png") as opened:
        np.testing.assert_array_equal(np.asarray(opened), grey16)
    with pytest.raises(ValueError, match=r"at most 1,000,000 pixels a side; this image is "):
        save_image(np.zeros((1, longest, 3), np.uint16), tmp_path / "deep.png")
    assert sorted(os.listdir(tmp_path)) == ["grey16.png", "long.png"]


def test_arrays_need_no_pillow(monkeypatch, tmp_path):
    for name in [m for m in sys.modules if m == "PIL" or m.startswith("PIL.")]:
        monkeypatch.setitem(sys.modules, name, None)
    assert resize_image(photo(10, 12), (6, 5)).shape == (5, 6, 3)
    with pytest.raises(ImportError, match=r'pip install "cresize\[image\]"'):
        resize_image(tmp_path / "a.png", (6, 5))
    with pytest.raises(ImportError, match=r'pip install "cresize\[image\]"'):
        save_image(photo(4, 4), tmp_path / "a.png")


# ---------------------------------------------------------------------------
# One integer rounding (issue 11, item 5)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32, np.uint32])
def test_alpha_arrays_keep_integer_maxima(dtype):
    info = np.iinfo(dtype)
    rgba = np.full((6, 6, 4), info.max, dtype)
    out = resize_image(rgba, (3, 3), mode="bilinear")
    assert out.dtype == dtype
    # the float maximum rounds up past the range; it must clip, not wrap to min / 0
    assert (out.astype(np.float64) >= float(info.max) * (1 - 1e-6)).all(), out[..., 0]


def test_round_to_is_the_core_rule():
    from cresize._dtypes import round_to

    v = np.array([-1e30, -0.5, 0.5, 1.5, 2.49, 254.5, 255.5, 1e30, 2.0**63, 2.0**64])
    np.testing.assert_array_equal(round_to(np.uint8, v), [0, 0, 0, 2, 2, 254, 255, 255, 255, 255])
    big = round_to(np.int64, v)
    assert big[-1] == big[-2] == np.iinfo(np.int64).max - 1023 and big[0] == np.iinfo(np.int64).min
    assert round_to(np.uint64, v)[-1] == 2**64 - 2048
    x = np.array([[0, 2**62, 2**63 - 1]] * 3, np.int64)
    np.testing.assert_array_equal(  # the core's 32/64-bit path is this function
        cresize.resize(x, (3, 5), mode="bicubic"),
        round_to(np.int64, cresize.resize(x.astype(np.float64), (3, 5), mode="bicubic")),
    )
    with pytest.raises(TypeError, match="dtype must be an integer"):
        round_to(np.float32, v)


# ---------------------------------------------------------------------------
# Shrink-on-load (JPEG draft)


def psnr(a, b):
    err = np.mean((np.asarray(a, np.float64) - np.asarray(b, np.float64)) ** 2)
    return 10 * np.log10(255.0**2 / err) if err else np.inf


def zone_plate(h, w):
    """Rings whose frequency rises to the Nyquist limit: the worst case for aliasing."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    v = 0.5 + 0.5 * np.cos(np.pi * ((x - w / 2) ** 2 + (y - h / 2) ** 2) / (2 * w))
    return np.repeat(np.clip(np.rint(v * 255), 0, 255).astype(np.uint8)[..., None], 3, -1)


@pytest.mark.parametrize(
    "kwargs", [dict(fit=(100, 100)), dict(fill=(90, 60)), dict(size=(57, None)), dict(scale=0.11)]
)
@pytest.mark.parametrize("content", ["photo", "zone plate"])
def test_shrink_on_load_within_40db_of_exact(tmp_path, kwargs, content):
    pixels = photo(480, 640) if content == "photo" else zone_plate(480, 640)
    Image.fromarray(pixels).save(tmp_path / "in.jpg", quality=92)
    fast = resize_image(tmp_path / "in.jpg", **kwargs)
    exact = resize_image(tmp_path / "in.jpg", **kwargs, exact=True)
    full = resize_image(open_image(tmp_path / "in.jpg"), **kwargs)  # a decoded image: no draft
    assert fast.size == exact.size == full.size
    np.testing.assert_array_equal(np.asarray(exact), np.asarray(full))
    assert np.asarray(fast).tobytes() != np.asarray(exact).tobytes()  # it did decode reduced
    # photos: far above 40 dB; the zone plate is the documented worst case (about 40 dB)
    assert psnr(fast, exact) >= (50 if content == "photo" else 38)


@pytest.mark.parametrize("decoder", ["opencv", "pillow"])
def test_shrink_on_load_decodes_at_least_the_margin(tmp_path, monkeypatch, decoder):
    if decoder == "opencv":
        pytest.importorskip("cv2")
    else:
        monkeypatch.setitem(sys.modules, "cv2", None)
    Image.fromarray(photo(400, 800)).save(tmp_path / "in.jpg")
    import cresize.image

    sizes = []
    real = cresize.image._resize_array

    def resample(array, *args):
        sizes.append(array.shape[1::-1])  # (width, height) of what was decoded
        return real(array, *args)

    monkeypatch.setattr(cresize.image, "_resize_array", resample)
    from cresize.image import SHRINK_ON_LOAD_MARGIN

    assert SHRINK_ON_LOAD_MARGIN == 2.5
    for box, decoded in [
        (80, (200, 100)),  # 80x40 -> at least 200x100: 1/4
        (40, (100, 50)),  # 40x20 -> 1/8
        (81, (400, 200)),  # 81x41 -> at least 203x103: 1/2
        (161, (800, 400)),
    ]:  # 161x81 -> at least 403x203: full
        sizes.clear()
        resize_image(tmp_path / "in.jpg", fit=(box, box))
        assert sizes == [decoded], box
    sizes.clear()
    resize_image(tmp_path / "in.jpg", fit=(80, 80), exact=True)
    assert sizes == [(800, 400)]
    with pytest.raises(TypeError, match="exact"):
        resize_image(tmp_path / "in.jpg", fit=(100, 100), exact=1)


@pytest.mark.parametrize("orientation", [1, 3, 6, 8])
@pytest.mark.parametrize("grey", [False, True])
@pytest.mark.parametrize("exact", [False, True])
def test_opencv_and_pillow_jpeg_decodes_agree(tmp_path, monkeypatch, orientation, grey, exact):
    # OpenCV decodes RGB and grey JPEGs (the same libjpeg-turbo decode, into NumPy
    # directly); without it Pillow does. Pixels, size, ICC profile and EXIF agree.
    pytest.importorskip("cv2")
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010F] = "cresize-test"
    im, icc = Image.fromarray(photo(300, 420)), srgb_icc()  # the profile holds its creation time
    (im.convert("L") if grey else im).save(
        tmp_path / "in.jpg", quality=90, exif=exif.tobytes(), icc_profile=icc
    )
    fast = resize_image(tmp_path / "in.jpg", fit=(60, 60), exact=exact)
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "cv2", None)
        slow = resize_image(tmp_path / "in.jpg", fit=(60, 60), exact=exact)
    assert fast.mode == slow.mode == ("L" if grey else "RGB")
    assert fast.size == slow.size == ((60, 43) if orientation in (1, 3) else (43, 60))
    np.testing.assert_array_equal(np.asarray(fast), np.asarray(slow))
    assert fast.info == slow.info
    assert fast.getexif().get(0x0112, 1) == 1 and fast.getexif()[0x010F] == "cresize-test"
    assert fast.info["icc_profile"] == icc


def test_a_jpeg_opencv_cannot_decode_goes_to_pillow(tmp_path, monkeypatch):
    # OpenCV gives no image for a truncated JPEG; Pillow then decodes it and says why not.
    cv2 = pytest.importorskip("cv2")
    path = tmp_path / "in.jpg"
    Image.fromarray(photo(200, 300)).save(path)
    whole = resize_image(path, fit=(50, 50))
    # OpenCV raising (as beyond its pixel limit): Pillow decodes it, to the same pixels.
    calls = []

    def refuse(*args):
        calls.append(args)
        raise cv2.error("too large")

    monkeypatch.setattr(cv2, "imdecode", refuse)
    np.testing.assert_array_equal(np.asarray(resize_image(path, fit=(50, 50))), np.asarray(whole))
    assert len(calls) == 1
    monkeypatch.undo()
    path.write_bytes(path.read_bytes()[:-200])
    with pytest.raises(OSError, match="truncated"):
        resize_image(path, fit=(50, 50))


def test_shrink_on_load_of_a_rotated_jpeg(tmp_path):
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.fromarray(photo(200, 480)).save(tmp_path / "in.jpg", exif=exif.tobytes(), quality=95)
    fast = resize_image(tmp_path / "in.jpg", fit=(50, 50))
    exact = resize_image(tmp_path / "in.jpg", fit=(50, 50), exact=True)
    assert fast.size == exact.size == (21, 50)  # upright: 200 wide, 480 high
    assert psnr(fast, exact) >= 40


@pytest.mark.parametrize("orientation", range(1, 9))
def test_orient_is_exif_transpose(orientation):
    from cresize.image import _orient

    pixels = photo(5, 7)
    im = Image.fromarray(pixels)
    exif = im.getexif()
    exif[0x0112] = orientation
    im.info["exif"] = exif.tobytes()
    want = np.asarray(ImageOps.exif_transpose(im))
    np.testing.assert_array_equal(_orient(pixels, orientation), want)


# ---------------------------------------------------------------------------
# 16-bit colour (OpenCV)


def rgb16(h, w, channels, seed=0):
    """Photo-like 16-bit samples whose low bytes matter."""
    wide = photo(h, w, channels, seed).astype(np.uint16) * 257
    return wide ^ np.random.default_rng(seed).integers(0, 256, wide.shape).astype(np.uint16)


def write16(path, pixels):
    cv2 = pytest.importorskip("cv2")
    order = [2, 1, 0, 3][: pixels.shape[2]]
    assert cv2.imwrite(str(path), np.ascontiguousarray(pixels[..., order]))
    return path


def read16(path):
    cv2 = pytest.importorskip("cv2")
    bgr = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    return bgr[..., [2, 1, 0, 3][: bgr.shape[2]]]


@pytest.mark.parametrize("ext", ["png", "tif"])
@pytest.mark.parametrize("channels", [3, 4])
def test_16bit_colour_is_kept(tmp_path, ext, channels):
    pixels = rgb16(60, 80, channels)
    src = write16(tmp_path / f"in.{ext}", pixels)
    with Image.open(src) as opened:
        assert opened.mode == ("RGB", "RGBA")[channels - 3]  # Pillow would say 8-bit
    read = open_image(src)
    assert read.dtype == np.uint16
    np.testing.assert_array_equal(read, pixels)
    got = resize_image(src, (30, 23))
    assert got.dtype == np.uint16 and got.shape == (23, 30, channels)
    np.testing.assert_array_equal(got, resize_image(pixels, (30, 23)))
    assert (got & 0xFF).any() and got.max() > 255
    if channels == 3:  # within 1 of the exact (float64) result
        exact = cresize.resize(
            pixels.astype(np.float64), (23, 30), mode="lanczos3", antialias=True, axes=(0, 1)
        )
        assert np.abs(got - np.clip(np.rint(exact), 0, 65535)).max() <= 1
    save_image(got, tmp_path / f"out.{ext}")
    np.testing.assert_array_equal(read16(tmp_path / f"out.{ext}"), got)


def test_16bit_grey_with_a_transparent_value_keeps_16_bits(tmp_path):
    # A 16-bit grey PNG with a tRNS value (Pillow: mode I;16, info["transparency"]) was
    # converted to 8-bit RGBA before the resample: its low 8 bits were lost without a word.
    grey = rgb16(40, 60, 3)[..., 0]
    grey[:10] = 1000
    src = tmp_path / "in.png"
    Image.fromarray(grey).save(src, transparency=1000)
    with Image.open(src) as opened:
        assert opened.mode == "I;16"
    alpha = np.where(grey == 1000, 0, 65535).astype(np.uint16)
    want = resize_image(np.dstack([grey, alpha]), (30, 20))
    with Image.open(src) as opened:
        both = [resize_image(image, (30, 20)) for image in (src, opened)]
    for got in both:
        assert isinstance(got, np.ndarray) and got.dtype == np.uint16 and got.shape == (20, 30, 2)
        np.testing.assert_array_equal(got, want)
        assert (got[..., 0] & 0xFF).any() and (got[..., 1] == 0).any()
    save_image(got, tmp_path / "out.png")
    written = read16(tmp_path / "out.png")  # grey and alpha, at 16 bits
    np.testing.assert_array_equal(written[..., [0, 3]], got)


def test_a_16bit_rgb_png_s_transparent_colour_made_alpha_leaves_info(tmp_path):
    # OpenCV reads a 16-bit RGB PNG with a tRNS colour as RGBA (the colour's pixels alpha
    # 0), but the ImageArray kept info["transparency"], which Pillow images lose once the
    # colour is alpha (resize_image: _without_transparency): a caller reading info saw a
    # transparent colour for an image that already has alpha
    pytest.importorskip("cv2")
    from helpers.png16 import chunk, png16

    rgb = rgb16(20, 30, 3)
    rgb[:5] = (1000, 2000, 3000)
    src = png16(tmp_path / "in.png", rgb, dpi=300)
    data = src.read_bytes()
    src.write_bytes(data[:33] + chunk(b"tRNS", struct.pack(">3H", 1000, 2000, 3000)) + data[33:])
    with Image.open(src) as opened:
        assert opened.info["transparency"] == (1000, 2000, 3000)
        rest = {k: v for k, v in opened.info.items() if k != "transparency"}
    assert rest["dpi"] == pytest.approx((300, 300), abs=0.01)
    got = open_image(src)
    assert got.shape == (20, 30, 4) and got.dtype == np.uint16
    assert (got[:5, ..., 3] == 0).all() and (got[5:, ..., 3] == 65535).all()
    assert got.info == rest
    resized = resize_image(src, scale=0.5)
    assert resized.shape == (10, 15, 4) and resized.info == rest
    # the 8-bit one, a Pillow image: its colour made alpha, and left out of info alike
    Image.fromarray(photo(20, 30)).save(
        tmp_path / "in8.png", transparency=(1, 2, 3), dpi=(300, 300)
    )
    pillow = resize_image(tmp_path / "in8.png", scale=0.5)
    assert pillow.mode == "RGBA" and "transparency" not in pillow.info


@pytest.mark.parametrize("maxval", [65535, 4095])
@pytest.mark.parametrize("plain", [False, True])
def test_a_16bit_ppm_keeps_16_bits(tmp_path, maxval, plain):
    # A PPM of more than 8 bits (maxval > 255: dcraw -4, netpbm) was read by Pillow,
    # which scales its samples to 8 bits: the output was 8-bit without a word. White
    # is maxval: scaled to 65535, as Pillow scales a PGM of grey to its mode I.
    pytest.importorskip("cv2")
    pixels = (rgb16(20, 30, 3).astype(np.uint32) % (maxval + 1)).astype(np.uint16)
    src = tmp_path / "in.ppm"
    if plain:
        body = " ".join(map(str, pixels.ravel())).encode()
        src.write_bytes(b"P3\n30 20\n%d\n" % maxval + body + b"\n")
    else:
        src.write_bytes(b"P6\n30 20\n%d\n" % maxval + pixels.astype(">u2").tobytes())
    want = (pixels.astype(np.uint32) * 65535 + maxval // 2) // maxval
    got = open_image(src)
    assert got.dtype == np.uint16
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(resize_image(src, scale=0.5), resize_image(got, scale=0.5))
    grey = tmp_path / "grey.pgm"  # the rule Pillow has for grey
    grey.write_bytes(b"P5\n30 20\n%d\n" % maxval + pixels[..., 0].astype(">u2").tobytes())
    np.testing.assert_array_equal(np.asarray(open_image(grey)), want[..., 0])


@pytest.mark.parametrize("channels", [3, 4])
def test_a_16bit_jpeg2000_keeps_16_bits(tmp_path, channels):
    # Pillow reads a 16-bit RGB(A) JPEG 2000 as 8-bit, and says nothing (its mode is
    # RGB either way): the depth is read from the codestream's SIZ marker, and OpenCV
    # reads the pixels, in a JP2 file and in a bare codestream (J2K).
    cv2 = pytest.importorskip("cv2")
    from PIL import features

    if not features.check("jpg_2000"):
        pytest.skip("Pillow without OpenJPEG")
    pixels = rgb16(100, 120, channels)
    jp2 = tmp_path / "in.jp2"
    assert cv2.imwrite(str(jp2), pixels[..., [2, 1, 0, 3][:channels]])
    j2k = tmp_path / "in.j2k"  # the jp2c box's content
    data = jp2.read_bytes()
    j2k.write_bytes(data[data.index(b"jp2c") + 4 :])
    want = read16(jp2)  # OpenCV writes JPEG 2000 lossy (within 1024 here)
    assert (want & 0xFF).any() and np.abs(want.astype(np.int32) - pixels).max() < 1024
    for src in (jp2, j2k):
        with Image.open(src) as opened:
            assert opened.mode == ("RGB", "RGBA")[channels - 3]  # 8-bit to Pillow
        got = open_image(src)
        assert isinstance(got, np.ndarray) and got.dtype == np.uint16
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(resize_image(src, (60, 50)), resize_image(want, (60, 50)))
    eight = tmp_path / "eight.jp2"  # 8 bits stay Pillow's
    Image.fromarray((pixels >> 8).astype(np.uint8)).save(eight)
    assert isinstance(open_image(eight), Image.Image)


def _opencv_jp2(path, pixels):
    """The bytes of the RGB ``pixels`` written to ``path`` as JP2 by OpenCV (lossy);
    skipped without OpenCV, or with a Pillow without OpenJPEG."""
    cv2 = pytest.importorskip("cv2")
    from PIL import features

    if not features.check("jpg_2000"):
        pytest.skip("Pillow without OpenJPEG")
    assert cv2.imwrite(str(path), pixels[..., [2, 1, 0]])
    return path.read_bytes()


def test_a_jpeg2000_codestream_box_of_64bit_length_keeps_16_bits(tmp_path):
    # A jp2c box with a 64-bit length (length 1, then 8 bytes) was entered 8 bytes in,
    # at the length: no SIZ found, and the 16-bit file read as 8-bit, silently. Its
    # boxes are read by _isobmff_boxes (the AVIF one). Damaged files (mutated headers,
    # cut short) are read or refused with an OSError or ValueError, as before, and
    # never as 8-bit where their header says more.
    from cresize.image import _jpeg2000_depth, _read

    jp2 = tmp_path / "in.jp2"
    data = _opencv_jp2(jp2, rgb16(48, 64, 3))
    box = data.index(b"jp2c") - 4
    long_box = (
        data[:box]
        + (1).to_bytes(4, "big")
        + b"jp2c"
        + (len(data) - box + 8).to_bytes(8, "big")
        + data[box + 8 :]
    )
    src = tmp_path / "xl.jp2"
    src.write_bytes(long_box)
    got = open_image(src)
    assert isinstance(got, np.ndarray) and got.dtype == np.uint16
    np.testing.assert_array_equal(got, read16(jp2))
    rng = np.random.default_rng(0)
    for k in range(120):
        mutated = bytearray((data, long_box)[k % 2])
        at = int(rng.integers(0, 120))  # the boxes before the codestream, its SIZ
        if k % 3 == 0:
            mutated[at] = int(rng.integers(0, 256))
        elif k % 3 == 1:
            del mutated[at : at + int(rng.integers(1, 9))]
        else:
            mutated = mutated[: int(rng.integers(8, len(mutated)))]
        bad = tmp_path / f"bad{k}.jp2"
        bad.write_bytes(bytes(mutated))
        try:
            image, _ = _read(bad)
        except (OSError, ValueError, Image.DecompressionBombError):
            continue
        with Image.open(bad) as im:  # what the header says: then the pixels have it
            deep = _jpeg2000_depth(im) not in (None, (8, False))
        assert np.asarray(image).dtype == (np.uint16 if deep else np.uint8), k


def _siz(depths, length=None):
    """A JPEG 2000 codestream's start: SOC, SIZ of 64x48 and the components ``depths``
    (their Ssiz bytes); ``length``: its Lsiz, if not the one of those components."""
    comps = b"".join(bytes([d, 1, 1]) for d in depths)
    length = 38 + len(comps) if length is None else length
    sizes = struct.pack(">IIIIIIII", 64, 48, 0, 0, 64, 48, 0, 0)
    head = b"\xff\x4f\xff\x51" + struct.pack(">HH", length, 0) + sizes
    return head + struct.pack(">H", len(depths)) + comps + b"\xff\x90"


def _box(kind, body, size=None):
    return struct.pack(">I", 8 + len(body) if size is None else size) + kind + body


def test_a_jpeg2000_header_is_read_by_its_lengths_and_a_damaged_one_is_none():
    # ISO/IEC 15444-1: a JP2's boxes (length 0: to the end; 1: a 64-bit length follows)
    # to the jp2c box, whose codestream begins with SOC and SIZ (Lsiz = 38 + 3 Csiz;
    # Ssiz: bits - 1, up to 38 bits, top bit signed). A SIZ whose length is not its
    # components' was read anyway (the bytes after it taken for depths), a depth of 128
    # bits given (refused as "a 128-bit JPEG 2000"): OpenJPEG refuses both as damaged.
    from cresize.image import _jpeg2000_file_depth as depth

    sig = _box(b"jP  ", b"\r\n\x87\n") + _box(b"ftyp", b"jp2 \0\0\0\0jp2 ")
    code = _siz([15, 15, 0x87])
    assert depth(io.BytesIO(code)) == (16, True)
    assert depth(io.BytesIO(sig + _box(b"jp2c", code))) == (16, True)
    assert depth(io.BytesIO(sig + _box(b"jp2c", code, size=0))) == (16, True)
    wide = struct.pack(">I4sQ", 1, b"jp2c", 16 + len(code)) + code
    assert depth(io.BytesIO(sig + wide)) == (16, True)
    assert depth(io.BytesIO(sig + _box(b"jp2c", code, size=1 << 20))) == (16, True)
    far = struct.pack(">I4sQ", 1, b"uuid", (1 << 64) - 1)  # past any file, and any seek
    for damaged in (
        _siz([7], length=38 + 6),  # Lsiz says two components, Csiz one
        _siz([7, 7], length=38 + 3),
        _siz([0x7F]),  # 128 bits
        _siz([]),  # no components
        _siz([15, 15, 15])[:44],  # cut short in the components
        sig + far + _box(b"jp2c", code),
        sig + _box(b"jp2c", b"\xff\x4f\xff\x51"),  # cut short in SIZ
        sig + _box(b"jp2c", code, size=4),  # shorter than its header
        sig,
        b"",
    ):
        assert depth(io.BytesIO(damaged)) is None, damaged[:60]
    assert depth(io.BytesIO(_siz([37]))) == (38, False)  # the most the standard has


def test_a_jpeg2000_codestream_after_the_first_64kib_keeps_16_bits(tmp_path):
    # The boxes were looked for in the file's first 64 KiB: a JP2 of a larger box before
    # its codestream (XML metadata, an ICC profile) was read as 8-bit, silently. The
    # boxes are skipped by seeking.
    jp2 = tmp_path / "in.jp2"
    data = _opencv_jp2(jp2, rgb16(48, 64, 3))
    box = data.index(b"jp2c") - 4
    xml = _box(b"xml ", b"<x>" + b" " * (100 << 10) + b"</x>")
    src = tmp_path / "xml.jp2"
    src.write_bytes(data[:box] + xml + data[box:])
    with Image.open(src) as im:
        assert im.mode == "RGB"  # 8-bit to Pillow
    got = open_image(src)
    assert isinstance(got, np.ndarray) and got.dtype == np.uint16
    np.testing.assert_array_equal(got, read16(jp2))


def test_a_16bit_grey_and_alpha_jpeg2000_is_refused_with_the_reason(tmp_path):
    # Taken for 16-bit colour, it went to OpenCV, which reads no 2-component JPEG 2000:
    # "OSError: OpenCV could not read ... as 16-bit colour". Refused with the reason,
    # as a 16-bit CMYK TIFF is (Pillow would keep 8 bits of 16).
    pytest.importorskip("cv2")
    from PIL import features

    if not features.check("jpg_2000"):
        pytest.skip("Pillow without OpenJPEG")
    la = Image.fromarray(photo(16, 20)[..., :2].copy(), "LA")
    j2k = tmp_path / "la16.j2k"
    la.save(j2k, "JPEG2000", irreversible=False, no_jp2=True)
    data = bytearray(j2k.read_bytes())
    siz = data.index(b"\xff\x51")  # Lsiz, Rsiz, 8 sizes of 4 bytes, Csiz, (Ssiz, XRsiz, YRsiz)
    assert int.from_bytes(data[siz + 38 : siz + 40], "big") == 2
    data[siz + 40] = data[siz + 43] = 15  # 16 bits a sample (lossless: the same code)
    j2k.write_bytes(data)
    with Image.open(j2k) as opened:
        assert opened.mode == "LA"  # 8-bit to Pillow
    with pytest.raises(ValueError, match=r"16-bit grey-and-alpha JPEG 2000.*convert it"):
        open_image(j2k)


def _jpeg2000_of(path, mode, bits, signed, jp2=False):
    """A lossless JPEG 2000 of ``mode`` (Pillow's 8-bit code) whose headers say ``bits``
    bits a sample, ``signed`` or not: what the reader's check reads (the SIZ marker's
    Ssiz of each component; in a JP2 file, the ihdr box's too)."""
    from PIL import features

    if not features.check("jpg_2000"):
        pytest.skip("Pillow without OpenJPEG")
    channels = {"RGB": 3, "RGBA": 4}[mode]
    Image.fromarray(photo(16, 20, channels), mode).save(
        path, "JPEG2000", irreversible=False, no_jp2=not jp2
    )
    data = bytearray(path.read_bytes())
    depth = (bits - 1) | (0x80 if signed else 0)
    siz = data.index(b"\xff\x51")  # Lsiz, Rsiz, 8 sizes of 4 bytes, Csiz, (Ssiz, XRsiz, YRsiz)
    assert int.from_bytes(data[siz + 38 : siz + 40], "big") == channels
    for k in range(channels):
        data[siz + 40 + 3 * k] = depth
    if jp2:  # ihdr: height, width (4 bytes each), components (2), bits a component (1)
        data[data.index(b"ihdr") + 14] = depth
    path.write_bytes(data)
    with Image.open(path) as opened:
        assert opened.mode == mode  # Pillow would read it as 8-bit
    return path


@pytest.mark.parametrize("jp2", [False, True], ids=["j2k", "jp2"])
@pytest.mark.parametrize(
    "mode, bits, signed",
    [("RGB", 16, True), ("RGBA", 12, True), ("RGB", 17, False), ("RGBA", 24, False)],
)
def test_a_signed_or_deeper_than_16bit_jpeg2000_is_refused_with_the_reason(
    tmp_path, mode, bits, signed, jp2
):
    # Taken for 16-bit colour, such a file went to OpenCV, which reads neither (its
    # errors "Component 0/3 is signed", "output precision > 16 not supported" on stderr,
    # then "OSError: OpenCV could not read ... as 16-bit colour"; without OpenCV a
    # ValueError to install it). Refused up front, from the header, with what is read.
    src = _jpeg2000_of(tmp_path / f"in.{'jp2' if jp2 else 'j2k'}", mode, bits, signed, jp2)
    sign = "signed " if signed else ""
    want = (
        rf"^{re.escape(str(src))} is a {bits}-bit {sign}{mode} JPEG 2000, which neither "
        r"Pillow \(8 bits\) nor OpenCV reads; .* of unsigned RGB or RGBA samples of up to "
        r"16 bits \(OpenCV\); convert it to unsigned 16-bit PNG or TIFF first$"
    )
    with pytest.raises(ValueError, match=want):
        open_image(src)
    with pytest.raises(ValueError, match=want):
        resize_image(src, scale=0.5)


def test_jpeg2000_headers_that_opencv_reads_or_pillow_reads_are_not_refused(tmp_path):
    # The refusal is for what would go to OpenCV and fail there: 16-bit unsigned colour
    # goes on to OpenCV; 8-bit signed colour stays Pillow's (which offsets it by 128)
    assert isinstance(open_image(_jpeg2000_of(tmp_path / "s8.j2k", "RGB", 8, True)), Image.Image)
    pytest.importorskip("cv2")
    got = open_image(_jpeg2000_of(tmp_path / "u16.j2k", "RGBA", 16, False))
    assert got.dtype == np.uint16 and got.shape == (16, 20, 4)


def test_opencv_says_nothing_of_a_jpeg2000_codestream_s_colour_space(tmp_path, capfd):
    # OpenCV wrote "[ WARN:0@0.2] ... OpenJPEG2000: Image has unknown or unspecified
    # color space, SRGB is assumed" to stderr for each 16-bit colour J2K (a bare
    # codestream has no colour box; Pillow assumes sRGB for 8-bit ones without a word).
    # Its warnings are off while it decodes a JPEG 2000; its errors are not, and its log
    # level is restored after, the user's own (lower or higher) kept.
    cv2 = pytest.importorskip("cv2")
    import concurrent.futures

    from PIL import features

    if not features.check("jpg_2000"):
        pytest.skip("Pillow without OpenJPEG")
    jp2 = tmp_path / "in.jp2"
    assert cv2.imwrite(str(jp2), rgb16(100, 120, 3))  # smaller: too many resolutions
    data = jp2.read_bytes()
    j2k = tmp_path / "in.j2k"
    j2k.write_bytes(data[data.index(b"jp2c") + 4 :])
    cut = tmp_path / "cut.j2k"
    cut.write_bytes(j2k.read_bytes()[: len(data) // 2])
    logging = _cv_log(cv2)
    before = logging.getLogLevel()
    try:
        for level in (CV_WARNING, CV_INFO):
            logging.setLogLevel(level)
            capfd.readouterr()
            assert open_image(j2k).dtype == np.uint16
            assert "color space" not in capfd.readouterr().err
            with pytest.raises(OSError, match="OpenCV could not read"):
                open_image(cut)
            assert "OpenJPEG2000" in capfd.readouterr().err  # the error, said
            with concurrent.futures.ThreadPoolExecutor(4) as pool:  # the CLI's jobs
                assert all(a.dtype == np.uint16 for a in pool.map(open_image, [j2k] * 40))
            assert "color space" not in capfd.readouterr().err
            assert logging.getLogLevel() == level
        logging.setLogLevel(CV_SILENT)
        with pytest.raises(OSError, match="OpenCV could not read"):
            open_image(cut)
        assert capfd.readouterr().err == ""
        assert logging.getLogLevel() == CV_SILENT
    finally:
        logging.setLogLevel(before)


#: OpenCV's log levels (the same numbers in OpenCV 5's ``cv2.utils.logging`` and 4.x's
#: ``cv2.setLogLevel``)
CV_SILENT, CV_ERROR, CV_WARNING, CV_INFO, CV_DEBUG = 0, 2, 3, 4, 5


def _cv_log(cv2):
    """OpenCV's ``getLogLevel``/``setLogLevel``: ``cv2.utils.logging`` (5.x) or ``cv2`` (4.x)."""
    return getattr(getattr(cv2, "utils", None), "logging", None) or cv2


def test_opencv_log_level_set_while_a_jpeg2000_decodes_is_kept():
    # _opencv_quiet lowers OpenCV's one log level while a JPEG 2000 decodes (the CLI's
    # threads decode at once); a level the user (another thread) set meanwhile was
    # undone by the last decode out, which restored the level from before.
    cv2 = pytest.importorskip("cv2")
    from cresize.image import _opencv_quiet

    logging = _cv_log(cv2)
    before = logging.getLogLevel()
    try:
        logging.setLogLevel(CV_WARNING)
        with _opencv_quiet(cv2):
            assert logging.getLogLevel() == CV_ERROR
            logging.setLogLevel(CV_DEBUG)  # the user's, meanwhile
        assert logging.getLogLevel() == CV_DEBUG
        logging.setLogLevel(CV_INFO)
        with pytest.raises(KeyError), _opencv_quiet(cv2), _opencv_quiet(cv2):
            raise KeyError("the decode failed")  # restored after an exception too
        assert logging.getLogLevel() == CV_INFO
    finally:
        logging.setLogLevel(before)


def test_opencv_quiet_takes_either_opencv_log_api_or_none():
    # cv2.utils.logging is OpenCV 5's; 4.x (the image extra's floor, 4.11) has the same
    # level as cv2.getLogLevel/setLogLevel, and _opencv_quiet failed there with
    # "module 'cv2.utils' has no attribute 'logging'" on every 16-bit JPEG 2000
    import types

    from cresize.image import _opencv_quiet

    levels = []
    four = types.SimpleNamespace(
        utils=types.SimpleNamespace(),  # no logging in it, as in 4.11
        getLogLevel=lambda: levels[-1] if levels else CV_WARNING,
        setLogLevel=levels.append,
    )
    with _opencv_quiet(four):
        assert four.getLogLevel() == CV_ERROR
    assert levels == [CV_ERROR, CV_WARNING]
    with _opencv_quiet(types.SimpleNamespace()):  # neither: the warning is printed
        pass


@pytest.mark.parametrize("kind", ["rgb8", "grey16", "rgb16", "palette"])
def test_png_gamma_chromaticity_and_srgb_are_kept(tmp_path, kind):
    # A PNG's gAMA chunk (and cHRM, sRGB) was dropped: a gamma-1.0 (linear) PNG came out
    # without it, and so looked darker. Every PNG writer keeps them now: OpenCV's
    # 8-bit and 16-bit pixels, Pillow's (grey 16-bit, palette through nearest).
    import struct

    from PIL import PngImagePlugin

    if kind != "grey16":
        pytest.importorskip("cv2")
    pixels = {
        "rgb8": photo(40, 60),
        "grey16": rgb16(40, 60, 3)[..., 0],
        "rgb16": rgb16(40, 60, 3),
        "palette": photo(40, 60),
    }[kind]
    chroma = (31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000)
    for srgb in (False, True):
        info = PngImagePlugin.PngInfo()
        info.add(b"gAMA", struct.pack(">I", 100000))
        info.add(b"cHRM", struct.pack(">8I", *chroma))
        if srgb:
            info.add(b"sRGB", b"\x01")
        src = tmp_path / f"{kind}{srgb}.png"
        if kind == "rgb16":
            write16(src, pixels)  # no chunks of its own: add them after IHDR
            data = src.read_bytes()
            extra = b"".join(_png_chunk(k, v) for k, v, *_ in info.chunks)
            src.write_bytes(data[:33] + extra + data[33:])
        else:
            im = Image.fromarray(pixels)
            (im.quantize(16) if kind == "palette" else im).save(src, pnginfo=info)
        out = tmp_path / "out.png"
        mode = "nearest" if kind == "palette" else "lanczos3"
        save_image(resize_image(src, (30, 20), mode=mode), out, overwrite=True)
        with Image.open(out) as im:
            assert im.info["gamma"] == 1.0, im.info
            assert im.info["chromaticity"] == tuple(v / 100000 for v in chroma)
            assert im.info.get("srgb") == (1 if srgb else None)
    with_icc = tmp_path / "icc.png"  # an ICC profile: no sRGB beside it
    with Image.open(src) as im:
        im.convert("RGB").save(with_icc, pnginfo=info, icc_profile=srgb_icc())
    save_image(resize_image(with_icc, (30, 20)), out, overwrite=True)
    with Image.open(out) as im:
        assert im.info["gamma"] == 1.0 and "icc_profile" in im.info and "srgb" not in im.info


def _png_chunk(kind, body):
    import struct
    import zlib

    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


@pytest.mark.parametrize("mode", ["LA", "RGBA"])
def test_gif_keeps_a_transparent_index(tmp_path, mode):
    # LA written as GIF was flattened by Pillow: its transparent pixels came out opaque
    # black. It goes as RGBA now, whose fully transparent pixels Pillow gives the
    # transparent index (GIF has no partial alpha: the rest are opaque).
    pixels = photo(40, 60, 4)
    pixels[..., 3] = 255
    pixels[:10, :, 3] = 0
    image = Image.fromarray(pixels).convert(mode)
    save_image(image, tmp_path / "out.gif")
    with Image.open(tmp_path / "out.gif") as im:
        assert "transparency" in im.info
        alpha = np.asarray(im.convert("RGBA"))[..., 3]
    np.testing.assert_array_equal(alpha, pixels[..., 3])


def test_16bit_grey_to_gif_is_rounded_not_clipped(tmp_path):
    # Pillow converts I;16 to GIF's 8 bits by clipping at 255: nearly all white.
    grey = (np.arange(20 * 30).reshape(20, 30) * 100).astype(np.uint16)
    save_image(Image.fromarray(grey), tmp_path / "out.gif")
    with Image.open(tmp_path / "out.gif") as im:
        got = np.asarray(im.convert("L")).astype(int)
    want = (grey.astype(np.uint32) * 255 + 32767) // 65535
    assert np.abs(got - want).max() <= 1  # a palette of 256 greys may not hold them all


@pytest.mark.parametrize(
    "image, format, error, words",
    [
        (np.zeros((4, 4, 3), np.uint16), "xyz", ValueError, "format must be one of png, jpeg"),
        (np.zeros((4, 4, 3), np.uint16), ".jpg", ValueError, "format must be one of png, jpeg"),
        (np.zeros((4, 4, 3), np.uint16), 3, TypeError, "format must be a string such as 'png'"),
        (np.zeros((4, 4, 3), np.uint16), None, TypeError, "format must be a string such as"),
        ([[1, 2], [3, 4]], "jpeg", TypeError, "image must be a PIL.Image.Image or a NumPy array"),
        ("in.png", "png", TypeError, "image must be a PIL.Image.Image or a NumPy array"),
    ],
)
def test_narrows_refuses_what_save_image_refuses(image, format, error, words):
    # narrows(pixels, "xyz") said True (a format that does not exist rounds to 8 bits),
    # format=None or 3 was "AttributeError: ... has no attribute 'lower'", and a list or
    # a file name was False for PNG and an AttributeError ('mode') for JPEG.
    from cresize.image import narrows

    with pytest.raises(error, match=re.escape(words)):
        narrows(image, format)


def test_16bit_colour_to_8bit_formats_rounds(tmp_path):
    from cresize.image import narrows

    pixels = rgb16(20, 30, 3)
    assert narrows(pixels, "jpeg") and narrows(pixels, "WEBP") and not narrows(pixels, "png")
    assert not narrows(photo(4, 4), "jpeg")
    save_image(pixels, tmp_path / "out.bmp")
    want = (pixels.astype(np.uint32) * 255 + 32767) // 65535
    with Image.open(tmp_path / "out.bmp") as opened:
        np.testing.assert_array_equal(np.asarray(opened), want)


def test_16bit_colour_without_opencv_is_refused(tmp_path, monkeypatch):
    src = write16(tmp_path / "in.png", rgb16(10, 12, 3))
    monkeypatch.setitem(sys.modules, "cv2", None)
    with pytest.raises(ValueError, match=r"16-bit RGB pixels; OpenCV reads and writes 16-bit"):
        open_image(src)
    with pytest.raises(ValueError, match="16-bit"):
        resize_image(src, (6, 5))
    with pytest.raises(ValueError, match="needs OpenCV"):
        save_image(rgb16(4, 4, 3), tmp_path / "out.png")
    assert sorted(os.listdir(tmp_path)) == ["in.png"]


def test_open_image_reads_a_file_object_from_its_start_and_keeps_its_position(tmp_path):
    # open_image took a file object (Pillow does) but said nothing of it, and a 16-bit
    # colour one failed with "expected str, bytes or os.PathLike object, not BytesIO"
    # (and so did a TIFF test on one Pillow could not identify): read from the file's
    # start, as Pillow's Image.open does, the caller's position put back, not closed
    import io

    pytest.importorskip("cv2")
    photo_jpg = tmp_path / "in.jpg"
    Image.fromarray(photo(30, 40)).save(photo_jpg, quality=95, subsampling="4:4:4")
    files = {"in.jpg": photo_jpg, "in.png": tmp_path / "in.png"}
    Image.fromarray(photo(30, 40, 4)).save(files["in.png"])
    files["in16.png"] = write16(tmp_path / "in16.png", rgb16(30, 40, 3))
    files["in16.tif"] = write16(tmp_path / "in16.tif", rgb16(30, 40, 4))
    for name, path in files.items():
        want = open_image(path)
        for at in (0, 7):
            given = io.BytesIO(path.read_bytes())
            given.seek(at)
            got = open_image(given)
            assert type(got) is type(want), name
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
            assert got.info.get("subsampling") == want.info.get("subsampling")
            assert given.tell() == at, name  # put back
        with open(path, "rb") as f:
            f.seek(3)
            np.testing.assert_array_equal(np.asarray(open_image(f)), np.asarray(want))
            assert f.tell() == 3 and not f.closed, name
    assert open_image(photo_jpg).info["subsampling"] == "4:4:4"


def test_open_image_reads_an_unseekable_stream_on_and_refuses_what_needs_a_name(tmp_path):
    import io
    import types

    tifffile = pytest.importorskip("tifffile")

    class Pipe(io.RawIOBase):  # a stream without seek: read on from where it is
        def __init__(self, data):
            self.data = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, buffer):
            return self.data.readinto(buffer)

    Image.fromarray(photo(30, 40)).save(tmp_path / "in.png")
    data = (tmp_path / "in.png").read_bytes()
    pipe = Pipe(b"skipped" + data)
    assert pipe.read(7) == b"skipped"
    np.testing.assert_array_equal(np.asarray(open_image(pipe)), photo(30, 40))
    # an object with read() only (no seek, tell or seekable), which Pillow's Image.open
    # reads on: "AttributeError: ... has no attribute 'tell'"
    reader = types.SimpleNamespace(read=io.BytesIO(b"skip" + data).read)
    assert reader.read(4) == b"skip"
    np.testing.assert_array_equal(np.asarray(open_image(reader)), photo(30, 40))
    floats = np.linspace(0, 1, 30 * 40 * 3, dtype=np.float32).reshape(30, 40, 3)
    tifffile.imwrite(tmp_path / "float.tif", floats, photometric="rgb")
    np.testing.assert_array_equal(open_image(tmp_path / "float.tif"), floats)  # by name
    with pytest.raises(ValueError, match=r"^a TIFF that Pillow cannot open \(read by tif"):
        open_image(io.BytesIO((tmp_path / "float.tif").read_bytes()))
    with pytest.raises(Image.UnidentifiedImageError):  # not an image: Pillow's error
        open_image(io.BytesIO(b"not an image" * 10))


def test_open_image_refuses_a_text_file_naming_path(tmp_path):
    # A file opened in text mode was "UnicodeDecodeError: 'utf-8' codec can't decode
    # byte 0x89", naming neither the argument nor the mode.
    import io

    Image.fromarray(photo(30, 40)).save(tmp_path / "in.png")
    data = (tmp_path / "in.png").read_bytes()
    for text in (open(tmp_path / "in.png", encoding="latin-1"), io.StringIO("text")):
        with text, pytest.raises(TypeError, match=r"path: a file object opened in text mode"):
            open_image(text)
    assert (tmp_path / "in.png").read_bytes() == data


def test_a_text_file_object_not_of_textiobase_is_refused_too(tmp_path):
    # A text-mode SpooledTemporaryFile or a codecs stream reader is no io.TextIOBase:
    # it was read, and the error was "UnicodeDecodeError: 'utf-8' codec can't decode
    # byte 0x89" (or Pillow's "cannot identify image file"). Binary file objects of every
    # kind (a zip member's mode is "r", a tar member's, a spooled binary file, an object
    # with read only) are read as before.
    import codecs
    import tarfile
    import tempfile
    import types
    import zipfile

    Image.fromarray(photo(30, 40)).save(tmp_path / "in.png")
    data = (tmp_path / "in.png").read_bytes()
    want = np.asarray(open_image(tmp_path / "in.png"))
    spooled = tempfile.SpooledTemporaryFile(mode="w+", encoding="latin-1")
    spooled.write(data.decode("latin-1"))
    spooled.seek(0)
    texts = (spooled, codecs.getreader("latin-1")(io.BytesIO(data)))
    for text in texts:
        for read, name in ((open_image, "path"), (lambda f: resize_image(f, scale=0.5), "image")):
            with pytest.raises(TypeError, match=rf"^{name}: a file object opened in text mode"):
                read(text)
    assert spooled.tell() == 0  # nothing consumed
    with zipfile.ZipFile(tmp_path / "in.zip", "w") as z:
        z.writestr("in.png", data)
    with tarfile.open(tmp_path / "in.tar", "w") as t:
        t.add(tmp_path / "in.png", "in.png")
    binary = tempfile.SpooledTemporaryFile()
    binary.write(data)
    with (
        zipfile.ZipFile(tmp_path / "in.zip") as z,
        z.open("in.png") as member,
        tarfile.open(tmp_path / "in.tar") as t,
        binary,
    ):
        for given in (
            member,
            t.extractfile("in.png"),
            binary,
            io.BytesIO(data),
            types.SimpleNamespace(read=io.BytesIO(data).read),  # read only
        ):
            np.testing.assert_array_equal(np.asarray(open_image(given)), want)


def test_resize_image_reads_a_file_object_as_open_image_does(tmp_path):
    # resize_image took paths only ("image must be a path, a PIL.Image or a HW/HWC NumPy
    # array; got BytesIO"): a web upload or a zip member is a file object. Read through
    # open_image's code: from its start, its position put back, not closed, with the
    # path's shrink-on-load (draft), orientation and metadata.
    import types

    pytest.importorskip("cv2")
    exif = Image.Exif()
    exif[0x0112] = 6
    exif[0x010F] = "cresize-test"
    files = {"in.jpg": tmp_path / "in.jpg", "in.png": tmp_path / "in.png"}
    Image.fromarray(photo(200, 300)).save(files["in.jpg"], quality=95, exif=exif.tobytes())
    Image.fromarray(photo(30, 40, 4)).save(files["in.png"])
    files["in16.png"] = write16(tmp_path / "in16.png", rgb16(30, 40, 3))
    for name, path in files.items():
        want = resize_image(path, fit=(20, 20))
        for at in (0, 7):
            given = io.BytesIO(path.read_bytes())
            given.seek(at)
            got = resize_image(given, fit=(20, 20))
            assert type(got) is type(want), name
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
            assert got.info == want.info, name
            assert given.tell() == at and not given.closed, name  # put back
        with open(path, "rb") as f:
            f.seek(3)
            got = resize_image(f, fit=(20, 20))
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
            assert f.tell() == 3 and not f.closed, name
        reader = types.SimpleNamespace(read=io.BytesIO(path.read_bytes()).read)  # read only
        np.testing.assert_array_equal(
            np.asarray(resize_image(reader, fit=(20, 20))), np.asarray(want)
        )
    # the JPEG: upright (orientation 6), its EXIF kept less the tag, shrink-on-load as
    # from its name (the full decode gives other pixels)
    turned = resize_image(io.BytesIO(files["in.jpg"].read_bytes()), fit=(20, 20))
    assert turned.size == (13, 20)
    assert turned.getexif().get(0x0112, 1) == 1 and turned.getexif()[0x010F] == "cresize-test"
    exact = resize_image(io.BytesIO(files["in.jpg"].read_bytes()), fit=(20, 20), exact=True)
    np.testing.assert_array_equal(
        np.asarray(exact), np.asarray(resize_image(files["in.jpg"], fit=(20, 20), exact=True))
    )
    assert not np.array_equal(np.asarray(exact), np.asarray(turned))
    with open(files["in.png"], encoding="latin-1") as text:
        with pytest.raises(TypeError, match=r"^image: a file object opened in text mode"):
            resize_image(text, fit=(20, 20))
    with pytest.raises(ValueError, match=r"resize_image\(io\.BytesIO\(data\)\) reads them"):
        resize_image(files["in.png"].read_bytes(), fit=(20, 20))
    with pytest.raises(Image.UnidentifiedImageError):
        resize_image(io.BytesIO(b"not an image" * 10), fit=(20, 20))


def write_tiff16(path, pixels, photometric):
    """A baseline, uncompressed, little-endian TIFF of (H, W, C) uint16 ``pixels``
    (Pillow and OpenCV write no 16-bit CMYK)."""
    h, w, c = pixels.shape
    data = pixels.astype("<u2").tobytes()
    bits_at = 8 + len(data)
    ifd_at = bits_at + 2 * c
    tags = [  # (tag, type: 3 short / 4 long, count, value or offset)
        (256, 3, 1, w), (257, 3, 1, h), (258, 3, c, bits_at), (259, 3, 1, 1),
        (262, 3, 1, photometric), (273, 4, 1, 8), (277, 3, 1, c), (278, 3, 1, h),
        (279, 4, 1, len(data)), (284, 3, 1, 1),
    ]  # fmt: skip
    ifd = struct.pack("<H", len(tags))
    for tag, kind, count, value in tags:
        if kind == 3 and count == 1:
            ifd += struct.pack("<HHIHH", tag, kind, count, value, 0)
        else:
            ifd += struct.pack("<HHII", tag, kind, count, value)
    head = b"II*\0" + struct.pack("<I", ifd_at)
    path.write_bytes(head + data + struct.pack(f"<{c}H", *[16] * c) + ifd + b"\0" * 4)
    return path


def test_16bit_cmyk_is_refused_rather_than_read_as_8_bits(tmp_path):
    # Pillow reads a 16-bit CMYK TIFF as 8-bit CMYK (its high bytes) and OpenCV cannot
    # read it: resize_image returned 8-bit CMYK without a word.
    src = write_tiff16(tmp_path / "print.tif", rgb16(10, 12, 4), photometric=5)
    rgb = write_tiff16(tmp_path / "rgb.tif", rgb16(10, 12, 3), photometric=2)
    with Image.open(src) as opened:
        assert opened.mode == "CMYK"
    np.testing.assert_array_equal(open_image(rgb), rgb16(10, 12, 3))  # the writer is right
    for call in (open_image, lambda path: resize_image(path, (6, 5))):
        with pytest.raises(ValueError, match=r"print.tif has 16-bit CMYK pixels.*convert"):
            call(src)


def test_png_zlib_settings_are_used(tmp_path, monkeypatch):
    pytest.importorskip("cv2")
    import cresize.image

    im = Image.fromarray(photo(60, 80))
    save_image(im, tmp_path / "default.png")
    monkeypatch.setattr(
        cresize.image, "PNG_ZLIB", {"level": 0, "strategy": "default", "filter": "none"}
    )
    save_image(im, tmp_path / "stored.png")
    assert os.path.getsize(tmp_path / "stored.png") > 60 * 80 * 3  # zlib level 0: stored
    assert os.path.getsize(tmp_path / "default.png") < 60 * 80 * 3
    for name in ("default.png", "stored.png"):
        with Image.open(tmp_path / name) as opened:
            np.testing.assert_array_equal(np.asarray(opened), np.asarray(im))


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "I;16", "LA", "P"])
def test_png_writers_agree(tmp_path, monkeypatch, mode):
    # OpenCV (when installed) writes L/RGB/RGBA/I;16 PNGs much faster than Pillow;
    # the pixels and the ICC profile, EXIF and DPI are the same as Pillow's file.
    if mode == "I;16":
        im = Image.fromarray(photo(30, 40, 1).astype(np.uint16) * 257)
    else:
        im = Image.fromarray(photo(30, 40)).convert(mode)
    exif = Image.Exif()
    exif[0x010F] = "cresize-test"
    icc = srgb_icc()
    im.info.update(icc_profile=icc, exif=exif.tobytes(), dpi=(300, 150))
    save_image(im, tmp_path / "fast.png")
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "cv2", None)
        save_image(im, tmp_path / "pillow.png")
    with Image.open(tmp_path / "fast.png") as fast:
        fast.verify()
    with Image.open(tmp_path / "fast.png") as fast, Image.open(tmp_path / "pillow.png") as slow:
        assert fast.mode == slow.mode and fast.size == slow.size
        np.testing.assert_array_equal(np.asarray(fast), np.asarray(slow))
        assert fast.info["icc_profile"] == slow.info["icc_profile"] == icc
        assert fast.getexif()[0x010F] == "cresize-test"
        assert [round(d) for d in fast.info["dpi"]] == [300, 150]


@pytest.mark.parametrize("links", [True, False])
def test_a_file_that_appears_while_writing_is_kept(tmp_path, monkeypatch, links):
    # Without overwrite, a file another program puts at the output's name while
    # cresize writes (after the check, before the rename) is kept: FileExistsError,
    # and no temporary is left. With hard links the name is taken by os.link (atomic);
    # on a file system without them, the check is repeated just before the rename.
    import errno

    from cresize import image

    if not links:

        def no_links(src, dst):
            raise OSError(errno.EPERM, "no hard links here")

        monkeypatch.setattr(os, "link", no_links)
    out = tmp_path / "out.png"

    def write_while_another_appears(f):
        f.write(b"ours")
        out.write_bytes(b"theirs")

    with pytest.raises(FileExistsError, match="appeared"):
        image._write_atomic(str(out), write_while_another_appears, overwrite=False)
    assert out.read_bytes() == b"theirs"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.png"]
    # Nothing in the way: the file is written whole, under its name only.
    other = tmp_path / "other.png"
    assert image._write_atomic(str(other), lambda f: f.write(b"ours"), overwrite=False) is None
    assert other.read_bytes() == b"ours"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.png", "out.png"]


@pytest.mark.parametrize("fmt", ["tif", "png", "jpg"])
@pytest.mark.parametrize("mode", ["HSV", "La", "RGBa"])
def test_modes_a_writer_lacks_are_converted(tmp_path, mode, fmt):
    # HSV, La and RGBa as TIFF failed with Pillow's "cannot write mode HSV as TIFF", and
    # La as PNG/JPEG with "conversion from La to L not supported".
    straight = Image.new("RGBA", (8, 6), (10, 200, 30, 128))
    if mode == "La":
        straight = straight.convert("LA")
    image = straight.convert(mode)
    path = tmp_path / f"out.{fmt}"
    save_image(image, path)
    with Image.open(path) as back:
        assert back.size == (8, 6)
        if fmt != "jpg":  # lossless: the straight (or RGB) pixels
            want = image.convert("RGB") if mode == "HSV" else image.convert(mode.upper())
            if back.mode != want.mode:
                want = want.convert(back.mode)
            assert np.array_equal(np.asarray(back), np.asarray(want))


@pytest.mark.parametrize("mode", ["I;16B", "I;16L", "I;16N"])
@pytest.mark.parametrize("ext", ["png", "tif"])
def test_save_image_keeps_16_bits_of_every_16_bit_mode(tmp_path, mode, ext):
    # A PIL image in a byte-order variant of I;16 (as Pillow opens a big-endian TIFF)
    # was rounded to 8 bits as PNG (and, I;16N, as TIFF) while narrows() said False.
    from PIL import Image

    from cresize.image import narrows

    values = (np.arange(48, dtype=np.uint32) * 1361).reshape(6, 8)
    raw = values.astype(">u2" if mode == "I;16B" else "<u2" if mode == "I;16L" else "=u2")
    image = Image.frombuffer(mode, (8, 6), raw.tobytes(), "raw", mode, 0, 1)
    assert not narrows(image, ext)
    path = tmp_path / f"wide.{ext}"
    save_image(image, path)
    with Image.open(path) as back:
        assert np.array_equal(np.asarray(back).astype(np.uint32), values), back.mode


# ---------------------------------------------------------------------------
# Metadata of 16-bit colour: ICC profile, EXIF, DPI


def _exif(orientation):
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010F] = "cresize-test"
    return exif.tobytes()


@pytest.mark.parametrize("channels", [3, 4])
def test_16bit_colour_keeps_icc_exif_and_dpi(tmp_path, channels):
    # A 16-bit PNG's ICC profile (an Adobe RGB or ProPhoto master, say) was dropped:
    # OpenCV reads and writes none, so every viewer showed other colours.
    from cresize.image import ImageArray
    from helpers.png16 import png16

    icc, pixels = srgb_icc(), rgb16(40, 60, channels)
    src = png16(tmp_path / "in.png", pixels, icc=icc, exif=_exif(6), dpi=300)
    read = open_image(src)
    assert isinstance(read, ImageArray) and read.dtype == np.uint16
    np.testing.assert_array_equal(read, np.swapaxes(pixels, 0, 1)[:, ::-1])  # upright
    assert read.info["icc_profile"] == icc
    exif = Image.Exif()
    exif.load(read.info["exif"])
    assert 0x0112 not in exif and exif[0x010F] == "cresize-test"  # applied: removed
    got = resize_image(src, (20, 30))
    assert isinstance(got, ImageArray) and got.shape == (30, 20, channels)
    assert got.info == read.info
    save_image(got, tmp_path / "out.jpg")  # rounded to 8 bits: the metadata too
    with Image.open(tmp_path / "out.jpg") as back:
        assert back.info["icc_profile"] == icc and back.getexif()[0x010F] == "cresize-test"
    for ext in ("png", "tif"):
        if ext == "tif":  # without tifffile it is dropped, and said: a test below
            pytest.importorskip("tifffile")
        save_image(got, tmp_path / f"out.{ext}")
        with Image.open(tmp_path / f"out.{ext}") as back:
            assert back.info["icc_profile"] == icc, ext
            assert back.info["dpi"] == pytest.approx(
                (300, 300), abs=0.05
            )  # PNG: pixels per metre, ext
            if ext == "png":
                assert back.getexif().get(0x0112, 1) == 1
                assert back.getexif()[0x010F] == "cresize-test"
        np.testing.assert_array_equal(read16(tmp_path / f"out.{ext}"), got)  # still 16 bits
        np.testing.assert_array_equal(open_image(tmp_path / f"out.{ext}"), got)


def test_image_array_carries_info_and_plain_arrays_stay_plain(tmp_path):
    from cresize.image import ImageArray

    icc, pixels = srgb_icc(), rgb16(20, 30, 3)
    tagged = ImageArray(pixels, {"icc_profile": icc, "dpi": (150, 150)})
    assert tagged[2:, 1:].info["icc_profile"] == icc  # views and slices keep it
    assert type(np.asarray(tagged)) is np.ndarray
    out = resize_image(tagged, (15, 10))
    assert isinstance(out, ImageArray) and out.info == tagged.info
    np.testing.assert_array_equal(out, resize_image(pixels, (15, 10)))
    assert type(resize_image(pixels, (15, 10))) is np.ndarray  # no info made up
    save_image(out, tmp_path / "out.png")
    with Image.open(tmp_path / "out.png") as back:
        assert back.info["icc_profile"] == icc
        assert back.info["dpi"] == pytest.approx((150, 150), abs=0.05)  # PNG: pixels per metre
    save_image(pixels, tmp_path / "plain.png")  # an array without info: none written
    with Image.open(tmp_path / "plain.png") as opened:
        assert "icc_profile" not in opened.info


def test_image_array_reductions_are_numpy_scalars():
    # a.max() of an ImageArray was a 0-d ImageArray: unhashable (no dict key or set
    # member), not np.isscalar, and shown as ImageArray(65535, dtype=uint16); an
    # ndarray gives a NumPy scalar, and so does the "ordinary array" now.
    from cresize.image import ImageArray

    pixels = rgb16(6, 8, 3)
    tagged = ImageArray(pixels, {"icc_profile": b"profile", "dpi": (72, 72)})
    for got, plain in [
        (tagged.max(), pixels.max()),
        (tagged.sum(), pixels.sum()),
        (np.mean(tagged), np.mean(pixels)),
        (tagged.std(), pixels.std()),
        (np.median(tagged), np.median(pixels)),
        ((tagged == tagged).all(), (pixels == pixels).all()),
        (tagged[1:, ::2].min(), pixels[1:, ::2].min()),
    ]:
        assert np.isscalar(got) and type(got) is type(plain) and got == plain
    assert {tagged.max(): "max"}[pixels.max()] == "max"  # hashable
    per_channel = tagged.max(axis=(0, 1))  # more than one value: still an array
    assert isinstance(per_channel, ImageArray) and per_channel.shape == (3,)
    assert isinstance(tagged + 1, ImageArray) and (tagged + 1).info == tagged.info


@pytest.mark.parametrize("filter_", ["sub", "up", "none", "paeth"])
def test_16bit_grey_and_alpha_keeps_its_grey_profile_in_png(tmp_path, monkeypatch, filter_):
    # Grey with a transparent value was written as 16-bit RGBA, where a GRAY profile
    # is invalid, so the profile was dropped (and the CLI said so). PNG holds 16-bit
    # grey and alpha (colour type 4): written so, the profile is kept.
    import cresize.image
    from cresize.image import _save

    monkeypatch.setitem(cresize.image.PNG_ZLIB, "filter", filter_)
    grey = rgb16(20, 30, 3)[..., 0]
    grey[:6] = 1000
    src, gray = tmp_path / "in.png", _profile_of_space(b"GRAY")
    Image.fromarray(grey).save(
        src, transparency=1000, icc_profile=gray, exif=_exif(1), dpi=(200, 100)
    )
    got = resize_image(src, (15, 10))
    assert got.shape == (10, 15, 2) and got.info["icc_profile"] == gray
    assert (got[..., 1] == 0).any() and (got[..., 0] & 0xFF).any()
    assert _save(got, tmp_path / "out.png").icc_lost is None
    with Image.open(tmp_path / "out.png") as back:
        back.verify()  # CRCs and zlib stream
    with Image.open(tmp_path / "out.png") as back:
        assert back.info["icc_profile"] == gray
        assert back.getexif()[0x010F] == "cresize-test"
        assert back.info["dpi"] == pytest.approx((200, 100), abs=0.05)  # pixels per metre
    assert (tmp_path / "out.png").read_bytes()[24:26] == bytes([16, 4])  # 16 bits, grey+alpha
    written = read16(tmp_path / "out.png")  # OpenCV reads it as BGRA
    np.testing.assert_array_equal(written[..., [0, 3]], got)
    np.testing.assert_array_equal(written[..., 1], got[..., 0])
    again = open_image(tmp_path / "out.png")
    assert again.shape == (10, 15, 2) and again.info["icc_profile"] == gray
    np.testing.assert_array_equal(again, got)
    # TIFF: written as RGBA (Pillow reads no 16-bit grey-and-alpha TIFF), the profile left out
    pytest.importorskip("tifffile")
    saved = _save(got, tmp_path / "out.tif")
    assert saved.icc_lost == "it describes GRAY pixels, and RGBA pixels are written"
    with Image.open(tmp_path / "out.tif") as back:
        assert back.mode == "RGBA" and "icc_profile" not in back.info


def test_16bit_grey_and_alpha_png_splits_its_idat(tmp_path, monkeypatch):
    # PNG chunks hold at most 2**31 - 1 bytes: the whole zlib stream went into one
    # IDAT, so a large noisy image (over 2 GiB compressed) was an invalid file. The
    # stream is cut into IDAT chunks of at most PNG_IDAT_MAX bytes (lowered here).
    import struct

    import cresize.image

    assert 0 < getattr(cresize.image, "PNG_IDAT_MAX", 2**32) <= 2**31 - 1
    monkeypatch.setattr(cresize.image, "PNG_IDAT_MAX", 1000, raising=False)
    pixels = np.random.default_rng(3).integers(0, 65536, (40, 50, 2)).astype(np.uint16)
    save_image(cresize.image.ImageArray(pixels, {"dpi": (72, 72)}), tmp_path / "ga.png")
    data = (tmp_path / "ga.png").read_bytes()
    at, kinds, idat = 8, [], []
    while at < len(data):
        (length,), kind = struct.unpack(">I", data[at : at + 4]), data[at + 4 : at + 8]
        kinds.append(kind)
        if kind == b"IDAT":
            idat.append(length)
        at += 12 + length
    assert at == len(data) and kinds[0] == b"IHDR" and kinds[-1] == b"IEND"
    assert len(idat) == -(-sum(idat) // 1000) > 1 and max(idat) == 1000, idat
    assert b"pHYs" in kinds[: kinds.index(b"IDAT")]  # metadata before the pixels
    with Image.open(tmp_path / "ga.png") as back:
        back.verify()
    np.testing.assert_array_equal(open_image(tmp_path / "ga.png"), pixels)


def test_a_16bit_grey_and_alpha_png_is_read_as_two_channels(tmp_path):
    # Pillow 13 opens a 16-bit grey-and-alpha PNG as RGBA: it was read as four
    # channels, grey in each, and written back as RGBA without its grey profile.
    from helpers.png16 import png16_grey_alpha

    pixels = np.dstack([rgb16(12, 16, 3)[..., 0], rgb16(12, 16, 3, seed=1)[..., 1]])
    gray = _profile_of_space(b"GRAY")
    src = png16_grey_alpha(tmp_path / "in.png", pixels, icc=gray)
    got = open_image(src)
    assert got.shape == (12, 16, 2) and got.info["icc_profile"] == gray
    np.testing.assert_array_equal(got, pixels)


@pytest.mark.parametrize("kind", ["float32 rgb", "float64 rgba", "float16", "float64", "la16"])
def test_tiffs_pillow_cannot_open_are_read_with_tifffile(tmp_path, monkeypatch, kind):
    # Float RGB, float16, float64 and 16-bit grey-and-alpha TIFFs were "not an image"
    # (Pillow cannot open them): tifffile reads them; float RGB(A) is written as TIFF.
    tifffile = pytest.importorskip("tifffile")
    rng = np.random.default_rng(0)
    shape, dtype, extra = {
        "float32 rgb": ((20, 30, 3), np.float32, {"photometric": "rgb"}),
        "float64 rgba": (
            (20, 30, 4),
            np.float64,
            {"photometric": "rgb", "extrasamples": ["unassalpha"]},
        ),
        "float16": ((20, 30), np.float16, {}),
        "float64": ((20, 30), np.float64, {}),
        "la16": (
            (20, 30, 2),
            np.uint16,
            {"photometric": "minisblack", "extrasamples": ["unassalpha"]},
        ),
    }[kind]
    if dtype == np.uint16:
        pixels = rng.integers(0, 65536, shape).astype(dtype)
    else:
        pixels = rng.random(shape).astype(dtype)
    src = tmp_path / "in.tif"
    tifffile.imwrite(src, pixels, **extra)
    with pytest.raises(Image.UnidentifiedImageError):
        Image.open(src)
    got = open_image(src)
    want = pixels.astype(np.float32) if dtype == np.float16 else pixels
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    resized = resize_image(src, (15, 10))
    np.testing.assert_array_equal(resized, resize_image(want, (15, 10)))
    save_image(resized, tmp_path / "out.tif")
    back = open_image(tmp_path / "out.tif")
    if kind == "la16":  # a 16-bit RGBA TIFF, grey in each colour channel
        np.testing.assert_array_equal(back[..., [0, 3]], resized)
    else:
        # float64 grey goes through Pillow's mode F: float32, within its rounding
        np.testing.assert_allclose(np.asarray(back), resized, rtol=1e-7)
    monkeypatch.setitem(sys.modules, "tifffile", None)  # without it: the reason
    with pytest.raises(ValueError, match=r"a TIFF that Pillow cannot read.*tifffile"):
        open_image(src)


@pytest.mark.parametrize("unit", ["INCH", "CENTIMETER", "NONE"])
@pytest.mark.parametrize("kind", ["la16", "float32 rgb", "la8 planar"])
def test_tiffs_read_by_tifffile_keep_their_dpi(tmp_path, kind, unit):
    # A TIFF read by tifffile (16-bit grey and alpha, float colour, 8-bit grey and alpha
    # stored plane by plane) lost its XResolution/YResolution/ResolutionUnit, where
    # one read by Pillow keeps them as info["dpi"]: kept as Pillow keeps them (a
    # centimetre's converted, no unit: "resolution"), and written again (no unit: to
    # TIFF only, with no unit, as it was read)
    tifffile = pytest.importorskip("tifffile")
    pixels, extra = {
        "la16": (rgb16(20, 30, 2), {"photometric": "minisblack", "extrasamples": [2]}),
        "float32 rgb": (photo(20, 30).astype(np.float32) / 255, {"photometric": "rgb"}),
        "la8 planar": (
            np.moveaxis(photo(20, 30, 2), -1, 0),
            {"photometric": "minisblack", "planarconfig": "separate", "extrasamples": [2]},
        ),
    }[kind]
    src, eight = tmp_path / "in.tif", tmp_path / "eight.tif"
    resolution = {"resolution": (300, 150), "resolutionunit": unit}
    tifffile.imwrite(src, pixels, **extra, **resolution)
    tifffile.imwrite(eight, photo(20, 30), photometric="rgb", **resolution)
    by_pillow = open_image(eight)  # the same tags, read by Pillow
    assert isinstance(by_pillow, Image.Image)
    want = {k: by_pillow.info[k] for k in ("dpi", "resolution") if k in by_pillow.info}
    assert (
        want
        == {
            "INCH": {"dpi": (300, 150)},
            "CENTIMETER": {"dpi": (762, 381)},
            "NONE": {"resolution": (300, 150)},
        }[unit]
    )
    got = open_image(src)
    assert isinstance(got, cresize.image.ImageArray)
    assert {k: got.info[k] for k in ("dpi", "resolution") if k in got.info} == want
    resized = resize_image(src, scale=0.5)
    assert {k: resized.info[k] for k in ("dpi", "resolution") if k in resized.info} == want
    dpi = want.get("dpi")
    for ext in ("tif", "png", "jpg") if kind != "float32 rgb" else ("tif",):
        out = tmp_path / f"out.{ext}"
        save_image(resized, out, overwrite=True)
        if ext == "tif":  # float RGB: tifffile's tags (Pillow opens no such file)
            with tifffile.TiffFile(out) as tif:
                tags = tif.pages.first.tags
                x, y = (tags.valueof(tag) for tag in (282, 283))
                written = (x[0] / x[1], y[0] / y[1], int(tags.valueof(296)))
            assert written == pytest.approx((*dpi, 2) if dpi else (300, 150, 1)), ext
            continue
        with Image.open(out) as back:
            if dpi is None:  # no unit: none written, as for a Pillow-read file
                assert "dpi" not in back.info if ext == "png" else back.info["jfif_unit"] == 0
            else:  # PNG: pixels a metre, JPEG: whole dots an inch
                assert back.info["dpi"] == pytest.approx(dpi, abs=0.05), ext


@pytest.mark.parametrize("kind", ["rgb8 pillow", "rgb16 tifffile", "rgb16 opencv"])
def test_a_tiffs_resolution_of_no_unit_is_written_to_tiff(tmp_path, monkeypatch, kind):
    # ResolutionUnit 1 (no absolute unit): Pillow reads it as info["resolution"], with no
    # dpi, and it was written nowhere. TIFF output carries it back as it was, unit 1
    # (Pillow's, tifffile's and OpenCV's TIFF writers); PNG and JPEG get none, as before
    # (their unit-less forms are an aspect ratio, which Pillow reads as no resolution)
    from cresize.image import ImageArray

    tifffile = pytest.importorskip("tifffile")
    pixels = photo(20, 30) if kind == "rgb8 pillow" else rgb16(20, 30, 3)
    src = tmp_path / "in.tif"
    tifffile.imwrite(
        src, pixels, photometric="rgb", resolution=(300, 150), resolutionunit="NONE", software=False
    )
    got = resize_image(src, scale=0.5)
    assert got.info["resolution"] == (300, 150) and "dpi" not in got.info
    if kind == "rgb16 opencv":
        pytest.importorskip("cv2")
        monkeypatch.setitem(sys.modules, "tifffile", None)
    out = tmp_path / "out.tif"
    assert cresize.image._save(got, out).left_out == ()
    with tifffile.TiffFile(out) as tif:
        tags = tif.pages.first.tags
        x, y = (tags.valueof(tag) for tag in (282, 283))
        assert (x[0] / x[1], y[0] / y[1], int(tags.valueof(296))) == (300, 150, 1)
    with Image.open(out) as back:
        assert back.info.get("resolution") == (300, 150) and "dpi" not in back.info
    for ext in ("png", "jpg"):
        save_image(got, tmp_path / f"out.{ext}")
        with Image.open(tmp_path / f"out.{ext}") as back:
            assert "dpi" not in back.info and "aspect" not in back.info, back.info
    # a DPI is written in inches as before, not its resolution too (no unit: both read)
    both = ImageArray(rgb16(20, 30, 3), {"dpi": (72, 72), "resolution": (72, 72)})
    save_image(both, tmp_path / "both.tif")
    with tifffile.TiffFile(tmp_path / "both.tif") as tif:
        assert int(tif.pages.first.tags.valueof(296)) == 2
    if kind == "rgb16 opencv":  # whole numbers, as its DPI: else left out and said
        unwritable = ImageArray(rgb16(20, 30, 3), {"resolution": (0.4, 150)})
        assert cresize.image._save(unwritable, tmp_path / "small.tif").left_out == (
            "its resolution is left out: 0.40x150.00; OpenCV writes a 16-bit TIFF's in whole "
            f"numbers from 1 to 16,777,216; {cresize.image.TIFFFILE_HINT}",
        )


def _tiff_with_resolution(path, pixels, x, y, unit, **extra):
    """A TIFF of ``pixels`` whose XResolution and YResolution are the rationals ``x``
    and ``y`` ((numerator, denominator): any, a zero denominator too) in ``unit``
    (ResolutionUnit): tifffile's marker values patched in the file."""
    import tifffile

    tifffile.imwrite(path, pixels, resolution=(12345, 54321), resolutionunit=unit, **extra)
    data = bytearray(path.read_bytes())
    for marker, value in ((12345, x), (54321, y)):
        at = data.find(struct.pack("<II", marker, 1))
        assert at > 0
        data[at : at + 8] = struct.pack("<II", *value)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "x, unit",
    [((1, 0), "INCH"), ((0xFFFFFFFF, 1), "INCH"), ((0xFFFFFFFF, 1), "CENTIMETER")],
    ids=["zero denominator", "beyond PNG's pHYs", "beyond a TIFF's rational"],
)
@pytest.mark.parametrize("kind", ["rgb8", "float32 rgb"])
def test_a_tiff_resolution_no_file_holds_is_not_written(tmp_path, kind, x, unit):
    # XResolution 1/0 is NaN dpi, 2**32-1 dots a centimetre 1.1e10 dpi, as Pillow's
    # TIFF reader gives them (and _tiff_resolution for a TIFF tifffile reads): every
    # PNG and JPEG writer failed on them ("cannot convert float NaN to integer",
    # "'I' format requires 0 <= number <= 4294967295"), as did tifffile's TIFF writer
    # (a float TIFF that was written before its resolution was read). No DPI is
    # written: the tag holds none.
    tifffile = pytest.importorskip("tifffile")
    pixels = photo(20, 30) if kind == "rgb8" else photo(20, 30).astype(np.float32) / 255
    src = tmp_path / "in.tif"
    _tiff_with_resolution(src, pixels, x, x, unit, photometric="rgb")
    got = resize_image(src, scale=0.5)
    assert "dpi" in got.info  # as Pillow reads the tags
    for ext in ("tif", "png", "jpg") if kind == "rgb8" else ("tif",):
        out = tmp_path / f"out.{ext}"
        save_image(got, out, overwrite=True)
        if ext == "tif":
            with tifffile.TiffFile(out) as tif:
                tags = tif.pages.first.tags
                assert 282 not in tags or int(tags.valueof(296)) == 1  # none, or no unit
        else:
            with Image.open(out) as back:
                assert "dpi" not in back.info if ext == "png" else back.info["jfif_unit"] == 0
    ok = cresize.image._metadata({"dpi": (300, 150.5)})
    assert ok["dpi"] == (300, 150.5)  # any writable one is kept


def test_a_dpi_beyond_a_jpegs_density_is_left_out_and_said(tmp_path):
    # JFIF's density is 16 bits: Pillow's writer wrapped 70,000 dpi (a 0.36 um
    # microscope pixel, 27,559 dots a centimetre in a TIFF) to 4,464 without a word
    from cresize.image import JPEG_DPI_MAX, ImageArray, _save

    pixels, out = photo(20, 30), tmp_path / "out.jpg"
    saved = _save(ImageArray(pixels, {"dpi": (70000.0, 300.0)}), out)
    assert saved.left_out == (
        "its DPI is left out of the JFIF density: 70,000x300, more than a JPEG holds "
        "(65,535); its EXIF holds it",
    )
    with Image.open(out) as back:
        assert back.info["jfif_unit"] == 0  # Pillow's reader: the EXIF's XResolution
        assert back.info["dpi"][0] == 70000 and _exif_dpi(out) == (70000, 300, 2)
    saved = _save(ImageArray(pixels, {"dpi": (JPEG_DPI_MAX, 300)}), out, overwrite=True)
    assert saved.left_out == ()
    with Image.open(out) as back:
        assert back.info["dpi"] == (JPEG_DPI_MAX, 300)
    saved = _save(ImageArray(pixels, {"dpi": (70000.0, 300.0)}), tmp_path / "out.png")
    assert saved.left_out == ()  # PNG's pHYs holds it
    with Image.open(tmp_path / "out.png") as back:
        assert back.info["dpi"] == pytest.approx((70000, 300), abs=0.05)


@pytest.mark.parametrize("dpi, why", [(70000, "more than a JPEG holds (65,535)"), (0.3, "which")])
@pytest.mark.parametrize("exif", ["none", "of 72 dpi"])
def test_a_dpi_a_jpegs_density_cannot_hold_is_in_its_exif(tmp_path, dpi, why, exif):
    # Left out of the JFIF density, such a DPI was lost (no EXIF), or the output's EXIF
    # kept the source's 72 dpi: a JPEG that said 72 dpi where the TIFF said 70,000 (or
    # 0.3). An EXIF rational holds it: written there, and the note says so.
    src, out = tmp_path / "in.tif", tmp_path / "out.jpg"
    made = Image.fromarray(photo(20, 30))
    extra = {}
    if exif != "none":
        old = Image.Exif()
        old[282], old[283], old[296], old[0x010F] = 72.0, 72.0, 2, "Camera"
        extra["exif"] = old.tobytes()
    made.save(src, dpi=(dpi, dpi), **extra)
    image = open_image(src)
    assert image.info["dpi"] == pytest.approx((dpi, dpi))
    saved = cresize.image._save(image, out)
    shown = f"{dpi:,}"
    assert saved.left_out == (
        f"its DPI is left out of the JFIF density: {shown}x{shown}, {why}"
        + ("" if dpi > 1 else " a JPEG holds as 0 dots an inch (whole numbers)")
        + "; its EXIF holds it",
    )
    with Image.open(out) as back:
        assert back.info["jfif_unit"] == 0  # no density: one DPI in the file, the EXIF's
        assert back.info["dpi"] == pytest.approx((dpi, dpi))
        assert _exif_dpi(out) == pytest.approx((dpi, dpi, 2))
        if exif != "none":
            assert back.getexif()[0x010F] == "Camera"  # the rest of the EXIF kept
    assert open_image(out).info["dpi"] == pytest.approx((dpi, dpi))


def _exif_dpi(path):
    """The ``(XResolution, YResolution, ResolutionUnit)`` of the EXIF of the file at
    ``path``, as an EXIF reader (exiftool, libvips) sees it; Nones without them."""
    with Image.open(path) as back:
        exif = back.getexif()
        return tuple(None if exif.get(tag) is None else float(exif[tag]) for tag in (282, 283, 296))


def test_a_16bit_tiffs_dpi_is_the_jpegs_density_and_its_exifs_resolution(tmp_path):
    # A 16-bit TIFF read by tifffile gets an EXIF of its text tags (Software=tifffile.py)
    # and no resolution tags: the JPEG said 300 dpi in its JFIF density and nothing in
    # its EXIF, which readers that take the EXIF (and Pillow, without a density) read as
    # 72 dpi. Both say 300 now, as libvips writes them.
    tifffile = pytest.importorskip("tifffile")
    src, out = tmp_path / "scan.tif", tmp_path / "scan.jpg"
    pixels = (photo(24, 32).astype(np.uint16) * 257)[::-1].copy()
    tifffile.imwrite(src, pixels, photometric="rgb", resolution=(300, 300), resolutionunit="INCH")
    image = open_image(src)
    assert image.info["dpi"] == (300, 300) and b"tifffile.py" in image.info["exif"]
    save_image(resize_image(image, (16, 12)), out)
    with Image.open(out) as back:
        assert back.info["dpi"] == (300, 300) and back.info["jfif_unit"] == 1
        assert back.getexif()[305] == "tifffile.py"  # the EXIF is kept, with the DPI added
    assert _exif_dpi(out) == (300, 300, 2)


def test_an_8bit_tiffs_dpi_is_in_the_jpegs_exif_too(tmp_path):
    # The same for a TIFF that Pillow reads: its EXIF (the Make tag here) has no
    # resolution tags, which are the TIFF's DPI
    exif = Image.Exif()
    exif[0x010F] = "Scanner"
    src, out = tmp_path / "scan.tif", tmp_path / "scan.jpg"
    Image.fromarray(photo(24, 32)).save(src, dpi=(300, 150), exif=exif)
    image = open_image(src)
    assert image.info["dpi"] == (300, 150) and image.info["exif"]
    save_image(image, out)
    with Image.open(out) as back:
        assert back.info["dpi"] == (300, 150) and back.getexif()[0x010F] == "Scanner"
    assert _exif_dpi(out) == (300, 150, 2)


@pytest.mark.parametrize("src_ext", ["jpg", "png"])
@pytest.mark.parametrize("out_ext", ["jpg", "png", "tif"])
def test_a_files_own_dpi_wins_over_its_exifs_and_both_say_it_in_the_output(
    tmp_path, src_ext, out_ext
):
    # A JPEG's JFIF density (a PNG's pHYs) of 300 dpi beside an EXIF of 72 dpi: cresize
    # reads Pillow's, the file's own (libvips takes the EXIF's), and writes it to both,
    # as libvips writes its one: the output said 300 in its density and 72 in its EXIF
    exif = Image.Exif()
    exif[282], exif[283], exif[296], exif[0x010F] = 72, 72, 2, "Camera"
    src, out = tmp_path / f"in.{src_ext}", tmp_path / f"out.{out_ext}"
    Image.fromarray(photo(24, 32)).save(src, dpi=(300, 300), exif=exif)
    image = open_image(src)
    assert image.info["dpi"] == pytest.approx((300, 300), abs=1e-3)
    save_image(image, out)
    with Image.open(out) as back:
        assert back.info["dpi"] == pytest.approx((300, 300), abs=1e-3)
        assert back.getexif()[0x010F] == "Camera"
    assert _exif_dpi(out) == pytest.approx((300, 300, 2), abs=1e-3)
    # a JPEG without a density: Pillow reads the EXIF's, written back to both
    plain = tmp_path / "no-density.jpg"
    Image.fromarray(photo(24, 32)).save(plain, exif=exif)
    assert open_image(plain).info["dpi"] == (72, 72)
    save_image(open_image(plain), tmp_path / "again.jpg")
    with Image.open(tmp_path / "again.jpg") as back:
        assert back.info["dpi"] == (72, 72) and back.info["jfif_unit"] == 1
    assert _exif_dpi(tmp_path / "again.jpg") == (72, 72, 2)


@pytest.mark.parametrize("fmt", ["webp", "avif"])
def test_a_dpi_given_to_webp_or_avif_is_their_exifs_resolution(tmp_path, fmt):
    # WebP and AVIF hold a DPI only in their EXIF (where libvips writes and reads it):
    # it was dropped without a note; an EXIF is made for it where the image has none
    from PIL import features

    from cresize.image import _save

    if fmt == "avif" and not features.check("avif"):
        pytest.skip("Pillow without AVIF (its plugin came in Pillow 11.2)")
    image = Image.fromarray(photo(24, 32))
    image.info["dpi"] = (300, 150)
    saved = _save(image, tmp_path / f"plain.{fmt}")
    assert saved.left_out == ()
    assert _exif_dpi(tmp_path / f"plain.{fmt}") == (300, 150, 2)
    exif = Image.Exif()
    exif[0x010F], exif[282], exif[283] = "Camera", 72, 72
    image.info["exif"] = exif
    assert _save(image, tmp_path / f"tagged.{fmt}").left_out == ()
    assert _exif_dpi(tmp_path / f"tagged.{fmt}") == (300, 150, 2)
    with Image.open(tmp_path / f"tagged.{fmt}") as back:
        assert back.getexif()[0x010F] == "Camera"
    assert exif[282] == 72  # the caller's Exif is not changed
    del image.info["dpi"]  # no DPI: the EXIF goes as it was
    save_image(image, tmp_path / f"as-was.{fmt}")
    assert _exif_dpi(tmp_path / f"as-was.{fmt}") == (72, 72, None)


def test_a_dpi_given_to_gif_is_left_out_and_said(tmp_path):
    # GIF holds no DPI (its header's aspect ratio is no resolution) nor an EXIF: it was
    # dropped without a note, while the EXIF got one
    from cresize.image import _save

    image = Image.fromarray(photo(24, 32))
    image.info["dpi"] = (300, 150.5)
    saved = _save(image, tmp_path / "out.gif")
    assert saved.left_out == ("its DPI is left out: 300x150.5, GIF files hold none",)
    image.info["dpi"] = (300, 300)
    ppm = _save(image, tmp_path / "out.ppm").left_out  # nor does any format without one
    assert ppm == ("its DPI is left out: 300x300, PPM files hold none",)
    for ext in ("png", "jpg", "bmp", "tif", "webp", "pdf"):
        assert _save(image, tmp_path / f"out.{ext}").left_out == ()
    del image.info["dpi"]
    assert _save(image, tmp_path / "plain.gif").left_out == ()


def test_a_damaged_exif_goes_as_it_was_beside_the_dpi():
    # one Pillow cannot parse is not made to say the DPI: left as it was (_dpi_left_out
    # alone: save_image leaves it out of the file before, in _metadata; see
    # test_save_leaves_a_damaged_exif_out_of_every_format)
    from cresize.image import _dpi_left_out

    params = {"dpi": (300.0, 300.0), "exif": b"Exif\x00\x00XX garbage"}
    assert _dpi_left_out(params, "JPEG") == ()
    assert params == {"dpi": (300.0, 300.0), "exif": b"Exif\x00\x00XX garbage"}


def _thumbnail_exif(order, resolution=True):
    """A camera's EXIF (bytes, "Exif\\0\\0" first) in byte order ``order`` ("<", ">"):
    IFD0 with Make and (with ``resolution``) 72 dpi, and IFD1, a JPEG thumbnail."""
    import io

    thumb = io.BytesIO()
    Image.new("RGB", (16, 12), "red").save(thumb, "JPEG")
    thumb = thumb.getvalue()
    tags = [(0x010F, 2, 4, b"Cam\0")]
    if resolution:
        tags += [(282, 5, 1, None), (283, 5, 1, None), (296, 3, 1, struct.pack(order + "HH", 2, 0))]
    rationals = 8 + 2 + 12 * len(tags) + 4
    ifd1 = rationals + (16 if resolution else 0)
    ifd0 = struct.pack(order + "H", len(tags))
    for i, (tag, kind, n, value) in enumerate(tags):
        value = value if value is not None else struct.pack(order + "I", rationals + 8 * (i - 1))
        ifd0 += struct.pack(order + "HHI", tag, kind, n) + value
    ifd0 += struct.pack(order + "I", ifd1)
    values = struct.pack(order + "IIII", 72, 1, 72, 1) if resolution else b""
    at = ifd1 + 2 + 2 * 12 + 4
    ifd1 = struct.pack(order + "H", 2)
    ifd1 += struct.pack(order + "HHII", 513, 4, 1, at) + struct.pack(
        order + "HHII", 514, 4, 1, len(thumb)
    )
    ifd1 += struct.pack(order + "I", 0)
    head = (b"II*\0" if order == "<" else b"MM\0*") + struct.pack(order + "I", 8)
    return b"Exif\0\0" + head + ifd0 + values + ifd1 + thumb, thumb


@pytest.mark.parametrize("order", ["<", ">"])
def test_an_exifs_thumbnail_is_kept_when_it_is_made_to_say_the_dpi(tmp_path, order):
    # Pillow's Exif.tobytes writes no IFD1: a camera JPEG whose density (300) and EXIF
    # (72) disagreed came out with the EXIF's thumbnail gone. Its resolution is patched
    # in the bytes now; an EXIF without the tags and with a thumbnail goes as it was.
    exif, thumb = _thumbnail_exif(order)
    src = tmp_path / "camera.jpg"
    Image.fromarray(np.full((30, 40, 3), 100, np.uint8)).save(src, exif=exif, dpi=(300, 300))
    image = resize_image(src, scale=0.5)
    assert image.info["dpi"] == (300, 300)
    for ext in ("jpg", "webp"):
        out = tmp_path / f"out.{ext}"
        assert cresize.image._save(image, out).left_out == ()
        assert _exif_dpi(out) == (300, 300, 2)
        with Image.open(out) as back:
            written = back.info["exif"]
            assert thumb in written and back.getexif()[0x010F] == "Cam"
            assert dict(back.getexif().get_ifd(ExifTags.IFD.IFD1))[514] == len(thumb)
    assert cresize.image._exif_with_dpi(exif, (72.0, 72.0)) is exif  # as it was
    bare, _ = _thumbnail_exif(order, resolution=False)
    assert cresize.image._exif_with_dpi(bare, (300.0, 300.0)) is bare  # Pillow's: no IFD1


@pytest.mark.parametrize("png_writer", ["opencv", "pillow"])
def test_a_dpi_that_rounds_to_0_is_left_out_and_said(tmp_path, monkeypatch, png_writer):
    # JFIF's density is whole dots an inch, PNG's pHYs and BMP's header whole pixels a
    # metre: Pillow's writers (and cresize's pHYs) wrote 0.4 dpi to a JPEG, 0.01 dpi to a
    # PNG or BMP, as 0, without a word, where a DPI above a JPEG's 65,535 was left out
    from cresize.image import ImageArray, _save

    if png_writer == "opencv":
        pytest.importorskip("cv2")
    else:
        monkeypatch.setitem(sys.modules, "cv2", None)
    pixels = photo(20, 30)
    cases = [
        ("jpg", (0.4, 300.0), "0.4x300, which a JPEG holds as 0 dots an inch (whole numbers)"),
        ("jpg", (300.0, 0.5), "300x0.5, which a JPEG holds as 0 dots an inch (whole numbers)"),
        ("png", (0.01, 300.0), "0.01x300, which a PNG holds as 0 pixels a metre (whole numbers)"),
        ("bmp", (300.0, 0.01), "300x0.01, which a BMP holds as 0 pixels a metre (whole numbers)"),
    ]
    for ext, dpi, why in cases:
        out = tmp_path / f"out.{ext}"
        saved = _save(ImageArray(pixels, {"dpi": dpi}), out, overwrite=True)
        where = {"jpg": "of the JFIF density", "png": "of the pHYs chunk"}.get(ext)
        if where:  # an EXIF rational holds it (made: there was none)
            assert saved.left_out == (f"its DPI is left out {where}: {why}; its EXIF holds it",)
            assert _exif_dpi(out) == pytest.approx((*dpi, 2))
        else:  # BMP files hold no EXIF
            assert saved.left_out == (f"its DPI is left out: {why}",)
        with Image.open(out) as back:
            assert 0 not in back.info.get("dpi", (96, 96)), back.info  # BMP: Pillow's 96
    if png_writer == "opencv":  # 16-bit colour, and grey and alpha: their own writers
        for channels in (3, 2):
            out = tmp_path / f"deep{channels}.png"
            saved = _save(ImageArray(rgb16(20, 30, channels), {"dpi": (0.01, 300.0)}), out)
            assert saved.left_out == (
                f"its DPI is left out of the pHYs chunk: {cases[2][2]}; its EXIF holds it",
            )
            assert _exif_dpi(out) == pytest.approx((0.01, 300, 2))
            with Image.open(out) as back:
                assert "dpi" not in back.info
    for ext, dpi in [("jpg", (0.6, 300.0)), ("png", (0.0127, 300.0)), ("bmp", (0.0127, 1.0))]:
        out = tmp_path / f"kept.{ext}"  # rounds to 1: kept
        assert _save(ImageArray(pixels, {"dpi": dpi}), out).left_out == ()
        with Image.open(out) as back:
            assert min(back.info["dpi"]) > 0
    for dpi in [(0.4, 300.0), (0.01, 0.01)]:  # a TIFF's rationals hold them
        out = tmp_path / "kept.tif"
        assert _save(ImageArray(pixels, {"dpi": dpi}), out, overwrite=True).left_out == ()
        with Image.open(out) as back:
            assert back.info["dpi"] == pytest.approx(dpi)


def test_16bit_tiff_without_tifffile_says_the_profile_is_dropped(tmp_path, monkeypatch):
    from cresize.image import ImageArray, _save

    icc, pixels = srgb_icc(), rgb16(20, 30, 3)
    monkeypatch.setitem(sys.modules, "tifffile", None)
    saved = _save(ImageArray(pixels, {"icc_profile": icc}), tmp_path / "out.tif")
    assert "tifffile" in saved.icc_lost
    np.testing.assert_array_equal(read16(tmp_path / "out.tif"), pixels)  # OpenCV wrote it
    with Image.open(tmp_path / "out.tif") as opened:
        assert "icc_profile" not in opened.info
    assert _save(ImageArray(pixels, {"icc_profile": icc}), tmp_path / "out.png").icc_lost is None


def test_16bit_tiff_without_tifffile_says_its_exif_xmp_and_dpi_are_left_out(tmp_path, monkeypatch):
    # OpenCV writes a 16-bit TIFF with no EXIF, XMP or DPI: they were dropped without a
    # word (the ICC profile's loss was said); each is said now, and nothing where the
    # image has none, or where tifffile writes them
    from cresize.image import TIFFFILE_HINT, ImageArray, _save

    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"></x:xmpmeta>'
    pixels = rgb16(20, 30, 3)
    tagged = ImageArray(pixels, {"exif": _exif(1), "xmp": xmp, "dpi": (300, 300)})
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "tifffile", None)
        saved = _save(tagged, tmp_path / "out.tif")
        assert saved.left_out == tuple(
            f"its {name} is left out: OpenCV writes 16-bit TIFF without one; {TIFFFILE_HINT}"
            for name in ("EXIF", "XMP")
        )
        np.testing.assert_array_equal(read16(tmp_path / "out.tif"), pixels)  # OpenCV's
        with Image.open(tmp_path / "out.tif") as back:  # the DPI: OpenCV writes it
            assert back.info["dpi"] == (300, 300)
        assert _save(ImageArray(pixels, {"xmp": xmp}), tmp_path / "x.tif").left_out == (
            f"its XMP is left out: OpenCV writes 16-bit TIFF without one; {TIFFFILE_HINT}",
        )
        assert _save(ImageArray(pixels), tmp_path / "plain.tif").left_out == ()
        assert _save(tagged, tmp_path / "out.png").left_out == ()  # PNG keeps them
    if cresize.image._tifffile() is not None:
        assert _save(tagged, tmp_path / "tifffile.tif").left_out == ()


def test_16bit_tiff_without_tifffile_keeps_its_dpi_rounded(tmp_path, monkeypatch):
    # OpenCV writes a 16-bit TIFF's DPI (IMWRITE_TIFF_XDPI/YDPI, whole numbers): it was
    # left out with a note. A DPI is rounded; one that rounds to 0 or is above what
    # libtiff stores exactly through OpenCV is left out, and said.
    from cresize.image import OPENCV_TIFF_DPI_MAX, TIFFFILE_HINT, ImageArray, _save

    pixels = rgb16(12, 10, 3)
    monkeypatch.setitem(sys.modules, "tifffile", None)
    for dpi, want in [((300, 150), (300, 150)), ((299.9994, 72.4), (300, 72))]:
        saved = _save(ImageArray(pixels, {"dpi": dpi}), tmp_path / "out.tif", overwrite=True)
        assert saved.left_out == ()
        with Image.open(tmp_path / "out.tif") as back:
            assert back.info["dpi"] == want
            assert back.tag_v2[296] == 2  # inch
        np.testing.assert_array_equal(read16(tmp_path / "out.tif"), pixels)
    for dpi in [(0.4, 300), (300, OPENCV_TIFF_DPI_MAX + 1)]:
        saved = _save(ImageArray(pixels, {"dpi": dpi}), tmp_path / "out.tif", overwrite=True)
        x, y = dpi
        assert saved.left_out == (
            f"its DPI is left out: {x:,.2f}x{y:,.2f}; OpenCV writes a 16-bit TIFF's in "
            f"whole numbers from 1 to {OPENCV_TIFF_DPI_MAX:,}; {TIFFFILE_HINT}",
        )
        with Image.open(tmp_path / "out.tif") as back:
            assert 282 not in back.tag_v2


@pytest.mark.parametrize("fmt", ["bmp", "gif"])
def test_exif_given_to_bmp_or_gif_is_said_to_be_left_out(tmp_path, fmt):
    # Pillow's BMP and GIF writers drop exif= without a word, as they hold no XMP either
    from cresize.image import _save

    exif = Image.Exif()
    exif[0x010F] = "Maker"
    tagged = Image.fromarray(photo(8, 8))
    tagged.info["exif"] = exif.tobytes()
    saved = _save(tagged, tmp_path / f"out.{fmt}")
    assert saved.left_out == (f"its EXIF is left out: {fmt.upper()} files hold none",)
    with Image.open(tmp_path / f"out.{fmt}") as back:
        assert dict(back.getexif()) == {}
    deep = cresize.image.ImageArray(rgb16(8, 8, 3), {"exif": exif.tobytes()})  # to 8 bits
    assert _save(deep, tmp_path / f"deep.{fmt}").left_out == saved.left_out
    tagged.info["xmp"] = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"></x:xmpmeta>'
    assert _save(tagged, tmp_path / f"both.{fmt}").left_out == (
        f"its EXIF is left out: {fmt.upper()} files hold none",
        f"its XMP is left out: {fmt.upper()} files hold none",
    )
    for other in ("png", "jpg", "webp", "tif"):  # those hold it: no note
        assert _save(tagged, tmp_path / f"out.{other}").left_out == ()
        with Image.open(tmp_path / f"out.{other}") as back:
            assert back.getexif()[0x010F] == "Maker"


@pytest.mark.parametrize("fmt", ["bmp", "gif"])
def test_xmp_given_to_bmp_or_gif_is_said_to_be_left_out(tmp_path, fmt):
    # BMP and GIF hold no XMP: it was dropped without a word
    from cresize.image import _save

    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"></x:xmpmeta>'
    tagged = Image.fromarray(photo(8, 8))
    tagged.info["xmp"] = xmp
    saved = _save(tagged, tmp_path / f"out.{fmt}")
    assert saved.left_out == (f"its XMP is left out: {fmt.upper()} files hold none",)
    assert _save(Image.fromarray(photo(8, 8)), tmp_path / f"plain.{fmt}").left_out == ()
    deep = cresize.image.ImageArray(rgb16(8, 8, 3), {"xmp": xmp})  # rounded to 8 bits
    assert _save(deep, tmp_path / f"deep.{fmt}").left_out == saved.left_out
    for other in ("png", "jpg", "webp", "tif"):  # those hold it: no note
        assert _save(tagged, tmp_path / f"out.{other}").left_out == ()
        with Image.open(tmp_path / f"out.{other}") as back:
            assert back.info.get("xmp") or back.getexif().get(700), other


def test_16bit_tiff_over_4_gib_is_bigtiff(tmp_path, monkeypatch):
    # A 16-bit TIFF of more than 4 GiB of pixels (a 40000x18500 RGB scan of noise-like
    # samples, which deflate leaves as large) failed with tifffile's
    # "struct.error: 'I' format requires 0 <= number <= 4294967295": a classic TIFF's
    # offsets are 32-bit, and tifffile picks BigTIFF itself only for uncompressed data.
    tifffile = pytest.importorskip("tifffile")
    from cresize import image

    asked = []
    monkeypatch.setattr(tifffile, "imwrite", lambda *args, **kwargs: asked.append(kwargs))
    huge = np.broadcast_to(np.uint16(7), (18500, 40000, 3))  # 4.1 GiB, no memory
    image._tiff_encode(huge, {}, None)
    image._tiff_encode(huge[:100], {}, None)
    assert [kwargs["bigtiff"] for kwargs in asked] == [True, False]
    monkeypatch.undo()
    # BigTIFF as written is read back by OpenCV, Pillow and open_image (so --in-place
    # works on it), with its profile and DPI
    monkeypatch.setattr(image, "TIFF_BIG", 0)
    icc, pixels = srgb_icc(), rgb16(20, 30, 4)
    save_image(
        image.ImageArray(pixels, {"icc_profile": icc, "dpi": (300, 300)}), tmp_path / "b.tif"
    )
    with tifffile.TiffFile(tmp_path / "b.tif") as tif:
        assert tif.is_bigtiff
    np.testing.assert_array_equal(read16(tmp_path / "b.tif"), pixels)
    back = open_image(tmp_path / "b.tif")
    np.testing.assert_array_equal(back, pixels)
    assert back.info["icc_profile"] == icc and back.info["dpi"] == (300, 300)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_tiff_with_an_orientation_tag_is_turned_once(tmp_path, orientation):
    # OpenCV's TIFF decoder turns the pixels upright itself (IMREAD_UNCHANGED too), and
    # cresize turned them again: a 16-bit portrait scan (orientation 6) came out upside
    # down and landscape. And newer Pillow gives a TIFF's size already turned, which
    # cresize turned again for the target: an 8-bit 20x30 (upright) TIFF at scale 0.5
    # was squeezed to 15x10. The truth is Pillow's read of the same file at 8 bits.
    tifffile = pytest.importorskip("tifffile")
    pytest.importorskip("cv2")
    from PIL import ImageOps

    pixels = rgb16(20, 30, 3) // 257 * 257  # 8-bit values: Pillow's 8-bit read says the truth
    tag = [(274, "H", 1, orientation, True)]
    tifffile.imwrite(tmp_path / "in.tif", pixels, photometric="rgb", extratags=tag)
    eight = (pixels // 257).astype(np.uint8)
    tifffile.imwrite(tmp_path / "in8.tif", eight, photometric="rgb", extratags=tag)
    with Image.open(tmp_path / "in8.tif") as im:
        upright = np.asarray(ImageOps.exif_transpose(im))
    np.testing.assert_array_equal(open_image(tmp_path / "in.tif"), upright.astype(np.uint16) * 257)
    (h, w), half = upright.shape[:2], resize_image(tmp_path / "in.tif", scale=0.5)
    assert half.shape == (h // 2, w // 2, 3)
    assert resize_image(tmp_path / "in8.tif", scale=0.5).size == (w // 2, h // 2)
    fitted = (10, 7) if w > h else (7, 10)  # 30x20 or 20x30 in a 10x10 box
    assert resize_image(tmp_path / "in8.tif", fit=(10, 10)).size == fitted
    assert resize_image(tmp_path / "in.tif", fit=(10, 10)).shape[1::-1] == fitted


@pytest.mark.parametrize("compression", [None, "zlib"])
@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("orientation", [1, 6])
def test_a_planar_16bit_tiff_is_read_right(tmp_path, compression, channels, orientation):
    # A 16-bit RGB(A) TIFF stored plane by plane (PlanarConfiguration 2: all the red,
    # then all the green, ...) came out as garbage: uncompressed, Pillow read its
    # samples as 8-bit ones (the raw mode "R" of "RGB;16L" for a plane), and the
    # output was 8-bit; compressed, OpenCV read the planes as if interleaved. The
    # truth is the same pixels stored interleaved; tifffile reads both.
    tifffile = pytest.importorskip("tifffile")
    pixels = rgb16(20, 30, channels)
    options = dict(
        photometric="rgb",
        compression=compression,
        extrasamples=["unassalpha"] if channels == 4 else None,
        extratags=[(274, "H", 1, orientation, True)],
    )
    tifffile.imwrite(tmp_path / "chunky.tif", pixels, **options)
    planar = np.moveaxis(pixels, -1, 0)
    tifffile.imwrite(tmp_path / "planar.tif", planar, planarconfig="separate", **options)
    want = open_image(tmp_path / "chunky.tif")
    assert want.shape[:2] == ((20, 30) if orientation == 1 else (30, 20))
    got = open_image(tmp_path / "planar.tif")
    assert got.dtype == np.uint16
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        resize_image(tmp_path / "planar.tif", scale=0.5),
        resize_image(tmp_path / "chunky.tif", scale=0.5),
    )


def test_a_planar_16bit_tiff_without_tifffile_is_refused(tmp_path, monkeypatch):
    tifffile = pytest.importorskip("tifffile")
    src = tmp_path / "planar.tif"
    planes = np.moveaxis(rgb16(8, 9, 3), -1, 0)
    tifffile.imwrite(src, planes, photometric="rgb", planarconfig="separate")
    monkeypatch.setitem(sys.modules, "tifffile", None)
    with pytest.raises(ValueError, match=r"planar.tif stores its 16-bit RGB samples plane by"):
        resize_image(src, scale=0.5)


@pytest.mark.parametrize("kind", ["float-rgb", "planar-16bit"])
def test_a_truncated_tiff_tifffile_reads_is_an_oserror_naming_the_file(tmp_path, kind, capsys):
    # tifffile's "ValueError: failed to read 230400 bytes, got 115056" came out as it
    # was, naming no file (a truncated PNG or JPEG is Pillow's OSError), and the
    # command's line was that ValueError, not "a damaged file? its reader failed"
    tifffile = pytest.importorskip("tifffile")
    from cresize._cli_resize import main

    src = tmp_path / "cut.tif"
    if kind == "float-rgb":
        pixels = np.linspace(0, 1, 120 * 160 * 3, dtype=np.float32).reshape(120, 160, 3)
        tifffile.imwrite(src, pixels, photometric="rgb")
    else:
        planes = np.moveaxis(rgb16(120, 160, 3), -1, 0)
        tifffile.imwrite(src, planes, photometric="rgb", planarconfig="separate")
    data = src.read_bytes()
    cut = data[: 8 + (len(data) - 8) // 2]  # tifffile writes its directory first
    with tifffile.TiffFile(io.BytesIO(cut)) as tif:  # its header is whole
        assert tif.pages.first.shape[-2:] in ((120, 160), (160, 3))
    src.write_bytes(cut)
    for read in (open_image, lambda path: resize_image(path, scale=0.5)):
        with pytest.raises(
            OSError, match=r"^.*cut\.tif: a damaged file\? tifffile failed"
        ) as caught:
            read(src)
        assert isinstance(caught.value.__cause__, ValueError)  # tifffile's, chained
        assert str(caught.value.__cause__) in str(caught.value)
    assert main([str(src), "--scale", "0.5", "-o", str(tmp_path / "o.png")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        f"cresize resize: {src}: a damaged file? its reader failed: ValueError: failed to read"
    ), err
    assert src.read_bytes() == cut and not (tmp_path / "o.png").exists()


def test_a_tiff_compression_tifffile_cannot_decode_is_not_called_damaged(tmp_path):
    # A float RGB TIFF in LZW (GDAL's, Photoshop's) needs imagecodecs for tifffile to
    # decode it: a ValueError saying so, not "a damaged file?" (nor tifffile's bare
    # "<COMPRESSION.LZW: 5> requires the 'imagecodecs' package", naming no file)
    import importlib.util

    tifffile = pytest.importorskip("tifffile")
    if importlib.util.find_spec("imagecodecs") is not None:
        pytest.skip("imagecodecs is installed: tifffile decodes LZW with it")
    src = tmp_path / "lzw.tif"
    pixels = np.linspace(0, 1, 20 * 30 * 3, dtype=np.float32).reshape(20, 30, 3)
    tifffile.imwrite(src, pixels, photometric="rgb", compression="zlib")
    with tifffile.TiffFile(src) as tif:  # the Compression tag's value: 8 -> 5 (LZW)
        at = tif.pages.first.tags[259].valueoffset
    data = bytearray(src.read_bytes())
    assert data[at : at + 2] == b"\x08\x00"
    data[at : at + 2] = b"\x05\x00"
    src.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"lzw\.tif is a TIFF of compression LZW \(5\), which"):
        open_image(src)


def test_unsigned_32bit_tiff_values_pillow_wraps_are_refused(tmp_path):
    # Pillow reads unsigned 32-bit samples into its signed mode I: 3,000,000,000 came out
    # as -1,294,967,296, and resized as such. Values below 2**31 are read right.
    tifffile = pytest.importorskip("tifffile")
    counts = np.arange(40 * 60, dtype=np.uint32).reshape(40, 60)
    tifffile.imwrite(tmp_path / "small.tif", counts)
    got = resize_image(tmp_path / "small.tif", scale=0.5)
    np.testing.assert_array_equal(np.asarray(got), resize_image(counts, scale=0.5))
    counts[0, 0] = 3_000_000_000
    tifffile.imwrite(tmp_path / "large.tif", counts)
    with pytest.raises(ValueError, match=r"large.tif holds unsigned 32-bit samples from 2\*\*31"):
        resize_image(tmp_path / "large.tif", scale=0.5)
    negative = -np.arange(40 * 60, dtype=np.int32).reshape(40, 60)  # signed: read right
    tifffile.imwrite(tmp_path / "signed.tif", negative)
    got = resize_image(tmp_path / "signed.tif", scale=0.5)
    np.testing.assert_array_equal(np.asarray(got), resize_image(negative, scale=0.5))


@pytest.mark.parametrize("sixteen", [False, True])
def test_a_tiff_without_a_resolution_gets_no_dpi(tmp_path, sixteen):
    # Pillow reads a TIFF without XResolution/YResolution as 1x1 dpi (the missing
    # tags' default), and the output claimed 1 dpi (a 60-inch-wide print of 60
    # pixels): Pillow's own TIFFs, resized, have no resolution tags. A TIFF that has
    # them keeps them.
    tifffile = pytest.importorskip("tifffile")
    pixels = rgb16(20, 30, 3) if sixteen else photo(20, 30)
    src = tmp_path / "in.tif"
    if sixteen:
        write_tiff16(src, pixels, photometric=2)  # tifffile writes a resolution
    else:
        Image.fromarray(pixels).save(src)
    with Image.open(src) as im:
        assert 282 not in im.tag_v2 and im.info["dpi"] == (1, 1)  # Pillow's made-up value
    got = resize_image(src, scale=0.5)
    assert "dpi" not in got.info and "resolution" not in got.info
    for ext in ("tif", "png", "jpg"):
        save_image(got, tmp_path / f"out.{ext}")
        with Image.open(tmp_path / f"out.{ext}") as back:
            if ext == "tif":  # none, or one of no unit (tifffile writes 1x1 so)
                assert (back.tag_v2.get(296) if 282 in back.tag_v2 else 1) == 1
            else:
                assert back.info.get("dpi") in (None, (1, 1))
                assert back.info.get("jfif_unit", 0) == 0  # density 1:1, no unit
    tifffile.imwrite(src, pixels, photometric="rgb", resolution=(300, 150), resolutionunit="INCH")
    got = resize_image(src, scale=0.5)
    assert tuple(round(d) for d in got.info["dpi"]) == (300, 150)


def test_icc_lost_names_the_format_that_holds_none(tmp_path):
    from cresize.image import _save

    image = Image.fromarray(photo(8, 8))
    image.info["icc_profile"] = srgb_icc()
    assert _save(image, tmp_path / "a.bmp").icc_lost == "BMP files hold none"
    assert _save(image, tmp_path / "a.webp").icc_lost is None
    assert _save(Image.fromarray(photo(8, 8)), tmp_path / "b.bmp").icc_lost is None  # none there


def test_image_array_is_pickled_with_its_info():
    import pickle

    from cresize.image import ImageArray

    tagged = ImageArray(rgb16(6, 8, 3)[:, ::2], {"icc_profile": b"profile", "dpi": (72, 72)})
    back = pickle.loads(pickle.dumps(tagged))
    assert isinstance(back, ImageArray) and back.info == tagged.info
    np.testing.assert_array_equal(back, tagged)


# ---------------------------------------------------------------------------
# Resolution of images that EXIF orientation turns a quarter turn


def _exif_resolution(orientation, x, y):
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010F] = "cresize-test"
    exif[0x011A], exif[0x011B], exif[0x0128] = x, y, 2  # XResolution, YResolution, inch
    return exif.tobytes()


def _resolution(exif_bytes):
    exif = Image.Exif()
    exif.load(exif_bytes)
    return float(exif[0x011A]), float(exif[0x011B]), exif.get(0x0112, 1)


@pytest.mark.parametrize("orientation", [3, 6, 8])
@pytest.mark.parametrize("decoder", ["opencv", "pillow"])
def test_a_turned_jpeg_has_its_dpi_turned_too(tmp_path, monkeypatch, orientation, decoder):
    # A 300x150 dpi scan stored on its side (EXIF orientation 6) came out upright
    # with 300x150 dpi: its x and y resolutions belonged to the other axes (Pillow's
    # exif_transpose keeps them; libvips' autorot swaps them). A half turn keeps them.
    if decoder == "pillow":
        monkeypatch.setitem(sys.modules, "cv2", None)
    src = tmp_path / "in.jpg"
    exif = _exif_resolution(orientation, 300, 150)
    Image.fromarray(photo(40, 60)).save(src, exif=exif, dpi=(300, 150))
    want = (150, 300) if orientation in (6, 8) else (300, 150)
    for got in (open_image(src), resize_image(src, scale=0.5), resize_image(src, scale=0.1)):
        assert (got.size[0] < got.size[1]) == (orientation in (6, 8))  # upright
        assert tuple(got.info["dpi"]) == want
        assert _resolution(got.info["exif"]) == (*want, 1)
        assert got.getexif()[0x010F] == "cresize-test"
    save_image(resize_image(src, scale=0.5), tmp_path / "out.jpg")
    with Image.open(tmp_path / "out.jpg") as back:
        assert back.info["dpi"] == want and _resolution(back.info["exif"]) == (*want, 1)


@pytest.mark.parametrize("ext", ["png", "tif"])
def test_a_turned_16bit_image_has_its_dpi_turned_too(tmp_path, ext):
    from helpers.png16 import png16

    pixels = rgb16(40, 60, 3)
    if ext == "png":
        src = png16(tmp_path / "in.png", pixels, exif=_exif_resolution(6, 300, 150), dpi=(300, 150))
    else:
        tifffile = pytest.importorskip("tifffile")
        src = tmp_path / "in.tif"
        tags = [(274, "H", 1, 6, True)]
        tifffile.imwrite(
            src, pixels, photometric="rgb", extratags=tags, resolution=(300, 150),
            resolutionunit="INCH",
        )  # fmt: skip
    got = resize_image(src, scale=0.5)
    assert got.shape == (30, 20, 3)  # upright: 40 wide, 60 high
    assert tuple(round(d) for d in got.info["dpi"]) == (150, 300)
    if ext == "png":
        assert _resolution(got.info["exif"]) == (150, 300, 1)
    save_image(got, tmp_path / f"out.{ext}")
    with Image.open(tmp_path / f"out.{ext}") as back:
        assert tuple(round(d) for d in back.info["dpi"]) == (150, 300)


def test_turned_info_swaps_every_xy_pair():
    from cresize.image import _turned_info

    info = {"dpi": (300, 150), "resolution": (3, 1), "aspect": (2, 1), "jfif_density": (7, 5)}
    info.update(icc_profile=b"icc", exif=_exif_resolution(1, 72, 96))
    got = _turned_info(info)
    assert {k: got[k] for k in ("dpi", "resolution", "aspect", "jfif_density")} == {
        "dpi": (150, 300), "resolution": (1, 3), "aspect": (1, 2), "jfif_density": (5, 7)
    }  # fmt: skip
    assert _resolution(got["exif"]) == (96, 72, 1) and got["icc_profile"] == b"icc"
    assert info["dpi"] == (300, 150)  # the input is not modified
    same = {"dpi": (72, 72), "exif": _exif_resolution(1, 72, 72)}
    assert _turned_info(same) == same  # square pixels: the EXIF bytes as they were


def test_image_array_of_an_image_array_keeps_its_info():
    # ImageArray(tagged) gave an empty info: the 16-bit image lost its ICC profile.
    from cresize.image import ImageArray

    tagged = ImageArray(rgb16(6, 8, 3), {"icc_profile": b"profile", "dpi": (72, 72)})
    again = ImageArray(tagged)
    assert again.info == tagged.info and again.info is not tagged.info  # a copy
    assert ImageArray(tagged, {}).info == {}  # an explicit info wins
    assert ImageArray(tagged, {"dpi": (1, 1)}).info == {"dpi": (1, 1)}
    assert ImageArray(np.asarray(tagged)).info == {}  # a plain array has none
    assert ImageArray(tagged[1:, ::2]).info == tagged.info  # nor does a view lose it
    # views, ufuncs and arithmetic keep it, as documented; np.asarray drops it
    for result in (tagged.T, tagged[0], np.sqrt(tagged), tagged * np.ones(3), 1 + tagged):
        assert isinstance(result, ImageArray) and result.info == tagged.info
    assert type(np.asarray(tagged)) is np.ndarray


def test_16bit_tiff_is_written_without_the_file_in_memory(tmp_path):
    # A 16-bit TIFF was encoded into a BytesIO, then copied out of it, before the
    # write: a 5 GiB scan took 5 GiB of pixels plus 10 GiB more. It is written into
    # the file a strip at a time. Noise: deflate leaves the file as large as the pixels.
    import tracemalloc

    pytest.importorskip("tifffile")
    pytest.importorskip("cv2")
    pixels = np.random.default_rng(0).integers(0, 65536, (1000, 1000, 3)).astype(np.uint16)
    save_image(pixels[:10, :10], tmp_path / "warm.tif")  # imports and first-call caches
    tracemalloc.start()
    try:
        save_image(pixels, tmp_path / "out.tif")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert os.path.getsize(tmp_path / "out.tif") > pixels.nbytes
    assert peak < pixels.nbytes / 3  # about 1.2 MB (the file: 6 MB)
    np.testing.assert_array_equal(read16(tmp_path / "out.tif"), pixels)


def _camera_exif(orientation):
    """EXIF as a camera writes it: IFD0 text, the Exif IFD (with its Interoperability
    IFD) and the GPS IFD."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010F], exif[0x0110], exif[0x0131] = "cresize-test", "Model X", "Firmware 1.0"
    exif[0x0132], exif[0x8298] = "2024:05:06 07:08:09", "(c) a photographer"
    exif.get_ifd(0x8769).update({0x9003: "2024:05:06 07:08:09", 0x829A: 0.004, 0x920A: 50.0})
    exif.get_ifd(0x8769)[0xA005] = {1: "R98"}  # Interoperability IFD, inside the Exif IFD
    exif.get_ifd(0x8825).update({1: "N", 2: (52.0, 22.0, 1.5)})
    return exif.tobytes()


@pytest.mark.parametrize("big", [False, True])
def test_16bit_tiff_keeps_the_exif(tmp_path, monkeypatch, big):
    # A 16-bit TIFF was written without EXIF (camera, exposure, date, GPS): tifffile
    # writes no Exif or GPS IFD. They are written now, without the orientation tag
    # (the pixels are upright), also in BigTIFF. Pillow and tifffile read them.
    tifffile = pytest.importorskip("tifffile")
    from cresize import image
    from helpers.png16 import png16

    if big:
        monkeypatch.setattr(image, "TIFF_BIG", 0)
    src = png16(tmp_path / "in.png", rgb16(20, 30, 3), icc=srgb_icc(), exif=_camera_exif(6))
    got = resize_image(src, (10, 15))
    save_image(got, tmp_path / "out.tif")
    with Image.open(tmp_path / "out.tif") as back:
        exif = back.getexif()
        assert exif.get(0x0112, 1) == 1 and back.info["icc_profile"] == srgb_icc()
        assert (exif[0x010F], exif[0x0110], exif[0x0131]) == (
            "cresize-test",
            "Model X",
            "Firmware 1.0",
        )
        assert (exif[0x0132], exif[0x8298]) == ("2024:05:06 07:08:09", "(c) a photographer")
        assert exif.get_ifd(0x8769)[0x9003] == "2024:05:06 07:08:09"
        assert float(exif.get_ifd(0x8769)[0x829A]) == 0.004
        assert exif.get_ifd(0xA005) == {1: "R98"}
        assert exif.get_ifd(0x8825)[1] == "N"
    with tifffile.TiffFile(tmp_path / "out.tif") as tif:
        assert tif.is_bigtiff == big
        tags = tif.pages[0].tags
        assert tags["ExifTag"].value["FocalLength"] == 50.0
        assert tags["GPSTag"].value["GPSLatitudeRef"] == "N"
        assert list(tags.keys()) == sorted(tags.keys())  # IFD0 in ascending tag order
    np.testing.assert_array_equal(read16(tmp_path / "out.tif"), got)
    np.testing.assert_array_equal(open_image(tmp_path / "out.tif"), got)
    # text that is not ASCII (UTF-8, as most software writes it) is written as it was
    # stored, where tifffile refuses a str that is not ASCII (the save failed)
    utf8 = Image.Exif()
    utf8[0x0110] = "Modèle X".encode()
    save_image(image.ImageArray(got, {"exif": utf8.tobytes()}), tmp_path / "utf8.tif")
    with Image.open(tmp_path / "utf8.tif") as back:  # Pillow reads text as Latin-1
        assert back.getexif()[0x0110].encode("latin-1").decode() == "Modèle X"


def test_16bit_tiff_whose_exif_passes_the_threshold_is_bigtiff(tmp_path, monkeypatch):
    # Pixels just under TIFF_BIG with an EXIF that took the file past 4 GiB were written
    # as a classic TIFF: struct.error when the EXIF IFDs' offsets passed 32 bits (no
    # file). BigTIFF is chosen from the pixels and the metadata together (a smaller
    # TIFF_BIG stands in for 4 GiB).
    tifffile = pytest.importorskip("tifffile")
    from cresize import image

    pixels = rgb16(20, 30, 3)
    exif = Image.Exif()
    exif[0x8298] = "a long copyright " * 500  # Copyright: 8.5 kB
    exif.get_ifd(0x8769)[0x9286] = b"ASCII\0\0\0" + b"a user comment " * 500
    exif = exif.tobytes()
    for limit, big in ((pixels.nbytes, True), (pixels.nbytes + 10 * len(exif), False)):
        monkeypatch.setattr(image, "TIFF_BIG", limit)
        path = tmp_path / f"{big}.tif"
        save_image(image.ImageArray(pixels, {"exif": exif}), path)
        with tifffile.TiffFile(path) as tif:
            assert tif.is_bigtiff == big
        with Image.open(path) as back:
            assert back.getexif()[0x8298] == "a long copyright " * 500
        np.testing.assert_array_equal(read16(path), pixels)
    monkeypatch.setattr(image, "TIFF_BIG", pixels.nbytes)
    save_image(pixels, tmp_path / "plain.tif")  # no metadata: pixels not over the limit
    with tifffile.TiffFile(tmp_path / "plain.tif") as tif:
        assert not tif.is_bigtiff


@pytest.mark.parametrize("maxval", [65535, 4095])
def test_a_16bit_pgm_is_16bit_grey(tmp_path, maxval):
    # Pillow reads a PGM of more than 8 bits into its 32-bit mode I: no 8-bit format took
    # the result (JPEG, WebP, BMP, GIF: "cannot write a I (32-bit integer) image") and a
    # TIFF was written at 32 bits. It is 16-bit grey, as a 16-bit PNG's I;16.
    pytest.importorskip("cv2")
    tifffile = pytest.importorskip("tifffile")
    grey = np.linspace(0, maxval, 20 * 30).round().astype(np.uint16).reshape(20, 30)
    src = tmp_path / "in.pgm"
    src.write_bytes(b"P5\n30 20\n%d\n" % maxval + grey.astype(">u2").tobytes())
    want = (grey.astype(np.uint32) * 65535 + maxval // 2) // maxval
    image = open_image(src)
    assert image.mode == "I;16"
    np.testing.assert_array_equal(np.asarray(image), want)
    half = resize_image(src, scale=0.5)
    assert half.mode == "I;16" and half.size == (15, 10)
    for fmt in ("jpg", "webp", "bmp", "gif"):  # rounded to 8 bits, as 16-bit PNG grey
        save_image(half, tmp_path / f"out.{fmt}")
        with Image.open(tmp_path / f"out.{fmt}") as im:
            eight = np.asarray(im.convert("L"), np.int64)
        assert diff(eight, np.asarray(half) / 257) <= (3 if fmt in ("jpg", "webp") else 1)
    save_image(half, tmp_path / "out.tif")
    np.testing.assert_array_equal(tifffile.imread(tmp_path / "out.tif"), np.asarray(half))
    assert tifffile.imread(tmp_path / "out.tif").dtype == np.uint16


@pytest.mark.parametrize("kind", ["rgba16", "planar16", "la16", "rgba_float", "rgba8"])
def test_associated_alpha_of_a_tiff_is_made_straight(tmp_path, kind):
    # A TIFF's alpha may be premultiplied into the colour (ExtraSamples 1, associated).
    # Pillow makes an 8-bit one straight (RGBa -> RGBA); OpenCV (16-bit colour) and
    # tifffile (16-bit grey and alpha, float) gave the samples as stored, and they were
    # taken as straight: colour darkened by alpha (up to 70% here) in every output.
    tifffile = pytest.importorskip("tifffile")
    pytest.importorskip("cv2")
    h, w = 12, 16
    y, x = np.mgrid[0:h, 0:w]
    colour = np.dstack([x / (w - 1), y / (h - 1), 0.5 + 0 * x])[..., : 1 if kind == "la16" else 3]
    alpha = (0.3 + 0.7 * x / (w - 1))[..., None]
    alpha[0, 0] = 0  # colour under alpha 0: 0
    if kind == "rgba_float":
        top, dtype = 1.0, np.float32
    else:
        top, dtype = (255, np.uint8) if kind == "rgba8" else (65535, np.uint16)
    stored = np.dstack([colour * alpha, alpha]) * top
    stored = stored.astype(dtype) if kind == "rgba_float" else np.rint(stored).astype(dtype)
    src = tmp_path / "in.tif"
    kw = dict(photometric="minisblack" if kind == "la16" else "rgb", extrasamples=[1])
    if kind == "planar16":
        tifffile.imwrite(src, np.moveaxis(stored, 2, 0), planarconfig="separate", **kw)
    else:
        tifffile.imwrite(src, stored, **kw)
    got = np.asarray(open_image(src), np.float64) / top
    want = np.dstack([colour, alpha])
    want[0, 0, :-1] = 0
    tolerance = 1e-6 if kind == "rgba_float" else 2 / (alpha[1:, 1:].min() * top)
    np.testing.assert_allclose(
        got[1:, 1:], want[1:, 1:], atol=3 / 255 if kind == "rgba8" else tolerance
    )
    assert got[0, 0, 0] == 0
    if kind == "rgba16":  # resized and written, as the straight file is
        straight = tmp_path / "straight.tif"
        tifffile.imwrite(straight, np.rint(want * top).astype(dtype), photometric="rgb")
        for name in ("in", "straight"):
            save_image(resize_image(tmp_path / f"{name}.tif", scale=0.5), tmp_path / f"{name}.png")
        assert diff(open_image(tmp_path / "in.png"), open_image(tmp_path / "straight.png")) <= 257


@pytest.mark.parametrize("photometric", ["rgb", "minisblack"])
@pytest.mark.parametrize("extra", [1, 2])
def test_8bit_alpha_stored_plane_by_plane(tmp_path, photometric, extra):
    # Pillow opens an 8-bit TIFF of RGB and associated alpha, or of grey and alpha,
    # stored plane by plane, and fails to decode it: "unknown raw mode for given image
    # mode", no file named. tifffile reads it (associated alpha made straight).
    tifffile = pytest.importorskip("tifffile")
    samples = 4 if photometric == "rgb" else 2
    planes = np.zeros((samples, 6, 8), np.uint8)
    planes[0], planes[-1] = 64, 128
    src = tmp_path / "in.tif"
    tifffile.imwrite(
        src, planes, photometric=photometric, planarconfig="separate", extrasamples=[extra]
    )
    got = np.asarray(open_image(src))
    assert got.shape == (6, 8, samples) and got.dtype == np.uint8
    assert got[0, 0, 0] == (128 if extra == 1 else 64) and got[0, 0, -1] == 128  # 64/0.5
    save_image(resize_image(src, (4, 3)), tmp_path / "out.png")
    with Image.open(tmp_path / "out.png") as written:
        assert written.mode == ("RGBA" if samples == 4 else "LA")
        assert np.asarray(written)[1, 1, 0] == got[0, 0, 0]


def test_the_exif_of_a_tiff_is_kept(tmp_path):
    # A TIFF's EXIF is tags of its own directory (Make, Copyright, the Exif IFD), which
    # Pillow keeps in the TIFF's tags, not in info["exif"]: no output got them.
    tifffile = pytest.importorskip("tifffile")
    pytest.importorskip("cv2")
    exif = Image.Exif()
    exif[0x010F] = "MakerCo"  # Make
    exif[0x8298] = "(c) Someone"  # Copyright
    exif[0x010E] = "a caption"  # ImageDescription
    exif[0x0112] = 6  # orientation: applied to the pixels, not kept
    exif[0x8769] = {0x829A: 0.004, 0x9003: "2024:01:02 03:04:05"}  # ExposureTime, date
    stored = photo(30, 20)  # upright 20x30 -> 30x20
    eight = tmp_path / "in8.tif"
    Image.fromarray(stored).save(eight, exif=exif.tobytes())
    sixteen = tmp_path / "in16.tif"
    tifffile.imwrite(
        sixteen,
        stored.astype(np.uint16) * 257,
        photometric="rgb",
        extratags=[
            (0x010F, "s", 0, "MakerCo", True),
            (0x8298, "s", 0, "(c) Someone", True),
            (0x0112, "H", 1, 6, True),
        ],
    )
    for src in (eight, sixteen):
        image = resize_image(src, scale=0.5)
        for fmt in ("jpg", "png", "webp", "tif"):
            out = tmp_path / f"out-{src.stem}.{fmt}"
            save_image(image, out)
            with Image.open(out) as written:
                assert written.size == (15, 10)
                got = written.getexif()
                assert got.get(0x010F) == "MakerCo" and got.get(0x8298) == "(c) Someone"
                assert got.get(0x0112, 1) == 1
                assert fmt == "tif" or 0x0100 not in got  # no layout tags (ImageWidth) as EXIF
                if src == eight:
                    assert got.get_ifd(0x8769).get(0x9003) == "2024:01:02 03:04:05"
                    assert got.get(0x010E) == "a caption"
                else:  # tifffile's description of its layout ('{"shape": [30, 20, 3]}')
                    assert "shape" not in got.get(0x010E, "")
        with tifffile.TiffFile(tmp_path / f"out-{src.stem}.tif") as tif:  # no warning
            assert tif.series[0].shape == (10, 15, 3)


XMP = (
    b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/'
    b'22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" '
    b'xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"><dc:rights>(c) '
    b"Someone</dc:rights></rdf:Description></rdf:RDF></x:xmpmeta>"
)


def _xmp_of(path):
    with Image.open(path) as im:
        xmp = im.info.get("xmp")
    return xmp.encode() if isinstance(xmp, str) else xmp


@pytest.mark.parametrize("kind", ["jpg", "png", "webp", "tif", "tif16"])
def test_xmp_is_kept_and_its_orientation_applied_once(tmp_path, kind):
    # XMP (rights, captions, keywords) was left out of every output. Its orientation
    # (tiff:Orientation, where there is no EXIF one) is applied to the pixels, as the
    # EXIF one is, and taken out of it; a 16-bit TIFF's, which OpenCV does not apply
    # (it applies the TIFF tag), was not applied: the pixels came out on their side.
    tifffile = pytest.importorskip("tifffile")
    pytest.importorskip("cv2")
    from PIL import PngImagePlugin

    upright = photo(20, 30)
    upright[:, :, 0] = np.linspace(40, 220, 30).astype(np.uint8)  # red grows along x
    stored = np.ascontiguousarray(np.rot90(upright))  # orientation 6: turned back
    src = tmp_path / ("in." + kind.removesuffix("16"))
    if kind == "tif16":
        tag = [(700, "B", len(XMP), XMP, True)]
        tifffile.imwrite(src, stored.astype(np.uint16) * 257, photometric="rgb", extratags=tag)
    elif kind == "png":
        text = PngImagePlugin.PngInfo()
        text.add_itxt("XML:com.adobe.xmp", XMP.decode())
        Image.fromarray(stored).save(src, pnginfo=text)
    elif kind == "tif":
        Image.fromarray(stored).save(src, tiffinfo={700: XMP})
    else:
        Image.fromarray(stored).save(src, xmp=XMP, lossless=True, quality=95)
    image = resize_image(src, scale=0.5)
    red = np.asarray(image)[..., 0].astype(np.int64)
    assert red.shape == (10, 15) and (np.diff(red[5]) > 0).all()  # upright, once
    for fmt in ("jpg", "png", "webp", "tif"):
        out = tmp_path / f"out.{fmt}"
        save_image(image, out)
        xmp = _xmp_of(out)
        assert xmp is not None and b"<dc:rights>(c) Someone</dc:rights>" in xmp, fmt
        assert b"Orientation" not in xmp, fmt  # the pixels are upright
        with Image.open(out) as written:
            assert written.size == (15, 10) and written.getexif().get(0x0112, 1) == 1


def test_xmp_of_a_tiff_written_as_read_has_no_orientation(tmp_path):
    # save_image(open_image(tiff)) wrote the TIFF's XMP as read, orientation and all
    # (Pillow's TIFF writer copies tag 700 from the file the image was read from, over
    # the one given): the upright pixels were turned again by whatever reads the XMP
    tifffile = pytest.importorskip("tifffile")
    upright = photo(20, 30)
    upright[:, :, 0] = np.linspace(40, 220, 30).astype(np.uint8)  # red grows along x
    blocks = [(33723, "B", 4, b"IPTC", True), (34377, "B", 3, b"PSD", True)]
    src = tmp_path / "in.tif"
    tifffile.imwrite(
        src,
        np.ascontiguousarray(np.rot90(upright)),  # orientation 6: turned back
        photometric="rgb",
        extratags=[(700, "B", len(XMP), XMP, True), *blocks],
    )
    image = open_image(src)
    save_image(image, tmp_path / "out.tif")
    xmp = _xmp_of(tmp_path / "out.tif")
    assert b"(c) Someone" in xmp and b"Orientation" not in xmp
    with Image.open(tmp_path / "out.tif") as written:
        assert written.getexif().get(0x0112, 1) == 1
        assert written.tag_v2.get(33723) == b"IPTC" and written.tag_v2.get(34377) == b"PSD"
        red = np.asarray(ImageOps.exif_transpose(written))[..., 0].astype(np.int64)
    assert red.shape == (20, 30) and (np.diff(red[10]) > 0).all()  # upright, once
    assert b"Orientation" in image.tag_v2[700]  # the image read is not changed
    image.info.pop("xmp")  # none given: none written
    save_image(image, tmp_path / "none.tif")
    assert _xmp_of(tmp_path / "none.tif") is None


@pytest.mark.parametrize("bits", [8, 16])
def test_an_xmp_orientation_that_the_tiff_tag_overrides_is_not_written(tmp_path, bits):
    # a TIFF's orientation tag 1 overrides its XMP's 6 (it is read upright); the tag is
    # not written (applied), so its XMP's 6 went into the 8-bit TIFF's outputs, whose
    # readers then turned the upright pixels
    tifffile = pytest.importorskip("tifffile")
    pytest.importorskip("cv2")
    src = tmp_path / "in.tif"
    pixels = photo(20, 30).astype(np.uint16 if bits == 16 else np.uint8)
    tags = [(700, "B", len(XMP), XMP, True), (274, "H", 1, 1, True)]
    tifffile.imwrite(src, pixels, photometric="rgb", extratags=tags)
    image = resize_image(src, scale=0.5)
    assert b"Orientation" not in image.info["xmp"]
    for fmt in ("jpg", "png", "webp", "tif"):
        save_image(image, tmp_path / f"out.{fmt}")
        assert b"(c) Someone" in _xmp_of(tmp_path / f"out.{fmt}"), fmt
        with Image.open(tmp_path / f"out.{fmt}") as written:
            assert written.size == (15, 10) and written.getexif().get(0x0112, 1) == 1, fmt


def test_xmp_of_16bit_grey_and_alpha_and_too_long_for_jpeg(tmp_path):
    from cresize.image import JPEG_XMP_MAX, ImageArray

    pytest.importorskip("cv2")
    grey_alpha = ImageArray(np.full((4, 6, 2), 40000, np.uint16), {"xmp": XMP})
    save_image(grey_alpha, tmp_path / "ga.png")  # cresize's own PNG writer
    assert b"(c) Someone" in _xmp_of(tmp_path / "ga.png")
    long = b"<x:xmpmeta>" + b" " * JPEG_XMP_MAX + b"</x:xmpmeta>"
    rgb = Image.fromarray(photo(4, 6))
    rgb.info["xmp"] = long
    save_image(rgb, tmp_path / "long.jpg")  # Pillow: "XMP data is too long"; left out
    assert _xmp_of(tmp_path / "long.jpg") is None
    save_image(rgb, tmp_path / "long.webp")  # WebP holds it
    assert _xmp_of(tmp_path / "long.webp") == long


def test_a_grey_profile_is_not_written_into_an_rgb_webp(tmp_path, capsys):
    # Pillow writes a grey (L) image to WebP as RGB: its grey ICC profile went with it,
    # a GRAY profile in an RGB file (invalid), where LA (written RGBA) lost it with a
    # note. Grey goes to WebP as RGB, without the profile, and the command says so.
    from cresize._cli_resize import main

    grey_icc = srgb_icc()[:16] + b"GRAY" + srgb_icc()[20:]  # its colour space field
    src = tmp_path / "grey.jpg"
    Image.fromarray(photo(20, 30, 1)).save(src, icc_profile=grey_icc)
    with Image.open(src) as im:
        pixels = np.asarray(im)
    for image in (resize_image(src, scale=0.5), pixels):
        save_image(image, tmp_path / "out.webp", overwrite=True)
        with Image.open(tmp_path / "out.webp") as written:
            assert written.mode == "RGB" and not written.info.get("icc_profile")
    assert main([str(src), "--scale", "0.5", "-o", str(tmp_path / "cli.webp"), "-q"]) == 0
    assert "it describes GRAY pixels, and RGB pixels are written" in capsys.readouterr().err
    save_image(resize_image(src, scale=0.5), tmp_path / "out.jpg")  # JPEG holds grey: kept
    with Image.open(tmp_path / "out.jpg") as written:
        assert written.mode == "L" and written.info["icc_profile"] == grey_icc


# AVIF of 10 and 12 bits: Pillow's AVIF plugin decodes them to 8 bits and does not say
# so. The depth is read from the header (tests/data/avif/, made by tests/helpers/avif.py;
# lossless, so the pixels are known without a decoder), and OpenCV reads the pixels.


def _pillow_avif():
    from PIL import features

    if not features.check("avif"):
        pytest.skip("Pillow without AVIF (its plugin came in Pillow 11.2)")


def _opencv_avif():
    """cv2, where it reads AVIF (one built without libavif reads none: older wheels)."""
    _pillow_avif()
    cv2 = pytest.importorskip("cv2")
    if not cv2.haveImageReader(avif.path("rgb10.avif")):
        pytest.skip(f"OpenCV {cv2.__version__} reads no AVIF")
    return cv2


def _to_16(pixels, bits):
    """``bits``-bit samples as cresize reads them: scaled so that white is 65535."""
    top = (1 << bits) - 1
    return ((pixels.astype(np.uint32) * 65535 + top // 2) // top).astype(np.uint16)


def _depth_of(data):
    """The depth (``_avif_file_header``) of the AVIF file bytes ``data``, or None."""
    import io

    from cresize import image

    header = image._avif_file_header(io.BytesIO(bytes(data)))
    return header and header[0]


@pytest.mark.parametrize(
    "name, bits",
    [("rgb8.avif", 8), ("rgb10.avif", 10), ("rgba12.avif", 12), ("grey10.avif", 10),
     ("turned10.avif", 10)],
)  # fmt: skip
def test_an_avif_s_depth_is_read_from_its_header(name, bits):
    from cresize import image

    _pillow_avif()
    with Image.open(avif.path(name)) as im:
        assert im.format == "AVIF" and image._avif_header(im)[0] == bits
        assert im.fp.tell() == 0 or im.fp.tell() == os.path.getsize(avif.path(name))
    with open(avif.path(name), "rb") as f:
        assert _depth_of(f.read()) == bits
    with open(avif.path(name), "rb") as f:  # grey by the header: Pillow 11 says RGB
        grey = name.startswith("grey")  # lossless colour: 4:4:4; grey: no sampling
        assert image._avif_file_header(f) == (bits, grey, None if grey else "4:4:4")


def test_an_8bit_avif_from_pillow_is_8_bits(tmp_path):
    from cresize import image

    _pillow_avif()
    src = tmp_path / "pillow.avif"
    exif = Image.Exif()
    exif[0x0112] = 6  # Pillow writes irot and imir for it
    Image.fromarray(photo(16, 20, 4), "RGBA").save(src, exif=exif)
    with Image.open(src) as im:
        assert image._avif_header(im)[0] == 8 and im.getexif().get(0x0112) == 6
    assert isinstance(open_image(src), Image.Image)  # Pillow's, as before


def _boxes(data, start=0, end=None):
    """{type: (start, end)} of the ISOBMFF boxes of ``data`` from ``start``."""
    end, found = len(data) if end is None else end, {}
    while start + 8 <= end:
        size = int.from_bytes(data[start : start + 4], "big")
        found[bytes(data[start + 4 : start + 8])] = (start, start + size)
        start += size
    return found


def test_an_avif_s_av1c_flags_and_pixi_say_its_depth():
    # rgb10.avif's primary item has av1C (10 bits) and pixi (10, 10, 10)
    with open(avif.path("rgb10.avif"), "rb") as f:
        data = bytearray(f.read())
    av1c = data.index(b"av1C") + 4  # its content: marker/version, profile/level, flags
    assert data[av1c + 2] & 0x60 == 0x40  # high_bitdepth, not twelve_bit
    data[av1c + 2] |= 0x20
    assert _depth_of(data) == 12
    data[av1c + 2] &= ~0x60 & 0xFF
    assert _depth_of(data) == 8  # av1C before pixi: the codec's own header
    data[av1c - 4 : av1c] = b"xxxx"  # no av1C: the pixi box's bits
    assert _depth_of(data) == 10
    pixi = data.index(b"pixi") + 4
    data[pixi + 5 : pixi + 8] = bytes([8, 12, 8])  # the deepest channel
    assert _depth_of(data) == 12
    data[pixi + 5 : pixi + 8] = bytes([8, 16, 8])  # no AV1 depth: unknown
    assert _depth_of(data) is None
    data[pixi - 4 : pixi] = b"yyyy"
    assert _depth_of(data) is None  # nothing says


def test_an_avif_s_depth_is_its_primary_item_s():
    # rgba12.avif: the colour (item 1) and the alpha (item 2, monochrome) both 12-bit;
    # with the alpha's av1C at 10 bits and the colour's at 8, the colour's counts
    with open(avif.path("rgba12.avif"), "rb") as f:
        data = bytearray(f.read())
    first = data.index(b"av1C") + 4
    second = data.index(b"av1C", first) + 4
    data[first + 2] &= ~0x60 & 0xFF
    data[second + 2] = (data[second + 2] & ~0x60 & 0xFF) | 0x40
    assert _depth_of(data) == 8
    pitm = data.index(b"pitm") + 8  # version, flags, item_ID (2 bytes)
    data[pitm : pitm + 2] = (2).to_bytes(2, "big")  # the alpha is primary now
    assert _depth_of(data) == 10
    data[pitm : pitm + 2] = (9).to_bytes(2, "big")  # no such item (a grid's tiles): deepest
    assert _depth_of(data) == 10


def test_a_truncated_or_crafted_avif_header_gives_no_depth():
    with open(avif.path("rgb10.avif"), "rb") as f:
        data = f.read()
    meta = _boxes(data)[b"meta"]
    for n in range(len(data)):
        got = _depth_of(data[:n])  # never an error; the depth once the meta box is whole
        assert got is None if n < meta[1] else got == 10, n
    other = bytearray(data)
    other[8:12] = b"heic"  # major brand
    other[other.index(b"avif", 12) : other.index(b"avif", 12) + 4] = b"mif1"
    assert b"avif" not in other[:32] and _depth_of(other) is None
    assert _depth_of(b"") is None and _depth_of(b"\0\0\0\x01ftyp" + bytes(8)) is None


class _Counted:
    """A file in memory that counts the bytes read and the reads."""

    def __init__(self, data):
        import io

        self.file, self.reads, self.read_bytes = io.BytesIO(data), 0, 0

    def seek(self, *args):
        return self.file.seek(*args)

    def read(self, n=-1):
        out = self.file.read(n)
        self.reads, self.read_bytes = self.reads + 1, self.read_bytes + len(out)
        return out


def test_a_crafted_avif_header_is_read_boundedly():
    # A million empty boxes before the meta box, or inside it, or an iprp box of
    # megabytes: a few dozen reads of a few bytes each, then "unknown"
    from cresize import image

    with open(avif.path("rgb10.avif"), "rb") as f:
        data = f.read()
    ftyp_end = _boxes(data)[b"ftyp"][1]
    free = b"\0\0\0\x08free" * 1_000_000
    for crafted in (
        data[:ftyp_end] + free + data[ftyp_end:],
        data[:ftyp_end] + struct.pack(">I4s", 12 + len(free), b"meta") + bytes(4) + free,
        data[:ftyp_end] + struct.pack(">I4s", 12 + 16 + (1 << 22), b"meta") + bytes(4)
        + struct.pack(">I4s", 16 + (1 << 22), b"iprp") + struct.pack(">I4s", 8 + (1 << 22), b"ipco")
        + b"\0\0\0\x0cav1C\x81\x20\x40\0" * ((1 << 22) // 12) + bytes((1 << 22) % 12),
    ):  # fmt: skip
        f = _Counted(crafted)
        assert image._avif_file_header(f) is None
        assert f.reads <= 2 * image._AVIF_BOXES_MAX + 2 and f.read_bytes < 4096
    bigger = data[:ftyp_end] + free[: 8 * (image._AVIF_BOXES_MAX - 3)] + data[ftyp_end:]
    assert _depth_of(bigger) == 10  # below the bound: found


def test_a_10_or_12bit_avif_keeps_its_bits():
    # OpenCV reads the pixels (libavif, at the file's depth: 0 to 1023 or 4095), scaled
    # as a PPM's, white to 65535; Pillow's own decode (8 bits) agrees within 1
    _opencv_avif()
    for name, (bits, channels) in avif.OPENCV_FILES.items():
        got = open_image(avif.path(name))
        want = avif.pattern(bits, channels)
        with Image.open(avif.path(name)) as im:
            eight = np.asarray(im.convert(im.mode))
        if bits == 8:
            assert isinstance(got, Image.Image) and got.mode == "RGB"
            np.testing.assert_array_equal(np.asarray(got), want)
            continue
        want = _to_16(want, bits)
        if channels == 1:  # grey: Pillow's 16-bit grey mode, as a 16-bit grey PNG's
            assert isinstance(got, Image.Image) and got.mode == "I;16"
        else:
            assert isinstance(got, cresize.image.ImageArray) and got.dtype == np.uint16
        np.testing.assert_array_equal(np.asarray(got), want)
        assert diff(eight, (want.astype(np.uint32) * 255 + 32767) // 65535) <= 1
        out = resize_image(avif.path(name), (5, 4))
        np.testing.assert_array_equal(np.asarray(out), np.asarray(resize_image(got, (5, 4))))


def test_a_turned_10bit_avif_is_upright_with_its_icc_profile():
    # turned10.avif: stored 8x6 with irot (Pillow: EXIF orientation 6; OpenCV 5.1 leaves
    # it), an sRGB ICC profile and an EXIF (from pyvips). Upright as libheif decodes it.
    _opencv_avif()
    src = avif.path("turned10.avif")
    with Image.open(src) as im:
        icc = im.info["icc_profile"]
        assert im.size == (8, 6) and im.getexif().get(0x0112) == 6
        eight = np.asarray(ImageOps.exif_transpose(im))
    got = open_image(src)
    assert got.shape == (8, 6, 3) and got.dtype == np.uint16
    np.testing.assert_array_equal(got, _to_16(avif.turned(), 10))
    assert got.info["icc_profile"] == icc
    exif = Image.Exif()
    exif.load(got.info["exif"])
    assert 0x0112 not in exif  # the pixels are upright
    assert diff(eight, got >> 8) <= 1
    assert resize_image(src, scale=0.5).shape == (4, 3, 3)


@pytest.mark.parametrize("orientation", sorted(avif.ORIENTED))
def test_a_10bit_avif_s_irot_and_imir_turn_it_upright(orientation):
    # libheif wrote orientations 2-8 as irot and imir boxes; Pillow reads them back as
    # the EXIF orientation, OpenCV leaves them: upright as libheif shows the file
    _opencv_avif()
    src = avif.path(avif.ORIENTED[orientation])
    with Image.open(src) as im:
        assert im.getexif().get(0x0112) == orientation and im.size == (8, 6)
    got = open_image(src)
    np.testing.assert_array_equal(got, _to_16(avif.upright(orientation), 10))


def test_a_10bit_avif_with_its_exif_after_the_pixels_is_read():
    # late10.avif (libheif's layout: the EXIF item after the pixels): OpenCV 5.1
    # returned None for it, and the read failed; its Exif item is hidden from OpenCV
    _opencv_avif()
    got = open_image(avif.path("late10.avif"))
    np.testing.assert_array_equal(got, _to_16(avif.scrambled(), 10))
    assert got.info["exif"]  # Pillow's, from the file


def test_an_avif_s_exif_and_xmp_items_are_hidden_and_nothing_else():
    from cresize import image

    data = np.fromfile(avif.path("late10.avif"), np.uint8)
    before = data.copy()
    image._hide_avif_metadata(data)
    changed = np.flatnonzero(data != before)
    at = bytes(before).index(b"Exif")  # in its infe box
    assert set(changed.tolist()) <= set(range(at, at + 4)) and changed.size  # "Exif": 3 bytes
    assert bytes(data[at : at + 4]) == b"xxxx"
    assert bytes(before).count(b"infe") == 2  # the image's (av01) is kept
    for name in ("rgb10.avif", "rgba12.avif"):  # no metadata items: untouched
        data = np.fromfile(avif.path(name), np.uint8)
        before = data.copy()
        image._hide_avif_metadata(data)
        assert np.array_equal(data, before)
    for n in range(0, len(before), 7):  # cut short anywhere: no error
        image._hide_avif_metadata(np.fromfile(avif.path("late10.avif"), np.uint8)[:n].copy())


def test_a_deep_avif_without_an_opencv_that_reads_it_is_refused(monkeypatch, tmp_path):
    # Pillow would keep 8 bits of 10 or 12, and say nothing: refused with the reason
    _pillow_avif()
    for name, bits, kind in (("rgb10.avif", 10, "RGB"), ("rgba12.avif", 12, "RGBA"),
                             ("grey10.avif", 10, "grey")):  # fmt: skip
        src = avif.path(name)
        with monkeypatch.context() as m:
            m.setitem(sys.modules, "cv2", None)
            want = rf"^{re.escape(src)} is a {bits}-bit {kind} AVIF, which Pillow reads as 8 bits; OpenCV reads it at {bits} bits .*avifdec --depth 16"
            with pytest.raises(ValueError, match=want):
                open_image(src)
            with pytest.raises(ValueError, match=want):
                resize_image(src, scale=0.5)
    cv2 = pytest.importorskip("cv2")
    monkeypatch.setattr(cv2, "haveImageWriter", lambda path: path != ".avif")  # no libavif
    want = rf"^{re.escape(avif.path('rgb10.avif'))} is a 10-bit RGB AVIF, which Pillow reads as 8 bits, and OpenCV \S* here reads no AVIF"
    with pytest.raises(ValueError, match=want):
        open_image(avif.path("rgb10.avif"))
    assert isinstance(open_image(avif.path("rgb8.avif")), Image.Image)  # 8 bits: Pillow's


def test_a_deep_grey_and_alpha_avif_is_refused_as_such(monkeypatch):
    # greya10.avif: monochrome AV1 with an alpha item. Pillow reads it as 8-bit RGBA;
    # cresize took it as grey (the header's mono_chrome), OpenCV 5.1 failed on its two
    # channels (logged), and the error said only "OpenCV could not read"; without
    # OpenCV the refusal called it grey. Refused as grey-and-alpha, OpenCV or not.
    from cresize import image

    _pillow_avif()
    src = avif.path("greya10.avif")
    with Image.open(src) as im:
        assert im.mode in ("RGBA", "LA") and image._avif_header(im) == (10, True, None)
        eight = np.asarray(im.convert("RGBA"))
    want = avif.grey_alpha()
    np.testing.assert_array_equal(
        eight[..., 3], (want[..., 1].astype(np.uint32) * 255 + 511) // 1023
    )
    assert diff(eight[..., 0], (want[..., 0].astype(np.uint32) * 255 + 511) // 1023) <= 1
    message = (
        rf"^{re.escape(src)} is a 10-bit grey-and-alpha AVIF, which neither Pillow \(8 bits\) "
        r"nor OpenCV .* reads; convert the file to 16-bit PNG or TIFF first"
    )
    for cv2 in ("installed", None):
        with monkeypatch.context() as m:
            if cv2 is None:
                m.setitem(sys.modules, "cv2", None)
            with pytest.raises(ValueError, match=message):
                open_image(src)
            with pytest.raises(ValueError, match=message):
                resize_image(src, scale=0.5)


def test_a_deep_avif_that_opencv_fails_on_says_what_to_do(monkeypatch):
    # OpenCV 5.1 gives None for some valid files (a 10-bit RGBA that libheif wrote)
    cv2 = _opencv_avif()
    monkeypatch.setattr(cv2, "imdecode", lambda data, flags: None)
    src = avif.path("rgba12.avif")
    want = (
        rf"^OpenCV could not read {re.escape(src)}, an AVIF of more than 8 bits \(which "
        r"Pillow reads as 8\); convert the file to 16-bit PNG or TIFF first"
    )
    with pytest.raises(OSError, match=want):
        open_image(src)


@pytest.mark.parametrize("name", ["rgb10.avif", "grey10.avif", "greya10.avif", "rgb8.avif"])
def test_an_avif_s_header_is_parsed_once_a_read(monkeypatch, name):
    # The depth (for the scale) and the grey (for the mode) of a deep AVIF came from
    # two parses of its header; one now, passed to where each is needed
    from cresize import image

    _pillow_avif()
    parse, calls = image._avif_file_header, []

    def counted(f):
        calls.append(1)
        return parse(f)

    monkeypatch.setattr(image, "_avif_file_header", counted)
    try:
        open_image(avif.path(name))
    except (ValueError, OSError):  # refused where OpenCV reads no AVIF (or no alpha)
        pass
    assert len(calls) == 1


def test_a_deep_avif_whose_header_says_fewer_bits_than_its_pixels_is_an_error(monkeypatch):
    # Samples above the header's depth (rgba12.avif's, to 4095, taken for 10 bits) would
    # wrap around 65535 when scaled. libavif checks av1C against the AV1 stream as Pillow
    # opens a file, so a header that lies is read as one here.
    from cresize import image

    _opencv_avif()
    monkeypatch.setattr(image, "_avif_file_header", lambda f: (10, False, "4:4:4"))
    with pytest.raises(OSError, match="holds samples above the 10 bits its header says"):
        open_image(avif.path("rgba12.avif"))


def test_16bit_images_written_as_avif_are_rounded_to_8_bits(tmp_path):
    # Pillow's AVIF writer is 8-bit. A 16-bit colour array was rounded (as for WebP);
    # 16-bit grey (I;16) went to Pillow, which clipped it: 40000 became 255, not 156
    _pillow_avif()
    grey = Image.fromarray(np.array([[0, 257 * 100, 40000, 65535]] * 4, np.uint16))
    assert cresize.image.narrows(grey, "avif")
    save_image(grey, tmp_path / "grey.avif", quality=100)
    with Image.open(tmp_path / "grey.avif") as im:
        assert im.mode in ("L", "RGB")  # Pillow 11 opens a monochrome AVIF as RGB
        pixels = np.asarray(im)
    if pixels.ndim == 3:
        assert (pixels == pixels[..., :1]).all()
        pixels = pixels[..., 0]
    assert diff(pixels, [[0, 100, 156, 255]] * 4) <= 1
    deep = cresize.image.ImageArray(np.full((4, 4, 3), 40000, np.uint16))
    assert cresize.image.narrows(deep, "AVIF")
    save_image(deep, tmp_path / "rgb.avif", quality=100)
    with Image.open(tmp_path / "rgb.avif") as im:
        assert im.mode == "RGB" and diff(np.asarray(im), np.full((4, 4, 3), 156)) <= 1


@pytest.mark.parametrize(
    "photometric,samples,name",
    [
        ("separated", 4, "CMYK"),  # was read as RGBA: wrong colours, silently
        ("separated", 5, "CMYK"),
        ("miniswhite", 1, "min-is-white"),  # (float16, which Pillow does not open)
        ("cielab", 3, "CIELab"),
        ("ycbcr", 3, "YCbCr"),
    ],
)
def test_a_float_tiff_that_is_not_grey_or_rgb_is_refused(tmp_path, photometric, samples, name):
    # tifffile reads the float TIFFs that Pillow cannot open; cresize took 4 float
    # samples as RGBA, 1 as grey, 3 as RGB, whatever the photometric interpretation.
    tifffile = pytest.importorskip("tifffile")
    src = tmp_path / "in.tif"
    dtype = np.float16 if samples == 1 else np.float32
    pixels = np.linspace(0, 1, 6 * 8 * samples, dtype=dtype).reshape(6, 8, samples)
    options = dict(photometric=photometric)
    if samples == 5:
        options["extrasamples"] = [0]
    elif photometric == "ycbcr":
        options["subsampling"] = (1, 1)
    try:
        tifffile.imwrite(src, pixels.squeeze(), **options)
    except (ValueError, NotImplementedError) as exc:  # this tifffile writes no such file
        pytest.skip(f"tifffile: {exc}")
    with pytest.raises(ValueError, match=rf"in\.tif is a TIFF of .*{name}"):
        open_image(src)
    with pytest.raises(ValueError, match=r"in\.tif is a TIFF of"):
        resize_image(src, scale=0.5)


@pytest.mark.parametrize("kind", ["float", "float_big", "la16", "planar8"])
def test_the_exif_and_xmp_of_a_tiff_read_by_tifffile_are_kept(tmp_path, kind):
    # A TIFF that Pillow cannot open or decode (float, 16-bit grey and alpha, 8-bit
    # alpha plane by plane) is read by tifffile: it kept its ICC profile only, its
    # EXIF (text tags, Exif IFD) and XMP were lost. Kept as a Pillow-read TIFF's are,
    # less the orientation (tag and XMP: applied to the pixels).
    tifffile = pytest.importorskip("tifffile")
    from cresize.image import ImageArray

    exif = Image.Exif()
    exif[0x010F] = "MakerCo"  # Make
    exif[0x8298] = "(c) Someone"  # Copyright
    exif[0x8769] = {0x9003: "2024:01:02 03:04:05"}  # DateTimeOriginal
    stored = photo(30, 20, 4)  # stored on its side (orientation 6): upright 20x30 -> 30x20
    if kind.startswith("float"):
        pixels = stored.astype(np.float32) / 255
    elif kind == "la16":
        pixels = stored[..., [0, 3]].astype(np.uint16) * 257
    else:
        pixels = stored
    src = tmp_path / "in.tif"
    extratags = [
        (0x010F, "s", 0, "MakerCo", True),
        (0x8298, "s", 0, "(c) Someone", True),
        (0x0112, "H", 1, 6, True),
        (700, "B", len(XMP), XMP, True),
    ]
    if kind == "planar8":
        planes = np.moveaxis(pixels, 2, 0)
        tifffile.imwrite(
            src,
            planes,
            photometric="rgb",
            planarconfig="separate",
            extrasamples=[1],
            extratags=extratags,
        )
    else:
        tifffile.imwrite(
            src,
            pixels,
            photometric="minisblack" if kind == "la16" else "rgb",
            extrasamples=[2],
            extratags=extratags,
            bigtiff=kind == "float_big",  # Pillow reads its tags from a 16-byte header
        )
    image = open_image(src)
    assert np.asarray(image).shape[:2] == (20, 30)  # turned upright
    got = Image.Exif()
    got.load(image.info["exif"])
    assert got.get(0x010F) == "MakerCo" and got.get(0x8298) == "(c) Someone"
    assert 0x0112 not in got and 0x0100 not in got  # no orientation, no layout tags
    assert b"(c) Someone" in image.info["xmp"] and b"Orientation" not in image.info["xmp"]
    out = tmp_path / ("out.tif" if kind.startswith("float") else "out.png")
    save_image(resize_image(src, scale=0.5), out)
    written = open_image(out)
    assert np.asarray(written).shape[:2] == (10, 15)
    got = Image.Exif()
    got.load(written.info["exif"])
    assert got.get(0x010F) == "MakerCo" and got.get(0x0112, 1) == 1
    assert b"(c) Someone" in written.info["xmp"]
    if kind == "float":  # cresize's float TIFF writer writes the Exif IFD: read again
        save_image(ImageArray(pixels, {"exif": exif.tobytes()}), tmp_path / "ifd.tif")
        got = Image.Exif()
        got.load(open_image(tmp_path / "ifd.tif").info["exif"])
        assert got.get_ifd(0x8769).get(0x9003) == "2024:01:02 03:04:05"


@pytest.mark.parametrize("fmt", ["jpg", "png", "webp", "tif", "tif16"])
def test_the_exif_pixel_dimensions_are_the_written_size(tmp_path, fmt):
    # A resized image's EXIF PixelXDimension/PixelYDimension gave the input's size
    # (libvips writes the new one; Pillow's exif_transpose keeps the old). They are
    # the size written, upright (orientation 6: 60x40 stored is 40x60).
    exif = Image.Exif()
    exif[0x0112] = 6
    exif[0x8769] = {0xA002: 60, 0xA003: 40, 0x9003: "2024:01:02 03:04:05"}
    src = tmp_path / "in.jpg"
    Image.fromarray(photo(40, 60)).save(src, exif=exif)
    image = resize_image(src, (20, 30))
    if fmt == "tif16":
        pytest.importorskip("cv2")
        pytest.importorskip("tifffile")
        from cresize.image import ImageArray

        image = ImageArray(np.asarray(image).astype(np.uint16) * 257, image.info)
    out = tmp_path / f"out.{fmt.removesuffix('16')}"
    save_image(image, out)
    with Image.open(out) as written:
        fields = written.getexif().get_ifd(0x8769)
        assert (fields.get(0xA002), fields.get(0xA003)) == (20, 30), fmt
        assert fields.get(0x9003) == "2024:01:02 03:04:05"
    plain = Image.Exif()  # an EXIF without them gets none
    plain[0x010F] = "Cam"
    small = Image.fromarray(photo(4, 6))
    small.info["exif"] = plain.tobytes()
    save_image(small, tmp_path / "plain.jpg")
    with Image.open(tmp_path / "plain.jpg") as opened:
        assert 0x8769 not in opened.getexif()


@pytest.mark.filterwarnings("ignore:Truncated File Read")  # Pillow's, of the damaged ones
@pytest.mark.parametrize("endian", ["<", ">"])
def test_exif_pixel_dimensions_patched_or_parsed(endian):
    # the values are patched in the bytes (a SHORT or LONG entry); a size that a SHORT
    # does not hold, or a damaged EXIF, goes through Pillow (or as it is)
    from cresize.image import _exif_sized

    exif = Image.Exif()
    exif.endian = endian
    exif[0x010F] = "Cam"
    exif[0x8769] = {0xA002: 6000, 0xA003: 4000, 0x9003: "2024:01:02 03:04:05"}
    data = exif.tobytes()
    for size in ((600, 400), (70000, 5)):
        got = Image.Exif()
        got.load(_exif_sized(data, size))
        fields = got.get_ifd(0x8769)
        assert (fields[0xA002], fields[0xA003]) == size
        assert fields[0x9003] == "2024:01:02 03:04:05" and got[0x010F] == "Cam"
    assert len(_exif_sized(data, (600, 400))) == len(data)  # patched, not rewritten
    for cut in range(0, len(data), 7):  # damaged: no error, nothing new
        _exif_sized(data[:cut], (1, 2))


def test_exif_pixel_dimensions_left_where_pillow_cannot_write_the_exif_back():
    # a size a SHORT does not hold goes through Pillow's parse and rewrite; an EXIF that
    # Pillow reads but cannot write back (GPSLatitude, a RATIONAL, stored as text)
    # raised TypeError from save_image: it is written as it was
    from cresize.image import _exif_sized

    exif = Image.Exif()
    exif.endian = ">"
    exif[0x8825] = {1: "N"}  # GPSLatitudeRef, text
    exif[0x8769] = {0xA002: 6000, 0xA003: 4000}  # SHORTs
    data = exif.tobytes()
    entry = b"\x00\x01\x00\x02\x00\x00\x00\x02N\x00"
    assert data.count(entry) == 1
    damaged = data.replace(entry, b"\x00\x02" + entry[2:])  # tag 1 -> 2 (GPSLatitude)
    assert _exif_sized(damaged, (70000, 400)) == damaged
    got = Image.Exif()
    got.load(_exif_sized(damaged, (600, 400)))  # patched in the bytes, as ever
    assert (got.get_ifd(0x8769)[0xA002], got.get_ifd(0x8769)[0xA003]) == (600, 400)


@pytest.mark.parametrize("endian", ["<", ">"])
def test_exif_pixel_y_dimension_alone_is_the_written_height(endian):
    # the bytes were checked for PixelXDimension's tag id only: an EXIF with
    # PixelYDimension and no PixelXDimension kept the old height
    from cresize.image import _exif_sized

    exif = Image.Exif()
    exif.endian = endian
    exif[0x8769] = {0xA003: 4000, 0x9003: "2024:01:02 03:04:05"}
    got = Image.Exif()
    got.load(_exif_sized(exif.tobytes(), (600, 400)))
    assert got.get_ifd(0x8769).get(0xA003) == 400 and 0xA002 not in got.get_ifd(0x8769)


@pytest.mark.parametrize("fmt", ["jpg", "png", "tif"])
def test_an_exif_object_in_info_is_written_sized_and_left_as_it_was(tmp_path, fmt):
    # a Pillow Exif in the image's info (as Pillow's save takes it): its Exif IFD was
    # changed in place to the size written (the caller's object); PNG (OpenCV's
    # pixels) and TIFF with XMP failed on it (AttributeError, TypeError)
    from cresize.image import ImageArray

    source = Image.Exif()
    source[0x010F] = "Cam"
    source[0x8769] = {0xA002: 60, 0xA003: 40}
    exif = Image.Exif()  # as ``Image.getexif()`` of a file gives it
    exif.load(source.tobytes())
    before = exif.tobytes()
    image = ImageArray(photo(4, 6), {"exif": exif, "xmp": XMP})
    for n in range(2):  # the same info written twice
        save_image(image, tmp_path / f"{n}.{fmt}")
        with Image.open(tmp_path / f"{n}.{fmt}") as written:
            fields = written.getexif().get_ifd(0x8769)
            assert (fields.get(0xA002), fields.get(0xA003)) == (6, 4)
            assert written.getexif().get(0x010F) == "Cam"
    assert image.info["exif"] is exif and exif.tobytes() == before
    assert dict(exif.get_ifd(0x8769)) == {0xA002: 60, 0xA003: 40}


@pytest.mark.filterwarnings("ignore::UserWarning")  # Pillow's, of the damaged tag
@pytest.mark.parametrize("kind", ["uint8", "float32", "float32_big"])
def test_a_tiff_whose_exif_pillow_cannot_write_back_is_read_without_it(tmp_path, monkeypatch, kind):
    # A GPS IFD whose GPSLatitude (a RATIONAL) is stored as text: Pillow reads it,
    # and its EXIF writer raised TypeError ("bad operand type for abs(): 'str'"):
    # the TIFF was not read at all (8-bit, read by Pillow; float, read by tifffile,
    # which read it before its EXIF was kept)
    pytest.importorskip("tifffile")
    from cresize import image

    exif = Image.Exif()
    exif[0x010F] = "Cam"
    exif[0x8825] = {1: "N"}  # GPSLatitudeRef, text
    pixels = photo(4, 6) if kind == "uint8" else photo(4, 6).astype(np.float32) / 255
    monkeypatch.setattr(image, "TIFF_BIG", 0 if kind.endswith("big") else image.TIFF_BIG)
    save_image(image.ImageArray(pixels, {"exif": exif.tobytes()}), tmp_path / "in.tif")
    data = (tmp_path / "in.tif").read_bytes()
    entry = b"\x01\x00\x02\x00\x02\x00\x00\x00" + bytes(4 * kind.endswith("big")) + b"N\x00"
    assert data.count(entry) == 1
    (tmp_path / "bad.tif").write_bytes(data.replace(entry, b"\x02" + entry[1:]))
    got = open_image(tmp_path / "bad.tif")
    assert np.asarray(got).shape[:2] == (4, 6)


def _upright_halves(path):
    """The image at ``path`` as a viewer shows it (its EXIF orientation applied): its
    (width, height), and whether its top half is white and its bottom half black."""
    with Image.open(path) as shown:
        upright = ImageOps.exif_transpose(shown)
        grey = np.asarray(upright.convert("L"), np.int64)
    half = grey.shape[0] // 2
    return upright.size, bool(grey[:half].min() > 200 and grey[half:].max() < 60)


@pytest.mark.parametrize("ext", ["jpg", "png", "webp", "tif"])
def test_orientation_of_a_pillow_image_and_of_a_path(tmp_path, ext):
    # The rule (docs/files.md): a path is made upright (pixels turned, the tag gone);
    # a Pillow image the caller opened is resized as stored, its tag kept, as Pillow's
    # resize does (Pillow turns a TIFF itself when it loads it). Either way the file
    # written is shown upright, never turned twice.
    stored = np.zeros((20, 40, 3), np.uint8)
    stored[:, :20] = 255  # turned a quarter clockwise (orientation 6): white on top
    exif = Image.Exif()
    exif[0x0112], exif[0x010F] = 6, "Camera"
    src = tmp_path / f"in.{ext}"
    Image.fromarray(stored).save(src, exif=exif.tobytes())
    by_path = resize_image(src, scale=0.5)
    assert by_path.size == (10, 20) and 0x0112 not in by_path.getexif()
    with Image.open(src) as opened:
        by_caller = resize_image(opened, scale=0.5)
    turned_by_pillow = ext == "tif"
    assert by_caller.size == ((10, 20) if turned_by_pillow else (20, 10))
    assert by_caller.getexif().get(0x0112) == (None if turned_by_pillow else 6)
    for out in ("jpg", "png", "webp", "tif"):
        for name, image in (("path", by_path), ("caller", by_caller)):
            save_image(image, tmp_path / f"{name}.{out}", overwrite=True)
            assert _upright_halves(tmp_path / f"{name}.{out}") == ((10, 20), True), (name, out)
    assert _upright_halves(src) == ((20, 40), True)


def test_a_pillow_opened_webps_exif_goes_to_jpeg(tmp_path):
    # Pillow reads a WebP's EXIF without the "Exif\0\0" header, and its JPEG writer wrote
    # it so, an APP1 segment no reader takes: the JPEG had no EXIF, its orientation lost
    # (shown on its side)
    exif = Image.Exif()
    exif[0x0112], exif[0x010F] = 6, "Camera"
    Image.fromarray(photo(20, 30)).save(tmp_path / "in.webp", exif=exif.tobytes())
    with Image.open(tmp_path / "in.webp") as opened:
        assert opened.info["exif"][:4] in (b"MM\0*", b"II*\0")  # what the fix is for
        save_image(opened, tmp_path / "as.jpg")
        save_image(resize_image(opened, scale=0.5), tmp_path / "half.jpg")
    for name in ("as.jpg", "half.jpg"):
        with Image.open(tmp_path / name) as back:
            assert back.info["exif"].startswith(b"Exif\0\0")
            assert back.getexif()[0x0112] == 6 and back.getexif()[0x010F] == "Camera"


#: EXIF bytes that Pillow cannot parse (junk where the TIFF structure should be): what
#: some cameras and editors write; Pillow opens and shows such a file, libvips resizes it
_JUNK_EXIF = b"Exif\0\0" + b"junkjunkjunk" * 5


def _with_junk_exif(tmp_path, ext, exif=_JUNK_EXIF):
    """A 60x40 file (JPEG, PNG, WebP) of the same pixels with a damaged EXIF and
    without one: ``(damaged, clean)``."""
    fmt = {"jpg": "JPEG", "png": "PNG", "webp": "WEBP"}.get(ext, "PNG")
    pixels = Image.fromarray(photo(40, 60))
    options = {"quality": 90} if fmt != "PNG" else {}
    damaged, clean = tmp_path / f"damaged.{ext}", tmp_path / f"clean.{ext}"
    pixels.save(clean, fmt, **options)
    if ext == "late.png":  # its eXIf after the pixels, which Pillow reads once they are
        data = clean.read_bytes()
        end = data.index(b"IEND") - 4
        body = exif.removeprefix(b"Exif\0\0")
        chunk = struct.pack(">I", len(body)) + b"eXIf" + body
        damaged.write_bytes(
            data[:end] + chunk + struct.pack(">I", zlib.crc32(chunk[4:])) + data[end:]
        )
    elif ext == "raw.png":  # ImageMagick's hex text, which Pillow's getexif parses too
        from PIL import PngImagePlugin

        text = PngImagePlugin.PngInfo()
        body = exif.removeprefix(b"Exif\0\0")
        text.add_text("Raw profile type exif", f"\nexif\n{len(body):8}\n{body.hex()}\n")
        pixels.save(damaged, fmt, pnginfo=text)
    else:
        pixels.save(damaged, fmt, exif=exif, **options)
    return damaged, clean


@pytest.mark.parametrize(
    "ext", ["jpg", "png", "late.png", "raw.png", "webp"]
)  # (Pillow's AVIF writer parses it)
def test_a_damaged_exif_is_left_out_when_read(tmp_path, ext):
    # resize_image of a JPEG with a junk EXIF raised Pillow's "SyntaxError: not a TIFF
    # file" (from _upright_info's exif_transpose), and so did the other formats' getexif:
    # the pixels are read as those of the file without it, the EXIF left out with a
    # UserWarning, as Pillow's "Corrupt EXIF data" is.
    damaged, clean = _with_junk_exif(tmp_path, ext)
    before = damaged.read_bytes()
    with pytest.warns(UserWarning, match=r"its EXIF is damaged \(SyntaxError: .*\) and left out"):
        opened = open_image(damaged)
    assert "exif" not in opened.info and opened.size == (60, 40)
    assert "Raw profile type exif" not in opened.info
    assert diff(opened, open_image(clean)) == 0
    with pytest.warns(UserWarning, match="its EXIF is damaged"):
        resized = resize_image(damaged, (30, 20))
    assert "exif" not in resized.info
    assert diff(resized, resize_image(clean, (30, 20))) == 0
    assert cresize.image._header(damaged).upright == (60, 40)  # the command's header read
    assert damaged.read_bytes() == before
    cv2 = pytest.importorskip("cv2")
    for out in ("o.jpg", "o.png", "o.tif", "o.webp"):
        save_image(resized, tmp_path / out)
        with Image.open(tmp_path / out) as written:
            assert written.size == (30, 20) and not written.getexif().get(0x0112)
        assert cv2.imread(str(tmp_path / out)).shape == (20, 30, 3)


_EXIF_SAVE_PIXELS = {
    "uint8": np.full((8, 12, 3), 100, np.uint8),
    "uint16": np.full((8, 12, 3), 1000, np.uint16),
    "uint16-grey-alpha": np.full((8, 12, 2), 1000, np.uint16),
    "float32": np.full((8, 12, 3), 0.5, np.float32),  # float colour: TIFF only
}


@pytest.mark.parametrize(
    "ext, pixels",
    [
        pytest.param(ext, pixels, id=f"{ext}-{kind}")
        for ext in ["jpg", "png", "webp", "avif", "tif", "bmp", "gif"]
        for kind, pixels in _EXIF_SAVE_PIXELS.items()
        if kind != "float32" or ext == "tif"
    ],
)
@pytest.mark.parametrize("exif", [b"junkjunk", _JUNK_EXIF, bytearray(b"MM\0*\xff\xff")])
def test_save_leaves_a_damaged_exif_out_of_every_format(tmp_path, ext, pixels, exif):
    # save_image with info["exif"] of junk bytes raised Pillow's SyntaxError from the
    # TIFF and AVIF writers (and wrote the junk into JPEG, PNG and WebP): it is left out
    # of every format, with the note the command prints, as other metadata left out.
    from cresize.image import ImageArray, _save

    if ext == "avif" and not features.check("avif"):
        pytest.skip("Pillow without AVIF")
    info = {"exif": exif, "dpi": (300, 300)}
    image = ImageArray(pixels, info)
    saved = _save(image, tmp_path / f"a.{ext}")
    assert re.match(r"its EXIF is left out: damaged \((SyntaxError|error): ", saved.left_out[0])
    assert image.info == {"exif": exif, "dpi": (300, 300)}  # the caller's, as it was
    assert bytes(exif[-6:]) not in (tmp_path / f"a.{ext}").read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no damaged EXIF read back
        back = open_image(tmp_path / f"a.{ext}")
    assert np.asarray(back).shape[:2] == (8, 12)
    # none, or one of the writer's own (the DPI's for WebP and AVIF, tifffile's Software)
    assert cresize.image._exif_loaded(back.info.get("exif"))[1] is None
    save_image(image, tmp_path / f"b.{ext}")  # the public call: written, the same
    if ext in ("png", "tif", "bmp") and pixels.dtype == np.uint8:
        cv2 = pytest.importorskip("cv2")
        assert cv2.imread(str(tmp_path / f"b.{ext}")) is not None


def test_a_pillow_image_with_a_damaged_exif_is_resized_and_saved(tmp_path):
    # A JPEG opened by the caller in Pillow (which reads the junk EXIF as it is),
    # resized and written as TIFF: the writer's SyntaxError before.
    damaged, _ = _with_junk_exif(tmp_path, "jpg")
    with Image.open(damaged) as im:
        resized = resize_image(im, (30, 20))
    assert resized.info["exif"] == _JUNK_EXIF  # kept as Pillow read it, as other info
    save_image(resized, tmp_path / "out.tif")
    with Image.open(tmp_path / "out.tif") as written:
        assert written.size == (30, 20) and dict(written.getexif()).keys() <= set(range(256, 700))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_an_exif_pillow_cannot_write_back_is_left_out_of_a_tiff(tmp_path, dtype):
    # An EXIF whose XResolution is stored as text (Pillow's table: a rational) is parsed,
    # but Pillow's TIFF writer, which writes its tags anew, raised "TypeError: bad operand
    # type for abs(): 'str'": left out of a TIFF with a note; JPEG and PNG keep it as is.
    from cresize.image import ImageArray, _save

    tiff = b"II*\0" + struct.pack("<IH", 8, 1)
    tiff += struct.pack("<HHI", 0x011A, 2, 3) + b"72\0\0" + struct.pack("<I", 0)
    exif = b"Exif\0\0" + tiff
    pixels = np.full((4, 6, 3), 100 if dtype == np.uint8 else 0.5, dtype)
    image = ImageArray(pixels, {"exif": exif})
    saved = _save(image, tmp_path / "a.tif")  # float colour: tifffile's (its own tags)
    if dtype == np.uint8:
        assert saved.left_out == (
            "its EXIF is left out: Pillow cannot write it to a TIFF (TypeError: bad "
            "operand type for abs(): 'str')",
        )
    assert image.info == {"exif": exif}
    assert np.asarray(open_image(tmp_path / "a.tif")).shape[:2] == (4, 6)
    if dtype == np.uint8:
        for ext in ("jpg", "png"):
            assert _save(image, tmp_path / f"a.{ext}").left_out == ()
            with Image.open(tmp_path / f"a.{ext}") as written:
                assert written.info["exif"].removeprefix(b"Exif\0\0") == tiff


@pytest.mark.parametrize("prefixes", [0, 1, 2, 3, 4])
def test_exif_damage_takes_off_the_exif_prefixes_pillow_does(tmp_path, prefixes):
    # _exif_damage took off every "Exif\0\0" though Pillow 12 on takes two at most: a
    # JPEG whose EXIF has three was not damaged for it, and open_image raised Pillow's
    # "SyntaxError: not a TIFF file" from getexif. Damaged exactly where Pillow says.
    from cresize.image import _exif_damage

    exif = Image.Exif()
    exif[0x0112] = 6
    body = exif.tobytes().removeprefix(b"Exif\0\0")
    data = b"Exif\0\0" * prefixes + body
    try:
        Image.Exif().load(data)
        parsed = True
    except SyntaxError:
        parsed = False
    assert (_exif_damage(data) is None) == parsed
    path = tmp_path / "a.jpg"
    Image.fromarray(photo(40, 60)).save(path, exif=data if prefixes else b"Exif\0\0" + body)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opened = open_image(path)
        resized = resize_image(path, scale=0.5)
    damaged = [w for w in caught if "its EXIF is damaged" in str(w.message)]
    with Image.open(path) as im:
        turned = im.info["exif"] and not damaged
    assert opened.size == ((40, 60) if turned else (60, 40))
    assert resized.size == ((20, 30) if turned else (30, 20))
    assert bool(damaged) == (not parsed)


@pytest.mark.filterwarnings("ignore:Corrupt EXIF data:UserWarning")  # Pillow's, reading it back
def test_an_exif_damaged_after_its_header_is_written_as_before(tmp_path):
    # Only a header Pillow cannot parse is a damaged EXIF (_exif_damage): one whose
    # directory is cut short (Pillow's "Corrupt EXIF data" warning when it parses it)
    # goes to the file as it did, and the test of it warns of nothing.
    from cresize.image import ImageArray, _exif_damage, _save

    exif = b"Exif\0\0II*\0\x08\0\0\0" + struct.pack("<H", 50) + bytes(20)
    assert _exif_damage(exif) is None and _exif_damage(b"junk").startswith("SyntaxError: ")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        saved = _save(ImageArray(np.zeros((4, 6, 3), np.uint8), {"exif": exif}), tmp_path / "a.jpg")
    assert saved.left_out == ()
    with Image.open(tmp_path / "a.jpg") as written:
        assert written.info["exif"] == exif


def _exif_with_a_rational_make(orientation):
    """An EXIF Pillow parses but cannot write back: a Make (ASCII in Pillow's table)
    stored as a rational, and an orientation."""
    tiff = b"II*\x00" + struct.pack("<IH", 8, 2)
    tiff += struct.pack("<HHII", 0x010F, 5, 1, 38)  # Make: one rational, at 38
    tiff += struct.pack("<HHIH2x", 0x0112, 3, 1, orientation) + struct.pack("<I", 0)
    return b"Exif\x00\x00" + tiff + struct.pack("<II", 1, 2)


@pytest.mark.parametrize("call", ["open_image", "resize_image", "resize_image-exact"])
def test_an_exif_pillow_cannot_write_back_does_not_stop_a_turned_read(tmp_path, call):
    # exif_transpose turns the pixels, then writes the EXIF back without its orientation
    # tag: Pillow failed there (AttributeError: 'IFDRational' object has no attribute
    # 'encode') from open_image and resize_image, for every photo such an EXIF turns.
    stored = np.zeros((20, 30, 3), np.uint8)
    stored[:, :10] = 255  # the left third white: the top third once turned (6)
    path = tmp_path / "made.jpg"
    Image.fromarray(stored).save(path, exif=_exif_with_a_rational_make(6), quality=95)
    with pytest.warns(UserWarning, match=r"^its EXIF cannot be written back .* is left out$"):
        if call == "open_image":
            got = open_image(path)
        else:
            got = resize_image(path, (10, 15), exact=call.endswith("exact"))
    pixels = np.asarray(got)
    assert pixels.shape[:2] == ((30, 20) if call == "open_image" else (15, 10))  # upright
    rows = pixels.shape[0]
    assert pixels[: rows // 4].min() > 200 and pixels[-(rows // 4) :].max() < 50
    assert "exif" not in got.info
    back = tmp_path / "back.png"
    save_image(got, back)
    with Image.open(back) as written:  # no orientation left to turn it again
        assert written.size == pixels.shape[1::-1] and written.getexif().get(0x0112, 1) == 1


@pytest.mark.parametrize("ext", ["jpg", "png", "webp"])
def test_an_exif_pillow_cannot_write_back_is_saved_with_a_dpi(tmp_path, ext):
    # A Pillow image the caller opened keeps its EXIF as read (not turned); writing it
    # with a DPI put the DPI into that EXIF through Pillow's Exif.tobytes, which raised
    # AttributeError ('IFDRational' object has no attribute 'encode') from save_image.
    path = tmp_path / "made.jpg"
    exif = _exif_with_a_rational_make(1)
    Image.fromarray(np.zeros((20, 30, 3), np.uint8)).save(path, exif=exif, dpi=(300, 300))
    with Image.open(path) as im:
        resized = resize_image(im, (15, 10))
    save_image(resized, tmp_path / f"out.{ext}")
    with Image.open(tmp_path / f"out.{ext}") as written:
        kept = written.info.get("exif") or b""
        assert written.size == (15, 10) and kept.removeprefix(b"Exif\x00\x00") == exif[6:]
