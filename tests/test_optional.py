"""Optional dependencies (``cresize._optional``): not installed -> the documented fallback
or install hint; installed but failing to import -> its error, named (docs/guide/install.md)."""

import importlib
import sys
import warnings

import numpy as np
import pytest

import cresize
from cresize import _cli_resize, _demo, _optional
from cresize._optional import BrokenDependencyError
from helpers.imports import BROKEN, import_raises
from helpers.png16 import png16

LIBGL = ImportError("libGL.so.1: cannot open shared object file: No such file or directory")


def named(exc):
    return f"is installed but fails to import: {type(exc).__name__}: {exc}"


# ----------------------------------------------------------------------------
# The helper


@pytest.mark.parametrize("exc", BROKEN)
def test_a_broken_package_is_named_and_imported_once(monkeypatch, exc):
    calls = import_raises(monkeypatch, "json", exc)
    for _ in range(2):
        with pytest.raises(BrokenDependencyError) as e:
            _optional.load("json", "JSON (json)", hint="the feature needs it")
        assert str(e.value) == f"JSON (json) {named(exc)}; the feature needs it"
        assert e.value.__cause__ is exc and e.value.package == "JSON (json)"
        assert isinstance(e.value, ImportError)
    assert calls == ["json"]  # the failure is remembered, not imported again
    # missing= is only for a package that is not there
    with pytest.raises(BrokenDependencyError):
        _optional.load("json", missing="pip install json")


def test_a_broken_package_s_error_survives_pickling():
    # raised in a spawn worker, it reaches the pool pickled: rebuilt from its args (one
    # message, not __init__'s three arguments) it failed, and broke the pool
    import pickle

    error = BrokenDependencyError("OpenCV (cv2)", LIBGL, "pip install opencv-python-headless")
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is BrokenDependencyError and isinstance(again, ImportError)
    assert str(again) == str(error) and again.package == "OpenCV (cv2)"


def test_a_broken_package_s_error_keeps_its_notes_and_attributes_when_pickled():
    # __reduce__ kept only its message and package: a note added on the way
    # (add_note), an attribute set on it, ImportError's name and path were lost in a
    # spawn worker's error, which every other exception keeps
    import pickle

    error = BrokenDependencyError("OpenCV (cv2)", LIBGL, "pip install opencv-python-headless")
    error.add_note("while reading a.png")
    error.name, error.path, error.tried = "cv2", "/site-packages/cv2", 3
    again = pickle.loads(pickle.dumps(error))
    assert str(again) == str(error) and again.package == "OpenCV (cv2)"
    assert again.__notes__ == ["while reading a.png"]
    assert (again.name, again.path, again.tried) == ("cv2", "/site-packages/cv2", 3)


@pytest.mark.parametrize("exc", BROKEN)
def test_a_broken_package_with_a_fallback_warns_once(monkeypatch, exc):
    import_raises(monkeypatch, "json", exc)
    with pytest.warns(RuntimeWarning) as record:
        assert _optional.load("json", fallback="plain text instead") is None
    assert [str(w.message) for w in record] == [f"json {named(exc)}; plain text instead"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _optional.load("json", fallback="plain text instead") is None


@pytest.mark.parametrize(
    ("module", "missing"), [("json", "json"), ("json.decoder", "json"), ("json.decoder",) * 2]
)
def test_a_missing_package_is_none_or_its_hint(monkeypatch, module, missing):
    # ModuleNotFoundError naming the package itself, or a package above it (a
    # ModuleNotFoundError naming a dependency: BROKEN above)
    exc = ModuleNotFoundError(f"No module named {missing!r}", name=missing)
    import_raises(monkeypatch, missing, exc)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _optional.load(module, fallback="x") is None
        assert _optional.load(module) is None
    with pytest.raises(ImportError, match=r"^pip install it$") as e:
        _optional.load(module, missing="pip install it")
    assert not isinstance(e.value, BrokenDependencyError)


def test_an_installed_package_is_returned():
    assert _optional.load("json.decoder") is sys.modules["json.decoder"]


# ----------------------------------------------------------------------------
# The sites


@pytest.mark.parametrize("exc", BROKEN)
@pytest.mark.parametrize(
    ("adapter", "package", "label"),
    [("cresize.torch", "torch", "torch"), ("cresize.dask", "dask", "Dask")],
)
def test_the_adapters_name_a_broken_backend(monkeypatch, adapter, package, label, exc):
    monkeypatch.delitem(sys.modules, adapter, raising=False)
    import_raises(monkeypatch, package, exc)
    with pytest.raises(ImportError) as e:  # was: "needs PyTorch, which is not installed"
        importlib.import_module(adapter)
    assert str(e.value) == f"{label} {named(exc)}; {adapter} needs it"


def jpeg(path):
    from PIL import Image

    rng = np.random.default_rng(5)
    Image.fromarray(rng.integers(0, 256, (40, 48, 3), np.uint8)).save(path, quality=90)
    return path


def test_a_broken_opencv_warns_once_and_pillow_does_the_work(tmp_path, monkeypatch):
    from cresize.image import open_image, resize_image, save_image

    src = jpeg(tmp_path / "in.jpg")
    deep = png16(tmp_path / "deep.png", np.full((4, 5, 3), 40000, np.uint16))
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "cv2", None)  # not installed: Pillow, silently
        want = np.asarray(resize_image(src, (20, 24)))
    import_raises(monkeypatch, "cv2", LIBGL)
    with pytest.warns(RuntimeWarning) as record:
        got = resize_image(src, (20, 24))
        save_image(got, tmp_path / "out.png")
    assert [str(w.message) for w in record] == [
        f"OpenCV (cv2) {named(LIBGL)}; Pillow decodes and encodes without it "
        f"(16-bit colour needs it)"
    ]
    np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(open_image(tmp_path / "out.png")), want)
    # 16-bit colour needs it: the error names OpenCV and its error, not "pip install"
    with pytest.raises(BrokenDependencyError) as e:
        open_image(deep)
    assert str(e.value) == (
        f"OpenCV (cv2) {named(LIBGL)}; {deep} has 16-bit RGB pixels, which only OpenCV reads"
    )
    with pytest.raises(BrokenDependencyError, match=r"writing 16-bit colour to \S+ needs it"):
        save_image(np.zeros((4, 4, 3), np.uint16), tmp_path / "deep-out.png")


def test_a_broken_tifffile_warns_and_opencv_writes_the_tiff(tmp_path, monkeypatch):
    pytest.importorskip("cv2")
    from cresize.image import open_image, save_image

    pixels = np.arange(4 * 5 * 3, dtype=np.uint16).reshape(4, 5, 3) * 1000
    import_raises(monkeypatch, "tifffile", OSError("libz.so: cannot open shared object file"))
    with pytest.warns(RuntimeWarning, match=r"^tifffile is installed but fails to import: OSE"):
        save_image(pixels, tmp_path / "out.tif")
    np.testing.assert_array_equal(np.asarray(open_image(tmp_path / "out.tif")), pixels)


@pytest.mark.parametrize("exc", BROKEN)
def test_a_broken_pillow_is_named(tmp_path, monkeypatch, exc):
    from cresize.image import open_image

    src = jpeg(tmp_path / "in.jpg")
    import_raises(monkeypatch, "PIL", exc)
    with pytest.raises(BrokenDependencyError) as e:
        open_image(src)
    assert str(e.value) == f"Pillow {named(exc)}"


def test_cli_resize_names_a_broken_pillow_and_a_broken_opencv(tmp_path, monkeypatch, capsys):
    (tmp_path / "in").mkdir()
    jpeg(tmp_path / "in" / "plain.jpg")
    deep = png16(tmp_path / "in" / "deep.png", np.full((4, 5, 3), 40000, np.uint16))
    args = [str(tmp_path / "in"), "--width", "6", "--out-dir", str(tmp_path / "o"), "-q"]
    with monkeypatch.context() as m:
        import_raises(m, "PIL", OSError("libjpeg.so.8: cannot open shared object file"))
        assert _cli_resize.main(args) == 1
        err = capsys.readouterr().err  # was: 'Pillow is needed ...: pip install'
        assert (
            err
            == f"cresize resize: Pillow {named(OSError('libjpeg.so.8: cannot open shared object file'))}\n"
        )
    import_raises(monkeypatch, "cv2", LIBGL)
    with pytest.warns(RuntimeWarning, match=r"^OpenCV \(cv2\) is installed but fails"):
        assert _cli_resize.main(args) == 1  # deep.png failed, plain.jpg resized by Pillow
    err = capsys.readouterr().err
    assert f"{deep}: BrokenDependencyError: OpenCV (cv2) {named(LIBGL)}; " in err
    assert "pip install" not in err
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["plain.jpg"]


def test_cli_resize_warns_of_a_broken_tqdm(monkeypatch):
    import_raises(monkeypatch, "tqdm", AttributeError("module 'typing' has no attribute 'Any'"))
    with pytest.warns(RuntimeWarning, match=r"^tqdm is installed .*; the plain progress bar"):
        bar = _cli_resize._progress(3, True)
    assert isinstance(bar, _cli_resize._Progress)


def test_demo_names_a_broken_pillow(tmp_path, monkeypatch, capsys):
    import_raises(monkeypatch, "PIL", LIBGL)
    assert _demo.main(["--out", str(tmp_path / "x.png")]) == 1
    assert capsys.readouterr().err == f"cresize demo: Pillow {named(LIBGL)}\n"
    assert not (tmp_path / "x.png").exists()


def test_config_warns_of_a_broken_threadpoolctl(monkeypatch):
    import_raises(monkeypatch, "threadpoolctl", OSError("libc.so: invalid ELF header"))
    with pytest.warns(RuntimeWarning, match=r"^threadpoolctl is installed but fails to import"):
        config = cresize.show_config("dicts")
    assert config["openmp"]["threadpoolctl"] is False
