"""A fixed slice of the large fuzz campaign (``tests/helpers/fuzz_large.py``).

The cases of tests/test_fuzz_fast.py and tests/test_fuzz.py are small: every kernel call
they make has less than ``2 * _plan.MIN_WORK_PER_THREAD`` values read and written, so
it runs on one thread whatever ``num_threads`` asks (``_fast.run_step``), and their
"same bits for 1, 2 and 3 threads" never meets the quick pair or an OpenMP team
(``paths`` over their cases: no ``pair2``, no ``team3``). These campaign cases do (each
picked from a campaign run for the paths it reaches, and quick), with every check of the
campaign: the oracle, the integer rules, 1/2/3 threads, ``out=``, plans, regions, the
adjoint identity, and the same bits at every other SIMD level of this CPU.
"""

import pytest

from helpers.fuzz_large import check_large, make_large_case, paths

# the oracle's dense float64 products meet the cases' Inf and NaN inputs
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

#: (campaign seed, case index, focus)
SLICE = [
    (201, 452, "blocks"),
    (102, 288, "all"),
    (201, 677, "blocks"),
    (101, 61, "all"),
    (101, 165, "all"),
    (101, 424, "all"),
    (101, 1681, "all"),
    (101, 366, "all"),
    (102, 700, "all"),
    (102, 620, "all"),
    (101, 175, "all"),
    (101, 1265, "all"),
    (201, 822, "blocks"),
    (101, 425, "all"),
    (101, 532, "all"),
    (201, 255, "blocks"),
    (102, 64, "all"),
    (101, 320, "all"),
    (201, 1047, "blocks"),
    (201, 488, "blocks"),
    (101, 1321, "all"),
    (201, 524, "blocks"),
]

CASES = [make_large_case(seed, index, focus) for seed, index, focus in SLICE]


def test_the_slice_reaches_the_threaded_paths():
    reached = set().union(*(paths(c) for c in CASES))
    want = {
        "pair2",
        "team3",
        "fwd:FUSED:RING",
        "fwd:FUSED:VERTICAL_FIRST",
        "fwd:FUSED:DIRECT",
        "fwd:LINES",
        "fwd:PLANES",
        "fwd:selection",
        "fwd:wide-int",
        "bwd:FUSED:RING",
        "bwd:FUSED:VERTICAL_FIRST",
        "bwd:LINES",
        "bwd:PLANES",
        "periodic",
        "x_block2",
        "y_block2",
        "same_x_weights",
        "unit_blocks",
        "periodic16_exact32",
    }
    assert want <= reached, want - reached
    assert {f"channels{c}" for c in range(2, 10)} <= reached
    assert {str(c["dtype"]) for c in CASES} >= {"uint8", "int16", "uint16", "float16", "float32"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['seed']}-{c['index'] % 10**7}")
def test_large_case(case):
    assert "team3" in paths(case) or "pair2" in paths(case)
    check_large(case)
