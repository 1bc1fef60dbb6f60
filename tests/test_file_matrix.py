"""Image files, every readable kind into every writable format: nothing silently lost.

A matrix of small files (PNG of 1 to 16 bits, grey, grey and alpha, RGB(A), palette with
and without tRNS, APNG; JPEG grey, RGB, CMYK, progressive, each EXIF orientation, ICC;
WebP lossy, lossless, alpha, animated; TIFF of 8, 16 and 32-bit integer and float
samples, planar, multi-page, LZW and deflate, CMYK, grey and alpha, associated alpha,
orientation tag; BMP of 1, 4, 8 (and RLE8), 24 and 32 bits; GIF animated and transparent;
16-bit PPM and PGM; JPEG 2000 of 16 bits) is made by Pillow, OpenCV and tifffile (and by
hand, by the format's specification, where none writes it). Each is resized by
``resize_image`` + ``save_image`` and by ``cresize resize`` into PNG, JPEG, WebP, TIFF,
BMP and GIF, and each output is read back by Pillow, OpenCV or tifffile and checked
against the known upright content resized by ``cresize.resize``: its size, its pixels
(within the format's loss), 16 bits kept where the format holds them, alpha kept where
the format holds it (flattened on white for JPEG and BMP), the orientation applied once,
the ICC profile carried, and the input file's bytes and time untouched. What the output
format cannot hold is refused with the reason, or said (docs/files.md).
"""

import contextlib
import io
import os
import struct
import zlib

import numpy as np
import pytest

import cresize

Image = pytest.importorskip("PIL.Image")
cv2 = pytest.importorskip("cv2")
tifffile = pytest.importorskip("tifffile")

from cresize._cli_resize import main  # noqa: E402
from cresize.image import resize_image, save_image  # noqa: E402
from helpers.png16 import chunk, png16_grey_alpha, srgb_icc  # noqa: E402

H, W = 32, 48  # OpenJPEG writes no smaller JPEG 2000 with OpenCV's settings
OUT_W, OUT_H = W // 2, H // 2
OUTPUTS = {"png": "png", "jpeg": "jpg", "webp": "webp", "tiff": "tif", "bmp": "bmp", "gif": "gif"}


def _content():
    """The upright content: RGB ramps (x in red, y in green: a wrong orientation cannot
    pass) in [0, 1], its grey, and an alpha ramp."""
    y, x = np.mgrid[0:H, 0:W].astype(np.float64)
    rgb = np.dstack([x / (W - 1), y / (H - 1), 0.5 + 0.5 * np.sin(x / 5 + y / 7)])
    return rgb, rgb[..., :2].mean(-1), 0.3 + 0.7 * rgb[..., 0]


RGB, GREY, ALPHA = _content()


def u8(a):
    return np.rint(a * 255).astype(np.uint8)


def u16(a):
    return np.rint(a * 65535).astype(np.uint16)


def exif(orientation):
    e = Image.Exif()
    e[0x0112] = orientation
    return e.tobytes()


#: Stored pixels of an upright image for each EXIF orientation: the inverse transform.
_STORED = {
    1: None,
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}


def stored(image, orientation):
    method = _STORED[orientation]
    return image if method is None else image.transpose(method)


def png_grey_bits(path, grey, bits):
    """A grey PNG of 2 or 4 bits a sample (Pillow writes only 1 and 8), rows unfiltered."""
    levels = (1 << bits) - 1
    samples = np.rint(grey * levels).astype(np.uint8)
    per_byte = 8 // bits
    padded = np.zeros((H, -(-W // per_byte) * per_byte), np.uint8)
    padded[:, :W] = samples
    packed = np.zeros((H, padded.shape[1] // per_byte), np.uint8)
    for i in range(per_byte):
        packed |= padded[:, i::per_byte] << (8 - bits * (i + 1))
    rows = np.hstack([np.zeros((H, 1), np.uint8), packed]).tobytes()
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, bits, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def bmp_indexed(path, index, bits, rle):
    """A grey BMP of ``bits`` (4 or 8) a pixel, RLE8-compressed with ``rle`` (Pillow writes
    neither 4 bits nor RLE), of the palette indices ``index``."""
    colours = 1 << bits
    palette = b"".join(
        bytes((v, v, v, 0)) for v in np.rint(np.linspace(0, 255, colours)).astype(int)
    )
    rows = []
    for row in index[::-1]:  # bottom-up
        if rle:
            out, i = b"", 0
            while i < W:
                j = i
                while j < W and j - i < 255 and row[j] == row[i]:
                    j += 1
                out += bytes((j - i, int(row[i])))
                i = j
            rows.append(out + b"\0\0")  # end of line
        else:
            packed = bytes((int(row[i]) << 4) | int(row[i + 1]) for i in range(0, W, 2))
            rows.append(packed + b"\0" * (-len(packed) % 4))
    if rle:
        rows[-1] = rows[-1][:-2] + b"\0\1"  # end of bitmap
    data = b"".join(rows)
    offset = 14 + 40 + len(palette)
    header = struct.pack(
        "<IiiHHIIiiII", 40, W, H, 1, bits, 1 if rle else 0, len(data), 2835, 2835, colours, 0
    )
    path.write_bytes(
        b"BM" + struct.pack("<IHHI", offset + len(data), 0, 0, offset) + header + palette + data
    )


def bmp_bgra(path, bgra):
    """A 32-bit BMP with an alpha mask (BITMAPV4 header, BI_BITFIELDS) of the ``(H, W, 4)``
    uint8 ``bgra``, written here: OpenCV 5 writes one, OpenCV 4.11 (the floor) one whose
    fourth byte the format marks unused."""
    data = np.ascontiguousarray(bgra[::-1]).tobytes()  # bottom-up; rows of 4 W bytes
    masks = struct.pack("<IIII", 0x00FF0000, 0x0000FF00, 0x000000FF, 0xFF000000)
    header = struct.pack("<IiiHHIIiiII", 108, W, H, 1, 32, 3, len(data), 2835, 2835, 0, 0)
    header += masks + b"BGRs" + b"\0" * 36 + b"\0" * 12  # sRGB: no endpoints, no gamma
    offset = 14 + len(header)
    path.write_bytes(b"BM" + struct.pack("<IHHI", offset + len(data), 0, 0, offset) + header + data)


def _make(name, path):
    """Write the input ``name`` to ``path``; return what the check expects of it:
    ``colour`` (upright, [0, 1], (H, W, 3) or (H, W, 1)), ``alpha`` (or None), ``depth``
    (16 where 16 bits are to be kept), ``icc``, ``tolerance`` (None: pixels not compared:
    quantized to a palette or bilevel) and ``frames``."""
    rgb8, grey8 = Image.fromarray(u8(RGB)), Image.fromarray(u8(GREY))
    rgba8 = Image.fromarray(np.dstack([u8(RGB), u8(ALPHA)]))
    la8 = Image.fromarray(np.dstack([u8(GREY), u8(ALPHA)]), "LA")
    palette = rgb8.quantize(16)
    grey, rgb = GREY[..., None], RGB
    want = dict(colour=rgb, alpha=None, depth=8, icc=False, tolerance=1.5 / 255, frames=1)
    kind, ext = os.path.splitext(name)
    if ext == ".jpg" or kind.startswith("lossy"):
        want["tolerance"] = 0.06
    if name == "g1.png":
        (grey8.point(lambda v: 255 * (v > 127))).convert("1").save(path)
        return dict(want, colour=grey, tolerance=None)
    if name in ("g2.png", "g4.png"):
        bits = int(name[1])
        png_grey_bits(path, GREY, bits)
        return dict(want, colour=np.rint(grey * ((1 << bits) - 1)) / ((1 << bits) - 1))
    if name == "g8.png":
        grey8.save(path)
        return dict(want, colour=grey)
    if name == "g16.png":
        cv2.imwrite(str(path), u16(GREY))
        return dict(want, colour=grey, depth=16)
    if name == "la8.png":
        la8.save(path)
        return dict(want, colour=grey, alpha=ALPHA)
    if name == "la16.png":
        png16_grey_alpha(path, np.dstack([u16(GREY), u16(ALPHA)]))
        return dict(want, colour=grey, alpha=ALPHA, depth=16)
    if name == "rgb8.png":
        rgb8.save(path)
        return want
    if name in ("rgb16.png", "rgba16.png"):
        alpha = name == "rgba16.png"
        bgr = u16(RGB)[..., ::-1]
        cv2.imwrite(str(path), np.dstack([bgr, u16(ALPHA)]) if alpha else bgr)
        return dict(want, alpha=ALPHA if alpha else None, depth=16)
    if name == "rgba8.png":
        rgba8.save(path)
        return dict(want, alpha=ALPHA)
    if name == "pal.png":
        palette.save(path)
        return dict(want, tolerance=None)
    if name in ("pal_trns.png", "trns.gif"):
        palette.save(path, transparency=0)
        return dict(want, tolerance=None, alpha="some")
    if name == "g_trns.png":
        grey8.save(path, transparency=int(u8(GREY)[-1, -1]))  # one corner transparent
        return dict(want, colour=grey, tolerance=None, alpha="some")
    if name in ("anim.png", "anim.webp", "anim.gif"):
        frames = [rgb8, Image.fromarray(255 - u8(RGB))]
        frames[0].save(path, save_all=True, append_images=frames[1:], lossless=True)
        return dict(want, frames=2, tolerance=None if ext == ".gif" else want["tolerance"])
    if name in ("icc.png", "icc.jpg", "icc.webp", "icc.tif"):
        lossless = {".jpg": {"quality": 95}, ".webp": {"lossless": True}}.get(ext, {})
        rgb8.save(path, icc_profile=srgb_icc(), **lossless)
        return dict(want, icc=True)
    if name == "grey.jpg":
        grey8.save(path, quality=95)
        return dict(want, colour=grey)
    if name in ("rgb.jpg", "prog.jpg"):
        rgb8.save(path, quality=95, progressive=name == "prog.jpg")
        return want
    if name in ("cmyk.jpg", "cmyk.tif"):
        rgb8.convert("CMYK").save(path, **({"quality": 95} if ext == ".jpg" else {}))
        return want
    if kind.startswith("orient"):
        orientation = int(kind[6])
        pixels = stored(rgb8, orientation)
        if ext == ".tif" and kind.endswith("16"):  # OpenCV reads 16-bit colour upright
            tag = [(0x0112, "H", 1, orientation, True)]
            tifffile.imwrite(path, u16(np.asarray(pixels) / 255), photometric="rgb", extratags=tag)
            return dict(want, depth=16)
        lossless = {".jpg": {"quality": 95}, ".webp": {"lossless": True}}.get(ext, {})
        pixels.save(path, exif=exif(orientation), **lossless)
        return want
    if name in ("lossy.webp", "lossless.webp"):
        rgb8.save(path, quality=95, lossless=kind == "lossless")
        return want
    if name == "alpha.webp":
        rgba8.save(path, lossless=True)
        return dict(want, alpha=ALPHA)
    if name in ("t8.tif", "lzw.tif", "deflate.tif"):
        compression = {"t8": None, "lzw": "tiff_lzw", "deflate": "tiff_adobe_deflate"}[kind]
        rgb8.save(path, compression=compression)
        return want
    if name == "t16.tif":
        tifffile.imwrite(path, u16(RGB), photometric="rgb", compression="zlib")
        return dict(want, depth=16)
    if name == "t16g.tif":
        tifffile.imwrite(path, u16(GREY), photometric="minisblack")
        return dict(want, colour=grey, depth=16)
    if name in ("planar8.tif", "planar16.tif"):
        pixels = u16(RGB) if "16" in kind else u8(RGB)
        tifffile.imwrite(
            path, np.moveaxis(pixels, 2, 0), photometric="rgb", planarconfig="separate"
        )
        return dict(want, depth=16 if "16" in kind else 8)
    if name == "pages.tif":
        tifffile.imwrite(path, np.stack([u8(RGB), 255 - u8(RGB)]), photometric="rgb")
        return dict(want, frames=2)
    if name == "la8.tif":
        la8.save(path)
        return dict(want, colour=grey, alpha=ALPHA)
    if name in ("la16.tif", "rgba16.tif", "assoc16.tif"):
        colour = grey if kind == "la16" else RGB
        stored_colour = colour * ALPHA[..., None] if kind == "assoc16" else colour
        extra = [1 if kind == "assoc16" else 2]
        photometric = "minisblack" if kind == "la16" else "rgb"
        pixels = u16(np.dstack([stored_colour, ALPHA]))
        tifffile.imwrite(path, pixels, photometric=photometric, extrasamples=extra)
        return dict(want, colour=colour, alpha=ALPHA, depth=16)
    if name == "rgba8.tif":
        rgba8.save(path)
        return dict(want, alpha=ALPHA)
    if name == "b1.bmp":
        (grey8.point(lambda v: 255 * (v > 127))).convert("1").save(path)
        return dict(want, colour=grey, tolerance=None)
    if name in ("b4.bmp", "rle8.bmp"):
        bits = 4 if kind == "b4" else 8
        levels = (1 << bits) - 1
        index = np.rint(GREY * levels).astype(np.uint8)
        bmp_indexed(path, index, bits, rle=kind == "rle8")
        return dict(want, colour=(np.rint(np.rint(index / levels * 255)) / 255)[..., None])
    if name == "b8.bmp":
        palette.save(path)
        return dict(want, tolerance=None)
    if name == "b24.bmp":
        rgb8.save(path)
        return want
    if name == "b32.bmp":  # alpha under an alpha mask
        bmp_bgra(path, np.dstack([u8(RGB)[..., ::-1], u8(ALPHA)]))
        return dict(want, alpha=ALPHA)
    if name == "p16.ppm":
        cv2.imwrite(str(path), u16(RGB)[..., ::-1])
        return dict(want, depth=16)
    if name == "p16.pgm":
        cv2.imwrite(str(path), u16(GREY))
        return dict(want, colour=grey, depth=16)
    if name == "j16.jp2":
        from PIL import features

        if not features.check("jpg_2000") or not cv2.imwrite(str(path), u16(RGB)[..., ::-1]):
            pytest.skip("no JPEG 2000 encoder in OpenCV or decoder in Pillow")
        return dict(want, depth=16, tolerance=0.02)
    if name in ("i32.tif", "f32.tif", "f32rgb.tif"):
        pixels = {"i32": (GREY * 1e6).astype(np.int32), "f32": GREY.astype(np.float32)}
        pixels["f32rgb"] = RGB.astype(np.float32)
        tifffile.imwrite(
            path, pixels[kind], photometric="rgb" if kind == "f32rgb" else "minisblack"
        )
        top = 2**31 - 1 if kind == "i32" else 1.0  # the scale _read_back gives them
        colour = pixels[kind] / top
        return dict(want, depth=32, colour=colour if kind == "f32rgb" else colour[..., None])
    raise AssertionError(name)


NAMES = (
    ["g1.png", "g2.png", "g4.png", "g8.png", "g16.png", "la8.png", "la16.png", "rgb8.png"]
    + ["rgb16.png", "rgba8.png", "rgba16.png", "pal.png", "pal_trns.png", "g_trns.png"]
    + ["anim.png", "icc.png", "grey.jpg", "rgb.jpg", "cmyk.jpg", "prog.jpg", "icc.jpg"]
    + [f"orient{o}.{e}" for o in range(1, 9) for e in ("jpg", "png", "webp", "tif")]
    + ["orient6_16.tif", "lossy.webp", "lossless.webp", "alpha.webp", "anim.webp", "icc.webp"]
    + ["t8.tif", "t16.tif", "t16g.tif", "planar8.tif", "planar16.tif", "pages.tif", "lzw.tif"]
    + ["deflate.tif", "cmyk.tif", "la8.tif", "la16.tif", "rgba8.tif", "rgba16.tif"]
    + ["assoc16.tif", "icc.tif", "i32.tif", "f32.tif", "f32rgb.tif"]
    + ["b1.bmp", "b4.bmp", "rle8.bmp", "b8.bmp", "b24.bmp", "b32.bmp", "anim.gif", "trns.gif"]
    + ["p16.ppm", "p16.pgm", "j16.jp2"]
)


def _read_back(path):
    """``(pixels in [0, 1] (H, W, C), bits, alpha, orientation, icc)`` of an output, read
    by OpenCV (PNG: its 16 bits), tifffile (TIFF) or Pillow (the rest, and CMYK)."""
    try:
        im = Image.open(path)
    except Image.UnidentifiedImageError:  # float RGB(A) TIFF: tifffile reads it
        im = Image.new("L", (1, 1))
    with im:
        orientation = im.getexif().get(0x0112, 1)
        icc = bool(im.info.get("icc_profile"))
        cmyk = im.mode == "CMYK"
        if cmyk or path.suffix in (".jpg", ".webp", ".gif", ".bmp"):
            im = im.convert(
                "RGBA" if im.has_transparency_data else ("L" if im.mode == "L" else "RGB")
            )
            pixels = np.asarray(im)
    if path.suffix == ".png":
        pixels = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if pixels.ndim == 3:
            pixels = pixels[..., [2, 1, 0, 3][: pixels.shape[2]]]
    elif path.suffix == ".tif" and not cmyk:
        with tifffile.TiffFile(path) as tif:
            page = tif.pages.first
            icc = icc or page.tags.valueof(34675) is not None
            if page.compression == 5:  # LZW (Pillow keeps the input's): Pillow reads it
                with Image.open(path) as im:
                    pixels = np.asarray(im)
            else:
                pixels = page.asarray()
    if pixels.ndim == 2:
        pixels = pixels[..., None]
    bits = pixels.dtype.itemsize * 8
    top = np.iinfo(pixels.dtype).max if pixels.dtype.kind in "iu" else 1.0
    alpha = pixels.shape[2] in (2, 4) and not cmyk
    return pixels.astype(np.float64) / top, bits, alpha, orientation, icc


def _check(out, fmt, want, what):
    pixels, bits, alpha, orientation, icc = _read_back(out)
    assert pixels.shape[:2] == (OUT_H, OUT_W), what
    assert orientation == 1, f"{what}: orientation tag {orientation} left on upright pixels"
    if want["depth"] == 16 and fmt in ("png", "tiff"):
        assert bits == 16, f"{what}: 16 bits not kept ({bits})"
    if want["alpha"] is not None and fmt in ("png", "webp", "tiff"):
        assert alpha, f"{what}: alpha lost"
    if want["icc"] and fmt in ("png", "jpeg", "webp", "tiff"):
        assert icc, f"{what}: ICC profile lost"
    tolerance = want["tolerance"]
    if tolerance is None or fmt == "gif" or isinstance(want["alpha"], str):
        return
    if fmt in ("jpeg", "webp"):
        tolerance = max(tolerance, 0.2)  # 4:2:0 chroma of the steep blue: up to 0.14
    colour, a = want["colour"], want["alpha"]

    def resized(pixels):  # as resize_image resamples
        return cresize.resize(pixels, (OUT_H, OUT_W), axes=(0, 1), mode="lanczos3", antialias=True)

    if a is None:
        expected = resized(colour)
    else:  # premultiplied, as resize_image resamples alpha
        ea = resized(a)[..., None]
        expected = resized(colour * a[..., None]) / ea
        if alpha:
            assert np.abs(pixels[..., -1:] - ea).max() <= tolerance, f"{what}: alpha"
        else:  # JPEG and BMP: flattened on white
            expected = expected * ea + (1 - ea)
    expected = np.clip(expected, 0, 1)  # integers are clipped
    got = pixels[..., :-1] if alpha else pixels
    if got.shape[2] != expected.shape[2]:  # grey written as RGB or the other way
        got, expected = got.mean(-1, keepdims=True), expected.mean(-1, keepdims=True)
    worst = np.abs(got - expected).max()
    assert worst <= tolerance, f"{what}: pixels off by {worst:.3f}"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return tmp_path_factory.mktemp("inputs")


@pytest.mark.parametrize("name", NAMES)
def test_every_input_into_every_format(inputs, tmp_path, name, capsys):
    src = inputs / name
    want = _make(name, src)
    before = src.read_bytes(), os.stat(src).st_mtime_ns
    image = resize_image(src, (OUT_W, OUT_H))
    for fmt, ext in OUTPUTS.items():
        by_api, by_cli = tmp_path / f"api.{ext}", tmp_path / f"cli.{ext}"
        if want["depth"] == 32 and fmt != "tiff":  # 32-bit samples: TIFF only, refused
            with pytest.raises((ValueError, TypeError), match=r"TIFF"):
                save_image(image, by_api)
            assert main([str(src), "--size", f"{OUT_W}x{OUT_H}", "-o", str(by_cli), "-q"]) == 1
            assert "TIFF" in capsys.readouterr().err and not by_cli.exists()
            continue
        save_image(image, by_api)
        _check(by_api, fmt, want, f"{name} -> {fmt} (resize_image)")
        with contextlib.redirect_stdout(io.StringIO()):
            assert main([str(src), "--size", f"{OUT_W}x{OUT_H}", "-o", str(by_cli), "-q"]) == 0
        err = capsys.readouterr().err
        _check(by_cli, fmt, want, f"{name} -> {fmt} (cresize resize)")
        if fmt != "tiff":  # (a TIFF's strips may differ; its pixels were checked)
            assert by_api.read_bytes() == by_cli.read_bytes(), f"{name} -> {fmt}"
        # what is not kept is said
        if want["frames"] > 1:
            assert "only the first was resized" in err, (name, fmt, err)
        if want["depth"] == 16 and fmt not in ("png", "tiff"):
            assert "rounded to 8 bits" in err, (name, fmt, err)
        if want["icc"] and fmt in ("bmp", "gif"):
            assert "ICC colour profile is dropped" in err, (name, fmt, err)
    assert (src.read_bytes(), os.stat(src).st_mtime_ns) == before, f"{name} was modified"
