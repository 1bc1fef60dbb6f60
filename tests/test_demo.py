"""The built-in example: ``python -m cresize._demo`` writes a comparison sheet."""

import sys

import numpy as np
import pytest

from cresize import MODES, _demo
from cresize.image import resize_image

Image = pytest.importorskip("PIL.Image")


def test_pattern_is_deterministic_and_busy():
    a = _demo.test_pattern()
    assert a.shape == (_demo.SIDE, _demo.SIDE, 3) and a.dtype == np.uint8
    np.testing.assert_array_equal(a, _demo.test_pattern())
    assert a.min() < 20 and a.max() > 235  # full contrast for ringing and aliasing
    assert len(np.unique(a.reshape(-1, 3), axis=0)) > 1000  # and smooth gradients


def test_writes_the_sheet(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert _demo.main([]) == 0
    path = tmp_path / "cresize-demo.png"
    assert f"wrote {path}" in capsys.readouterr().out
    with Image.open(path) as im:
        sheet = np.asarray(im.convert("RGB"))
    pattern = _demo.test_pattern()
    top, left, side = _demo.CROP
    sources = {"pattern": pattern, "crop": pattern[top : top + side, left : left + side]}
    shown = pattern.copy()  # the original, with the enlarged crop outlined in red
    r0, r1, c0, c1 = top - 1, top + side, left - 1, left + side
    shown[[r0, r1], c0 : c1 + 1] = shown[r0 : r1 + 1, [c0, c1]] = (255, 0, 0)
    np.testing.assert_array_equal(
        sheet[_demo.HEAD : _demo.HEAD + _demo.SIDE, _demo.PAD : _demo.PAD + _demo.SIDE], shown
    )
    _, tiles = _demo.build_sheet(pattern)
    assert len(tiles) == 2 * len(MODES) + 3  # antialias for bilinear, bicubic, lanczos3
    for (mode, heading), (x, y, tile) in tiles.items():
        _, source, kwargs = next(c for c in _demo.COLUMNS if c[0] == heading)
        np.testing.assert_array_equal(tile, resize_image(sources[source], mode=mode, **kwargs))
        np.testing.assert_array_equal(sheet[y : y + tile.shape[0], x : x + tile.shape[1]], tile)
    down = [tiles[m, _demo.COLUMNS[0][0]][2] for m in MODES]
    assert len({t.tobytes() for t in down}) == len(MODES)  # every mode shows something else


def test_out_option(tmp_path, capsys):
    out = tmp_path / "sub" / "sheet.png"
    out.parent.mkdir()
    assert _demo.main(["--out", str(out)]) == 0
    with Image.open(out) as im:
        assert im.format == "PNG"
    assert str(out) in capsys.readouterr().out
    assert sorted(p.name for p in out.parent.iterdir()) == ["sheet.png"]


def test_out_into_a_missing_folder_says_so(tmp_path, capsys):
    # It ended in a FileNotFoundError traceback.
    path = tmp_path / "missing" / "sheet.png"
    assert _demo.main(["--out", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"cresize demo: cannot write {path}: ") and "Traceback" not in err


def test_without_pillow(monkeypatch, tmp_path, capsys):
    for name in [m for m in sys.modules if m == "PIL" or m.startswith("PIL.")]:
        monkeypatch.setitem(sys.modules, name, None)
    assert _demo.main(["--out", str(tmp_path / "x.png")]) == 1
    assert 'pip install "cresize[image]"' in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_demo_refuses_to_replace_a_file(tmp_path, capsys):
    """An existing file at ``--out`` is kept unless ``--overwrite``."""
    out = tmp_path / "mine.png"
    out.write_bytes(b"not a demo")
    assert _demo.main(["--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "exists" in err and "--overwrite" in err and "Traceback" not in err
    assert out.read_bytes() == b"not a demo"
    assert _demo.main(["--out", str(out), "--overwrite"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
