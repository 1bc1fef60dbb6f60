"""Limits and failure modes (docs/limits.md): one test per defect found at the edges.

1. Impossible requests are refused before anything is built: a ValueError or
   MemoryError naming the size, under 1 s of CPU time and under 512 MiB.
2. The table cache is bounded in bytes: resampling 1-million-sample signals of
   24 different lengths fits in a 1.5 GiB address space.
3. A forked child never hangs with default arguments, whoever ran OpenMP in
   the parent (cresize, PyTorch, cresize.torch).
4. Shapes, axes and sizes are strictly validated (bool is not an int, huge
   values are ValueErrors naming the argument).
7. ``out=`` interleaved with a strided input without overlap is accepted; the
   torch adapter takes sizes as tensors, keeps channels-last, and takes its flags
   as bools only (a departure from ``F.interpolate``, listed).

Items 1, 2 and 4 live in the spec/plan layer (``cresize.plan``, the plan cache).
Items 5 and 6 and the CLI parts of 7 are tested in test_image.py and
test_cli_resize.py.

Whatever could hang or eat memory runs in a fresh interpreter, in its own
process group, under a timeout (and, where the defect is memory, under an
address-space limit), so a failure fails the test instead of stalling the suite.
"""

import json
import os
import textwrap

import numpy as np
import pytest

import cresize
from helpers.proc import PEAK, run_python

TIMEOUT = 60
POSIX = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() and rlimits are POSIX only")


def run(script, timeout=TIMEOUT, path=None):
    """Run ``script`` in a new interpreter; return its last stdout line parsed as JSON.

    With ``path``, the script is written there and run as a file (``spawn`` workers
    import their functions from it).
    """
    env = dict(os.environ, OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    script = textwrap.dedent(script)
    if path is not None:
        path.write_text(script)
    args = ["-c", script] if path is None else [str(path)]
    code, out, err = run_python(args, env, timeout)
    assert code == 0, out + err
    return json.loads(out.strip().splitlines()[-1])


# ----------------------------------------------------------------------------
# 1. Impossible requests fail fast, without allocating

#: The address-space limit of the refusals (the issue's bound on their peak memory).
SMALL_AS = 512 << 20

REFUSE = (
    """
import json, resource, time
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
"""
    + PEAK
    + """
import numpy as np
import cresize
cpu = time.process_time()
try:
    {call}
except (ValueError, MemoryError) as exc:
    kind, message = type(exc).__name__, str(exc)
else:
    kind, message = None, ""
cpu = time.process_time() - cpu
peak = peak_rss()
print(json.dumps(dict(kind=kind, message=message, cpu=cpu, peak=peak)))
"""
)

IMPOSSIBLE = {
    "size": ("cresize.resize(np.ones((1, 1)), (10**8, 10**8))", 10**8),
    "scale_factor": ("cresize.resize(np.ones((1, 1)), scale_factor=2e8)", 2 * 10**8),
    "weights": ("cresize.weights(10**8, 10**8)", 10**8),
    "backward_area": ("cresize.resize_backward(np.ones(3), (10**10,), mode='area')", 10**10),
    # a plan is refused as its calls would be, before a table is built
    "plan": ("cresize.plan((2, 3), 10**9, mode='area', dtype='uint8')", 10**9),
}


def _names(message, n):
    digits = message.replace(",", "").replace("_", "")
    return str(n) in digits or f"{n:.0e}".replace("+0", "").replace("+", "") in digits


@POSIX
@pytest.mark.parametrize("name", IMPOSSIBLE)
def test_1_impossible_requests_are_refused_before_building_anything(name):
    """Needs the plan layer: today's main builds 8 GiB of tables first."""
    call, n = IMPOSSIBLE[name]
    got = run(REFUSE.format(limit=SMALL_AS, call=call))
    assert got["kind"] in ("ValueError", "MemoryError"), got
    # A refusal, not an allocation that failed under the limit ("Unable to allocate ...").
    assert "allocate" not in got["message"], got
    assert _names(got["message"], n), got
    # Milliseconds of work; 1 s of CPU time (not wall time: the machine may be busy)
    # is what building any table of these sizes would take many times over.
    assert got["cpu"] < 1.0, got
    assert got["peak"] < SMALL_AS, got


@pytest.mark.parametrize("name", IMPOSSIBLE)
def test_1_impossible_requests_are_impossible_without_a_limit_too(name, monkeypatch):
    """docs/limits.md calls these impossible: refused on a 64 GiB machine with no
    address-space limit as well. (resize_backward(np.ones(3), (10**9,), mode='area')
    needs 22 GiB, so it was tried, and on this project's 23 GiB machine the kernel's
    OOM killer ended the process instead of a MemoryError.)"""
    from cresize import _plan, _spec

    def build(*args, **kwargs):
        raise AssertionError("a plan or a table would be built")

    monkeypatch.setattr(_spec, "memory_limit", lambda: 64 * 2**30)
    monkeypatch.setattr(_plan, "Plan", build)
    monkeypatch.setattr(_plan, "table", build)
    call, n = IMPOSSIBLE[name]
    with pytest.raises((ValueError, MemoryError)) as info:
        eval(call, {"cresize": cresize, "np": np})
    assert _names(str(info.value), n)


def _cgroups(monkeypatch, tmp_path, proc, files):
    """``_spec.cgroup_memory_limit()`` with ``proc`` as /proc/self/cgroup and ``files``
    ``{path under the cgroup root: text}``."""
    from cresize import _spec

    tmp_path = tmp_path / str(len(list(tmp_path.iterdir())))  # a new one each call
    (tmp_path / "fs").mkdir(parents=True)
    (tmp_path / "proc").write_text(proc)
    for path, text in files.items():
        (tmp_path / "fs" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "fs" / path).write_text(text)
    monkeypatch.setattr(_spec, "PROC_CGROUP", str(tmp_path / "proc"))
    monkeypatch.setattr(_spec, "CGROUP_ROOT", str(tmp_path / "fs"))
    _spec.cgroup_memory_limit.cache_clear()
    try:
        return _spec.cgroup_memory_limit()
    finally:
        _spec.cgroup_memory_limit.cache_clear()


def test_1_cgroup_memory_limits_are_read(monkeypatch, tmp_path):
    """v2 ``memory.max`` and v1 ``memory.limit_in_bytes``, of the process's cgroup or
    an ancestor (the least), "max" meaning none; none found: no limit."""
    v2 = "0::/job/step\n"
    assert _cgroups(monkeypatch, tmp_path, v2, {}) == float("inf")
    assert _cgroups(monkeypatch, tmp_path, v2, {"memory.max": "max\n"}) == float("inf")
    limits = {"job/memory.max": "3000000000\n", "job/step/memory.max": "max\n"}
    assert _cgroups(monkeypatch, tmp_path, v2, limits) == 3_000_000_000
    limits["job/step/memory.max"] = "2000000000\n"
    assert _cgroups(monkeypatch, tmp_path, v2, limits) == 2_000_000_000
    # A container's own cgroup seen at the root of its mount (the path is the host's).
    assert _cgroups(monkeypatch, tmp_path, "0::/docker/abc\n", {"memory.max": "1234\n"}) == 1234
    # v1 (here beside the v2 line of a hybrid host, whose v2 tree has no memory.max).
    v1 = "4:memory:/job\n2:cpu,cpuacct:/job\n0::/\n"
    limits = {"memory/memory.limit_in_bytes": "9223372036854771712\n"}
    assert _cgroups(monkeypatch, tmp_path, v1, limits) == 9223372036854771712
    limits["memory/job/memory.limit_in_bytes"] = "4096000000\n"
    assert _cgroups(monkeypatch, tmp_path, v1, limits) == 4_096_000_000


def test_1_a_request_over_the_cgroup_limit_is_refused(monkeypatch):
    """Under physical memory but over the container's limit: a MemoryError naming the
    limit, where the OOM killer would end the process."""
    from cresize import _spec

    monkeypatch.setattr(_spec, "cgroup_memory_limit", lambda: 2**27)
    assert _spec.memory_limit() == 2**27
    with pytest.raises(MemoryError, match=r"0\.125 GiB can exist here .*cgroup"):
        cresize.resize(np.ones((1, 1)), (4096, 4096))
    monkeypatch.setattr(_spec, "cgroup_memory_limit", lambda: float("inf"))
    assert _spec.memory_limit() > 2**27


@POSIX
def test_1_cli_refuses_an_impossible_scale(tmp_path):
    """``cresize resize --scale 1e6`` on a 50x40 PNG: exit 1, the reason printed, no output."""
    pytest.importorskip("PIL")
    from PIL import Image

    src, dst = tmp_path / "in.png", tmp_path / "out.png"
    Image.new("RGB", (50, 40), (10, 200, 30)).save(src)
    original = src.read_bytes()
    got = run(
        REFUSE.format(
            limit=SMALL_AS,
            call=textwrap.dedent(f"""\
        import contextlib, io
        from cresize._cli_resize import main
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = main([{str(src)!r}, "--scale", "1e6", "-o", {str(dst)!r}, "-q"])
        raise ValueError(f"rc={{rc}} " + err.getvalue())""").replace("\n", "\n    "),
        )
    )
    assert got["message"].startswith("rc=1 "), got
    assert "allocate" not in got["message"] and _names(got["message"], 50 * 10**6), got
    assert got["cpu"] < 1.0 and got["peak"] < SMALL_AS, got
    assert not dst.exists() and src.read_bytes() == original


# ----------------------------------------------------------------------------
# 2. The table cache is bounded in bytes

LOOP = (
    """
import json, resource
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
"""
    + PEAK
    + """
import numpy as np
import cresize
rng = np.random.default_rng(0)
done = 0
first = None
for i in range({geometries}):
    n = 1_000_000 + 7919 * i                 # a 1-million-sample signal of a new length,
    m = n * 16000 // 44100                   # resampled from 44.1 kHz to 16 kHz
    x = rng.random(n, dtype=np.float32)
    y = cresize.resize(x, m, mode="bilinear", antialias=True)
    g = cresize.resize_backward(y, x.shape, mode="bilinear", antialias=True)
    assert y.shape == (m,) and g.shape == (n,)
    assert abs(float(y.mean()) - float(x.mean())) < 1e-2
    if first is None:
        first = cresize.cache_info()["nbytes"]   # the tables of one length
    done += 1
info = cresize.cache_info()
peak = peak_rss()
print(json.dumps(dict(done=done, first=first, info=info, peak=peak)))
"""
)

#: The loop's address-space limit. The interpreter with NumPy and cresize takes ~140
#: MiB of it, the default 256 MiB cache and the loop's arrays ~0.9 GiB at most; a cache
#: that kept every length (~100 MiB of tables each) fails at the 8th length.
LOOP_AS = 3 << 29
#: Lengths in the loop: three times as many as a cache that kept them all could hold.
GEOMETRIES = 24


@pytest.mark.slow
@POSIX
def test_2_a_loop_over_24_signal_lengths_fits_in_1_5_gib():
    """Needs the plan layer: each length's tables take ~100 MiB, and the cache is bounded
    in bytes (256 MiB by default).

    The lengths' tables together (> 2.4 GB) exceed the limit: only a cache bounded in
    bytes gets through. (It was 70 lengths under 4 GiB: the same proof at three times
    the work, 98 s on a loaded machine and 387 s on a busier one.)"""
    got = run(LOOP.format(limit=LOOP_AS, geometries=GEOMETRIES), timeout=600)
    assert got["done"] == GEOMETRIES
    assert got["peak"] < LOOP_AS
    # The loop proves the bound only if keeping every length could not fit: the
    # first length's tables alone, GEOMETRIES times, are more than the limit.
    assert got["first"] * GEOMETRIES > LOOP_AS, got
    info = got["info"]
    assert info["nbytes"] <= info["limit"], info  # what the cache holds stays within its bound
    assert info["plans"] < GEOMETRIES, info


def _held_by_cached_plans(calls):
    """(bytes the plans cached by ``calls()`` hold, traced; what the cache counts)."""
    import gc
    import tracemalloc

    cresize.clear_cache()
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        calls()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - base, cresize.cache_info()["nbytes"]
    finally:
        tracemalloc.stop()
        cresize.clear_cache()


def test_2_the_cache_counts_what_its_plans_hold():
    """The byte bound bounds memory only if ``nbytes`` counts what a plan holds: its
    tables, the row bounds of its programs (16 bytes an output row: as much as a
    bilinear table, uncounted before) and its Python objects (steps and compiled calls:
    8-17 KiB a plan, against tables of a few hundred bytes for small images)."""
    warm = np.ones((1, 2, 3, 3), np.float32)
    cresize.resize_backward(cresize.resize(warm, (5, 5)), warm.shape)

    def small():  # many small plans of distinct shapes, both directions
        for i in range(150):
            x = np.ones((1, 3, 5 + i, 6 + i), np.float32)
            cresize.resize_backward(cresize.resize(x, (7, 9)), x.shape)

    def long_rows():  # one 1-D plan whose tables and bounds are megabytes
        x = np.ones((2, 100_003), np.float32)
        cresize.resize_backward(cresize.resize(x, (300_007,)), x.shape)

    for calls in (small, long_rows):
        held, counted = _held_by_cached_plans(calls)
        assert held <= 1.15 * counted, (calls.__name__, held, counted)


def test_2_the_cache_can_be_cleared_and_bounded():
    """Needs the plan layer: a public way to bound the cache in bytes and to clear it."""
    info = cresize.cache_info()
    assert {"limit", "nbytes"} <= set(info)
    before = info["limit"]
    try:
        cresize.clear_cache()
        assert cresize.cache_info()["nbytes"] == 0
        cresize.set_cache_limit(4 << 20)
        x = np.random.default_rng(1).random(50_000)
        for n in range(30_000, 30_010):  # each geometry's tables are about 2 MB
            y = cresize.resize(x, n, mode="bicubic")
            assert cresize.cache_info()["nbytes"] <= 4 << 20
        assert cresize.cache_info()["nbytes"] > 0  # bounded, not off
        assert np.array_equal(y, cresize.resize(x, n, mode="bicubic"))
        with pytest.raises((TypeError, ValueError), match="nbytes"):
            cresize.set_cache_limit(True)
        with pytest.raises(ValueError, match="nbytes"):
            cresize.set_cache_limit(-1)
    finally:
        cresize.set_cache_limit(before)


@pytest.mark.parametrize("setter", ["set_cache_limit", "set_result_cache_limit"])
def test_both_cache_bounds_take_the_same_values(setter):
    """One rule for both bounds (``_plan._check_limit``): an integer from 0 to 2**63 - 1,
    as the other integer arguments take one; ``set_cache_limit`` took 2**70."""
    set_limit = getattr(cresize, setter)
    before = set_limit(0)
    try:
        for good in (2**63 - 1, np.int64(5 << 20), np.array(5 << 20), np.uint64(2**63 - 1), 0):
            set_limit(good)
            assert set_limit(0) == good and type(set_limit(0)) is int
        for bad in (2**63, 2**70, np.uint64(2**63), np.array(2**64 - 1, np.uint64)):
            with pytest.raises(ValueError, match=r"^nbytes must be < 2\*\*63; got \d+$"):
                set_limit(bad)
        for bad in (-1, np.int8(-1), np.array(-1)):
            with pytest.raises(ValueError, match=r"^nbytes must be >= 0; got -1$"):
                set_limit(bad)
        for bad in (True, np.True_, 1.0, "1", None, np.array([1]), np.array(1.0)):
            with pytest.raises(TypeError, match=r"^nbytes must be an int; got "):
                set_limit(bad)
        assert set_limit(0) == 0  # a refused bound changes nothing
    finally:
        set_limit(before)


# ----------------------------------------------------------------------------
# 3. Forked children never hang with default arguments

FORK = """
import json, multiprocessing, os
{prelude}
import numpy as np

def os_threads():
    return len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None

def compute():  # in the forked child: without the fork rule this is where it hangs
    {compute}

before = os_threads()
{parent}
started = os_threads()
with multiprocessing.get_context("fork").Pool(2) as pool:
    results = [pool.apply_async(compute) for _ in range(2)]
    children = [r.get(timeout=40) for r in results]
expected = compute()  # the parent's own result, with its own default thread count
print(json.dumps(dict(started=None if before is None else started > before,
                      same=all(np.array_equal(c, expected) for c in children))))
"""

X = "np.random.default_rng(0).random((8, 192, 160))"


def _fork_case(prelude, parent, compute):
    got = run(FORK.format(prelude=prelude, parent=parent, compute=compute))
    # The parent really started an OpenMP team (else there would be nothing to test).
    assert got["started"] in (True, None), "the parent never started an OpenMP team"
    assert got["same"], "a forked child computed different numbers"


@POSIX
def test_3_fork_after_cresize_ran():
    if not cresize.openmp_enabled():
        pytest.skip("a serial build starts no OpenMP team")  # nothing can hang
    _fork_case(
        "import cresize",
        f"x = {X}\ncresize.resize(x, (256, 96), mode='bicubic', num_threads=2)",
        f"x = {X}\n    return cresize.resize(x, (256, 96), mode='bicubic')",
    )


@POSIX
def test_3_fork_after_only_a_pytorch_op_with_cresize_imported():
    """The parent imported torch first and ran only a PyTorch op; the child calls resize."""
    pytest.importorskip("torch")
    _fork_case(
        "import torch\nimport cresize",
        "torch.set_num_threads(2)\n"
        "torch.nn.functional.interpolate(torch.rand(4, 8, 256, 256), scale_factor=2)",
        f"x = {X}\n    return cresize.resize(x, (256, 96), mode='bicubic')",
    )


@POSIX
def test_3_fork_after_only_a_pytorch_op_cresize_imported_in_the_child():
    """As above, but cresize is first imported inside the forked worker."""
    pytest.importorskip("torch")
    _fork_case(
        "import torch",
        "torch.set_num_threads(2)\n"
        "torch.nn.functional.interpolate(torch.rand(4, 8, 256, 256), scale_factor=2)",
        f"import cresize\n    x = {X}\n    return cresize.resize(x, (256, 96), mode='bicubic')",
    )


@POSIX
def test_3_fork_with_the_torch_adapter_default_arguments():
    """cresize.torch.interpolate passes num_threads=None through (not torch's count)."""
    pytest.importorskip("torch")
    call = (
        "cresize.torch.interpolate(torch.from_numpy(np.random.default_rng(0).random("
        "(2, 4, 192, 160))), size=(256, 96), mode='bicubic').numpy()"
    )
    _fork_case(
        "import torch\nimport cresize.torch", f"torch.set_num_threads(2)\n{call}", f"return {call}"
    )


@POSIX
def test_3_forked_child_defaults_to_one_thread_explicit_counts_honoured():
    got = run("""
        import json, multiprocessing
        from cresize import _threads
        def child():
            return [_threads.in_forked_child(), _threads.resolve(None), _threads.resolve(-1),
                    _threads.resolve(3)]
        with multiprocessing.get_context("fork").Pool(1) as pool:
            print(json.dumps([pool.apply(child), [_threads.in_forked_child()]]))
        """)
    assert got == [[True, 1, 1, 3], [False]]


@POSIX
@pytest.mark.parametrize("at_top", [False, True], ids=["in-the-worker", "at-the-top"])
def test_3_start_methods_seen_from_a_first_import_after_the_fork(tmp_path, at_top):
    """cresize imported first in the worker: fork/forkserver workers count as forked,
    spawn not. Imported by the worker's function, or at the top of the main script (the
    usual way), which a ``forkserver`` worker imports again while ``multiprocessing``
    prepares it, before its process object exists: that worker counted as spawned
    (2 threads by default) until h71."""
    top = "import cresize" if at_top else ""
    got = run(
        f"""
        import json, multiprocessing
        {top}
        def child():
            from cresize import _kernels, _threads
            return [_threads.in_forked_child(), _threads.resolve(None) == (
                1 if _threads.in_forked_child() else _kernels.max_threads())]
        if __name__ == "__main__":
            seen = {{}}
            for method in ("fork", "forkserver", "spawn"):
                with multiprocessing.get_context(method).Pool(1) as pool:
                    seen[method] = pool.apply_async(child).get(timeout=40)
            from cresize import _threads
            seen["main"] = [_threads.in_forked_child()]
            print(json.dumps(seen))
        """,
        path=tmp_path / "workers.py",
    )
    assert got == {
        "fork": [True, True],
        "forkserver": [True, True],
        "spawn": [False, True],
        "main": [False],
    }


# ----------------------------------------------------------------------------
# 4. Strict validation of shapes, axes and sizes


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: cresize.resize_backward(np.array(2.5), ()), "grad_output"),
        (lambda: cresize.resize_backward(np.ones(3), (2**64,)), "input_shape"),
        (lambda: cresize.resize_backward(np.ones((3, 4)), (True, 4)), "input_shape"),
        (lambda: cresize.resize(np.ones((3, 4)), 5, axes=(True,)), "axes"),
        (lambda: cresize.resize(np.ones((3, 4)), (True, 5)), "size"),
        (lambda: cresize.resize(np.ones((3, 4)), 2**70), "size"),
        (lambda: cresize.resize_backward(np.ones((0, 4)), (3, 4)), "grad_output"),
    ],
)
def test_4_shapes_axes_and_sizes_are_checked(call, name):
    """Needs the plan layer's strict validation (today: shape (1,), OverflowError, bool as 1)."""
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert name in str(info.value)
    if name != "size":  # no size was given: the message must not blame one
        assert "size must be" not in str(info.value)


# ----------------------------------------------------------------------------
# 7. out= without real overlap; sizes as tensors; channels-last kept


def test_7_out_interleaved_with_a_strided_input_is_accepted():
    buf = np.random.default_rng(2).random((9, 4))
    x = buf[::3]  # rows 0, 3, 6: out below takes rows 1 and 2, between them
    before = buf.copy()
    expected = cresize.resize(x, (2, 4), mode="bilinear")
    out = buf[1:3]
    assert np.may_share_memory(out, x) and not np.shares_memory(out, x)
    assert cresize.resize(x, (2, 4), mode="bilinear", out=out) is out
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(buf[::3], before[::3])  # the input is untouched
    gbuf = np.random.default_rng(3).random((9, 4))
    g = gbuf[::3]  # the same for the backward: out between the rows of grad_output
    expected = cresize.resize_backward(g, (2, 4), mode="bilinear")
    assert cresize.resize_backward(g, (2, 4), mode="bilinear", out=gbuf[1:3]) is not None
    np.testing.assert_array_equal(gbuf[1:3], expected)
    with pytest.raises(ValueError, match="share memory"):  # a real overlap is refused
        cresize.resize(buf[::3], (2, 4), out=buf[3:5])


def test_7_torch_sizes_given_as_tensors():
    torch = pytest.importorskip("torch")
    import cresize.torch as ct

    x = torch.rand(2, 3, 6, 5, dtype=torch.float64)
    want = ct.interpolate(x, size=(4, 7), mode="bilinear")
    assert torch.equal(
        ct.interpolate(x, size=(torch.tensor(4), torch.tensor(7)), mode="bilinear"), want
    )
    assert torch.equal(ct.interpolate(x, size=[torch.tensor(4), 7], mode="bilinear"), want)
    assert torch.equal(
        ct.interpolate(x, size=torch.tensor(4), mode="bilinear"),
        ct.interpolate(x, size=4, mode="bilinear"),
    )
    for bad in (torch.tensor(4.0), torch.tensor([4, 7]), torch.tensor(True)):
        with pytest.raises(TypeError, match="size"):
            ct.interpolate(x, size=bad, mode="bilinear")


@pytest.mark.parametrize(
    "name, value",
    [("antialias", None), ("antialias", 0), ("antialias", 1)]
    + [("recompute_scale_factor", 0), ("recompute_scale_factor", 1)],
)
def test_7_torch_flags_take_bools_where_f_interpolate_takes_any_truth_value(name, value):
    """``F.interpolate`` reads ``antialias`` and ``recompute_scale_factor`` by their truth
    value; the adapter's flags are cresize's (True, False; None for the latter): each
    such value is a TypeError naming the flag, cold or after the bool's call (whose plan
    ``1`` must not find), and docs/limits.md lists it as a departure."""
    torch = pytest.importorskip("torch")
    import cresize.torch as ct

    x = torch.rand(1, 1, 4, 4)
    given = dict(size=2) if name == "antialias" else dict(scale_factor=1.5)
    kwargs = dict(given, mode="bilinear", **{name: value})
    torch.nn.functional.interpolate(x, **kwargs)  # taken there
    what = "True or False" if name == "antialias" else "True, False or None"
    for _ in range(2):
        with pytest.raises(TypeError, match=f"^{name} must be {what}; got {value}$"):
            ct.interpolate(x, **kwargs)
        with pytest.raises(TypeError, match=f"^{name} must be {what}; got {value}$"):
            ct.Resize(**kwargs)
        ct.interpolate(x, **dict(kwargs, **{name: bool(value)}))
    limits = os.path.join(os.path.dirname(__file__), "..", "docs", "limits.md")
    with open(limits, encoding="utf-8") as fh:
        assert f"`{name}={value}`" in fh.read()


@pytest.mark.parametrize("dims, fmt", [(4, "channels_last"), (5, "channels_last_3d")])
@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "area"])
def test_7_torch_channels_last_is_kept(dims, fmt, mode):
    """Channels-last in, channels-last out (PyTorch's layout rule), same numbers and gradients."""
    torch = pytest.importorskip("torch")
    import cresize.torch as ct

    F = torch.nn.functional
    if dims == 5 and mode == "bicubic":
        mode = "lanczos3"  # no 3-D bicubic in PyTorch; cresize has every mode in any N-D
    memory_format = getattr(torch, fmt)
    torch_mode = "trilinear" if (dims, mode) == (5, "bilinear") else mode
    # PyTorch's 3-D area (adaptive_avg_pool3d) returns contiguous: cresize keeps the layout.
    comparable = mode != "lanczos3" and (dims, mode) != (5, "area")
    shape, size = ((2, 3, 9, 7), (5, 11)) if dims == 4 else ((2, 3, 4, 9, 7), (3, 5, 11))
    for dtype in (torch.float32, torch.float64):
        base = torch.rand(shape, dtype=dtype, generator=torch.Generator().manual_seed(3))
        x = base.contiguous(memory_format=memory_format).requires_grad_()
        y = ct.interpolate(x, size=size, mode=torch_mode)
        assert y.is_contiguous(memory_format=memory_format) and not y.is_contiguous()
        plain = base.clone().requires_grad_()
        want = ct.interpolate(plain, size=size, mode=torch_mode)
        assert torch.equal(y, want)  # the same numbers, bit for bit, in either layout
        if comparable:
            assert y.stride() == F.interpolate(x.detach(), size=size, mode=torch_mode).stride()
        g = torch.rand(y.shape, dtype=dtype, generator=torch.Generator().manual_seed(4))
        y.backward(g)
        want.backward(g)
        assert torch.equal(x.grad, plain.grad)
    # Ambiguous strides (one channel; 1x1 images) stay contiguous, as in PyTorch.
    for odd in ((2, 1) + shape[2:], shape[:2] + (1,) * (dims - 2)):
        x = torch.rand(odd).contiguous(memory_format=memory_format)
        if comparable:
            assert (
                ct.interpolate(x, size=size, mode=torch_mode).stride()
                == F.interpolate(x, size=size, mode=torch_mode).stride()
            )


def test_7_torch_resize_module_follows_each_input_layout():
    """One ``Resize`` fed channels-last, then contiguous, then channels-last inputs."""
    torch = pytest.importorskip("torch")
    import cresize.torch as ct

    layer = ct.Resize(size=(5, 11), mode="bicubic")
    base = torch.rand(2, 3, 9, 7, dtype=torch.float64)
    want = ct.interpolate(base, size=(5, 11), mode="bicubic")
    for channels_last in (True, False, True):
        x = base.contiguous(memory_format=torch.channels_last) if channels_last else base
        y = layer(x)
        assert torch.equal(y, want)
        assert y.is_contiguous(memory_format=torch.channels_last) == channels_last
        assert y.is_contiguous() != channels_last
