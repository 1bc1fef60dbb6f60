"""The examples in README.md, docs/**/*.md and docs/**/*.rst run, as a user would copy them.

Each Markdown file's fenced code blocks are found with markdown-it-py, the parser
that MyST (the documentation build) reads the same files with, and run in order, in
a temporary working folder of their own:

- ```` ```python ```` blocks share one namespace per file. A block of ``>>>`` lines
  is a doctest: it must print what it shows (``helpers.doctests``, as for the
  docstrings).
- ```` ```bash ```` (``console``, ``sh``, ``shell``) blocks: every line is a
  ``cresize ...`` or ``python -m cresize ...`` command (``# comments`` allowed); each
  runs with this Python and must exit with status 0.
- Blocks in the languages of ``NOT_CODE`` (``text``, ``toml``, ...) and MyST directives
  other than code (``{figure}``, ``{include}``) do not run; a block in any other
  language fails, so that no example escapes under another spelling.
- A block that must not run (an install command, a development tool, data only the
  user has) carries ``<!-- not run: REASON -->`` on the line before it, the reason
  required. Any other block that fails, or a shell line that is not a cresize
  command, fails the test: nothing is skipped silently.
- reStructuredText pages (docs/index.rst: the front page's example) are read the
  same way: each ``.. code-block:: LANGUAGE`` is a block, ``.. not run: REASON`` on
  the line before it the marker.
- A block that uses an optional package that is not installed (PyTorch, zarr, SciPy) is
  left out, and the file's test then ends as skipped, naming the blocks and the
  package, after the rest of the file has run and passed.

The folder holds stand-ins for the files the examples name (``photo.jpg``,
``photos/``, ``scans/*.tif``, ``textures/``, ``masters/``, ``scan16.tif``), all
made from cresize's built-in test pattern (``cresize demo``). README.md is one of
cibuildwheel's ``test-sources`` (pyproject.toml), like docs/, so this runs on every
wheel too.
"""

import ast
import doctest
import importlib.util
import os
import re
import shlex
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest
from markdown_it import MarkdownIt

import cresize
from cresize import _demo
from helpers.doctests import run_doctests
from helpers.proc import run_python

ROOT = Path(__file__).resolve().parents[1]
FILES = [
    ROOT / "README.md",
    *sorted([*(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.rst")]),
]
FILES = [f for f in FILES if "_build" not in f.parts]
PYTHON = {"python", "py", "pycon"}
SHELL = {"bash", "console", "sh", "shell"}
#: Languages of blocks that are not run (not code, or not code a user runs). Any other
#: language fails: ```Python, ```python3, ```zsh or ```{code-block} would otherwise
#: show code that nothing runs.
NOT_CODE = {"text", "toml", "json", "yaml", "ini", "c", "cython", "diff"}
#: MyST directives that show code (their language follows): refused like another language;
#: the other directives ({figure}, {include}, {note}) hold no code.
CODE_DIRECTIVES = {"{code-block}", "{code}", "{code-cell}", "{sourcecode}"}
NOT_RUN = re.compile(r"<!--\s*not run:(.*?)-->", re.S)
#: Optional packages a block may import (``cresize.torch`` imports torch; scipy: the
#: comparisons of docs/guide/volumes.md): without them the block is left out, naming them.
OPTIONAL = ("torch", "zarr", "scipy")
#: The subprocesses import the same cresize as this process (installed or in-place build).
ENV = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(cresize.__file__)))
TIMEOUT = 120


def _runs(language, where):
    """Whether a block in ``language`` runs (Python or a shell); not code: False;
    any other language is an error."""
    if language.startswith("{") and language not in CODE_DIRECTIVES:
        return False  # a directive: no code
    if language not in PYTHON | SHELL:
        assert language in NOT_CODE, (
            f"{where}: a block in {language!r}, which this test neither runs nor knows "
            f"as not code: python or bash to run it, text if it is no code"
        )
        return False
    return True


#: reStructuredText: a code directive, and the comment that marks the next one not run.
RST_CODE = re.compile(r"^([ \t]*)\.\. (?:code-block|code|sourcecode)::[ \t]*(\S*)")
RST_NOT_RUN = re.compile(r"^[ \t]*\.\. not run:(.*)$")


def rst_blocks(path):
    """``blocks`` of a reStructuredText page: its ``code-block`` directives (options
    such as ``:caption:`` left out), ``.. not run: REASON`` on the line before one."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for i, line in enumerate(lines):
        match = RST_CODE.match(line)
        where = f"{path.name}:{i + 1}"
        marker = RST_NOT_RUN.match(line)
        if marker:
            assert i + 1 < len(lines) and RST_CODE.match(lines[i + 1]), (
                f"{where}: '.. not run:' must come just before a code-block"
            )
            assert marker.group(1).strip(), f"{where}: give the reason"
        if not match:
            continue
        assert match.group(2), f"{where}: a code-block without a language (`text` if none)"
        body, indent = [], len(match.group(1))
        for text in lines[i + 1 :]:
            if text.strip() and len(text) - len(text.lstrip()) <= indent:
                break
            body.append(text)
        code = textwrap.dedent("\n".join(body)).strip("\n").splitlines()
        while code and code[0].startswith(":"):  # the directive's options
            code.pop(0)
        if not _runs(match.group(2), where):
            continue
        skip = RST_NOT_RUN.match(lines[i - 1]) if i else None
        text = "\n".join(code).strip("\n") + "\n"
        found.append((i + 1, match.group(2), text, skip.group(1).strip() if skip else None))
    return found


def blocks(path):
    """[(line, language, code, reason not to run or None)] of ``path``'s fenced blocks
    in Python or a shell; a ``not run`` comment that precedes no block is an error
    (``rst_blocks`` for a reStructuredText page)."""
    if path.suffix == ".rst":
        return rst_blocks(path)
    text = path.read_text(encoding="utf-8")
    # MyST's colon fences (docs/conf.py: colon_fence), which CommonMark reads as text:
    # one that shows code would escape.
    for k, line in enumerate(text.splitlines()):
        directive = re.match(r"[ \t]*:::+[ \t]*(\{[^}]*\})", line)
        assert not (directive and directive.group(1) in CODE_DIRECTIVES), (
            f"{path.name}:{k + 1}: code in a ':::' fence, which this test does not see; "
            f"use a ``` fence"
        )
    tokens = MarkdownIt("commonmark").parse(text)
    found = []
    for i, token in enumerate(tokens):
        marker = NOT_RUN.search(token.content) if token.type == "html_block" else None
        if marker:
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            where = f"{path.name}:{token.map[0] + 1}"
            assert following is not None and following.type == "fence", (
                f"{where}: '<!-- not run -->' must come just before a block"
            )
            assert marker.group(1).strip(), f"{where}: give the reason"
        where = f"{path.name}:{token.map[0] + 1 if token.map else '?'}"
        assert token.type != "code_block", f"{where}: an indented block; fence it, with a language"
        if token.type != "fence":
            continue
        language = token.info.split()[0] if token.info.strip() else ""
        assert language, f"{where}: a block without a language (`text` if it is none)"
        if not _runs(language, where):
            continue
        previous = tokens[i - 1] if i else None
        skip = (
            NOT_RUN.search(previous.content) if previous and previous.type == "html_block" else None
        )
        found.append(
            (token.map[0] + 1, language, token.content, skip.group(1).strip() if skip else None)
        )
    return found


def _name(path):
    return path.relative_to(ROOT).as_posix()


CASES = [pytest.param(path, id=_name(path)) for path in FILES if blocks(path)]


@pytest.fixture(scope="session")
def stand_ins(tmp_path_factory):
    """A folder with the files that the examples name, made from the test pattern."""
    from cresize.image import save_image

    root = tmp_path_factory.mktemp("stand-ins")
    small = _demo.test_pattern(96)
    files = {
        "photo.jpg": _demo.test_pattern(1280),
        "photos/a.jpg": small,
        "photos/b.png": small[::-1],
        "photos/more/c.jpg": small[:, ::-1],
        "scans/page1.tif": small,
        "scans/page2.tif": small.transpose(1, 0, 2),
        "textures/bricks.png": small,
        "textures/wood.jpg": small[::-1, ::-1],
        "masters/portrait.jpg": _demo.test_pattern(480)[:, 80:400],
        "scan16.tif": _demo.test_pattern(160).astype(np.uint16) * 257,
    }
    for name, pixels in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        save_image(pixels, root / name)
    return root


def _missing(code):
    imports = rf"^[ \t]*(?:import|from)[ \t]+(?:cresize\.)?({'|'.join(OPTIONAL)})\b"
    return sorted({n for n in re.findall(imports, code, re.M) if not _installed(n)})


def _names(code, context):
    """The names a Python block binds (``ast.Store``: assignments, imports, defs) or
    reads (``ast.Load``)."""
    if code.lstrip().startswith(">>>"):
        code = "".join(e.source for e in doctest.DocTestParser().get_examples(code))
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, context):
            names.add(node.id)
        elif context is ast.Store and isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif context is ast.Store and isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ):
            names.add(node.name)
    return names


def _installed(name):
    return importlib.util.find_spec(name) is not None


def _run_python(code, namespace, where, line=0):
    if code.lstrip().startswith(">>>"):
        # doctest runs a copy of the namespace: what the block defines is copied back.
        test = doctest.DocTestParser().get_doctest(code, namespace, where, where, line)
        result, report = run_doctests([test], clear_globs=False)
        assert result.failed == 0, f"{where}: the output shown is not what it prints:\n{report}"
        namespace.update(test.globs)
    else:
        exec(compile(code, where, "exec"), namespace)


def _run_shell(code, where, cwd):
    for k, line in enumerate(code.splitlines()):
        argv = shlex.split(line, comments=True)
        if not argv:
            continue
        if argv[:3] == ["python", "-m", "cresize"]:
            argv = argv[2:]
        if argv[0] != "cresize":
            pytest.fail(
                f"{where} (+{k}): {line!r} is not a cresize command; mark the block "
                "'<!-- not run: REASON -->' if it must not run"
            )
        code_, out, err = run_python(["-m", *argv], ENV, TIMEOUT, cwd=cwd)
        assert code_ == 0, f"{where} (+{k}): {line!r} exited with status {code_}\n{out}\n{err}"


def run_page(path, name, work):
    """Run the blocks of ``path`` in the folder ``work``; the blocks left out (what they
    need is not installed), as text."""
    namespace = {"__name__": "__main__"}
    left_out = []
    # name -> why it is not there: bound only by a Python block that was left out
    unbound = {}
    for line, language, code, reason in blocks(path):
        where = f"{name}:{line}"
        missing = _missing(code)
        if reason is not None:
            continue
        if missing:
            left_out.append(f"line {line} needs {', '.join(missing)}")
            if language in PYTHON:
                for bound in _names(code, ast.Store):
                    unbound.setdefault(bound, f"line {line}'s {bound}")
        elif language in PYTHON:
            uses = sorted(
                unbound[n]
                for n in (_names(code, ast.Load) - _names(code, ast.Store)) & unbound.keys()
                if n not in namespace
            )
            if uses:  # e.g. the torch functions a left-out block defined, without torch
                left_out.append(f"line {line} needs {', '.join(uses)}")
                continue
            _run_python(code, namespace, where, line)
        else:
            _run_shell(code, where, work)
    return left_out


@pytest.mark.parametrize("path", CASES)
def test_examples_run(path, stand_ins, tmp_path, monkeypatch):
    work = tmp_path / "work"
    shutil.copytree(stand_ins, work)
    monkeypatch.chdir(work)
    limit = cresize.cache_info()["limit"]  # docs/plans.md sets it
    try:
        left_out = run_page(path, _name(path), work)
    finally:
        cresize.set_cache_limit(limit)
    if left_out:
        pytest.skip(f"{_name(path)}: the rest ran; not installed: {'; '.join(left_out)}")


def test_the_blocks_are_found():
    """The collector sees the examples (and the markers) that this module runs."""
    found = {_name(path): blocks(path) for path in FILES}
    assert len(found["README.md"]) >= 6
    languages = {language for every in found.values() for _, language, _, _ in every}
    assert {"python", "bash"} <= languages
    assert any(reason for every in found.values() for *_, reason in every)
    assert sum(map(len, found.values())) >= 30


@pytest.mark.parametrize(
    "text, error, match",
    [
        ("```python\nraise ValueError('wrong')\n```\n", ValueError, "wrong"),
        ("```python\n>>> 1 + 1\n3\n```\n", AssertionError, "not what it prints"),
        ("```python\nx = 1\n```\n\n```python\nx + y\n```\n", NameError, "'y'"),
        (
            "```bash\ncresize resize no-such-file.png --scale 0.5\n```\n",
            AssertionError,
            "exited with status",
        ),
        ("```console\npip install cresize\n```\n", pytest.fail.Exception, "not a cresize"),
    ],
)
def test_a_wrong_example_fails(tmp_path, monkeypatch, text, error, match):
    """A block that raises, a doctest that shows the wrong output, a name no block
    defines, a failing command and a shell line that is not a cresize command fail."""
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page.md"
    page.write_text(text)
    with pytest.raises(error, match=match):
        run_page(page, "page.md", tmp_path)


def test_the_not_run_marker(tmp_path):
    """A marked block does not run; the marker needs a reason and a block right after it;
    every block is fenced and names its language, so that none escapes unseen."""
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nx = 2\n```\n\n<!-- not run: raises -->\n```python\nraise ValueError\n```\n"
        "\n```python\n>>> x * 3\n6\n>>> y = x + 1\n```\n\n```python\nassert y == 3\n```\n"
    )
    assert [reason for *_, reason in blocks(page)] == [None, "raises", None, None]
    assert run_page(page, "page.md", tmp_path) == []
    page.write_text("<!-- not run: -->\n```bash\npip install cresize\n```\n")
    with pytest.raises(AssertionError, match="give the reason"):
        blocks(page)
    page.write_text("<!-- not run: a reason -->\n\nSome text.\n\n```bash\npip install x\n```\n")
    with pytest.raises(AssertionError, match="just before a block"):
        blocks(page)
    page.write_text("Indented:\n\n    pip install x\n")
    with pytest.raises(AssertionError, match="an indented block"):
        blocks(page)
    page.write_text("```\npip install x\n```\n")
    with pytest.raises(AssertionError, match="without a language"):
        blocks(page)


@pytest.mark.parametrize(
    "language", ["Python", "python3", "py3", "ipython", "zsh", "Bash", "{code-block}"]
)
def test_a_block_in_another_language_is_not_passed_over(tmp_path, language):
    """A block that MyST shows as code in a language this test does not run (another
    spelling of Python or a shell, a directive) fails, rather than passing unseen."""
    page = tmp_path / "page.md"
    page.write_text(f"```{language}\nraise ValueError('not run')\n```\n")
    with pytest.raises(AssertionError, match="neither runs nor knows"):
        run_page(page, "page.md", tmp_path)
    page.write_text(":::{code-block} python\nraise ValueError('not run')\n:::\n")
    with pytest.raises(AssertionError, match="':::' fence"):
        blocks(page)
    page.write_text(
        "```text\nraise ValueError('not code')\n```\n\n```toml\n[x]\n```\n\n"
        ":::{note}\nA note.\n:::\n\n"
        "```{figure} a.png\nA caption.\n```\n"
    )
    assert blocks(page) == [] and run_page(page, "page.md", tmp_path) == []


def test_a_block_needing_a_missing_package_is_left_out(tmp_path, monkeypatch):
    """Without PyTorch the block that imports it is named, the others still run."""
    monkeypatch.setitem(globals(), "_installed", lambda name: name not in OPTIONAL)
    assert _missing("import cresize.torch\nimport zarr, numpy") == ["torch", "zarr"]
    assert _missing('x = "scan.zarr"  # a torch tensor, say') == []
    page = tmp_path / "page.md"
    page.write_text("```python\nimport torch\nraise ValueError\n```\n\n```python\nx = 1\n```\n")
    assert run_page(page, "page.md", tmp_path) == ["line 1 needs torch"]
    page.write_text("```python\nimport torch\n```\n\n```python\nraise ValueError('ran')\n```\n")
    with pytest.raises(ValueError, match="ran"):
        run_page(page, "page.md", tmp_path)
    # a later block using what a left-out block defined is left out, naming it; a name
    # that a block which ran defines as well is there
    page.write_text(
        "```python\nimport numpy as np\n```\n\n"
        "```python\nimport torch\nfrom cresize import testing\nimport numpy as np\n"
        "def pair(): pass\n```\n\n"
        "```python\ntesting.check_reference(pair)\n```\n\n"
        "```python\nassert np.pi > 3\n```\n"
    )
    assert run_page(page, "page.md", tmp_path) == [
        "line 5 needs torch",
        "line 12 needs line 5's pair, line 5's testing",
    ]


def test_rst_pages_are_run(tmp_path):
    """The reStructuredText pages (docs/index.rst, the front page, shows a Python
    example) are collected too: their ``code-block`` directives run like fenced blocks,
    ``.. not run: REASON`` on the line before one leaves it out."""
    assert ROOT / "docs" / "index.rst" in FILES
    assert [language for _, language, _, _ in blocks(ROOT / "docs" / "index.rst")] == ["python"]
    page = tmp_path / "page.rst"
    page.write_text(
        "Title\n=====\n\n.. code-block:: python\n   :caption: x\n\n   x = 2\n\n   y = x + 1\n\n"
        "Text.\n\n.. not run: raises\n.. code-block:: python\n\n   raise ValueError\n\n"
        ".. code-block:: python\n\n   assert y == 3\n   raise ValueError('ran')\n"
    )
    assert [(line, reason) for line, _, _, reason in blocks(page)] == [
        (4, None),
        (14, "raises"),
        (18, None),
    ]
    with pytest.raises(ValueError, match="ran"):
        run_page(page, "page.rst", tmp_path)
    page.write_text(".. code-block:: zsh\n\n   cresize --version\n")
    with pytest.raises(AssertionError, match="neither runs nor knows"):
        blocks(page)
