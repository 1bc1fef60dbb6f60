"""cresize.image as a type-checked user calls it (tests/test_typing.py)."""

from __future__ import annotations

import io
import pathlib
from typing import Any

import numpy as np
import numpy.typing as npt
import PIL.Image
from typing_extensions import assert_type

import cresize.image

Image = PIL.Image.Image | npt.NDArray[Any]

im = cresize.image.open_image("in.png")
assert_type(im, Image)
assert_type(cresize.image.resize_image(im, (100, None)), Image)
assert_type(
    cresize.image.resize_image("in.png", scale=0.5, mode="bicubic"),
    PIL.Image.Image | cresize.image.ImageArray,
)
small = cresize.image.resize_image(np.zeros((4, 4, 3), np.uint8), fit=(2, 2), num_threads=1)
cresize.image.save_image(small, "out.png", quality=80, overwrite=True)
a = cresize.image.ImageArray(np.zeros((2, 2, 3), np.uint16), {"icc_profile": b""})
assert_type(a, cresize.image.ImageArray)
assert_type(a.info, dict[str, Any])
if isinstance(im, cresize.image.ImageArray):
    assert_type(im.info, dict[str, Any])
assert_type(
    cresize.image.target_size(10, 10, fit=(5, 5)),
    tuple[tuple[int, int], tuple[int, int, int, int] | None],
)
assert_type(cresize.image.narrows(a, "jpeg"), bool)

# what each input gives (overloads): an array an array of its dtype, an ImageArray an
# ImageArray, a file or a Pillow image a Pillow image or an ImageArray
u8 = np.zeros((4, 4, 3), np.uint8)
assert_type(cresize.image.resize_image(u8, fit=(2, 2)), npt.NDArray[np.uint8])
f32 = np.zeros((4, 4), np.float32)
assert_type(cresize.image.resize_image(f32, scale=0.5), npt.NDArray[np.float32])
assert_type(cresize.image.resize_image(a, (1, None)), cresize.image.ImageArray)
assert_type(cresize.image.resize_image(a, (1, None)).info, dict[str, Any])
Read = PIL.Image.Image | cresize.image.ImageArray
assert_type(cresize.image.resize_image("in.png", fit=(2, 2)), Read)
assert_type(cresize.image.resize_image(b"in.png", fit=(2, 2)), Read)
assert_type(cresize.image.resize_image(pathlib.Path("in.png"), fit=(2, 2)), Read)
with open("in.png", "rb") as f:
    assert_type(cresize.image.resize_image(f, fit=(2, 2)), Read)
assert_type(cresize.image.resize_image(io.BytesIO(b""), fit=(2, 2)), Read)
pil = PIL.Image.new("RGB", (4, 4))
assert_type(cresize.image.resize_image(pil, fit=(2, 2)), Read)

i0 = np.zeros((), np.int64)
f0 = np.zeros((), np.float64)
cresize.image.save_image(small, "out.jpg", quality=i0)
cresize.image.resize_image(a, (i0, None), num_threads=i0)
cresize.image.resize_image(a, scale=(f0, 0.5))
cresize.image.target_size(10, 10, scale=f0)
cresize.image.target_size(10, 10, fill=(i0, 5), allow_upscale=True)
cresize.image.target_size(10, 10, [5, None])
cresize.image.resize_image(a, fit=[5, 5])
cresize.image.resize_image(a, scale=[f0, 2])

# refused
cresize.image.save_image(a, "out.jpg", quality=f0)  # type: ignore[arg-type]
cresize.image.target_size(10, 10, scale=np.zeros(2, np.float64))  # type: ignore[arg-type]
cresize.image.save_image(a, "out.png", quality="high")  # type: ignore[arg-type]
cresize.image.resize_image(a, 100)  # type: ignore[call-overload]
cresize.image.target_size(10, 10, range(5, 7))  # type: ignore[arg-type]
cresize.image.resize_image(a, fit=range(5, 7))  # type: ignore[call-overload]
cresize.image.resize_image(a, scale=range(1, 3))  # type: ignore[call-overload]
