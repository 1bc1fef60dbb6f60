"""``cresize resize``: real files in tmp_path, in-process and in subprocesses."""

import os
import re
import signal
import stat
import subprocess
import sys
import time

import numpy as np
import pytest

import cresize
from cresize._cli_resize import main, split_cores
from cresize.image import FORMATS, _png_chunk, resize_image, save_image
from helpers.faults import FailingWrites
from helpers.proc import POSIX, default_sigint

Image = pytest.importorskip("PIL.Image")

# The subprocesses import the same cresize as this process (installed or in-place build).
CRESIZE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(cresize.__file__)))


def _on_naming(monkeypatch, before=None, after=None):
    """Call ``before(tmp, path)`` / ``after(tmp, path)`` around the step that gives an
    output its name: ``os.replace`` (``--overwrite``) or ``os.link`` (otherwise)."""
    for name in ("replace", "link"):
        real = getattr(os, name)

        def naming(a, b, real=real):
            if before is not None:
                before(a, b)
            result = real(a, b)
            if after is not None:
                after(a, b)
            return result

        monkeypatch.setattr(os, name, naming)


def _features():
    from PIL import features

    return features


def run_script(script, *args, **env):
    """``python -c script *args`` in a fresh interpreter that imports this cresize, with
    the environment variables ``env`` added; the ``CompletedProcess``."""
    return subprocess.run(
        [sys.executable, "-c", script, *map(str, args)],
        env=dict(os.environ, PYTHONPATH=CRESIZE_ROOT, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def photo(h, w, seed=0):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w] / max(h, w)
    a, b = rng.uniform(3, 9), rng.uniform(3, 9, 3)
    v = 0.5 + 0.3 * np.sin(a * x)[..., None] * np.cos(b * y[..., None])
    return np.clip(np.rint(255 * v + rng.normal(0, 3, (h, w, 3))), 0, 255).astype(np.uint8)


def write(path, h=40, w=60, seed=0, mode="RGB", **kwargs):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(photo(h, w, seed)).convert(mode).save(path, **kwargs)
    return path


def tree(root):
    return sorted(
        os.path.relpath(os.path.join(d, f), root) for d, _, files in os.walk(root) for f in files
    )


def test_single_file(tmp_path, capsys):
    src = write(tmp_path / "in.png", 80, 120)
    assert main([str(src), "--fit", "50x50", "-o", str(tmp_path / "out.png")]) == 0
    with Image.open(tmp_path / "out.png") as out:
        assert out.size == (50, 33)
        np.testing.assert_array_equal(np.asarray(out), np.asarray(resize_image(src, (50, 33))))
    assert "1 resized, 0 failed" in capsys.readouterr().out


def test_directories_globs_and_mirroring(tmp_path):
    for rel in ["a.png", "b.jpg", "sub/c.png", "sub/deep/d.tif", "notes.txt", ".hidden.png"]:
        if rel.endswith(".txt"):
            (tmp_path / "in").mkdir(exist_ok=True)
            (tmp_path / "in" / rel).write_text("not an image")
        else:
            write(tmp_path / "in" / rel)
    assert (
        main([str(tmp_path / "in"), "--width", "30", "--out-dir", str(tmp_path / "flat"), "-q"])
        == 0
    )
    assert tree(tmp_path / "flat") == ["a.png", "b.jpg"]
    assert (
        main(
            [
                str(tmp_path / "in"),
                "-r",
                "--height",
                "10",
                "--out-dir",
                str(tmp_path / "all"),
                "--suffix",
                "_s",
                "--format",
                "webp",
                "-q",
            ]
        )
        == 0
    )
    assert tree(tmp_path / "all") == ["a_s.webp", "b_s.webp", "sub/c_s.webp", "sub/deep/d_s.webp"]
    for p in tree(tmp_path / "all"):
        with Image.open(tmp_path / "all" / p) as opened:
            assert opened.size == (15, 10), p
    with Image.open(tmp_path / "all" / "a_s.webp") as opened:
        assert opened.format == "WEBP"
    assert (
        main(
            [
                str(tmp_path / "in" / "**" / "*.png"),
                "--scale",
                "0.5",
                "--out-dir",
                str(tmp_path / "glob"),
                "-q",
            ]
        )
        == 0
    )
    assert tree(tmp_path / "glob") == ["a.png", "sub/c.png"]
    with Image.open(tmp_path / "glob" / "sub" / "c.png") as opened:
        assert opened.size == (30, 20)


def test_next_to_the_input_with_suffix(tmp_path):
    src = write(tmp_path / "p.png")
    assert main([str(src), "--size", "12x7", "--suffix", "_small", "-q"]) == 0
    with Image.open(tmp_path / "p_small.png") as opened:
        assert opened.size == (12, 7)


def test_a_rerun_does_not_take_its_own_outputs_as_inputs(tmp_path, capsys):
    write(tmp_path / "a.png")
    write(tmp_path / "b.png", seed=1)
    args = [str(tmp_path), "--size", "12x7", "--suffix", "_s", "-q"]
    assert main(args) == 0
    first = sorted(os.listdir(tmp_path))
    assert first == ["a.png", "a_s.png", "b.png", "b_s.png"]
    # Again: the a_s.png and b_s.png the first run wrote are outputs, not inputs
    # (no a_s_s.png); the outputs exist, so each input is refused without --overwrite.
    assert main(args) == 1
    assert sorted(os.listdir(tmp_path)) == first
    assert "a_s.png exists (use --overwrite)" in capsys.readouterr().err
    before = (tmp_path / "a_s.png").stat().st_mtime_ns
    assert main([*args, "--overwrite"]) == 0  # no clash with the old outputs as inputs
    assert main([*args, "--overwrite", "--dry-run"]) == 0
    assert "a_s.png: skipped (an output of this batch)" in capsys.readouterr().out
    assert main([str(tmp_path), "--size", "12x7", "--suffix", "_s", "--overwrite"]) == 0
    assert "2 resized, 0 failed, 2 skipped (outputs of this batch)" in capsys.readouterr().out
    assert sorted(os.listdir(tmp_path)) == first
    assert (tmp_path / "a_s.png").stat().st_mtime_ns >= before
    # A file named on the command line is always an input.
    assert main([str(tmp_path / "a_s.png"), "--size", "6x4", "--suffix", "_s", "-q"]) == 0
    with Image.open(tmp_path / "a_s_s.png") as opened:
        assert opened.size == (6, 4)


@pytest.mark.parametrize(
    "flags,size",
    [
        (["--size", "25x10"], (25, 10)),
        (["--width", "30"], (30, 20)),
        (["--height", "30"], (45, 30)),
        (["--width", "7", "--height", "9"], (7, 9)),
        (["--scale", "1.5"], (90, 60)),
        (["--fit", "100x100"], (60, 40)),
        (["--fit", "100x100", "--allow-upscale"], (100, 67)),
        (["--fit", "30x30"], (30, 20)),
        (["--fill", "30x30"], (30, 30)),
        (["--fill", "100x20"], (60, 20)),
    ],
)
def test_geometry_flags(tmp_path, flags, size):
    src = write(tmp_path / "in.png")
    assert main([str(src), "-o", str(tmp_path / "out.png"), "-q", *flags]) == 0
    with Image.open(tmp_path / "out.png") as opened:
        assert opened.size == size


@pytest.mark.parametrize(
    "argv,words",
    [
        (["x.png"], "give one of --size"),
        (["x.png", "--size", "3x3", "--scale", "2"], "got size, scale"),
        (["x.png", "--size", "3by3"], "expected WIDTHxHEIGHT"),
        (["x.png", "--width", "0"], "must be > 0"),
        # "expected a number; got '10.5'": a number, but not a whole one
        (["x.png", "--width", "10.5"], "--width: expected a whole number; got '10.5'"),
        (["x.png", "--height", "1e3"], "--height: expected a whole number; got '1e3'"),
        (["x.png", "--scale", "half"], "--scale: expected a number; got 'half'"),
        (["x.png", "--size", "3x3", "--mode", "sinc"], "invalid choice"),
        (
            ["x.png", "--size", "3x3", "--mode", "lanczos"],
            "--mode: invalid choice: 'lanczos' (choose from nearest, nearest-exact, bilinear,",
        ),
        (["x.png", "--size", "3x3", "--mode", "lanczos"], "cubic) (did you mean 'lanczos3'?)"),
        # not argparse's "invalid choice: 101 (choose from 1, 2, 3, ..., 100)"
        (
            ["x.png", "--size", "3x3", "--quality", "101"],
            "--quality: must be an int from 1 to 100; got '101'",
        ),
        (
            ["x.png", "--size", "3x3", "--quality", "0"],
            "--quality: must be an int from 1 to 100; got '0'",
        ),
        (
            ["x.png", "--size", "3x3", "--quality", "high"],
            "--quality: must be an int from 1 to 100; got 'high'",
        ),
        (["x.png", "--size", "3x3", "-o", "a.png", "--out-dir", "d"], "not both"),
        (["x.png", "--size", "3x3", "--suffix", "/../x"], "--suffix must not contain"),
        (["x.png", "--size", "3x3", "--suffix", "_s", "-o", "a.png"], "--suffix has no effect"),
    ],
)
def test_usage_errors(argv, words, capsys):
    assert main(argv) == 2
    assert words in capsys.readouterr().err


def test_align_corners_with_a_mode_without_it_is_a_usage_error(tmp_path, capsys):
    # It used to fail every file of the batch, one "ValueError: ..." line each.
    for name in ["a.png", "b.png"]:
        write(tmp_path / "in" / name)
    argv = [str(tmp_path / "in"), "--width", "10", "--out-dir", str(tmp_path / "out")]
    assert main([*argv, "--mode", "area", "--align-corners"]) == 2
    err = capsys.readouterr().err
    assert err.count("not defined") == 1 and "--align-corners is not defined for --mode area" in err
    assert not (tmp_path / "out").exists()


def test_bad_files_are_reported_and_the_rest_done(tmp_path, capsys):
    for name in ["a.png", "c.png", "e.jpg"]:
        write(tmp_path / "in" / name)
    (tmp_path / "in" / "b.png").write_bytes(b"definitely not a PNG")
    whole = (tmp_path / "in" / "e.jpg").read_bytes()
    (tmp_path / "in" / "d.jpg").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "in" / "f.jpg").write_bytes(b"")  # said "not an image, or a format ..."
    assert (
        main(
            [
                str(tmp_path / "in"),
                str(tmp_path / "missing.png"),
                "--fit",
                "20x20",
                "--out-dir",
                str(tmp_path / "out"),
            ]
        )
        == 1
    )
    out, err = capsys.readouterr()
    assert tree(tmp_path / "out") == ["a.png", "c.png", "e.jpg"]
    assert f"{tmp_path / 'in' / 'b.png'}: not an image" in err
    # Pillow's words vary (cut in its header or its pixels: a damaged file either way)
    assert f"{tmp_path / 'in' / 'd.jpg'}: a damaged file? its reader failed: OSError: " in err
    assert f"{tmp_path / 'missing.png'}: no such file or directory" in err
    assert f"{tmp_path / 'in' / 'f.jpg'}: an empty file (0 bytes)" in err
    assert "3 resized, 4 failed" in out


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="symbolic links")
def test_a_broken_link_is_said_to_be_one(tmp_path, capsys):
    # A link to a file moved away said "not a regular file", of a name like photo.png.
    write(tmp_path / "in" / "a.png")
    os.symlink(tmp_path / "moved" / "b.png", tmp_path / "in" / "b.png")
    os.symlink("c.png", tmp_path / "in" / "c.png")  # a loop: still "not a regular file"
    assert main([str(tmp_path / "in"), "--width", "10", "--out-dir", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    moved = tmp_path / "moved" / "b.png"
    assert f"in/b.png: a symbolic link to a file that does not exist ({moved})\n" in err
    assert f"{tmp_path / 'in' / 'c.png'}: not a regular file\n" in err
    assert tree(tmp_path / "out") == ["a.png"]


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="symbolic links")
def test_links_to_folders_are_not_counted_as_subfolders_for_r(tmp_path, capsys):
    # The message counted a symbolic link to a folder as a subfolder that -r would
    # enter, and -r then said "no image file" all the same: -r follows no such link.
    write(tmp_path / "photos" / "a.png")
    (tmp_path / "in").mkdir()
    os.symlink(tmp_path / "photos", tmp_path / "in" / "linked")
    argv = ["--width", "10", "--out-dir", str(tmp_path / "out")]
    assert main([str(tmp_path / "in"), *argv]) == 1
    err = capsys.readouterr().err
    assert "subfolder" not in err and "-r/--recursive descends" not in err, err
    assert (
        f"{tmp_path / 'in'}: no image file in the folder (its symbolic link to a folder is "
        f"not followed, even with -r: name it to resize what it holds)\n"
    ) in err
    assert main([str(tmp_path / "in"), "-r", *argv]) == 1
    assert "or its subfolders (its symbolic link to a folder" in capsys.readouterr().err
    (tmp_path / "in" / "real").mkdir()  # a real one still counts; the link is named too
    assert main([str(tmp_path / "in"), *argv]) == 1
    err = capsys.readouterr().err
    assert "it has 1 subfolder: -r/--recursive descends into them (its symbolic link" in err


@pytest.mark.parametrize("dry_run", [[], ["-n"]])
def test_a_folder_without_image_files_is_reported(tmp_path, capsys, dry_run):
    """A folder whose images are all in subfolders, given without -r, used to be a
    silent "0 resized, 0 failed" with exit status 0: it is reported, as a pattern that
    matches no file is, and says what -r would do."""
    write(tmp_path / "in" / "sub" / "a.png")
    (tmp_path / "in" / "notes.txt").write_text("not an image")
    (tmp_path / "empty" / "out").mkdir(parents=True)  # the output folder is no subfolder
    out_dir = tmp_path / "empty" / "out"
    argv = ["--width", "10", "--out-dir", str(out_dir), *dry_run]
    assert main([str(tmp_path / "in"), *argv]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'in'}: no image file in the folder; it has 1 subfolder: -r" in err
    assert main([str(tmp_path / "empty"), "-r", *argv]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'empty'}: no image file in the folder or its subfolders\n" in err
    assert main([str(tmp_path / "empty"), *argv]) == 1
    assert f"{tmp_path / 'empty'}: no image file in the folder\n" in capsys.readouterr().err
    assert main([str(tmp_path / "in"), "-r", *argv]) == 0
    assert tree(out_dir) == ([] if dry_run else ["sub/a.png"])


@pytest.mark.parametrize("dry_run", [[], ["-n"]])
def test_an_output_format_that_cannot_be_told_is_refused_before_the_run(tmp_path, capsys, dry_run):
    # It used to be found after the file was decoded and resized (a dry run listed
    # it as fine), with the library's words "give format=" instead of --format.
    src = write(tmp_path / "in.png")
    assert main([str(src), "--width", "10", "-o", str(tmp_path / "out.xyz"), *dry_run]) == 1
    out, err = capsys.readouterr()
    assert "cannot tell the output format from the extension '.xyz'" in err
    assert "--format" in err and "format=" not in err and "->" not in out
    assert tree(tmp_path) == ["in.png"]
    argv = [str(src), "--width", "10", "-o", str(tmp_path / "out.xyz"), "--format", "png"]
    assert main([*argv, "-q"]) == 0
    with Image.open(tmp_path / "out.xyz") as opened:
        assert opened.format == "PNG"


@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]])
def test_output_that_is_a_directory_points_to_out_dir(tmp_path, capsys, overwrite):
    # -o DIR said "DIR exists (use --overwrite)", and with --overwrite failed to write.
    src = write(tmp_path / "in.png")
    (tmp_path / "thumbs").mkdir()
    assert main([str(src), "--width", "10", "-o", str(tmp_path / "thumbs"), *overwrite]) == 2
    assert "-o/--output is a directory; use --out-dir" in capsys.readouterr().err
    assert os.listdir(tmp_path / "thumbs") == []


@pytest.mark.parametrize("option", ["-o", "--output", "--out-dir"])
def test_an_empty_output_or_out_dir_is_a_usage_error(tmp_path, capsys, option):
    # A script's unset variable, --out-dir "$DEST", was taken as no --out-dir: the
    # outputs were written beside the inputs (in/a.webp with --format webp), and -o ""
    # likewise named the output after its input.
    src = write(tmp_path / "in" / "a.png")
    assert main([str(src), "--width", "10", "--format", "webp", option, ""]) == 2
    name = "--out-dir" if option == "--out-dir" else "-o/--output"
    assert f"{name} is empty" in capsys.readouterr().err
    assert tree(tmp_path) == ["in/a.png"]


@pytest.mark.parametrize("fmt", [[], ["--format", "png"]])
def test_an_output_of_dash_is_a_usage_error(tmp_path, capsys, monkeypatch, fmt):
    # -o - (standard output to most tools) wrote a file named "-" in the working folder
    # with --format png, and failed the input without it ("cannot tell the output
    # format from the extension ''"); ./- still names that file.
    src = write(tmp_path / "in" / "a.png")
    monkeypatch.chdir(tmp_path)
    assert main([str(src), "--width", "10", "-o", "-", *fmt]) == 2
    out, err = capsys.readouterr()
    assert "-o/--output - would be a file named '-', not standard output" in err
    assert out == "" and tree(tmp_path) == ["in/a.png"]
    assert main([str(src), "--width", "10", "-o", "./-", "--format", "png", "-q"]) == 0
    with Image.open(tmp_path / "-") as opened:
        assert opened.format == "PNG" and opened.size == (10, 7)


def test_an_output_name_ending_with_a_separator_points_to_out_dir(tmp_path, capsys):
    # -o thumbs/ (a folder not made yet) made the folder thumbs and then failed the
    # file with "FileExistsError: thumbs/ exists (pass overwrite=True, or --overwrite)"
    # given --format, or "cannot tell the output format from the extension ''" without.
    src = write(tmp_path / "in.png")
    folder = str(tmp_path / "thumbs") + os.sep
    for fmt in ([], ["--format", "png"]):
        assert main([str(src), "--width", "10", "-o", folder, *fmt]) == 2
        assert f"-o/--output {folder} ends with a path separator" in capsys.readouterr().err
        assert tree(tmp_path) == ["in.png"] and not (tmp_path / "thumbs").exists()


def test_an_output_name_of_another_format_than_format_is_a_usage_error(tmp_path, capsys):
    # -o out.png --format jpeg wrote JPEG bytes into out.png.
    src = write(tmp_path / "in.png")
    argv = [str(src), "--width", "10", "--format", "jpeg", "-o"]
    assert main([*argv, str(tmp_path / "out.png")]) == 2
    err = capsys.readouterr().err
    assert "out.png is a PNG file name, and --format jpeg writes JPEG; give one" in err
    assert tree(tmp_path) == ["in.png"]
    for name in ("a.jpeg", "b.JPG", "c.xyz", "d"):  # the same format, or none named
        assert main([*argv, str(tmp_path / name), "-q"]) == 0
        with Image.open(tmp_path / name) as opened:
            assert opened.format == "JPEG"


def test_an_output_folder_that_is_a_file_is_a_usage_error(tmp_path, capsys):
    # --out-dir FILE failed every input with "FileExistsError: [Errno 17] File exists:
    # 'FILE'", and -o FILE/x.png the same, after the batch had started.
    src, afile = write(tmp_path / "in.png"), tmp_path / "notes.txt"
    afile.write_text("x")
    assert main([str(src), "--width", "10", "--out-dir", str(afile)]) == 2
    assert f"--out-dir {afile} is a file, not a directory" in capsys.readouterr().err
    assert main([str(src), "--width", "10", "-o", str(afile / "x.png")]) == 2
    assert f"its directory {afile} is a file" in capsys.readouterr().err
    assert tree(tmp_path) == ["in.png", "notes.txt"]


@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]])
def test_an_output_name_taken_by_a_folder_is_refused_before_the_run(tmp_path, capsys, overwrite):
    # It said "out/in.png exists (use --overwrite)", and with --overwrite failed after
    # the resize: "IsADirectoryError: [Errno 21] Is a directory: 'out/.in.png.1234abcd.tmp'
    # -> 'out/in.png'".
    src = write(tmp_path / "in.png")
    (tmp_path / "out" / "in.png").mkdir(parents=True)
    assert main([str(src), "--width", "10", "--out-dir", str(tmp_path / "out"), *overwrite]) == 1
    err = capsys.readouterr().err
    assert f"the output {tmp_path / 'out' / 'in.png'} is a folder" in err, err
    assert "--overwrite" not in err and ".tmp" not in err
    assert tree(tmp_path) == ["in.png"] and (tmp_path / "out" / "in.png").is_dir()


def test_refuses_to_overwrite(tmp_path, capsys):
    src = write(tmp_path / "in.png")
    dst = tmp_path / "out.png"
    dst.write_bytes(b"keep me")
    assert main([str(src), "--width", "10", "-o", str(dst)]) == 1
    assert "exists (use --overwrite)" in capsys.readouterr().err
    assert dst.read_bytes() == b"keep me"
    assert main([str(src), "--width", "10", "-o", str(dst), "--overwrite", "-q"]) == 0
    with Image.open(dst) as opened:
        assert opened.size == (10, 7)


def test_the_input_itself_under_another_case_needs_in_place(tmp_path, capsys):
    # a.PNG --format png writes a.png: on a case-insensitive folder (macOS, Windows)
    # that is the input itself, and --overwrite replaced it without --in-place (the
    # check compared exact paths). A hard link stands in for such a folder's two names.
    src, twin = write(tmp_path / "a.PNG"), tmp_path / "a.png"
    os.link(src, twin)
    before = src.read_bytes()
    args = [str(src), "--width", "10", "--format", "png"]
    assert main([*args, "--overwrite"]) == 1
    err = capsys.readouterr().err
    assert f"the output {twin} is the input itself on a case-insensitive file" in err
    assert src.read_bytes() == before and os.path.samefile(src, twin)
    assert main([*args, "--in-place", "-q"]) == 0
    with Image.open(twin) as opened:
        assert opened.size == (10, 7)
    # a folder that tells the two names apart (no second name there) gets a new file
    other = write(tmp_path / "b" / "B.PNG")
    assert main([str(other), "--width", "10", "--format", "png", "-q"]) == 0
    assert tree(tmp_path / "b") == ["B.PNG", "B.png"] and other.read_bytes() == before


def test_in_place(tmp_path, capsys):
    src = write(tmp_path / "in.png")
    before = src.read_bytes()
    assert main([str(src), "--width", "10"]) == 1
    assert "is the input itself (use --in-place" in capsys.readouterr().err
    assert main([str(src), "--width", "10", "--overwrite"]) == 1
    assert src.read_bytes() == before
    assert main([str(src), "--width", "10", "--in-place", "-q"]) == 0
    with Image.open(src) as opened:
        assert opened.size == (10, 7) and os.listdir(tmp_path) == ["in.png"]
    (tmp_path / "in_s.png").write_bytes(b"keep me")  # --in-place is not --overwrite
    other = write(tmp_path / "sub" / "in_s.png")  # its output, tmp_path/in_s.png, exists
    argv = [str(src), str(other), "--width", "5", "--in-place", "--out-dir", str(tmp_path)]
    assert main(argv) == 1
    assert "in_s.png exists (use --overwrite)" in capsys.readouterr().err
    assert (tmp_path / "in_s.png").read_bytes() == b"keep me"


def test_in_place_refuses_a_file_of_several_images(tmp_path, capsys):
    # --in-place replaced an animated GIF, PNG or WebP or a multi-page TIFF with its
    # first frame or page, the others lost for good, with only a note: "3 frames; only
    # the first was resized". It is refused now, the file untouched; written elsewhere
    # (--out-dir, --suffix) it is done as before, with the note.
    frames = [Image.fromarray(photo(40, 60, seed)) for seed in range(3)]
    names = ["anim.gif", "anim.png", "anim.webp", "pages.tif"]
    for name in names:
        frames[0].save(tmp_path / name, save_all=True, append_images=frames[1:])
    still = write(tmp_path / "still.png")
    before = {name: (tmp_path / name).read_bytes() for name in names}
    assert main([str(tmp_path), "--width", "10", "--in-place", "-q"]) == 1
    err = capsys.readouterr().err
    for name in names:
        unit = "pages" if name.endswith(".tif") else "frames"
        assert (
            f"{tmp_path / name}: 3 {unit}: --in-place would replace it with the first only, "
            f"the others lost; write it elsewhere (--out-dir or --suffix)"
        ) in err, err
        assert (tmp_path / name).read_bytes() == before[name]
    with Image.open(still) as opened:
        assert opened.size == (10, 7)  # the rest done
    assert main([str(tmp_path / "anim.gif"), "--width", "10", "--suffix", "_s", "-q"]) == 0
    assert "3 frames; only the first was resized" in capsys.readouterr().err
    with Image.open(tmp_path / "anim_s.gif") as opened:
        assert opened.size == (10, 7)


@pytest.mark.skipif(os.name != "posix", reason="POSIX symbolic links")
def test_in_place_and_overwrite_write_through_a_link(tmp_path):
    # --in-place on a link replaced the link with a new file and left the photo it
    # points to as it was; a link is now written through, as open() and Pillow do.
    target = write(tmp_path / "photo.png")
    link = tmp_path / "link.png"
    link.symlink_to(target.name)
    assert main([str(link), "--width", "10", "--in-place", "-q"]) == 0
    assert link.is_symlink() and os.readlink(link) == target.name
    with Image.open(target) as opened:
        assert opened.size == (10, 7)
    other = write(tmp_path / "other.png")
    out = tmp_path / "out-link.png"
    out.symlink_to(other.name)
    assert main([str(target), "--width", "5", "-o", str(out), "--overwrite", "-q"]) == 0
    with Image.open(other) as opened:
        assert out.is_symlink() and opened.size == (5, 4)
    names = ["link.png", "other.png", "out-link.png", "photo.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == names


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_in_place_and_overwrite_keep_the_replaced_files_permissions(tmp_path):
    # The new file took the umask's mode: --in-place made a private (0600) photo
    # readable by everyone (0644), and dropped the execute or group-write bits of others.
    src = write(tmp_path / "private.png")
    os.chmod(src, 0o600)
    assert main([str(src), "--width", "10", "--in-place", "-q"]) == 0
    with Image.open(src) as opened:
        assert opened.size == (10, 7) and stat.S_IMODE(os.stat(src).st_mode) == 0o600
    dst = write(tmp_path / "shared.png")
    os.chmod(dst, 0o664)
    assert main([str(src), "--width", "5", "-o", str(dst), "--overwrite", "-q"]) == 0
    with Image.open(dst) as opened:
        assert opened.size == (5, 4) and stat.S_IMODE(os.stat(dst).st_mode) == 0o664
    new = tmp_path / "new.png"  # a new file: the umask's mode, as before
    mask = os.umask(0o022)
    try:
        assert main([str(src), "--width", "5", "-o", str(new), "-q"]) == 0
    finally:
        os.umask(mask)
    assert stat.S_IMODE(os.stat(new).st_mode) == 0o644


def test_files_of_several_frames_say_that_only_the_first_is_resized(tmp_path, capsys):
    # An animated GIF or a multi-page TIFF became a still of its first frame or page,
    # without a word and undocumented: the other pages of a scan were silently dropped.
    frames = [Image.fromarray(photo(40, 60, seed)) for seed in range(3)]
    os.makedirs(tmp_path / "in")
    frames[0].save(tmp_path / "in" / "anim.gif", save_all=True, append_images=frames[1:])
    frames[0].save(tmp_path / "in" / "scan.tif", save_all=True, append_images=frames[1:2])
    write(tmp_path / "in" / "still.png")
    assert main([str(tmp_path / "in"), "--width", "30", "--out-dir", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    assert "3 resized, 0 failed" in captured.out
    err = captured.err.splitlines()
    assert sorted(line.split(": note: ")[1] for line in err) == [
        "2 pages; only the first was resized",
        "3 frames; only the first was resized",
    ]
    assert all("still.png" not in line for line in err)
    first = np.asarray(resize_image(np.asarray(frames[0]), (30, 20)))
    with Image.open(tmp_path / "out" / "scan.tif") as opened:
        np.testing.assert_array_equal(np.asarray(opened), first)
    with Image.open(tmp_path / "out" / "anim.gif") as opened:
        assert getattr(opened, "n_frames", 1) == 1


@pytest.mark.filterwarnings("ignore:Corrupt EXIF data")  # Pillow, on the cut IFD
def test_a_file_whose_later_pages_are_damaged_is_still_resized(tmp_path, capsys):
    # Counting the pages for the note read every page's header: a multi-page TIFF cut
    # short after its first page (a scan being written, a partial copy), which was
    # resized from its first page before, failed with "TypeError: Missing dimensions".
    pages = [Image.fromarray(photo(40, 60, seed)) for seed in range(3)]
    whole = tmp_path / "whole.tif"
    pages[0].save(whole, save_all=True, append_images=pages[1:])
    data = whole.read_bytes()
    src = tmp_path / "cut.tif"
    src.write_bytes(data[: len(data) // 2])
    with Image.open(src) as opened:
        assert np.array_equal(np.asarray(opened), np.asarray(pages[0]))
    assert main([str(src), "--width", "30", "-o", str(tmp_path / "out.png")]) == 0
    captured = capsys.readouterr()
    assert "1 resized, 0 failed" in captured.out
    assert "cut.tif: note: the pages after the first cannot be read" in captured.err
    with Image.open(tmp_path / "out.png") as out:
        np.testing.assert_array_equal(
            np.asarray(out), np.asarray(resize_image(np.asarray(pages[0]), (30, 20)))
        )


def test_a_folder_that_cannot_be_read_is_reported(tmp_path, capsys, monkeypatch):
    # os.walk drops the folders it cannot list: a subfolder without read permission (or
    # one that vanished) was skipped without a word, the summary said "0 failed", exit 0.
    write(tmp_path / "in" / "a.png")
    write(tmp_path / "in" / "locked" / "b.png")
    locked = str(tmp_path / "in" / "locked")
    scandir = os.scandir

    def refuse(path="."):
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refuse)
    argv = [str(tmp_path / "in"), "-r", "--width", "10", "--out-dir", str(tmp_path / "out")]
    assert main([*argv, "--dry-run"]) == 1
    assert f"{locked}: cannot read the folder" in capsys.readouterr().err
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert f"{locked}: cannot read the folder: Permission denied" in captured.err
    assert "1 resized, 1 failed" in captured.out
    assert tree(tmp_path / "out") == ["a.png"]


def test_large_photos_are_not_refused_as_decompression_bombs(tmp_path, capsys, monkeypatch):
    # Pillow refuses images of more than 2 * MAX_IMAGE_PIXELS (179 million pixels) as
    # "decompression bombs": a 200-megapixel phone photo or a scan failed with
    # DecompressionBombError and nothing could lift the limit. The command's limit is now
    # --max-pixels (default 2**30, OpenCV's own; 0: none). Pillow's is emulated smaller.
    from PIL import Image as PILImage

    monkeypatch.setattr(PILImage, "MAX_IMAGE_PIXELS", 1000)
    src = write(tmp_path / "big.png")  # 60 x 40 = 2400 pixels > 2 * 1000
    assert main([str(src), "--width", "10", "-o", str(tmp_path / "a.png"), "-q"]) == 0
    assert PILImage.MAX_IMAGE_PIXELS == 1000  # Pillow's setting is given back
    assert (
        main([str(src), "--width", "10", "-o", str(tmp_path / "b.png"), "--max-pixels", "2400"])
        == 0
    )
    assert (
        main([str(src), "--width", "10", "-o", str(tmp_path / "c.png"), "--max-pixels", "2399"])
        == 1
    )
    err = capsys.readouterr().err
    assert "60x40 is 2,400 pixels, more than --max-pixels 2,399" in err
    assert not (tmp_path / "c.png").exists()
    assert (
        main([str(src), "--width", "10", "-o", str(tmp_path / "d.png"), "--max-pixels", "0"]) == 0
    )
    assert main([str(src), "--width", "10", "--max-pixels", "-1"]) == 2
    assert "--max-pixels must be >= 0" in capsys.readouterr().err


@pytest.mark.parametrize("geometry", [["--scale", "10"], ["--size", "600x400"], ["--width", "600"]])
def test_a_resized_image_over_max_pixels_is_refused_before_it_is_read(
    tmp_path, capsys, monkeypatch, geometry
):
    # --max-pixels guarded the input only: a typo (--scale 10 for 0.1) on a 12-MP photo
    # made a 1.2-gigapixel image, minutes and gigabytes for each file of the batch.
    # An EXIF quarter turn counts (the header's size is the stored one): with --width,
    # the upright 40x60 of a stored 60x40 is 600x900, over 240,000.
    src = write(tmp_path / "in.jpg")  # 60x40
    turned = tmp_path / "turned.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6
    with Image.open(src) as im:
        im.save(turned, exif=exif)
    import cresize.image

    monkeypatch.setattr(cresize.image, "resize_image", lambda *a, **k: pytest.fail("read"))
    argv = [*geometry, "--out-dir", str(tmp_path / "out"), "--max-pixels", "239999"]
    assert main([str(src), str(turned), *argv]) == 1
    err = capsys.readouterr().err
    assert "it would be 600x400, 240,000 pixels, more than --max-pixels 239,999" in err
    assert ("600x900" in err) == (geometry[0] == "--width")
    assert not (tmp_path / "out").exists()


def _png_with(path, chunks, before=False, frames=1):
    """``write``'s 60x40 PNG with ``chunks`` after its pixel data (IDAT), or ``before``
    it; with ``frames``, an animated PNG (``chunks`` after the first frame's pixels)."""
    if frames > 1:
        frame = Image.fromarray(photo(40, 60))
        frame.save(path, save_all=True, append_images=[frame] * (frames - 1))
    else:
        write(path)
    data = path.read_bytes()
    at = data.index(b"IDAT") - 4
    if not before:
        at = data.index(b"fcTL", at) - 4 if frames > 1 else data.index(b"IEND") - 4
    path.write_bytes(data[:at] + b"".join(chunks) + data[at:])
    return path


def _exif_orientation(orientation):
    exif = Image.Exif()
    exif[0x0112] = orientation
    return exif.tobytes()[len(b"Exif\0\0") :]


@pytest.mark.parametrize(
    "where",
    ["exif after", "exif after, its CRC wrong", "xmp after", "raw profile before", "animated"],
)
def test_max_pixels_takes_the_orientation_of_a_png_whose_exif_follows_its_pixels(
    tmp_path, capsys, monkeypatch, where
):
    # A PNG whose EXIF came after its pixels counted as not turned (Pillow decodes the
    # pixels to read it): --width 600 of a stored 60x40 turned upright 40x60 passed a
    # --max-pixels of 500,000 as 600x400, and was resized to 600x900. The chunk list is
    # read for it (headers only): refused before the pixels are read, as a JPEG is.
    exif = _exif_orientation(6)
    profile = b"Exif\0\0" + exif  # ImageMagick's text: name, length, hex
    raw = f"\nexif\n{len(profile):8d}\n{profile.hex()}\n"
    chunk = {
        "exif after": _png_chunk(b"eXIf", exif),
        "exif after, its CRC wrong": _png_chunk(b"eXIf", exif)[:-4] + bytes(4),  # Pillow's
        "xmp after": _png_chunk(  # decoder skips CRCs after the pixels; XMP: its rule too
            b"iTXt", b"XML:com.adobe.xmp\0\0\0\0\0" + b'<x tiff:Orientation="6"/>'
        ),
        "raw profile before": _png_chunk(b"tEXt", b"Raw profile type exif\0" + raw.encode()),
        "animated": _png_chunk(b"eXIf", exif),
    }[where]
    src = _png_with(
        tmp_path / "in.png", [chunk], where.endswith("before"), 3 if where == "animated" else 1
    )
    with Image.open(src) as im:  # what the read finds: Pillow decodes the pixels for it
        assert "exif" not in im.info and im.getexif()[0x0112] == 6
    import cresize.image

    assert cresize.image._header(src).upright == (40, 60)
    monkeypatch.setattr(cresize.image, "resize_image", lambda *a, **k: pytest.fail("read"))
    argv = ["--width", "600", "-o", str(tmp_path / "out.png"), "--max-pixels", "500000"]
    assert main([str(src), *argv]) == 1
    assert "it would be 600x900, 540,000 pixels, more than --max-pixels 500,000" in (
        capsys.readouterr().err
    )


def test_a_png_s_chunk_list_after_its_pixels_is_read_as_pillow_reads_it(tmp_path):
    # Not turned: an orientation of the next frame of an animated PNG (Pillow stops at
    # its fcTL), one after IEND, a chunk list cut short (as far as it goes); turned: the
    # last of two orientations after the pixels, as Pillow's info keeps the last.
    from cresize.image import _header

    exif6, exif1 = (_png_chunk(b"eXIf", _exif_orientation(o)) for o in (6, 1))
    src = _png_with(tmp_path / "a.png", [exif6], frames=3)
    data = src.read_bytes()
    second = data.index(b"fdAT") - 4  # in the second frame
    (tmp_path / "b.png").write_bytes(data[:second] + exif6 + data[second:])
    data = (tmp_path / "b.png").read_bytes()
    first = data.index(b"eXIf") - 4
    (tmp_path / "b.png").write_bytes(data[:first] + data[first + len(exif6) :])
    assert _header(tmp_path / "b.png").upright == (60, 40)
    (tmp_path / "c.png").write_bytes(write(tmp_path / "c0.png").read_bytes() + exif6)
    assert _header(tmp_path / "c.png").upright == (60, 40)
    cut = _png_with(tmp_path / "d.png", [exif6]).read_bytes()
    (tmp_path / "d.png").write_bytes(cut[: cut.index(b"IDAT") + 20])
    assert _header(tmp_path / "d.png").upright == (60, 40)
    both = _png_with(tmp_path / "e.png", [exif1, exif6])
    with Image.open(both) as im:
        assert im.getexif()[0x0112] == 6
    assert _header(both).upright == (40, 60)


def test_a_png_s_chunks_after_its_pixels_are_read_within_one_bound_in_all(tmp_path, monkeypatch):
    # Each text or EXIF chunk after the pixels was read if it alone was within
    # _PNG_TEXT_MAX (64 MiB, Pillow's bound on a PNG's text in all): a file of many
    # such chunks was held in memory whole (twice: the list, then joined), for a header.
    # Now the bound is on all of them together; the chunks beyond it are skipped.
    import cresize.image

    read = []
    chunk = cresize.image._png_chunk

    def counted(kind, body):
        if kind in cresize.image._PNG_EXIF_CHUNKS:
            read.append(len(body))
        return chunk(kind, body)

    monkeypatch.setattr(cresize.image, "_png_chunk", counted)
    monkeypatch.setattr(cresize.image, "_PNG_TEXT_MAX", 1000)
    text = _png_chunk(b"tEXt", b"Comment\0" + b"x" * 392)  # 400 bytes of data
    exif = _png_chunk(b"eXIf", _exif_orientation(6))
    src = _png_with(tmp_path / "in.png", [text] * 10 + [exif])
    assert cresize.image._header(src).upright == (40, 60)  # the orientation still found
    assert read == [400, 400, len(exif) - 12] and sum(read) <= 1000


def _counting_reads(monkeypatch):
    """A list that grows by one for each ``os.read`` of the process while ``monkeypatch``
    is in force."""
    reads, read = [], os.read

    def counted(fd, n):
        reads.append(n)
        return read(fd, n)

    monkeypatch.setattr(os, "read", counted)
    return reads


@pytest.mark.parametrize("exif", [False, True])
def test_a_png_of_many_chunks_after_its_pixels_is_judged_either_way_after_a_bound(
    tmp_path, capsys, monkeypatch, exif
):
    # A crafted PNG of a million empty chunks after its pixels (11 MiB) took 1.6 s of
    # CPU in the header, read for --max-pixels before anything else: every chunk header
    # was read for an orientation. Now at most _PNG_CHUNKS_MAX headers (besides one per
    # _PNG_BYTES_A_CHUNK bytes of the file) are read; beyond them the orientation is
    # unknown and the resized size judged both ways (600x900 of a stored 60x40 turned
    # upright is refused, with or without the EXIF quarter turn at the end).
    import cresize.image

    tail = [_png_chunk(b"eXIf", _exif_orientation(6))] if exif else []
    src = _png_with(tmp_path / "in.png", [_png_chunk(b"zzZz", b"")] * 20_000 + tail)
    bound = cresize.image._PNG_CHUNKS_MAX + src.stat().st_size // 4096
    assert bound < 20_000
    with monkeypatch.context() as counting:
        # the orientation search's reads (not the flood check's: tests/test_file_fuzz.py)
        counting.setattr(cresize.image, "_refuse_png_chunk_flood", lambda path: None)
        reads = _counting_reads(counting)
        header = cresize.image._header(src)
    assert len(reads) <= bound + 2  # 20,000 before
    assert header.unsure and header.uprights == ((60, 40), (40, 60))
    argv = ["--width", "600", "-o", str(tmp_path / "out.png")]
    assert main([str(src), *argv, "--max-pixels", "500000"]) == 1
    assert (
        "it could be 600x900 (its EXIF orientation, after more chunks than are read before "
        "decoding, is not known), 540,000 pixels, more than --max-pixels 500,000"
    ) in capsys.readouterr().err
    assert main([str(src), *argv, "--max-pixels", "540000"]) == 0  # within it either way
    with Image.open(tmp_path / "out.png") as out:  # as the file says, found by decoding
        assert out.size == ((600, 900) if exif else (600, 400))


def test_a_png_s_chunk_headers_are_read_within_a_bound_that_grows_with_the_file(
    tmp_path, monkeypatch
):
    # Pixel data in many chunks (libpng writes 8 KiB ones: 4096 of them in a 32 MiB
    # file) is read to its end and the orientation after it found: the bound grows by
    # one chunk per _PNG_BYTES_A_CHUNK bytes of the file. Chunks before the pixels
    # (read by Pillow's open) are not read again.
    import cresize.image

    exif = _png_chunk(b"eXIf", _exif_orientation(6))
    data = _png_with(tmp_path / "a.png", [exif]).read_bytes()
    at = data.index(b"IDAT") - 4
    end = at + 12 + int.from_bytes(data[at : at + 4], "big")
    pixels = data[at + 8 : end - 4]
    chunks = [_png_chunk(b"IDAT", pixels[i : i + 64]) for i in range(0, len(pixels), 64)]
    small = data[:at] + b"".join(chunks) + data[end:]  # then eXIf, IEND
    (tmp_path / "b.png").write_bytes(small)
    needed, spare = len(chunks) + 1, len(small) // 4096  # the pixels' chunks, eXIf
    assert needed > 2 * spare
    monkeypatch.setattr(cresize.image, "_PNG_CHUNKS_MAX", needed - spare - 1)
    assert cresize.image._header(tmp_path / "b.png").unsure
    monkeypatch.setattr(cresize.image, "_PNG_CHUNKS_MAX", needed - spare)
    header = cresize.image._header(tmp_path / "b.png")
    assert not header.unsure and header.upright == (40, 60)
    large = data[:at] + _png_chunk(b"zzZz", bytes(4096)) + small[at:]  # one chunk's more
    (tmp_path / "c.png").write_bytes(large)  # (before the pixels, and not read)
    monkeypatch.setattr(cresize.image, "_PNG_CHUNKS_MAX", needed - spare - 1)
    header = cresize.image._header(tmp_path / "c.png")
    assert not header.unsure and header.upright == (40, 60)
    many = data[:at] + _png_chunk(b"zzZz", b"") * 2000 + small[at:]  # before the pixels
    (tmp_path / "d.png").write_bytes(many)
    with monkeypatch.context() as counting:
        # the orientation search's reads; the flood check reads those before the pixels
        # once, at most image._PNG_CHUNKS_BEFORE_MAX of them (tests/test_file_fuzz.py)
        counting.setattr(cresize.image, "_refuse_png_chunk_flood", lambda path: None)
        reads = _counting_reads(counting)
        assert cresize.image._header(tmp_path / "d.png").upright == (40, 60)
    assert len(reads) <= len(chunks) + 4  # 2000 more before


def test_the_orientation_search_finds_the_pixels_where_pillow_s_offset_is_not_theirs(
    tmp_path, monkeypatch
):
    # Where Pillow's tile offset is not a pixel chunk's, the pixels are looked for from
    # the first chunk on, within the chunks the flood check lets by (one walker,
    # image._png_chunks); beyond them the orientation is unknown (None), and a PNG of
    # no pixel data has the orientation of the chunks before them (none: 1).
    import cresize.image

    src = _png_with(tmp_path / "in.png", [_png_chunk(b"eXIf", _exif_orientation(6))])
    data = src.read_bytes()
    at = data.index(b"IDAT") - 4
    (tmp_path / "none.png").write_bytes(data[:at] + data[data.index(b"eXIf") - 4 :])
    with Image.open(src) as im:
        im.tile = [im.tile[0]._replace(offset=20)]  # in IHDR
        assert cresize.image._png_orientation(im, src) == 6
        im.tile = []
        assert cresize.image._png_orientation(im, src) == 6
        assert cresize.image._png_orientation(im, tmp_path / "none.png") == 1
        monkeypatch.setattr(cresize.image, "_PNG_CHUNKS_BEFORE_MAX", 1)  # IHDR only
        assert cresize.image._png_orientation(im, src) is None
        monkeypatch.setattr(cresize.image, "_PNG_CHUNKS_BEFORE_MAX", 2)  # IHDR, IDAT
        assert cresize.image._png_orientation(im, src) == 6


@pytest.mark.parametrize("cut", [8, 12, 20, 33])
def test_the_flood_check_leaves_a_png_cut_short_to_pillow(tmp_path, cut):
    # The chunk list ends at the end of the file: no pixels found, and not a flood.
    from cresize import image

    src = write(tmp_path / "in.png")
    src.write_bytes(src.read_bytes()[:cut])
    assert image._refuse_png_chunk_flood(src) is None


def test_runs_in_threads_keep_pillows_limit_lifted_and_give_it_back(tmp_path, monkeypatch):
    # Each run saved Pillow's global MAX_IMAGE_PIXELS, set None and restored what it had
    # saved: of two runs in threads, where the first ended while the second ran, the
    # second went on under Pillow's limit (its large photo refused) and then "restored"
    # None, leaving the decompression-bomb check off in the whole process.
    import threading

    from PIL import Image as PILImage

    from cresize import _cli_resize

    monkeypatch.setattr(PILImage, "MAX_IMAGE_PIXELS", 1000)
    src = write(tmp_path / "big.png")  # 60 x 40 = 2400 pixels > 2 * 1000
    first_in, second_in, first_out = (threading.Event() for _ in range(3))
    run = _cli_resize._run

    def paced(*args, **kwargs):  # the second run starts after the first, ends after it
        if threading.current_thread().name == "first":
            first_in.set()
            assert second_in.wait(10)
        else:
            second_in.set()
            assert first_out.wait(10)
        return run(*args, **kwargs)

    monkeypatch.setattr(_cli_resize, "_run", paced)
    status = {}

    def one(name):
        status[name] = main([str(src), "--width", "10", "-o", str(tmp_path / f"{name}.png"), "-q"])
        if name == "first":
            first_out.set()

    first = threading.Thread(target=one, args=("first",), name="first")
    second = threading.Thread(target=one, args=("second",), name="second")
    first.start()
    assert first_in.wait(10)
    second.start()
    first.join(30)
    second.join(30)
    assert status == {"first": 0, "second": 0}
    assert PILImage.MAX_IMAGE_PIXELS == 1000


def test_dry_run_writes_nothing(tmp_path, capsys):
    write(tmp_path / "in" / "a.png")
    write(tmp_path / "in" / "b.png")
    assert (
        main(
            [str(tmp_path / "in"), "--fit", "9x9", "--out-dir", str(tmp_path / "out"), "--dry-run"]
        )
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"{tmp_path / 'in' / n} -> {tmp_path / 'out' / n}" for n in ("a.png", "b.png")]
    assert not (tmp_path / "out").exists()


def test_one_output_for_many_inputs_is_an_error(tmp_path, capsys):
    a, b = write(tmp_path / "a.png"), write(tmp_path / "b.png")
    assert main([str(a), str(b), "--width", "9", "-o", str(tmp_path / "o.png")]) == 2
    assert "use --out-dir" in capsys.readouterr().err
    assert not (tmp_path / "o.png").exists()


def test_two_inputs_one_destination(tmp_path, capsys):
    a, b = write(tmp_path / "x" / "p.png"), write(tmp_path / "y" / "p.png")
    assert main([str(a), str(b), "--width", "9", "--out-dir", str(tmp_path / "o")]) == 1
    assert "is also the output of" in capsys.readouterr().err
    assert tree(tmp_path / "o") == ["p.png"]
    assert (
        main([str(a), str(tmp_path / "x"), "--width", "9", "--out-dir", str(tmp_path / "z")]) == 0
    )
    assert "1 resized, 0 failed" in capsys.readouterr().out  # the same file named twice


def test_outputs_that_differ_only_in_case_are_refused(tmp_path, capsys):
    # On a case-insensitive output folder (macOS, Windows, exFAT, SMB) the second
    # would replace the first; the rule is by name, so it holds on this file system too.
    a, b = write(tmp_path / "in" / "A.png"), write(tmp_path / "in" / "a.png", seed=1)
    out = tmp_path / "out"
    assert main([str(a), str(b), "--width", "9", "--out-dir", str(out), "--overwrite"]) == 1
    err = capsys.readouterr().err
    assert f"{out / 'a.png'} and {out / 'A.png'} (the output of {a}) differ only in" in err
    assert "case-insensitive" in err
    assert tree(out) == ["A.png"]
    # Names that the output folder already holds as two files are two files there:
    # in place, or a re-run into a folder that tells them apart.
    write(out / "a.png")
    assert main([str(a), str(b), "--width", "9", "--out-dir", str(out), "--overwrite"]) == 0
    assert main([str(a), str(b), "--width", "9", "--in-place"]) == 0
    assert "2 resized, 0 failed" in capsys.readouterr().out


def test_the_advice_for_outputs_that_differ_only_in_case_works(tmp_path, capsys):
    # The refusal said "rename one input or use --suffix", but --suffix adds the same
    # text to both outputs, which then still differ only in case: refused again.
    a, b = write(tmp_path / "in" / "A.png"), write(tmp_path / "in" / "a.png", seed=1)
    args = [str(a), str(b), "--width", "9", "--out-dir", str(tmp_path / "out")]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert main([*args, "--suffix", "_s"]) == 1
    assert "differ only in letter case" in capsys.readouterr().err
    assert "--suffix" not in err and "rename one of the inputs" in err
    b.rename(tmp_path / "in" / "a2.png")  # the advice
    assert main([str(a), str(tmp_path / "in" / "a2.png"), *args[2:], "--overwrite"]) == 0


@pytest.mark.parametrize("first, second", [("\u00e9", "e\u0301"), ("\u00c9", "e\u0301")])
def test_outputs_that_differ_only_in_unicode_normalization_are_refused(
    tmp_path, capsys, first, second
):
    # macOS (APFS, HFS+) treats an accent as one code point (NFC) or as a letter and a
    # combining mark (NFD) as one name: casefold alone saw two names, and the second
    # output replaced the first there.
    a = write(tmp_path / "in" / f"{first}.png")
    b = write(tmp_path / "in" / f"{second}.png", seed=1)
    out = tmp_path / "out"
    assert main([str(a), str(b), "--width", "9", "--out-dir", str(out), "--overwrite"]) == 1
    err = capsys.readouterr().err
    assert f"{out / f'{second}.png'} and {out / f'{first}.png'} (the output of {a}) differ" in err
    assert "Unicode normalization" in err
    assert tree(out) == [f"{first}.png"]
    # the same exception as for letter case: two files there already are two files
    write(out / f"{second}.png")
    assert main([str(a), str(b), "--width", "9", "--out-dir", str(out), "--overwrite"]) == 0


def test_compatibility_equivalents_are_two_names(tmp_path, capsys):
    # No file system folds NFKC: full-width and ASCII letters, a superscript and a
    # digit, a circled digit and a digit are two files everywhere (APFS too).
    names = ["\uff21.png", "a.png", "x\u00b2.png", "x2.png", "\u2460.png", "1.png"]
    inputs = [str(write(tmp_path / "in" / n, seed=i)) for i, n in enumerate(names)]
    assert main([*inputs, "--width", "9", "--out-dir", str(tmp_path / "out")]) == 0
    assert "6 resized, 0 failed" in capsys.readouterr().out
    assert tree(tmp_path / "out") == sorted(names)


@pytest.mark.parametrize("first, second", [("\ufb01", "FI"), ("stra\u00dfe", "STRASSE")])
def test_full_case_folding_as_apfs(tmp_path, capsys, first, second):
    # APFS (case-insensitive) folds with Unicode's full case folding: the ligature
    # U+FB01 is "fi" and sharp s is "ss" there, so these pairs are one file.
    a = write(tmp_path / "in" / f"{first}.png")
    b = write(tmp_path / "in" / f"{second}.png", seed=1)
    assert main([str(a), str(b), "--width", "9", "--out-dir", str(tmp_path / "out")]) == 1
    assert "differ only in letter case" in capsys.readouterr().err


def test_pixels_and_metadata(tmp_path):
    exif = Image.Exif()
    exif[0x0112] = 8
    icc = b"\0" * 128  # written through untouched, not interpreted
    write(tmp_path / "in.jpg", 30, 50, exif=exif.tobytes(), icc_profile=icc, quality=95)
    im = Image.fromarray(photo(30, 50)).quantize(16)
    im.info["transparency"] = 3
    im.save(tmp_path / "pal.png")
    rgba = np.zeros((20, 20, 4), np.uint8)
    rgba[:, :10] = (0, 200, 0, 255)
    Image.fromarray(rgba).save(tmp_path / "rgba.png")
    assert (
        main(
            [str(tmp_path / p) for p in ("in.jpg", "pal.png", "rgba.png")]
            + ["--scale", "0.5", "--out-dir", str(tmp_path / "o"), "-q"]
        )
        == 0
    )
    with Image.open(tmp_path / "o" / "in.jpg") as rotated:
        assert rotated.size == (15, 25) and rotated.info["icc_profile"] == icc
        assert rotated.getexif().get(0x0112, 1) == 1
    with Image.open(tmp_path / "o" / "pal.png") as opened:
        assert opened.mode == "RGBA"
    with Image.open(tmp_path / "o" / "rgba.png") as im:
        out = np.asarray(im)
    assert out[..., 1][out[..., 3] > 0].min() >= 199  # premultiplied: no dark fringe
    assert (
        main(
            [
                str(tmp_path / "rgba.png"),
                "--scale",
                "0.5",
                "--format",
                "jpeg",
                "--out-dir",
                str(tmp_path / "j"),
                "-q",
            ]
        )
        == 0
    )
    with Image.open(tmp_path / "j" / "rgba.jpg") as opened:
        assert np.asarray(opened)[:, -2:].min() > 240  # on white


def test_quality(tmp_path):
    src = write(tmp_path / "in.png", 96, 96)
    for q in ("10", "95"):
        assert (
            main(
                [str(src), "--scale", "0.9", "-o", str(tmp_path / f"{q}.jpg"), "--quality", q, "-q"]
            )
            == 0
        )
    assert (tmp_path / "10.jpg").stat().st_size < 0.7 * (tmp_path / "95.jpg").stat().st_size


def test_jobs_split_the_cores(monkeypatch):
    from cresize import _cli_resize, _threads

    monkeypatch.setattr(_cli_resize, "usable_cpus", lambda: 8)
    monkeypatch.setattr(_threads, "default", lambda: 8)
    assert split_cores(1, 100) == (1, 8)
    assert split_cores(2, 100) == (2, 4)
    assert split_cores(3, 100) == (3, 2)
    assert split_cores(0, 100) == (8, 1)
    assert split_cores(64, 100) == (8, 1)
    assert split_cores(4, 2) == (2, 4)
    monkeypatch.setattr(_threads, "default", lambda: 2)  # OMP_NUM_THREADS=2
    assert split_cores(1, 100) == (1, 2)


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity here")
def test_cores_are_those_this_process_may_use(monkeypatch):
    from cresize import _cli_resize, _threads

    monkeypatch.setattr(os, "cpu_count", lambda: 64)  # the machine; the process may use 3
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 5, 9})
    monkeypatch.delattr(os, "process_cpu_count", raising=False)
    monkeypatch.setattr(_threads, "default", lambda: 64)
    assert _cli_resize.usable_cpus() == 3
    assert split_cores(0, 100) == (3, 1)
    assert split_cores(1, 100) == (1, 3)


def test_jobs_2_gives_the_same_bytes_as_jobs_1(tmp_path):
    for i in range(4):
        write(tmp_path / "in" / f"{i}.png", 50 + i, 70, seed=i)
    (tmp_path / "in" / "bad.png").write_bytes(b"nope")
    codes = [
        main(
            [
                str(tmp_path / "in"),
                "--fit",
                "33x33",
                "--mode",
                "bicubic",
                "-q",
                "--out-dir",
                str(tmp_path / f"j{j}"),
                "--jobs",
                str(j),
            ]
        )
        for j in (1, 2)
    ]
    assert codes == [1, 1]
    names = tree(tmp_path / "j1")
    assert names == tree(tmp_path / "j2") and len(names) == 4
    for n in names:
        assert (tmp_path / "j1" / n).read_bytes() == (tmp_path / "j2" / n).read_bytes()


@pytest.mark.parametrize("writer", ["pillow", "any"])
def test_writer_failing_mid_write_leaves_no_partial_output(tmp_path, monkeypatch, capsys, writer):
    for name in ("a.png", "b.png", "c.png"):
        write(tmp_path / "in" / name)
    real, calls = Image.Image.save, []

    def flaky(self, fp, *args, **kwargs):
        calls.append(fp)
        if len(calls) == 2:  # the second file, b.png
            fp.write(b"\x89PNG\r\n\x1a\n a third of a PNG")
            raise OSError("No space left on device")
        return real(self, fp, *args, **kwargs)

    if writer == "pillow":  # Pillow writes the PNG (OpenCV, where installed, is faster)
        monkeypatch.setitem(sys.modules, "cv2", None)
        monkeypatch.setattr(Image.Image, "save", flaky)
    else:  # whichever library encodes, the second file's write fails half-way
        import cresize._atomic  # the temporary file's writes

        def second_write():
            calls.append(None)
            return len(calls) == 2

        full = OSError("No space left on device")
        monkeypatch.setattr(
            cresize._atomic,
            "open",
            lambda *a: FailingWrites(open(*a), full, second_write, part=3),
            raising=False,
        )
    assert main([str(tmp_path / "in"), "--width", "30", "--out-dir", str(tmp_path / "out")]) == 1
    assert "b.png: OSError: No space left on device" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path / "out")) == ["a.png", "c.png"]  # no temporary file either


def _fsync_spy(monkeypatch, action):
    """Replace ``os.fsync`` by ``action(n, fd, real)`` (n counts the calls from 1)."""
    import threading

    real, calls, lock = os.fsync, [], threading.Lock()

    def spy(fd):
        with lock:
            calls.append(threading.current_thread().name)
            n = len(calls)
        return action(n, fd, real)

    monkeypatch.setattr(os, "fsync", spy)
    return calls


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_sync_waits_off_the_workers_and_before_the_rename(tmp_path, monkeypatch, jobs):
    # Each output is fsynced in the sync thread, not by the resizing workers,
    # and appears under its final name only after its fsync returned.
    for i in range(4):
        write(tmp_path / "in" / f"{i}.png", seed=i)
    out = tmp_path / "out"

    def check(n, fd, real):
        assert not os.path.exists(out / os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))[1:-13])
        return real(fd)

    calls = _fsync_spy(
        monkeypatch, check if os.path.isdir("/proc/self/fd") else lambda n, fd, r: r(fd)
    )
    assert main([str(tmp_path / "in"), "--width", "9", "--out-dir", str(out), "-j", jobs]) == 0
    assert tree(out) == ["0.png", "1.png", "2.png", "3.png"]
    assert len(calls) == 4 and all(name.startswith("cresize-sync") for name in calls)


@pytest.mark.parametrize("fails", ["fsync", "rename"])
def test_a_failed_sync_or_rename_is_reported_and_leaves_no_temporary(
    tmp_path, monkeypatch, capsys, fails
):
    for name in ("a.png", "b.png", "c.png"):
        write(tmp_path / "in" / name)
    if fails == "fsync":
        if not os.path.isdir("/proc/self/fd"):
            pytest.skip("needs /proc to tell the files apart")  # pragma: no cover

        def action(n, fd, real):
            if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith(".b.png."):
                raise OSError(5, "Input/output error")
            return real(fd)

        _fsync_spy(monkeypatch, action)
    else:

        def refuse_b(a, b):
            if os.path.basename(b) == "b.png":
                raise PermissionError(13, "Permission denied", b)

        _on_naming(monkeypatch, before=refuse_b)
    argv = [str(tmp_path / "in"), "--width", "9", "--out-dir", str(tmp_path / "out"), "-j", "2"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    word = "OSError: [Errno 5] Input/output error" if fails == "fsync" else "PermissionError"
    assert f"{tmp_path / 'in' / 'b.png'}: {word}" in err, err
    assert err.count("cresize resize: ") == 1
    assert sorted(os.listdir(tmp_path / "out")) == ["a.png", "c.png"]  # no temporary file either
    with Image.open(tmp_path / "out" / "c.png") as im:
        im.load()


@pytest.fixture
def sigint_handled():
    """SIGINT with Python's KeyboardInterrupt handler during the test, as in a terminal,
    also where the tests run with it ignored (pytest started in the background by a
    script), which the CLI leaves ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("sigint_handled")
def test_ctrl_c_with_syncs_pending_leaves_no_temporaries(tmp_path, monkeypatch, capsys):
    # Ctrl-C while the first file's fsync is still under way (slow disk) and the
    # workers have written more temporaries: each pending file is renamed whole
    # or removed, and the count says how many were written.
    for i in range(8):
        write(tmp_path / "in" / f"{i}.png", seed=i)

    def slow(n, fd, real):
        if n == 1:
            signal.raise_signal(signal.SIGINT)
            time.sleep(0.3)  # the workers finish their files meanwhile
        return real(fd)

    _fsync_spy(monkeypatch, slow)
    argv = [str(tmp_path / "in"), "--width", "9", "--out-dir", str(tmp_path / "out"), "-j", "2"]
    assert main(argv) == 130
    written = sorted(os.listdir(tmp_path / "out"))
    assert 1 <= len(written) < 8 and not [n for n in written if n.startswith(".")]
    for name in written:
        with Image.open(tmp_path / "out" / name) as im:
            im.load()
    assert f"interrupted after {len(written)} file(s)" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name == "nt", reason="POSIX signals")
def test_an_ignored_sigint_stays_ignored(tmp_path, monkeypatch, capsys):
    # A batch started with SIGINT ignored (a script's `cresize resize ... &`, where the
    # shell ignores it; Python leaves it so too) runs to its end through a SIGINT, and
    # leaves the signal ignored.
    for i in range(4):
        write(tmp_path / "in" / f"{i}.png", seed=i)
    seen = []

    def interrupt(n, fd, real):
        if n == 1:
            seen.append(signal.getsignal(signal.SIGINT))
            signal.raise_signal(signal.SIGINT)
        return real(fd)

    _fsync_spy(monkeypatch, interrupt)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        argv = [str(tmp_path / "in"), "--width", "9", "--out-dir", str(tmp_path / "out")]
        assert main(argv) == 0, capsys.readouterr().err
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == [signal.SIG_IGN]
    assert sorted(os.listdir(tmp_path / "out")) == [f"{i}.png" for i in range(4)]


def test_missing_pillow_says_how_to_install(monkeypatch, capsys):
    for name in [m for m in sys.modules if m == "PIL" or m.startswith("PIL.")]:
        monkeypatch.setitem(sys.modules, name, None)
    assert main(["x.png", "--width", "3"]) == 1
    assert 'pip install "cresize[image]"' in capsys.readouterr().err


def test_progress_bar_only_on_a_terminal(tmp_path, capsys, monkeypatch):
    for i in range(3):
        write(tmp_path / "in" / f"{i}.png")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # the plain fallback
    assert main([str(tmp_path / "in"), "--width", "9", "--out-dir", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert "\r[" in err and "3/3" in err
    monkeypatch.delitem(sys.modules, "tqdm")
    pytest.importorskip("tqdm")
    assert main([str(tmp_path / "in"), "--width", "9", "--out-dir", str(tmp_path / "t")]) == 0
    err = capsys.readouterr().err
    assert "\r[" not in err and "3/3" in err and "file" in err  # tqdm's bar, its unit
    assert main([str(tmp_path / "in"), "--width", "9", "--out-dir", str(tmp_path / "b"), "-q"]) == 0
    assert capsys.readouterr() == ("", "")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert main([str(tmp_path / "in"), "--width", "9", "--out-dir", str(tmp_path / "c")]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.startswith("cresize resize: 3 resized, 0 failed in ")


@pytest.mark.skipif(sys.platform != "linux", reason="file names of any bytes (Linux)")
def test_a_file_name_not_in_the_locales_encoding_is_listed_as_its_bytes(tmp_path):
    # caf\xe9.png (Latin-1) under a UTF-8 locale, whose stdout is strict: the dry run
    # ended in a UnicodeEncodeError traceback at its line (stderr was fine).
    folder = os.fsencode(tmp_path / "in")
    os.makedirs(folder)
    write(os.fsdecode(folder + b"/caf\xe9.png"))
    done = subprocess.run(
        [sys.executable, "-m", "cresize", "resize", str(tmp_path / "in"), "--width", "10"]
        + ["--out-dir", str(tmp_path / "out"), "-n"],
        env=dict(os.environ, PYTHONPATH=CRESIZE_ROOT, PYTHONIOENCODING="utf-8:strict"),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == b"", done
    assert (
        done.stdout == folder + b"/caf\xe9.png -> " + os.fsencode(tmp_path) + b"/out/caf\xe9.png\n"
    )


@pytest.mark.skipif(not POSIX, reason="a POSIX shell closes the descriptor (2>&-)")
def test_a_closed_stderr_is_the_null_device(tmp_path):
    # cresize resize ... 2>&- failed at once (sys.stderr is None: AttributeError, shown
    # nowhere), and descriptor 2 went to the next file opened, an output being written.
    for name in ("a.png", "b.png"):
        write(tmp_path / "in" / name)
    argv = [str(tmp_path / "in"), "--width", "10", "--out-dir", str(tmp_path / "out")]
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" 2>&-', "sh", sys.executable, "-m", "cresize", "resize", *argv],
        env=dict(os.environ, PYTHONPATH=CRESIZE_ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "2 resized, 0 failed" in done.stdout, done
    assert tree(tmp_path / "out") == ["a.png", "b.png"]
    for name in ("a.png", "b.png"):
        with Image.open(tmp_path / "out" / name) as opened:
            opened.load()
            assert opened.size == (10, 7)


def _start(tmp_path, n, jobs, **popen):
    """``cresize resize --scale 3 --mode bicubic --jobs <jobs>`` started on ``n`` PNGs of
    ``tmp_path / "in"``, writing to ``tmp_path / "out"`` (``popen``: more of Popen's keywords)."""
    for i in range(n):
        # Big enough that 40 files take seconds: the signal lands mid-batch even on a busy machine.
        write(tmp_path / "in" / f"{i:03d}.png", 192, 256, seed=i)
    env = dict(os.environ, PYTHONPATH=CRESIZE_ROOT)
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cresize",
            "resize",
            str(tmp_path / "in"),
            "--scale",
            "3",
            "--mode",
            "bicubic",
            "--out-dir",
            str(tmp_path / "out"),
            "--jobs",
            str(jobs),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint if POSIX else None,  # also where tests ignore SIGINT
        **popen,
    )


def _wait_for_output(proc, out_dir):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if os.path.isdir(out_dir) and any(n.endswith(".png") for n in os.listdir(out_dir)):
            return
        time.sleep(0.005)
    raise AssertionError(f"no output appeared; rc={proc.poll()}")


def _complete(out_dir):
    names = sorted(os.listdir(out_dir))
    finals = [n for n in names if not n.startswith(".")]
    for n in finals:  # every visible output decodes fully and has the right size
        with Image.open(os.path.join(out_dir, n)) as im:
            im.load()
            assert im.size == (768, 576)
    return names, finals


@pytest.mark.parametrize("sig,jobs", [(signal.SIGINT, 1), (signal.SIGINT, 2), (signal.SIGTERM, 1)])
def test_ctrl_c_leaves_no_partial_outputs(tmp_path, sig, jobs):
    proc = _start(tmp_path, 40, jobs)
    _wait_for_output(proc, tmp_path / "out")
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    names, finals = _complete(tmp_path / "out")
    assert names == finals  # the temporary files were removed too
    assert 1 <= len(finals) < 40


def test_exif_too_long_for_jpeg_is_left_out_with_a_note(tmp_path, capsys):
    # An EXIF of more than 64 KB (a big thumbnail, a maker note) failed the JPEG
    # output: "ValueError: EXIF data is too long". The image is written without it.
    exif = Image.Exif()
    exif[0x010E] = "x" * 70000  # ImageDescription
    exif[0x010F] = "Camera"  # Make
    src = tmp_path / "big.png"
    Image.fromarray(photo(40, 60)).save(src, exif=exif)
    small = tmp_path / "small.png"
    del exif[0x010E]
    Image.fromarray(photo(40, 60)).save(small, exif=exif)
    out = tmp_path / "out"
    assert (
        main([str(src), str(small), "--width", "30", "--out-dir", str(out), "--format", "jpeg"])
        == 0
    )
    captured = capsys.readouterr()
    assert "2 resized, 0 failed" in captured.out
    notes = [line for line in captured.err.splitlines() if "EXIF" in line]
    assert len(notes) == 1 and "big.png: note: its EXIF is left out" in notes[0], captured.err
    with Image.open(out / "big.jpg") as im:
        assert im.size == (30, 20) and "exif" not in im.info
    with Image.open(out / "small.jpg") as im:  # one that fits is kept
        assert im.getexif()[0x010F] == "Camera"
    save_image(resize_image(src, (30, 20)), tmp_path / "api.jpg")  # the API too
    with Image.open(tmp_path / "api.jpg") as opened:
        assert "exif" not in opened.info


def test_xmp_too_long_for_jpeg_is_left_out_with_a_note(tmp_path, capsys):
    # An XMP packet of more than one JPEG segment (Extended XMP, which Pillow does not
    # write) was left out of JPEG output without a note, where EXIF got one.
    from PIL import PngImagePlugin

    from cresize.image import JPEG_XMP_MAX

    long = '<x:xmpmeta xmlns:x="adobe:ns:meta/">' + " " * JPEG_XMP_MAX + "</x:xmpmeta>"
    text = PngImagePlugin.PngInfo()
    text.add_itxt("XML:com.adobe.xmp", long)
    exif = Image.Exif()
    exif[0x010E] = "x" * 70000  # ImageDescription: both left out, a note each
    src = tmp_path / "big.png"
    Image.fromarray(photo(40, 60)).save(src, pnginfo=text, exif=exif)
    out = tmp_path / "out"
    assert main([str(src), "--width", "30", "--out-dir", str(out), "--format", "jpeg"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "note" in line]
    assert len(notes) == 2, notes
    assert "big.png: note: its EXIF is left out: 70,0" in notes[0], notes
    assert f"big.png: note: its XMP is left out: {len(long):,} bytes" in notes[1], notes
    with Image.open(out / "big.jpg") as im:
        assert im.size == (30, 20) and "xmp" not in im.info and "exif" not in im.info


def test_a_4_4_4_jpeg_stays_4_4_4(tmp_path):
    # Resized to JPEG it came out 4:2:0 (Pillow's default); the input's sampling is kept
    from PIL import JpegImagePlugin

    src = tmp_path / "in.jpg"
    Image.fromarray(photo(40, 60)).save(src, quality=95, subsampling="4:4:4")
    for args in ([], ["--quality", "60"], ["--exact"]):
        out = tmp_path / "out.jpg"
        assert main([str(src), "--width", "30", "-o", str(out), "--overwrite", *args]) == 0
        with Image.open(out) as im:
            assert im.size == (30, 20) and JpegImagePlugin.get_sampling(im) == 0, args


def test_a_lossless_webp_stays_lossless_unless_a_quality_is_given(tmp_path):
    # Resized to WebP it came out lossy at quality 90; --quality still makes it lossy
    src = tmp_path / "in.webp"
    Image.fromarray(photo(40, 60)).save(src, lossless=True)
    for args, chunk in (([], b"VP8L"), (["--quality", "90"], b"VP8 ")):
        out = tmp_path / "out.webp"
        assert main([str(src), "--width", "30", "-o", str(out), "--overwrite", *args]) == 0
        assert out.read_bytes()[12:16] == chunk, args


def test_the_quality_help_says_a_lossless_webp_stays_lossless(capsys):
    # --help said "JPEG/WebP/AVIF quality (default 90 ...)": a lossless WebP input
    # is written lossless without --quality, which the help did not say
    assert main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "lossless WebP written as WebP: lossless unless given" in text


def test_the_help_gives_the_exit_statuses(capsys):
    # A batch job branches on the exit status; the help (and docs/files.md's options)
    # said none of them: 2 was written nowhere, the others only in "Safety".
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    statuses = re.findall(r"^  (\d+) ", out.split("exit status:\n")[1], re.M)
    assert statuses == ["0", "1", "2", "130", "141"]
    assert main(["x.png"]) == 2  # a usage error: no geometry


@pytest.mark.parametrize("kind", ["EXIF", "XMP"])
def test_exif_or_xmp_for_gif_or_bmp_output_is_left_out_with_a_note(tmp_path, capsys, kind):
    # BMP and GIF hold no EXIF or XMP: they were dropped without a note; a file without
    # them gets none
    from PIL import PngImagePlugin

    text = PngImagePlugin.PngInfo()
    text.add_itxt("XML:com.adobe.xmp", '<x:xmpmeta xmlns:x="adobe:ns:meta/"></x:xmpmeta>')
    exif = Image.Exif()
    exif[0x010F] = "Maker"
    tags = {"exif": exif.tobytes()} if kind == "EXIF" else {"pnginfo": text}
    src, plain = tmp_path / "tagged.png", tmp_path / "plain.png"
    Image.fromarray(photo(40, 60)).save(src, **tags)
    Image.fromarray(photo(40, 60)).save(plain)
    for fmt in ("gif", "bmp"):
        out = tmp_path / fmt
        args = [str(src), str(plain), "--width", "30", "--out-dir", str(out), "--format", fmt]
        assert main(args) == 0
        notes = [line for line in capsys.readouterr().err.splitlines() if "note" in line]
        assert notes == [
            f"cresize resize: {src}: note: its {kind} is left out: {fmt.upper()} files hold none"
        ]


def test_a_16bit_tiffs_dpi_reaches_the_jpegs_exif_and_a_gifs_is_said_left_out(tmp_path, capsys):
    # tifffile's 300 dpi TIFF to JPEG: the JFIF density said 300 and the EXIF (of the
    # TIFF's tags: Software=tifffile.py) no resolution; to GIF the DPI went without a note
    tifffile = pytest.importorskip("tifffile")
    src = tmp_path / "scan.tif"
    pixels = photo(40, 60).astype(np.uint16) * 257
    tifffile.imwrite(src, pixels, photometric="rgb", resolution=(300, 300), resolutionunit="INCH")
    assert main([str(src), "--width", "30", "-o", str(tmp_path / "scan.jpg")]) == 0
    with Image.open(tmp_path / "scan.jpg") as back:
        exif = back.getexif()
        assert back.info["dpi"] == (300, 300) and exif[305] == "tifffile.py"
        assert (exif[282], exif[283], exif[296]) == (300, 300, 2)
    capsys.readouterr()
    assert main([str(src), "--width", "30", "-o", str(tmp_path / "scan.gif")]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "DPI" in line]
    assert notes == [
        f"cresize resize: {src}: note: its DPI is left out: 300x300, GIF files hold none"
    ]


@pytest.mark.parametrize(
    "option,value,words",
    [
        ("--size", "-3x5", "width and height must be >= 1; got '-3x5'"),
        ("--fit", "-3x5", "width and height must be >= 1; got '-3x5'"),
        ("--fill", "-.5x5", "expected WIDTHxHEIGHT"),
        ("--width", "-3", "must be > 0; got '-3'"),
        ("--scale", "-0.5", "must be > 0; got '-0.5'"),
        ("--quality", "-5", "must be an int from 1 to 100; got '-5'"),
    ],
)
def test_a_negative_value_gets_the_real_message(tmp_path, capsys, option, value, words):
    # "--size -3x5" gave argparse's "expected one argument" ("-3x5" looked like an option).
    src = write(tmp_path / "in.png")
    assert main([str(src), "--size", "3x3", option, value]) == 2
    assert words in capsys.readouterr().err
    if option != "--size":
        return
    assert main([str(src), f"{option}={value}"]) == 2  # the "=" form said it already
    assert words in capsys.readouterr().err
    assert main(["--", "-3x5"]) in (1, 2)  # after "--" an input name, as before


def test_quality_for_formats_that_take_none(tmp_path, capsys):
    # --quality was ignored without a word for PNG, GIF, TIFF, BMP output.
    src = write(tmp_path / "a.png")
    jpeg = tmp_path / "b.jpg"
    Image.fromarray(photo(40, 60)).save(jpeg)
    assert main([str(src), "--width", "30", "--quality", "50", "-o", str(tmp_path / "o.png")]) == 2
    err = capsys.readouterr().err
    assert "--quality has no effect on PNG output" in err and not os.path.exists(tmp_path / "o.png")
    out = tmp_path / "out"
    assert (
        main([str(src), str(jpeg), "--width", "30", "--quality", "50", "--out-dir", str(out)]) == 0
    )
    err = capsys.readouterr().err
    assert "note: --quality is used for JPEG, WebP and AVIF output only, not for the PNG" in err
    assert sorted(os.listdir(out)) == ["a.png", "b.jpg"]
    assert (
        main([str(jpeg), "--width", "30", "--quality", "50", "-o", str(tmp_path / "q.webp")]) == 0
    )
    assert "quality" not in capsys.readouterr().err


@pytest.mark.skipif(not _features().check("avif"), reason="Pillow without AVIF")
def test_quality_sets_avif_quality(tmp_path):
    src = write(tmp_path / "a.png", 120, 160)
    sizes = []
    for quality in ("10", "95"):
        dst = tmp_path / f"{quality}.avif"
        assert main([str(src), "--width", "120", "--quality", quality, "-o", str(dst)]) == 0
        sizes.append(os.path.getsize(dst))
    assert sizes[0] < sizes[1]


@pytest.mark.parametrize("fmt", ["gif", "avif"])
def test_format_takes_every_format_the_cli_writes(tmp_path, capsys, fmt):
    # --format's choices left out gif and avif, which -o a.gif / a.avif wrote.
    if fmt == "avif" and not _features().check("avif"):
        pytest.skip("Pillow without AVIF")
    src = write(tmp_path / "in" / "a.png")
    assert main([str(src), "--width", "30", "--out-dir", str(tmp_path / "o"), "--format", fmt]) == 0
    out = tmp_path / "o" / f"a.{fmt}"
    with Image.open(out) as im:
        assert im.format == fmt.upper() and im.size == (30, 20)
    assert main(["--help"]) == 0
    assert f"--format {{{','.join(sorted(FORMATS))}}}" in capsys.readouterr().out
    with open(os.path.join(os.path.dirname(__file__), "..", "docs", "files.md")) as f:
        docs = f.read()
    listed = re.search(r"`--format ([a-z/]+)`", docs).group(1).split("/")
    assert {FORMATS[name][0] for name in listed} == {fmt for fmt, _ in FORMATS.values()}


#: ``cresize resize`` with every file's writing made slow: after the bytes are written
#: to the temporary file, the worker sleeps (a long encode).
_SLOW_WRITES = """
import sys, time
from cresize import image
from cresize._cli_resize import main
atomic = image._write_atomic
def slow(path, write, overwrite, later=None):
    def written(f):
        write(f)
        f.flush()
        time.sleep(60)
    return atomic(path, written, overwrite, later)
image._write_atomic = slow
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name == "nt", reason="POSIX signals")
@pytest.mark.parametrize("in_place", [False, True])
def test_a_second_ctrl_c_stops_at_once(tmp_path, in_place):
    # The first Ctrl-C lets the files in progress finish; a second one used to do
    # nothing more, so a long file always finished first. It abandons them now:
    # no temporary and no partial output left, inputs untouched, exit status 130.
    folder = tmp_path / "in"
    for i in range(4):
        write(folder / f"{i}.png", 40, 50, seed=i)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    out = folder if in_place else tmp_path / "out"
    where = ["--in-place"] if in_place else ["--out-dir", str(out)]
    proc = subprocess.Popen(
        [sys.executable, "-c", _SLOW_WRITES, str(folder), "--scale", "0.5"]
        + where
        + ["--jobs", "2", "--quiet"],
        env=dict(os.environ, PYTHONPATH=CRESIZE_ROOT),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint if POSIX else None,  # also where tests ignore SIGINT
    )
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if os.path.isdir(out) and sum(n.endswith(".tmp") for n in os.listdir(out)) == 2:
                break  # both jobs are writing
            time.sleep(0.01)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        time.sleep(0.5)
        assert proc.poll() is None  # the first waits for the files in progress
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "stopped at once" in lines[0], err
    assert "2 file(s) being written" in lines[0] and "Traceback" not in err
    names = sorted(os.listdir(out))
    assert names == (sorted(before) if in_place else []), names  # no .tmp, no output
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_sigkill_leaves_only_complete_outputs(tmp_path):
    proc = _start(tmp_path, 40, 1)
    _wait_for_output(proc, tmp_path / "out")
    time.sleep(0.05)
    proc.kill()
    proc.communicate(timeout=60)
    names, finals = _complete(tmp_path / "out")
    assert 1 <= len(finals) < 40
    # Hidden temporaries only, and at most two for the one job: the file being written
    # and the one before it, written whole but waiting for its fsync and rename in the
    # sync thread (_cli_resize._run). (A SIGKILL between the two once left exactly that.)
    leftovers = [n for n in names if n not in finals]
    assert len(leftovers) <= 2, leftovers
    assert all(n.startswith(".") and n.endswith(".tmp") for n in leftovers), leftovers


def _children(pid):
    """Process ids whose parent is ``pid`` (Linux /proc; empty elsewhere)."""
    found = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        try:
            with open(f"/proc/{entry}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return found


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups are POSIX only")
@pytest.mark.parametrize("delay", [0.2, 0.4])
def test_early_ctrl_c_prints_no_traceback(tmp_path, delay):
    # A terminal's Ctrl-C goes to the whole process group, workers included, as
    # soon as the batch starts: nobody may print a KeyboardInterrupt traceback
    # (spawned workers did, while importing, before they ignored SIGINT).
    proc = _start(tmp_path, 40, 2, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if _children(proc.pid) or os.path.isdir(tmp_path / "out"):
            break  # worker processes are starting, or the first file is under way
        time.sleep(0.002)
    time.sleep(delay)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    # 130: interrupted, reported; 0: done before the signal. -SIGINT: the batch was done
    # and Python was already finalizing (it restores the default SIGINT action then), so
    # the signal ended the process quietly: every output is complete (checked below).
    assert proc.returncode in (0, 130, -signal.SIGINT), err
    if proc.returncode == -signal.SIGINT:
        assert len(os.listdir(tmp_path / "out")) == 40, err
    if os.path.isdir(tmp_path / "out"):
        names, finals = _complete(tmp_path / "out")
        assert names == finals


@pytest.mark.usefixtures("sigint_handled")
def test_interrupted_count_includes_the_file_just_written(tmp_path, monkeypatch, capsys):
    # Ctrl-C right after the second output is renamed into place: at least 2 files
    # are done (a worker may finish another before the main thread reacts), all counted.
    for i in range(4):
        write(tmp_path / "in" / f"{i}.png", seed=i)
    renamed = []

    def ctrl_c_after_the_second(a, b):
        renamed.append(b)
        if len(renamed) == 2:
            signal.raise_signal(signal.SIGINT)

    _on_naming(monkeypatch, after=ctrl_c_after_the_second)
    assert main([str(tmp_path / "in"), "--width", "9", "--out-dir", str(tmp_path / "out")]) == 130
    written = sorted(os.listdir(tmp_path / "out"))
    assert len(written) == len(renamed) >= 2
    assert f"interrupted after {len(written)} file(s)" in capsys.readouterr().err


@pytest.mark.parametrize("flags", [["--suffix", "_s", "--overwrite"], ["--suffix", "_s"]])
def test_an_output_that_is_another_input_stops_the_batch(tmp_path, capsys, flags):
    a, b = write(tmp_path / "a.png", seed=1), write(tmp_path / "a_s.png", seed=2)
    c = write(tmp_path / "c.png", seed=3)
    (tmp_path / "a_s_s.png").write_bytes(b"keep me")  # a_s.png's own output exists
    before = {p: p.read_bytes() for p in (a, b, c)}
    assert main([str(a), str(b), str(c), "--width", "9", *flags]) == 1
    err = capsys.readouterr().err
    if "--overwrite" in flags:  # a.png -> a_s.png would destroy the input a_s.png
        assert f"the output {b} of {a} would replace the input {b}" in err
        assert "nothing was done" in err
        assert sorted(os.listdir(tmp_path)) == ["a.png", "a_s.png", "a_s_s.png", "c.png"]
    else:  # without --overwrite nothing is replaced: a_s.png and a_s_s.png exist, c is done
        assert "exists (use --overwrite)" in err and "would replace" not in err
        assert (tmp_path / "c_s.png").exists()
    assert {p: p.read_bytes() for p in (a, b, c)} == before
    assert (tmp_path / "a_s_s.png").read_bytes() == b"keep me"


@pytest.mark.parametrize("stem, twin", [("a", "A_s"), ("\u00e9", "e\u0301_s")])
def test_an_output_that_is_another_input_on_a_case_insensitive_folder(tmp_path, capsys, stem, twin):
    # a.png -> a_s.png is the input A_s.png on a case-insensitive folder (macOS,
    # Windows), and so is e\u0301_s.png for \u00e9_s.png on macOS: the exact-path
    # comparison missed both, and with --overwrite the input was replaced before it
    # was read. The rule is the one for two outputs (by name).
    a, b = write(tmp_path / f"{stem}.png", seed=1), write(tmp_path / f"{twin}.png", seed=2)
    before = {p: p.read_bytes() for p in (a, b)}
    args = [str(a), str(b), "--width", "9", "--suffix", "_s", "--overwrite"]
    assert main(args) == 1
    err = capsys.readouterr().err
    dst = tmp_path / f"{stem}_s.png"
    assert f"the output {dst} of {a} would replace the input {b}" in err
    assert "case-insensitive" in err and "nothing was done" in err
    assert sorted(os.listdir(tmp_path)) == sorted([f"{stem}.png", f"{twin}.png"])
    assert {p: p.read_bytes() for p in (a, b)} == before
    # a folder that already holds both names as two files tells them apart
    write(dst, seed=3)
    assert main(args) == 0
    assert {p: p.read_bytes() for p in (a, b)} == before


def write16(path, h=40, w=60, channels=3, seed=0):
    cv2 = pytest.importorskip("cv2")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    rng = np.random.default_rng(seed)
    wide = photo(h, w, seed).astype(np.uint16) * 257 ^ rng.integers(0, 256, (h, w, 3), np.uint16)
    if channels == 4:
        wide = np.dstack([wide, rng.integers(30000, 65536, (h, w), np.uint16)])
    assert cv2.imwrite(str(path), wide[..., [2, 1, 0, 3][:channels]])
    return wide


@pytest.mark.parametrize("ext", ["png", "tif"])
@pytest.mark.parametrize("channels", [3, 4])
def test_16bit_colour_stays_16bit(tmp_path, ext, channels, capsys):
    cv2 = pytest.importorskip("cv2")
    pixels = write16(tmp_path / "in" / f"a.{ext}", channels=channels)
    assert main([str(tmp_path / "in"), "--width", "25", "--out-dir", str(tmp_path / "o")]) == 0
    assert "rounded" not in capsys.readouterr().err
    out = cv2.imread(str(tmp_path / "o" / f"a.{ext}"), cv2.IMREAD_UNCHANGED)
    assert out.dtype == np.uint16 and out.shape == (17, 25, channels)
    want = resize_image(pixels, (25, 17))
    np.testing.assert_array_equal(out[..., [2, 1, 0, 3][:channels]], want)
    if channels == 3:  # within 1 of the exact result
        exact = cresize.resize(
            pixels.astype(np.float64), (17, 25), mode="lanczos3", antialias=True, axes=(0, 1)
        )
        assert np.abs(want - np.clip(np.rint(exact), 0, 65535)).max() <= 1


def test_16bit_to_jpeg_is_rounded_and_said_once(tmp_path, capsys):
    for i in range(3):
        write16(tmp_path / "in" / f"{i}.png", seed=i)
    write(tmp_path / "in" / "8bit.png")
    assert (
        main(
            [
                str(tmp_path / "in"),
                "--width",
                "25",
                "--format",
                "jpeg",
                "--jobs",
                "2",
                "--out-dir",
                str(tmp_path / "o"),
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert err.count("16-bit samples are rounded to 8 bits for JPEG output") == 1
    assert tree(tmp_path / "o") == ["0.jpg", "1.jpg", "2.jpg", "8bit.jpg"]


def test_16bit_colour_without_opencv_is_refused(tmp_path, capsys, monkeypatch):
    write16(tmp_path / "in" / "deep.png")
    write(tmp_path / "in" / "plain.png")
    monkeypatch.setitem(sys.modules, "cv2", None)
    assert main([str(tmp_path / "in"), "--width", "25", "--out-dir", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'in' / 'deep.png'}: ValueError: " in err
    assert "has 16-bit RGB pixels; OpenCV reads and writes 16-bit colour" in err
    assert tree(tmp_path / "o") == ["plain.png"]


def test_16bit_colour_over_opencvs_limit_is_refused_clearly(tmp_path):
    # --max-pixels 0 lets a 16-bit colour file past cresize's limit to OpenCV's own
    # (2**30 pixels, OPENCV_IO_MAX_IMAGE_PIXELS read when cv2 loads): a fresh process
    # with a lower one stands in for a gigapixel file.
    write16(tmp_path / "in" / "deep.png")
    write(tmp_path / "in" / "plain.png")
    script = (
        "import sys\n"
        "from cresize._cli_resize import main\n"
        "sys.exit(main([sys.argv[1], '--width', '25', '--max-pixels', '0', '--out-dir', "
        "sys.argv[2]]))\n"
    )
    done = run_script(script, tmp_path / "in", tmp_path / "o", OPENCV_IO_MAX_IMAGE_PIXELS="2000")
    assert done.returncode == 1, done
    deep = tmp_path / "in" / "deep.png"
    assert (
        f"{deep}: ValueError: {deep} is 60x40 (2,400 pixels), more than OpenCV, which reads "
        f"16-bit colour, decodes: its limit OPENCV_IO_MAX_IMAGE_PIXELS is 2000" in done.stderr
    )
    assert tree(tmp_path / "o") == ["plain.png"]


def test_exact_turns_shrink_on_load_off(tmp_path):
    src = write(tmp_path / "in.jpg", 400, 600, quality=95)
    for flags, name in [([], "fast.png"), (["--exact"], "exact.png")]:
        assert main([str(src), "--fit", "60x60", "-o", str(tmp_path / name), "-q", *flags]) == 0
    with Image.open(tmp_path / "fast.png") as fast, Image.open(tmp_path / "exact.png") as exact:
        fast, exact = np.asarray(fast), np.asarray(exact)
    np.testing.assert_array_equal(exact, np.asarray(resize_image(src, fit=(60, 60), exact=True)))
    np.testing.assert_array_equal(fast, np.asarray(resize_image(src, fit=(60, 60))))
    assert fast.tobytes() != exact.tobytes()


def test_the_cresize_command_has_argparse_subcommands(tmp_path, capsys, monkeypatch):
    from cresize import __main__ as top
    from cresize import _selfcheck

    assert top.main(["-h"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: cresize") and all(name in out for name in top.SUBCOMMANDS)
    assert top.main(["nope"]) == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err
    assert top.main(["resize", "-h"]) == 0
    assert capsys.readouterr().out.startswith("usage: cresize resize")
    calls = []
    monkeypatch.setattr(_selfcheck, "main", lambda argv: calls.append(argv) or 0)
    assert top.main([]) == 0 and top.main(["selfcheck"]) == 0  # no subcommand: the self-check
    assert calls == [[], []]
    src = write(tmp_path / "in.png")
    assert top.main(["resize", str(src), "--width", "9", "-o", str(tmp_path / "o.png"), "-q"]) == 0
    with Image.open(tmp_path / "o.png") as opened:
        assert opened.size == (9, 6)


@pytest.mark.parametrize("name", ["selfcheck", "check", "golden", "resize", "demo"])
def test_subcommand_help_is_plain_text(name, capsys):
    # `cresize demo -h` and `cresize selfcheck -h` printed their docstring's reST markup.
    from cresize import __main__ as top

    assert top.main([name, "-h"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: cresize {name}") and "``" not in out


def test_the_command_freezes_the_gc_before_exit_and_a_caller_of_main_is_left_alone(tmp_path):
    import gc

    from cresize import __main__ as top

    src = write(tmp_path / "in.png")
    before = gc.get_freeze_count()
    assert top.main(["resize", str(src), "--width", "9", "-o", str(tmp_path / "a.png"), "-q"]) == 0
    assert gc.get_freeze_count() == before  # main(argv): this process goes on
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 1000))\n"
        "from cresize.__main__ import main\n"
        "sys.argv = ['cresize', *sys.argv[1:]]\n"
        "sys.exit(main())\n"
    )
    argv = [sys.executable, "-c", code, "resize", str(src), "--width", "9"]
    argv += ["-o", str(tmp_path / "b.png"), "-q"]
    env = dict(os.environ, PYTHONPATH=CRESIZE_ROOT)
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "frozen True\n", done
    with Image.open(tmp_path / "b.png") as opened:
        assert opened.size == (9, 6)


def test_rarer_pillow_plugins_are_imported_only_when_needed(tmp_path):
    # JPEG in, PNG out: Pillow's common plugins do (Image.preinit); a TIFF input
    # in a directory is still found (Image.init, on demand). A fresh process:
    # this one may have imported every plugin already.
    write(tmp_path / "jpg" / "a.jpg")
    write(tmp_path / "tif" / "b.tif")
    script = (
        "import sys\n"
        "from cresize._cli_resize import main\n"
        "argv = ['--width', '20', '--format', 'png', '-q', '--out-dir']\n"
        "assert main([sys.argv[1], *argv, sys.argv[3]]) == 0\n"
        "print('PIL.TiffImagePlugin' in sys.modules)\n"
        "assert main([sys.argv[2], *argv, sys.argv[3]]) == 0\n"
    )
    done = run_script(script, *(tmp_path / name for name in ("jpg", "tif", "out")))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False"]
    assert tree(tmp_path / "out") == ["a.png", "b.png"]


def test_large_buffers_are_reused_from_the_heap(tmp_path, monkeypatch):
    # glibc: the command sets mallopt's mmap and trim thresholds (its own process),
    # unless MALLOC_MMAP_THRESHOLD_ / MALLOC_TRIM_THRESHOLD_ say otherwise.
    import ctypes

    try:
        glibc = os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):
        glibc = False
    calls = []

    class Libc:
        def mallopt(self, param, value):
            calls.append((param, value))
            return 1

    monkeypatch.setattr(ctypes, "CDLL", lambda name: Libc())
    # (dask.distributed's LocalCluster leaves MALLOC_TRIM_THRESHOLD_ in os.environ)
    for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"):
        monkeypatch.delenv(name, raising=False)
    write(tmp_path / "in" / "a.png")
    for env in ({}, {"MALLOC_TRIM_THRESHOLD_": "131072"}):
        calls.clear()
        with monkeypatch.context() as m:
            for name, value in env.items():
                m.setenv(name, value)
            out = tmp_path / f"out{len(env)}"
            assert main([str(tmp_path / "in"), "--width", "20", "-q", "--out-dir", str(out)]) == 0
        want = [(-3, 32 << 20), (-1, 128 << 20)] if glibc and not env else []
        assert calls == want


def test_the_main_thread_sleeps_while_a_sync_is_pending(monkeypatch):
    # Files are reported in order: while the first file's fsync is pending, later
    # files that are done must not wake the main thread again and again (it spun a
    # core before). Counted: the waits of a run whose syncs are slower than its work.
    import concurrent.futures

    from cresize import _cli_resize

    def fast_work_slow_sync(task, cancel=None, later=None):
        time.sleep(0.005)
        return task, later.submit(time.sleep, 0.05), None

    calls = []
    real_wait = concurrent.futures.wait

    def counted_wait(*args, **kwargs):
        calls.append(1)
        return real_wait(*args, **kwargs)

    monkeypatch.setattr(_cli_resize, "_one", fast_work_slow_sync)
    monkeypatch.setattr(concurrent.futures, "wait", counted_wait)
    reported = []
    _cli_resize._run(list(range(8)), 2, lambda *a: reported.append(a), [])
    assert [r[0] for r in reported] == list(range(8))
    assert len(calls) < 60, len(calls)  # about 2 per file; thousands when spinning


def test_ctrl_c_outside_the_batch_exits_130_without_a_traceback(monkeypatch):
    # A Ctrl-C that lands while a subcommand's modules load, or as the process ends,
    # is not the batch's to report: the command returns 130 and Python prints nothing.
    from cresize import __main__ as entry
    from cresize import _cli_resize

    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr(_cli_resize, "main", interrupted)
    monkeypatch.setattr(sys, "argv", ["cresize", "resize", "in.png", "--width", "9"])
    assert entry.main() == 130
    with pytest.raises(KeyboardInterrupt):  # main(argv) from a program: its own to handle
        entry.main(["resize", "in.png", "--width", "9"])


def _icc():
    from helpers.png16 import srgb_icc

    return srgb_icc()


@pytest.mark.parametrize("fmt", ["png", "tiff"])
def test_16bit_colour_keeps_its_icc_profile_exif_and_dpi(tmp_path, fmt, capsys):
    if fmt == "tiff":  # without tifffile the profile is dropped, and said (test below)
        pytest.importorskip("tifffile")
    from helpers.png16 import png16

    exif = Image.Exif()
    exif[0x010F] = "cresize-test"
    icc, pixels = _icc(), write16(tmp_path / "plain.png")  # photo-like 16-bit samples
    (tmp_path / "in").mkdir()
    src = png16(tmp_path / "in" / "a.png", pixels, icc=icc, exif=exif.tobytes(), dpi=240)
    args = [str(src), "--width", "25", "--out-dir", str(tmp_path / "o"), "--format", fmt]
    assert main(args) == 0
    assert "ICC" not in capsys.readouterr().err
    out = tmp_path / "o" / ("a.png" if fmt == "png" else "a.tif")
    with Image.open(out) as back:
        assert back.info["icc_profile"] == icc
        assert back.info["dpi"] == pytest.approx((240, 240), abs=0.05)
        if fmt == "png":  # TIFF: EXIF is not written (an IFD of its own)
            assert back.getexif()[0x010F] == "cresize-test"
    cv2 = pytest.importorskip("cv2")
    got = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)[..., ::-1]
    np.testing.assert_array_equal(got, resize_image(pixels, (25, 17)))


def test_a_dropped_icc_profile_is_said_once_a_run(tmp_path, capsys, monkeypatch):
    icc = _icc()
    for i in range(2):
        write(tmp_path / "in" / f"{i}.png", seed=i, icc_profile=icc)
    args = ["--width", "25", "--out-dir", str(tmp_path / "o"), "--jobs", "2"]
    assert main([str(tmp_path / "in"), "--format", "bmp", *args]) == 0
    err = capsys.readouterr().err
    assert err.count("ICC colour profile") == 1 and "BMP files hold none" in err
    assert main([str(tmp_path / "in"), "--format", "webp", *args]) == 0  # kept: no note
    assert "ICC" not in capsys.readouterr().err
    from helpers.png16 import png16

    (tmp_path / "deep").mkdir()
    for i in range(2):
        png16(tmp_path / "deep" / f"{i}.png", write16(tmp_path / "x.png", seed=i), icc=icc)
    monkeypatch.setitem(sys.modules, "tifffile", None)
    assert main([str(tmp_path / "deep" / "*.png"), "--format", "tiff", *args]) == 0
    err = capsys.readouterr().err
    assert err.count("ICC colour profile") == 1 and "pip install" in err
    with Image.open(tmp_path / "o" / "0.tif") as opened:
        assert "icc_profile" not in opened.info


def test_a_jpeg_with_a_damaged_exif_is_resized_with_a_note(tmp_path, capfd):
    # A JPEG whose APP1 EXIF is junk bytes was "a damaged file? its reader failed:
    # SyntaxError: not a TIFF file": its pixels are resized, its EXIF left out with a note
    src = tmp_path / "in.jpg"
    Image.new("RGB", (60, 40), "teal").save(src, exif=b"Exif\0\0" + b"junk" * 10)
    for out in ("out.jpg", "out.tif", "out.png"):
        assert main([str(src), "--width", "30", "-o", str(tmp_path / out)]) == 0
        err = capfd.readouterr().err
        assert "note: written, but its reader warned: its EXIF is damaged (SyntaxError:" in err
        assert "failed" not in err.replace("0 failed", "")
        with Image.open(tmp_path / out) as written:
            assert written.size == (30, 20) and b"junk" not in written.info.get("exif", b"")


def test_a_tiff_header_alone_is_not_an_image(tmp_path, capfd):
    # II*\0 (a TIFF's signature, nothing after it): the command's header read raised
    # tifffile's "struct.error: unpack requires a buffer of 4 bytes" ("error: ..."), and
    # II*\0 and eight zero bytes had tifffile's "contains no pages" on stderr too.
    pytest.importorskip("tifffile")
    (tmp_path / "a.tif").write_bytes(b"II*\0")
    (tmp_path / "b.tif").write_bytes(b"II*\0" + bytes(8))
    srcs = [str(tmp_path / name) for name in ("a.tif", "b.tif")]
    assert main([*srcs, "--scale", "0.5", "--out-dir", str(tmp_path / "o")]) == 1
    err = capfd.readouterr().err
    for name in ("a.tif", "b.tif"):
        assert f"{name}: not an image, or a format Pillow cannot read" in err
    assert "struct" not in err and "unpack" not in err and "pages" not in err
    assert [line for line in err.splitlines() if "not an image" not in line] == []
    assert not (tmp_path / "o").exists() or not os.listdir(tmp_path / "o")


def test_a_tiff_only_tifffile_reads_without_it_gives_the_reason(tmp_path, monkeypatch, capsys):
    # The CLI reads each file's header first: without tifffile a float RGB TIFF was
    # "not an image, or a format Pillow cannot read", where open_image says what to install.
    tifffile = pytest.importorskip("tifffile")
    src = tmp_path / "in.tif"
    tifffile.imwrite(
        src, np.random.default_rng(0).random((20, 30, 3)).astype(np.float32), photometric="rgb"
    )
    monkeypatch.setitem(sys.modules, "tifffile", None)
    assert main([str(src), "--scale", "0.5", "-o", str(tmp_path / "out.tif")]) == 1
    err = capsys.readouterr().err
    assert "a TIFF that Pillow cannot read" in err and "tifffile" in err
    assert "not an image" not in err and not (tmp_path / "out.tif").exists()
    (tmp_path / "in.txt").write_bytes(b"not an image at all")  # still Pillow's reason
    assert main([str(tmp_path / "in.txt"), "-o", str(tmp_path / "o.png"), "--scale", "2"]) == 1
    assert "not an image, or a format Pillow cannot read" in capsys.readouterr().err


def _avif_inputs(folder, names):
    """Copies of tests/data/avif/ files (made by tests/helpers/avif.py) in ``folder``."""
    import shutil

    from helpers import avif

    if not _features().check("avif"):
        pytest.skip("Pillow without AVIF (its plugin came in Pillow 11.2)")
    os.makedirs(folder, exist_ok=True)
    for name in names:
        shutil.copy(avif.path(name), folder / name)
    return avif


def test_a_10_or_12bit_avif_is_resized_at_full_depth(tmp_path, capsys):
    # Pillow alone read them as 8-bit: the PNG outputs were 8-bit, and nothing said so
    names = [
        "rgb10.avif",
        "rgba12.avif",
        "grey10.avif",
        "turned10.avif",
        "late10.avif",
        "rgb8.avif",
    ]
    avif = _avif_inputs(tmp_path / "in", names)
    cv2 = pytest.importorskip("cv2")
    if not cv2.haveImageReader(avif.path("rgb10.avif")):
        pytest.skip(f"OpenCV {cv2.__version__} reads no AVIF")
    args = [str(tmp_path / "in"), "--width", "4", "--format", "png", "--out-dir"]
    assert main([*args, str(tmp_path / "o")]) == 0
    assert tree(tmp_path / "o") == sorted(name.replace(".avif", ".png") for name in names)
    for name in names:
        got = cv2.imread(str(tmp_path / "o" / name.replace(".avif", ".png")), cv2.IMREAD_UNCHANGED)
        want = np.asarray(resize_image(tmp_path / "in" / name, (4, None)))
        assert got.dtype == (np.uint8 if name == "rgb8.avif" else np.uint16), name
        if got.ndim == 3:
            got = got[..., [2, 1, 0, 3][: got.shape[2]]]
        np.testing.assert_array_equal(got, want)
    assert cv2.imread(str(tmp_path / "o" / "turned10.png")).shape[:2] == (5, 4)  # upright
    assert "rounded" not in capsys.readouterr().err
    assert main([*args, str(tmp_path / "a"), "--format", "avif"]) == 0
    err = capsys.readouterr().err
    assert err.count("16-bit samples are rounded to 8 bits for AVIF output") == 1


def test_a_10bit_avif_without_opencv_is_refused(tmp_path, capsys, monkeypatch):
    _avif_inputs(tmp_path / "in", ["rgb10.avif", "rgb8.avif"])
    monkeypatch.setitem(sys.modules, "cv2", None)
    assert main([str(tmp_path / "in"), "--width", "4", "--out-dir", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    deep = tmp_path / "in" / "rgb10.avif"
    assert (
        f"{deep}: ValueError: {deep} is a 10-bit RGB AVIF, which Pillow reads as 8 bits; "
        f"OpenCV reads it at 10 bits" in err
    )
    assert tree(tmp_path / "o") == ["rgb8.avif"]


@pytest.mark.parametrize(
    "option,value,words",
    [
        ("--size", "99999999999999x5", "--size: the width must be < 1099511627776; got '9999"),
        ("--fit", "5x1099511627776", "--fit: the height must be < 1099511627776; got '5x1"),
        ("--fill", "1099511627776x5", "--fill: the width must be < 1099511627776; got '1"),
        ("--width", "1099511627776", "--width: the width must be < 1099511627776; got '1"),
        ("--height", "1099511627776", "--height: the height must be < 1099511627776; got"),
        ("--scale", "1e300", "--scale: must be < 1099511627776 (the longest side an image"),
    ],
)
def test_a_length_no_image_can_have_is_a_usage_error(tmp_path, capsys, option, value, words):
    # Each file failed instead, in Python's words and height-first order: "size must be
    # < 1099511627776; got (5, 99999999999999)", "scale=1e+300 gives ...".
    src = write(tmp_path / "in.png")
    assert main([str(src), option, value, "--max-pixels", "0", "-o", str(tmp_path / "o.png")]) == 2
    err = capsys.readouterr().err
    assert words in err and "=(" not in err and "scale=" not in err
    assert not (tmp_path / "o.png").exists()


@pytest.mark.parametrize(
    "argv,words",
    [
        (["--scale", "1e12"], "--scale 1e12 would make this 60x40 image larger"),
        (
            ["--width", "1099511627775"],
            "--width 1099511627775 would make this 60x40 image 1099511627775x733007751850, "
            "larger than any image can be",
        ),
        (
            ["--fill", "1099511627775x5", "--allow-upscale"],
            "--fill 1099511627775x5 would make this 60x40 image 1099511627775x733007751850, larger",
        ),
    ],
)
@pytest.mark.parametrize("limit", ["0", "10000"])
def test_a_size_too_large_for_this_file_names_the_option(tmp_path, capsys, argv, words, limit):
    # The messages named Python's keywords ("scale=1e+12 gives", "fill=(...)", "check
    # size or scale_factor"), or said to raise --max-pixels, which cannot help.
    src = write(tmp_path / "in.png")
    out = tmp_path / "o.png"
    assert main([str(src), *argv, "--max-pixels", limit, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"cresize resize: {src}: {words}" in err
    assert "scale=" not in err and "=(" not in err and "scale_factor" not in err
    assert "raise it" not in err and not out.exists()


def test_a_resized_size_over_max_pixels_names_the_option(tmp_path, capsys):
    src = write(tmp_path / "in.png")
    assert main([str(src), "--scale", "1e5", "-o", str(tmp_path / "o.png")]) == 1
    assert "resized (--scale 1e5), it would be 6000000x4000000" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv,typed",
    [
        (["--scale", " 1E2 "], "--scale 1E2"),
        (["--scale=100"], "--scale 100"),
        (["--sca", "1_00"], "--scale 1_00"),
        (["--height", "0400", "--width", "600"], "--width 600 --height 0400"),
        (["--fit", "600X400", "--allow-upscale"], "--fit 600X400"),
        (["--size", "600\u00d7400"], "--size 600\u00d7400"),
    ],
)
def test_the_option_is_quoted_as_typed(tmp_path, capsys, argv, typed):
    # --scale 1e12 was quoted as Python prints the float, "--scale 1000000000000.0"; the
    # lengths and sizes as ints ("0400" as 400, "600X400" as 600x400).
    src = write(tmp_path / "in.png")
    out = tmp_path / "o.png"
    assert main([str(src), *argv, "--max-pixels", "10000", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{src}: resized ({typed}), it would be " in err
    assert not out.exists()


@pytest.mark.parametrize(
    "argv,words",
    [
        (["--width", "90"], "--allow-upscale has no effect with --width (it lets --fit and"),
        (["--size", "90x9"], "--allow-upscale has no effect with --size (it lets --fit and"),
        (["--width", "90", "--height", "9"], "--allow-upscale has no effect with --width and"),
        (["--scale", "2"], "--allow-upscale has no effect with --scale (it lets --fit and"),
    ],
)
def test_allow_upscale_without_fit_or_fill_is_a_usage_error(tmp_path, capsys, argv, words):
    # It was accepted and did nothing (these sizes enlarge with or without it).
    src = write(tmp_path / "in.png")
    out = tmp_path / "o.png"
    assert main([str(src), *argv, "--allow-upscale", "-o", str(out)]) == 2
    assert f"cresize resize: error: {words}" in capsys.readouterr().err
    assert not out.exists()
    assert main([str(src), "--fit", "90x90", "--allow-upscale", "-o", str(out), "-q"]) == 0
    with Image.open(out) as opened:
        assert opened.size == (90, 60)


@pytest.mark.parametrize(
    "where,named",
    [
        (["-o", "{tmp}/o.png"], "-o/--output"),
        (["--out-dir", "{tmp}/out"], "--out-dir"),
        (["--suffix", "_s"], "--suffix"),
        (["--format", "jpeg"], "--format"),
        (["--out-dir", "{tmp}/out", "--format", "jpeg"], "--out-dir and --format"),
    ],
)
def test_in_place_where_no_output_is_its_input_is_a_usage_error(tmp_path, capsys, where, named):
    # --in-place was accepted and did nothing: the outputs went elsewhere.
    src = write(tmp_path / "in.png")
    before = src.read_bytes()
    argv = [str(src), "--width", "10", "--in-place", *(a.format(tmp=tmp_path) for a in where)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"error: --in-place has no effect with {named}: no output of this batch is its" in err
    assert tree(tmp_path) == ["in.png"] and src.read_bytes() == before


def test_in_place_with_an_output_that_is_the_input_is_accepted(tmp_path, capsys):
    # -o naming the input, or --out-dir its own folder: --in-place is what lets it be.
    src = write(tmp_path / "in.png")
    assert main([str(src), "--width", "10", "-o", str(src), "--in-place", "-q"]) == 0
    with Image.open(src) as opened:
        assert opened.size == (10, 7)
    assert main([str(src), "--width", "5", "--out-dir", str(tmp_path), "--in-place", "-q"]) == 0
    with Image.open(src) as opened:
        assert opened.size == (5, 4) and tree(tmp_path) == ["in.png"]


def test_skip_existing_resumes_a_batch(tmp_path, capsys):
    # A re-run after an interruption failed every output already made ("exists (use
    # --overwrite)"), exit 1.
    folder, out = tmp_path / "in", tmp_path / "out"
    for name in ("a.png", "b.png", "c.png"):
        write(folder / name)
    argv = [str(folder), "--width", "10", "--out-dir", str(out)]
    assert main([*argv, "-q"]) == 0
    os.remove(out / "b.png")  # the run was interrupted before b.png
    (out / "a.png").write_bytes(b"a whole output")  # not read, not replaced
    (folder / "c.png").write_bytes(b"not an image")  # not read either
    assert main([*argv, "-n"]) == 1
    assert f"{out / 'c.png'} exists (use --overwrite)" in capsys.readouterr().err
    assert main([*argv, "--skip-existing", "-n"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed == [
        f"{folder / 'b.png'} -> {out / 'b.png'}",
        f"{folder / 'a.png'}: skipped (its output {out / 'a.png'} exists)",
        f"{folder / 'c.png'}: skipped (its output {out / 'c.png'} exists)",
    ]
    assert tree(out) == ["a.png", "c.png"]
    assert main([*argv, "--skip-existing"]) == 0
    assert "1 resized, 0 failed, 2 skipped (their outputs exist)" in capsys.readouterr().out
    assert tree(out) == ["a.png", "b.png", "c.png"]
    assert (out / "a.png").read_bytes() == b"a whole output"
    with Image.open(out / "b.png") as opened:
        assert opened.size == (10, 7)


def test_skip_existing_keeps_the_plan_of_the_batch(tmp_path, capsys):
    # Two inputs of one output name: the second is refused, as without the option,
    # whether the first's output exists or not.
    write(tmp_path / "a.png")
    Image.fromarray(photo(40, 60)).save(tmp_path / "a.jpg")
    (tmp_path / "a.webp").write_bytes(b"done before")
    argv = [str(tmp_path / "a.png"), str(tmp_path / "a.jpg"), "--width", "10"]
    assert main([*argv, "--format", "webp", "--skip-existing"]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'a.jpg'}: {tmp_path / 'a.webp'} is also the output of" in err
    assert (tmp_path / "a.webp").read_bytes() == b"done before"
    # a folder's own outputs (--suffix) are still not inputs; an existing one is kept
    folder = tmp_path / "f"
    write(folder / "x.png")
    assert main([str(folder), "--width", "10", "--suffix", "_s", "-q"]) == 0
    made = (folder / "x_s.png").read_bytes()
    assert main([str(folder), "--width", "10", "--suffix", "_s", "--skip-existing"]) == 0
    assert "0 resized, 0 failed, 1 skipped (outputs of this batch), 1 skipped (their" in (
        capsys.readouterr().out
    )
    assert tree(folder) == ["x.png", "x_s.png"] and (folder / "x_s.png").read_bytes() == made


@pytest.mark.parametrize(
    "other,words",
    [
        ("--overwrite", "give --overwrite or --skip-existing, not both"),
        ("--in-place", "--skip-existing cannot tell which inputs --in-place has resized"),
    ],
)
def test_skip_existing_conflicts(tmp_path, capsys, other, words):
    src = write(tmp_path / "in.png")
    before = src.read_bytes()
    assert main([str(src), "--width", "10", "--skip-existing", other]) == 2
    assert f"cresize resize: error: {words}" in capsys.readouterr().err
    assert tree(tmp_path) == ["in.png"] and src.read_bytes() == before


def _refused_lines(err):
    """``{input: reason}`` of the real run's per-file failures in ``err``."""
    found = {}
    for line in err.splitlines():
        if line.startswith("cresize resize: ") and ": note:" not in line:
            src, _, reason = line[len("cresize resize: ") :].partition(": ")
            found[src] = reason
    return found


def test_dry_run_lists_what_the_run_would_refuse(tmp_path, capsys):
    # -n read no header: it listed as "a -> b" files that the run then refused
    # (--max-pixels, an --in-place file of several frames, a file that is no image).
    folder = tmp_path / "in"
    write(folder / "big.png", 80, 120)  # 9,600 pixels
    write(folder / "small.png", 20, 30)  # 600; 2,400 once resized by 2
    write(folder / "ok.png", 10, 15)
    frames = [Image.fromarray(photo(10, 15, seed)) for seed in range(3)]
    frames[0].save(folder / "anim.gif", save_all=True, append_images=frames[1:])
    (folder / "junk.png").write_bytes(b"not an image at all")
    (folder / "empty.png").write_bytes(b"")
    before = {name: (folder / name).read_bytes() for name in os.listdir(folder)}
    argv = [str(folder), "--scale", "2", "--max-pixels", "2000", "--in-place"]
    assert main([*argv, "-n"]) == 1
    listed = capsys.readouterr().out.splitlines()
    assert f"{folder / 'ok.png'} -> {folder / 'ok.png'}" in listed
    would = {}
    for line in listed:
        src, sep, reason = line.partition(": would be refused: ")
        if sep:
            would[src] = reason
    assert sorted(would) == sorted(
        str(folder / n) for n in ("anim.gif", "big.png", "empty.png", "junk.png", "small.png")
    )
    assert would[str(folder / "big.png")].startswith("120x80 is 9,600 pixels, more than --max")
    assert would[str(folder / "small.png")].startswith("resized (--scale 2), it would be 60x40")
    assert would[str(folder / "anim.gif")].startswith("3 frames: --in-place would replace it")
    assert {n: (folder / n).read_bytes() for n in os.listdir(folder)} == before
    # the real run refuses the same files, for the same reasons
    assert main([*argv, "-q"]) == 1
    assert _refused_lines(capsys.readouterr().err) == would
    with Image.open(folder / "ok.png") as opened:
        assert opened.size == (30, 20)


@pytest.mark.parametrize(
    "ext,name,longest", [("jpg", "JPEG", 65500), ("gif", "GIF", 65535), ("webp", "WebP", 16383)]
)
def test_an_output_too_wide_for_its_format_is_refused_before_the_resize(
    tmp_path, capsys, monkeypatch, ext, name, longest
):
    # save_image refused it only once the whole resize was done (37 s for a
    # 65,501-pixel-wide JPEG); the batch goes on with the next file.
    too_wide, other = (
        write(tmp_path / f"a.{ext}", h=2, w=1000),
        write(tmp_path / "b.png", h=2, w=1000),
    )
    import cresize.image

    resized = []

    def recording(image, *args, **kwargs):
        resized.append(os.path.basename(image))
        return resize_image(image, *args, **kwargs)

    monkeypatch.setattr(cresize.image, "resize_image", recording)
    out = tmp_path / "out"
    argv = [str(too_wide), str(other), "--width", str(longest + 1), "--out-dir", str(out)]
    assert main([*argv, "-n"]) == 1
    said = capsys.readouterr().out
    height = round(2 * (longest + 1) / 1000)
    words = f"a {name} is at most {longest:,} pixels wide and high; this image is "
    words += f"{longest + 1}x{height}: write PNG, TIFF or BMP"
    assert f"{too_wide}: would be refused: {words}" in said
    assert f"{other} -> {out / 'b.png'}" in said
    assert main(argv) == 1
    assert f"cresize resize: {too_wide}: {words}" in capsys.readouterr().err
    assert resized == ["b.png"] and tree(out) == ["b.png"]
    with Image.open(out / "b.png") as im:
        assert im.size == (longest + 1, height)
    # the longest side the format holds is written; with --fill, the side after the crop
    # counts (resized to 100000x200, cropped to fit)
    for geometry, size in [
        (["--width", str(longest)], (longest, round(2 * longest / 1000))),
        (["--fill", f"{longest}x200", "--allow-upscale"], (longest, 200)),
    ]:
        assert (
            main([str(too_wide), *geometry, "-o", str(tmp_path / f"c.{ext}"), "--overwrite"]) == 0
        )
        with Image.open(tmp_path / f"c.{ext}") as im:
            assert im.size == size


def test_a_listing_of_names_outside_stdouts_encoding_is_escaped(tmp_path):
    # A Windows pipe or file is written in the ANSI code page (cp1252): `cresize resize
    # -n` listing a name outside it was a UnicodeEncodeError traceback, exit 1, and an
    # empty listing. Such a character is escaped now, as on stderr; the rest is as is.
    write(tmp_path / "caf\u00e9\u6f22.png")
    run = subprocess.run(
        [sys.executable, "-m", "cresize", "resize", str(tmp_path), "-n", "--width", "4"]
        + ["--out-dir", str(tmp_path / "out")],
        env=dict(os.environ, PYTHONPATH=CRESIZE_ROOT, PYTHONIOENCODING="cp1252"),
        capture_output=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr.decode("cp1252", "replace")
    listing = run.stdout.decode("cp1252")
    assert "caf\u00e9\\u6f22.png -> " in listing, listing
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("exif", [False, True])
def test_an_output_that_fits_its_format_one_way_is_not_refused_before_its_orientation_is_known(
    tmp_path, capsys, monkeypatch, exif
):
    # A PNG whose EXIF orientation is after more chunks than are read before decoding
    # (stored 60x40) may be 90x60 or 40x60 at --height 60. With a WebP of at most 80
    # pixels a side, the early refusal took the larger (90x60) and refused the file,
    # whose upright image (40x60, with the quarter turn) would have been written. Now
    # refused early only where either way is; else the real run decides, on the pixels.
    import cresize.image

    monkeypatch.setattr(cresize.image, "WEBP_MAX_SIDE", 80)
    tail = [_png_chunk(b"eXIf", _exif_orientation(6))] if exif else []
    src = _png_with(tmp_path / "in.png", [_png_chunk(b"zzZz", b"")] * 20_000 + tail)
    assert cresize.image._header(src).unsure
    argv = [str(src), "--height", "60", "-o", str(tmp_path / "out.webp")]
    assert main([*argv, "-n"]) == 0
    assert main(argv) == (0 if exif else 1)
    said = capsys.readouterr().err
    if exif:
        with Image.open(tmp_path / "out.webp") as out:
            assert out.size == (40, 60)
    else:  # save_image's refusal, of the image resized
        assert "a WebP is at most 80 pixels wide and high; this image is 90x60" in said
        assert not (tmp_path / "out.webp").exists()
    # either way too large: refused before the resize, by the dry run too
    argv = [str(src), "--height", "150", "-o", str(tmp_path / "big.webp")]
    assert main([*argv, "-n"]) == 1
    assert "would be refused: a WebP is at most 80 pixels" in capsys.readouterr().out
