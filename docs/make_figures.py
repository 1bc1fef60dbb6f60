"""Draw the figures of the user guide into docs/figures/ (NumPy and Pillow only).

    python docs/make_figures.py          # from the repository root, cresize importable

* ``kernel-<mode>.png``: each mode's kernel as cresize computes it. The solid
  curve is the weight one input pixel gets in the outputs when enlarging 16x
  (a column of ``cresize.weights(16, 256, mode=...)``, plotted against the
  output's source coordinate); the dots are one output's weights when
  shrinking 8x with ``antialias=True`` (a row of ``weights(64, 8, ...)``,
  times 8, against the input's distance in output pixels) for the modes that
  antialias.
* ``demo.png``: the built-in test pattern resized with every mode, the sheet
  that ``python -m cresize demo`` writes.

The PNGs are committed; run this again when a mode's numbers change.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont, features

import cresize
from cresize import _demo

FIGURES = Path(__file__).resolve().parent / "figures"
WIDTH, HEIGHT, MARGIN = 520, 300, 44
X_RANGE, Y_RANGE = (-3.5, 3.5), (-0.25, 1.1)
UP, DOWN = 16, 8  # enlarging factor of the kernel curve; shrinking factor of the antialias dots
ANTIALIAS = ("bilinear", "bicubic", "lanczos3")


def kernel_curve(mode: str) -> tuple[np.ndarray, np.ndarray]:
    """(source coordinate relative to the pixel, weight) when enlarging UP times."""
    n = 16
    w = cresize.weights(n, n * UP, mode=mode)
    centre = n // 2
    src = (np.arange(n * UP) + 0.5) / UP - 0.5
    return src - centre, w[:, centre]


def antialias_points(mode: str) -> tuple[np.ndarray, np.ndarray]:
    """(distance in output pixels, weight times the factor) of one output, shrinking DOWN times."""
    n_out = 8
    w = cresize.weights(n_out * DOWN, n_out, mode=mode, antialias=True)
    o = n_out // 2
    centre = (np.arange(n_out * DOWN) + 0.5) / DOWN
    keep = w[o] != 0
    return (centre - (o + 0.5))[keep], w[o][keep] * DOWN


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default(size) if features.check("freetype2") else ImageFont.load_default()


def draw_kernel(mode: str) -> Image.Image:
    img = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(img)
    font = _font(13)
    x0, x1 = MARGIN, WIDTH - 12
    y0, y1 = 40, HEIGHT - 30

    def px(x: float, y: float) -> tuple[float, float]:
        fx = (x - X_RANGE[0]) / (X_RANGE[1] - X_RANGE[0])
        fy = (y - Y_RANGE[0]) / (Y_RANGE[1] - Y_RANGE[0])
        return x0 + fx * (x1 - x0), y1 - fy * (y1 - y0)

    for gx in range(-3, 4):
        draw.line([px(gx, Y_RANGE[0]), px(gx, Y_RANGE[1])], fill=(225, 225, 225))
        tx, ty = px(gx, Y_RANGE[0])
        draw.text((tx - 4, ty + 4), str(gx), fill="black", font=font)
    for gy in (0.0, 0.5, 1.0):
        draw.line(
            [px(X_RANGE[0], gy), px(X_RANGE[1], gy)],
            fill=(150, 150, 150) if gy == 0 else (225, 225, 225),
        )
        tx, ty = px(X_RANGE[0], gy)
        draw.text((tx - 30, ty - 7), f"{gy:g}", fill="black", font=font)
    x, y = kernel_curve(mode)
    inside = (x >= X_RANGE[0]) & (x <= X_RANGE[1])
    draw.line([px(a, b) for a, b in zip(x[inside], y[inside])], fill=(20, 60, 200), width=2)
    title = f"{mode}: weight of one input pixel, enlarging {UP}x (line)"
    if mode in ANTIALIAS:
        ax, ay = antialias_points(mode)
        for a, b in zip(ax, ay):
            cx, cy = px(a, b)
            draw.ellipse([cx - 2.5, cy - 2.5, cx + 2.5, cy + 2.5], fill=(220, 90, 20))
        title += f";\nantialias, shrinking {DOWN}x, weights x {DOWN} (dots)"
    draw.multiline_text((x0, 2), title, fill="black", font=font, spacing=1)
    draw.text((x1 - 150, y1 + 14), "distance in pixels", fill="black", font=font)
    return img


def main() -> int:
    FIGURES.mkdir(exist_ok=True)
    for mode in cresize.MODES:
        path = FIGURES / f"kernel-{mode}.png"
        draw_kernel(mode).save(path, optimize=True)
        print(f"wrote {path}")
    demo = FIGURES / "demo.png"
    status = _demo.main(["--out", str(demo)])
    if status == 0:  # recompress: the sheet is a figure, not a test image
        Image.open(demo).save(demo, optimize=True)
    return int(status or 0)


if __name__ == "__main__":
    sys.exit(main())
