"""A fixed slice of the damaged-file campaign (``tests/helpers/file_fuzz.py``).

Seeded mutants of every format the command reads (truncated, bit-flipped, with hostile
lengths, counts and dimensions, looping TIFF directories, wrong magic), and files of no
format (empty, zeros, text, a folder, a FIFO and a device named like images, a looping
symbolic link, a PNG of many thousand chunks), each through the command's per-file path
in this process and all together through ``cresize resize`` in a child (``--jobs 2``):
each file resized or refused with one line naming it, no traceback, no library warning
naming no file, exit status 1, no partial output, inputs unchanged.
"""

import io
import os
import random
import struct

import pytest

pytest.importorskip("PIL.Image")
pytest.importorskip("cv2")
pytest.importorskip("tifffile")

from cresize._cli_resize import main
from helpers import file_fuzz

MUTANTS_A_SEED = 4


@pytest.fixture(scope="module")
def corpus():
    return file_fuzz.seeds()


def _mutants(corpus, per_seed, seed=18):
    rng = random.Random(seed)
    out = []
    for name in sorted(corpus):
        ext, data = corpus[name]
        stream = file_fuzz.mutants(name, ext, data, random.Random(rng.random()))
        out += [(name, *next(stream)) for _ in range(per_seed)]
    return out


def test_the_seeds_cover_every_format(corpus):
    families = {file_fuzz._family(name) for name in corpus}
    assert {"png", "apng", "jpeg", "webp", "tiff", "bmp", "gif", "ppm", "pgm", "avif"} <= families
    assert all(
        file_fuzz.structure(data).fields
        for ext, data in corpus.values()
        if ext != ".ppm" and ext != ".pgm"
    )


# Damaged TIFFs, on purpose: Pillow's TIFF reader warns of what it skips when
# check_file reads each one again with image._read, the library's reader, as a caller
# would (the command's _one makes them the file's notes); what is checked is the outcome
@pytest.mark.filterwarnings("ignore:Tag data larger than file:UserWarning")
@pytest.mark.filterwarnings("ignore:Corrupt EXIF data:UserWarning")
@pytest.mark.filterwarnings("ignore:Truncated File Read:UserWarning")
def test_mutants_resized_or_refused_in_one_line(corpus, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    seen = set()
    for k, (name, label, ext, data) in enumerate(_mutants(corpus, MUTANTS_A_SEED)):
        path = tmp_path / f"{k:03d}-{name}{ext}"
        path.write_bytes(data)
        outcome, reason, _ = file_fuzz.check_file(str(path), str(out))
        assert path.read_bytes() == data, (name, label)
        assert outcome in ("ok", "refused", "slow"), (name, label, outcome, reason)
        seen.add(outcome)
    assert seen >= {"ok", "refused"}


def test_a_batch_of_damaged_files(corpus, tmp_path):
    """``--jobs 2`` over a folder of mutants, files of no format and one good file."""
    folder = tmp_path / "in"
    folder.mkdir()
    for k, (name, _, ext, data) in enumerate(_mutants(corpus, 1, seed=46)):
        (folder / f"m{k:02d}-{name}{ext}").write_bytes(data)
    specials = os.path.join(str(folder))
    for path, what in file_fuzz.special_files(specials, million=20_000):
        assert os.path.lexists(path), what
    good = folder / "zz-good.png"
    good.write_bytes(corpus["png8"][1])
    problems, info = file_fuzz.check_cli(str(folder), str(tmp_path / "out"), jobs=2, timeout=120)
    assert not problems, problems
    assert info["failed"] > 5 and info["written"] > 1
    assert (tmp_path / "out" / "zz-good.png").is_file()
    reasons = info["reasons"]
    assert reasons[str(folder / "empty.png")] == "an empty file (0 bytes)"
    assert reasons[str(folder / "fifo.jpg")] == "not a regular file"
    assert "more than 4,096 chunks before its pixels" in reasons[str(folder / "million-before.png")]
    # the libraries' own messages: no Python warning or tifffile log line naming no file
    # (C libraries, libpng and libtiff, write to the file descriptor: those are left)
    for line in info["noise"]:
        assert "Warning" not in line and "warnings.warn" not in line, line
        assert not line.startswith("<tifffile"), line


def _tiff_with_far_tag():
    """A TIFF whose XResolution lies beyond its end: Pillow warns ("Truncated File
    Read"), skips the tag and reads the pixels."""
    from PIL import Image

    b = io.BytesIO()
    Image.fromarray(file_fuzz._rgb()).save(b, "TIFF", dpi=(300, 300))
    d = bytearray(b.getvalue())
    (ifd,) = struct.unpack("<I", d[4:8])
    (n,) = struct.unpack("<H", d[ifd : ifd + 2])
    for k in range(n):
        e = ifd + 2 + 12 * k
        if struct.unpack("<H", d[e : e + 2])[0] == 282:
            d[e + 8 : e + 12] = struct.pack("<I", len(d) + 1000)
            return bytes(d)
    raise AssertionError("no XResolution")


def test_a_readers_warning_is_one_note_naming_the_file(tmp_path, capsys):
    src = tmp_path / "far.tif"
    src.write_bytes(_tiff_with_far_tag())
    for run in range(2):  # each run, each file: not once a process
        assert main([str(src), "--scale", "0.5", "-o", str(tmp_path / f"o{run}.png")]) == 0
        err = capsys.readouterr().err
        assert err.splitlines() == [
            f"cresize resize: {src}: note: written, but its reader warned: Truncated File Read"
        ], err


def test_a_parsing_error_is_said_to_be_a_damaged_file(corpus, tmp_path, capsys):
    src = tmp_path / "cut.tif"
    src.write_bytes(corpus["tiff8"][1][:10])  # within its first directory
    assert main([str(src), "--scale", "0.5", "-o", str(tmp_path / "o.png")]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"cresize resize: {src}: a damaged file? its reader failed: TiffFileError: "
        f"corrupted IFD structure\n"
    )
    assert not (tmp_path / "o.png").exists()


def test_a_png_of_thousands_of_chunks_before_its_pixels_is_refused_at_once(tmp_path, capsys):
    """A million empty chunks (13 MB) took Pillow's ``open`` 3.4 s, twice a file."""
    flood = tmp_path / "flood.png"
    flood.write_bytes(file_fuzz.million_chunk_png(5000))
    many = tmp_path / "many.png"  # below the bound: read
    many.write_bytes(file_fuzz.million_chunk_png(4000))
    assert main([str(flood), str(many), "--scale", "0.5", "--out-dir", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"cresize resize: {flood}: ValueError: {flood} is a PNG of more than 4,096 chunks "
        f"before its pixels (real files have a handful; a damaged or hostile file?): not read\n"
    )
    assert os.listdir(tmp_path / "o") == ["many.png"]
    after = tmp_path / "after.png"  # after its pixels: read (bounded by Pillow's own reading)
    after.write_bytes(file_fuzz.million_chunk_png(5000, where="after"))
    from cresize.image import open_image

    assert open_image(after).size == (32, 24)
    with pytest.raises(ValueError, match="more than 4,096 chunks before its pixels"):
        open_image(flood)


@pytest.mark.skipif(not file_fuzz.POSIX, reason="RLIMIT_AS")
def test_a_length_larger_than_the_file_is_said_so(corpus, tmp_path):
    """A JP2 box of 4 GiB in a 1 KB file: Pillow reads it with ``read(length)``, which
    asks for the memory first; under a memory limit the file fails with that reason."""
    if "jp2" not in corpus:
        pytest.skip("Pillow without OpenJPEG")
    data = bytearray(corpus["jp2"][1])
    assert data[36:40] == b"jp2h"
    data[32:36] = b"\xff\xff\xff\xff"
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "long.jp2").write_bytes(bytes(data))
    problems, info = file_fuzz.check_cli(str(folder), str(tmp_path / "out"), jobs=1, timeout=120)
    assert not problems, problems
    assert info["reasons"] == {
        str(folder / "long.jp2"): "too large for memory while read (within --max-pixels: a "
        "damaged file, a length in it larger than the file?)"
    }


def test_tifffiles_log_is_a_note_of_the_file_too(corpus, tmp_path, capsys):
    """A float RGB TIFF (read by tifffile) whose Software tag lies beyond its end:
    tifffile logs it (a bare line on stderr before) and reads the pixels."""
    data = bytearray(corpus["tiff-float"][1])
    (ifd,) = struct.unpack("<I", data[4:8])
    (n,) = struct.unpack("<H", data[ifd : ifd + 2])
    entries = [ifd + 2 + 12 * k for k in range(n)]
    (at,) = [e for e in entries if struct.unpack("<H", data[e : e + 2])[0] == 305]
    data[at + 8 : at + 12] = struct.pack("<I", len(data) + 1000)
    src = tmp_path / "f.tif"
    src.write_bytes(bytes(data))
    assert main([str(src), "--scale", "0.5", "-o", str(tmp_path / "o.tif")]) == 0
    err = capsys.readouterr().err
    assert err == (
        f"cresize resize: {src}: note: written, but its reader warned: Truncated File Read; "
        f"<TiffTag.fromfile> raised TiffFileError('<tifffile.TiffTag 305 @{at}> invalid value "
        f"offset {len(data) + 1000}')\n"
    )


def test_the_flood_check_reads_each_chunk_header_before_the_pixels_once(tmp_path, monkeypatch):
    """At most ``_PNG_CHUNKS_BEFORE_MAX`` 8-byte reads (and the signature's), unbuffered."""
    from cresize import image

    src = tmp_path / "many.png"
    src.write_bytes(file_fuzz.million_chunk_png(100))
    reads, read = [], os.read
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append(n) or read(fd, n))
    image._refuse_png_chunk_flood(src)
    assert reads == [8] * (1 + 1 + 100 + 1)  # the signature, IHDR, the 100, IDAT
    reads.clear()
    src.write_bytes(file_fuzz.million_chunk_png(image._PNG_CHUNKS_BEFORE_MAX))
    with pytest.raises(ValueError, match="more than 4,096 chunks before its pixels"):
        image._refuse_png_chunk_flood(src)
    assert len(reads) == 1 + image._PNG_CHUNKS_BEFORE_MAX


def test_the_flood_check_reads_a_file_object_too(tmp_path):
    """A file object skipped the check: Pillow then read its chunks, seconds for a
    million. From a seekable one, the chunk headers are read (``seek``, ``read`` of 8
    bytes each), not the file, and its position is put back; one that cannot seek is
    read into memory first (as before), then checked."""
    import io
    import types

    from cresize.image import open_image, resize_image

    class Counted(io.BytesIO):
        read_bytes = 0

        def read(self, n=-1):
            out = super().read(n)
            self.read_bytes += len(out)
            return out

    data = file_fuzz.million_chunk_png(5000)
    for read in (open_image, lambda f: resize_image(f, scale=0.5)):
        given = Counted(data)
        given.seek(5)
        with pytest.raises(ValueError, match=r"^the Counted given is a PNG of more than 4,096 "):
            read(given)
        assert given.tell() == 5 and not given.closed
        assert given.read_bytes <= 8 * (1 + 4096 + 1)  # the headers, not the file
        reader = types.SimpleNamespace(read=io.BytesIO(data).read)  # read only
        with pytest.raises(ValueError, match=r"^the BytesIO given is a PNG of more than 4,096 "):
            read(reader)
    many = Counted(file_fuzz.million_chunk_png(4000))  # below the bound: read
    assert open_image(many).size == (32, 24)
