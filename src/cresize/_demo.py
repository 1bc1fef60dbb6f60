"""``cresize demo``: every mode on a built-in test pattern, side by side.

The pattern is made in code: a zone plate (aliasing shows as false rings), a
frequency sweep of bars, a hard-edged disc (ringing shows as halos) and a smooth
photo-like gradient. Each mode shrinks it by 8/3 (without and with antialias) and
enlarges a crop 4x; the tiles go into one labelled PNG sheet.
"""

import argparse
import os
import sys

import numpy as np

from cresize import _spec
from cresize._atomic import cannot_write
from cresize._tables import MODES

SIDE = 384  # pattern size
DOWN = 144  # shrunk size (a non-integer factor, 8/3)
CROP = (168, 168, 48)  # top, left, side of the region that is enlarged
UP = 4  # enlargement factor
#: (heading, what to resize, keyword arguments for resize_image)
COLUMNS = (
    (f"down to {DOWN}", "pattern", dict(size=(DOWN, DOWN), antialias=False)),
    (f"down to {DOWN}, antialias", "pattern", dict(size=(DOWN, DOWN), antialias=True)),
    (f"crop up {UP}x", "crop", dict(size=(CROP[2] * UP,) * 2, antialias=False)),
)
PAD, LABEL, HEAD = 10, 110, 24


def test_pattern(side=SIDE):
    """A ``(side, side, 3)`` uint8 image that shows aliasing, ringing and blur."""
    y, x = (np.mgrid[0:side, 0:side] + 0.5) / side  # in (0, 1)
    img = np.stack([0.55 + 0.35 * x, 0.45 + 0.25 * y, 0.75 - 0.35 * x * y], axis=-1)
    left, top = x < 0.5, y < 0.5
    rings = 0.5 + 0.5 * np.cos(np.pi * side * 0.9 * ((x - 0.25) ** 2 + (y - 0.25) ** 2))
    img[left & top] = rings[left & top, None]  # zone plate
    period = 2 + np.floor(np.clip(12 * (y - 0.5), 0, 5.99))  # bars of 2..7 px
    bars = (np.floor(x * side / period) % 2)[..., None] * np.array([0.9, 0.2, 0.1])
    img = np.where((left & ~top)[..., None], 0.05 + bars, img)  # frequency sweep
    disc = (x - 0.75) ** 2 + (y - 0.25) ** 2 < 0.17**2
    img[disc] = (0.1, 0.2, 0.6)  # hard edges
    img[~left & ~top] *= (0.8 + 0.2 * np.sin(30 * x * y))[~left & ~top, None]
    return np.clip(np.rint(img * 255), 0, 255).astype(np.uint8)


def build_sheet(pattern):
    """The comparison sheet and where each tile is.

    Returns
    -------
    PIL.Image.Image, dict
        The RGB sheet, and ``{(mode, heading): (left, top, tile array)}``.
    """
    from PIL import Image, ImageDraw, ImageFont, features

    from cresize.image import resize_image

    top, left, side = CROP
    sources = {"pattern": pattern, "crop": pattern[top : top + side, left : left + side]}
    widths = [DOWN, DOWN, side * UP]
    x0 = [PAD + LABEL + sum(widths[:i]) + PAD * i for i in range(len(widths))]
    row = max(widths) + PAD
    height = HEAD + SIDE + PAD + HEAD + row * len(MODES)
    sheet = Image.new("RGB", (x0[-1] + widths[-1] + PAD, height), "white")
    draw = ImageDraw.Draw(sheet)
    font = ImageFont.load_default(13) if features.check("freetype2") else ImageFont.load_default()
    draw.text(
        (PAD, 4),
        f"cresize {len(MODES)} modes: test pattern {SIDE}x{SIDE}, enlarged crop outlined in red",
        fill="black",
        font=font,
    )
    sheet.paste(Image.fromarray(pattern), (PAD, HEAD))
    draw.rectangle(
        (PAD + left - 1, HEAD + top - 1, PAD + left + side, HEAD + top + side), outline="red"
    )
    y = HEAD + SIDE + PAD
    for x, (heading, _, _) in zip(x0, COLUMNS):
        draw.text((x, y + 4), heading, fill="black", font=font)
    tiles = {}
    for r, mode in enumerate(MODES):
        y = HEAD + SIDE + PAD + HEAD + r * row
        draw.text((PAD, y + 4), mode, fill="black", font=font)
        for x, (heading, source, kwargs) in zip(x0, COLUMNS):
            if kwargs["antialias"] and not _spec.takes_antialias(mode):
                draw.text((x, y + 4), "(no antialias)", fill="gray", font=font)
                continue
            tile = resize_image(sources[source], mode=mode, **kwargs)
            sheet.paste(Image.fromarray(tile), (x, y))
            tiles[mode, heading] = (x, y, tile)
    return sheet, tiles


def main(argv=None):
    """Write the comparison sheet; return the exit status."""
    parser = argparse.ArgumentParser(
        prog="cresize demo",
        description="Write a PNG sheet of every mode on a built-in test pattern, side by side.",
    )
    parser.add_argument(
        "--out",
        default="cresize-demo.png",
        metavar="PATH",
        help="where to write the PNG sheet (default: ./cresize-demo.png)",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the file if it exists (default: refuse)"
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code
    try:
        from cresize.image import _pil, save_image

        _pil()
    except ImportError as exc:
        print(f"cresize demo: {exc}", file=sys.stderr)
        return 1
    sheet, tiles = build_sheet(test_pattern())
    try:
        save_image(sheet, args.out, format="png", overwrite=args.overwrite)
    except FileExistsError:
        print(
            f"cresize demo: {args.out} exists: pass --overwrite to replace it, or --out PATH",
            file=sys.stderr,
        )
        return 1
    except OSError as exc:  # a missing folder, no permission, a full disk
        print(f"cresize demo: {cannot_write(args.out, exc)}", file=sys.stderr)
        return 1
    print(
        f"cresize demo: wrote {os.path.abspath(args.out)} ({sheet.width}x{sheet.height}: "
        f"{len(MODES)} modes, {len(tiles)} tiles, shrunk {SIDE}->{DOWN}, "
        f"a crop enlarged {UP}x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
