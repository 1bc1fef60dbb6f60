"""Empty results (a 0-length axis that is not resized) are ordinary arrays and tensors.

cresize.torch returned them with every stride 0 (``(0, 3, 8, 8)`` -> ``(0, 0, 0, 0)``),
unlike ``F.interpolate``'s and ``torch.empty``'s contiguous strides: NumPy 2.x gives a
zero-size array strides 0 (``np.empty((0, 3, 16, 16)).strides == (0, 0, 0, 0)``), and
``torch.from_numpy`` keeps them. NumPy results have ``np.empty``'s strides, whatever
the NumPy version gives it, on every path."""

import numpy as np
import pytest

import cresize

DTYPES = [np.float32, np.float64, np.float16, np.uint8, np.uint16, np.int16, np.int32, np.int64]
# (input shape, size, axes): a 0-length batch, channel, middle and last axis
CASES = [
    ((0, 3, 8, 8), (16, 16), (2, 3)),
    ((2, 0, 8, 8), (5, 4), (2, 3)),
    ((8, 8, 0), (4, 12), (0, 1)),
    ((8, 0, 6), (3, 9), (0, 2)),
    ((0, 7), 3, 1),
    ((3, 0, 1, 5), 10, 3),
]


def assert_ordinary(out, shape, dtype):
    assert out.shape == shape and out.dtype == dtype
    assert out.strides == np.empty(shape, dtype).strides, out.strides
    assert out.flags.c_contiguous and out.flags.writeable and out.flags.aligned


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, size, axes", CASES)
def test_empty_forward_results_are_c_contiguous(shape, size, axes, dtype):
    x = np.empty(shape, dtype)
    for mode in ("nearest", "bilinear", "lanczos3"):
        p = cresize.plan(shape, size, mode=mode, axes=axes, dtype=dtype)
        out_shape = p.output_shape
        assert 0 in out_shape
        for _ in range(2):  # the first call plans, the second finds the plan
            assert_ordinary(cresize.resize(x, size, mode=mode, axes=axes), out_shape, dtype)
        assert_ordinary(p(x), out_shape, dtype)
        assert_ordinary(p(x, num_threads=1), out_shape, dtype)
        region = tuple(slice(0, n) for n in out_shape)
        assert_ordinary(p.run_region(x[p.input_region(region)], region), out_shape, dtype)
        if np.dtype(dtype).kind == "f" and dtype != np.float16:
            g = np.empty(out_shape, dtype)
            back = cresize.resize_backward(g, shape, mode=mode, axes=axes)
            assert_ordinary(back, shape, dtype)
            assert_ordinary(cresize.resize_backward(g, shape, mode=mode, axes=axes), shape, dtype)
            assert_ordinary(p.backward(g), shape, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
def test_empty_identity_result_is_c_contiguous(dtype):
    x = np.empty((0, 3, 8, 8), dtype)
    assert_ordinary(cresize.resize(x, (8, 8), axes=(2, 3)), x.shape, dtype)


def test_empty_torch_results_have_torch_strides():
    torch = pytest.importorskip("torch")
    import cresize.torch as ct

    for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.uint8):
        for shape in ((0, 3, 8, 8), (2, 0, 8, 8), (0, 2, 4, 5, 6)):
            x = torch.empty(shape, dtype=dtype)
            size = (16,) * (len(shape) - 2)
            for _ in range(2):
                out = ct.interpolate(x, size=size, mode="nearest")
                assert out.stride() == torch.empty(out.shape).stride(), (shape, out.stride())
                assert out.is_contiguous()
    x = torch.empty(0, 3, 8, 8, dtype=torch.float64, requires_grad=True)
    y = ct.interpolate(x, size=(16, 16), mode="bilinear")
    assert y.stride() == torch.empty(y.shape).stride()
    y.sum().backward()
    assert x.grad.shape == x.shape and x.grad.stride() == torch.empty(x.shape).stride()
