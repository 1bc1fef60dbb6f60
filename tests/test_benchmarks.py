"""The benchmark scripts' round order (``benchmarks/run.py``): every library measured
once a round, and each in each place equally often."""

import collections
import importlib.util
import pathlib

import pytest

RUN = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "run.py"
pytestmark = pytest.mark.skipif(not RUN.is_file(), reason="a wheel's tests: no benchmarks/")


@pytest.fixture(scope="module")
def run():
    spec = importlib.util.spec_from_file_location("cresize_benchmarks_run", RUN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("repeat", [5, 9, 31])
def test_each_library_runs_in_each_place_equally_often(run, k, repeat):
    names = [f"lib{i}" for i in range(k)]
    orders = [run.round_order(names, r) for r in range(repeat)]
    assert all(sorted(o) == names for o in orders)  # each library once a round
    assert orders == [run.round_order(names, r) for r in range(repeat)]  # reproducible
    for place in range(k):
        count = collections.Counter(o[place] for o in orders)
        counts = [count[name] for name in names]
        assert max(counts) - min(counts) <= 1, (place, counts)


def test_the_neighbours_change_from_block_to_block(run):
    names = ["a", "b", "c", "d"]
    pairs = {tuple(run.round_order(names, r)[:2]) for r in range(40)}
    assert len(pairs) > len(names)  # one rotated order would give only 4 leading pairs


def test_measure_times_every_library_repeat_times(run):
    calls = collections.Counter()
    funcs = {name: (lambda name=name: calls.update([name])) for name in "abc"}
    result = run.measure(funcs, 7)
    assert set(result) == set("abc") and all(calls[name] == 8 for name in "abc")  # + warm-up


def test_latency_times_every_library_repeat_times(monkeypatch):
    monkeypatch.syspath_prepend(str(RUN.parent))
    latency = importlib.import_module("latency")
    calls = collections.Counter()
    funcs = {name: (lambda name=name: calls.update([name])) for name in "ab"}
    result = latency.timed(funcs, 3, target=0.001)
    assert set(result) == set("ab") and calls["a"] > 3 and calls["b"] > 3
