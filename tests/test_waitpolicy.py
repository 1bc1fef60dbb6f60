"""OpenMP's wait policy (cresize._waitpolicy): PASSIVE unless the user chose.

Each case runs in a fresh interpreter, since the runtime reads the policy once, as
it loads (on Linux, during ``import cresize``, which loads the kernels' library);
OMP_DISPLAY_ENV=VERBOSE makes libgomp print what it took: its spin count
(GOMP_SPINCOUNT, 0 for the passive policy, 300000 by default) tells them apart.
"""

import os
import re
import sys

import pytest

import cresize
from cresize import _waitpolicy
from helpers.proc import run_python

pytestmark = [
    pytest.mark.skipif(
        not cresize.openmp_enabled(), reason="a serial build has no OpenMP runtime to set"
    ),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="cresize sets it on Linux"),
]

CHILD = """
import os
{before}
import sys
import cresize
print(os.environ.get("OMP_WAIT_POLICY"))
print("numpy" in sys.modules or "cresize._kernels" in sys.modules)
{after}
import cresize._kernels
print(os.environ.get("OMP_WAIT_POLICY"))
print(cresize.show_config("dicts")["openmp"]["wait_policy"])
"""


def _run(env_extra, before="", after=""):
    env = {k: v for k, v in os.environ.items() if k not in _waitpolicy.USER_VARIABLES}
    env.update(env_extra, OMP_DISPLAY_ENV="VERBOSE")
    code, out, err = run_python(["-c", CHILD.format(before=before, after=after)], env, 60)
    assert code == 0, err
    spins = re.findall(r"GOMP_SPINCOUNT\s*=\s*'(\d+)'", err)
    if not spins:
        pytest.skip("the OpenMP runtime is not libgomp: it does not print its spin count")
    return out.splitlines(), [int(n) for n in spins]


def test_passive_by_default_and_never_left_in_the_environment():
    (at_import, eager, after_load, described), runtime = _run({})
    assert at_import == after_load == "None"  # nothing started later inherits it
    assert eager == "False"  # the library loaded, not NumPy or the module
    assert described.startswith("PASSIVE")
    assert runtime == [0]  # threads sleep at once


@pytest.mark.parametrize("value", ["ACTIVE", "passive"])
def test_the_users_wait_policy_wins(value):
    (at_import, _, after_load, described), runtime = _run({"OMP_WAIT_POLICY": value})
    assert at_import == after_load == value
    assert described == f"the user's (OMP_WAIT_POLICY={value})"
    assert (runtime[0] == 0) == (value == "passive")


def test_a_users_spin_count_is_left_alone():
    (at_import, _, after_load, described), runtime = _run({"GOMP_SPINCOUNT": "1000"})
    assert at_import == after_load == "None"  # cresize set nothing
    assert described == "the user's (GOMP_SPINCOUNT=1000)"
    assert runtime == [1000]


def test_a_runtime_loaded_before_cresize_keeps_its_policy():
    before = "import ctypes; ctypes.CDLL('libgomp.so.1')"
    try:
        import ctypes

        ctypes.CDLL("libgomp.so.1")
    except OSError:
        pytest.skip("no libgomp.so.1 to load by name on this system")
    (at_import, _, after_load, described), runtime = _run({}, before)
    assert at_import == after_load == "None"  # nothing set: it would have no effect
    assert described.startswith("the runtime's own")
    assert runtime[0] > 0  # libgomp's default spin (300000), printed as it loaded


def test_a_policy_chosen_after_import_cresize_comes_too_late_and_is_left_alone():
    after = "os.environ['OMP_WAIT_POLICY'] = 'ACTIVE'"  # before the module loads
    (at_import, _, after_load, described), runtime = _run({}, after=after)
    assert at_import == "None" and after_load == "ACTIVE"  # theirs, left in place
    assert described.startswith("PASSIVE")  # what the runtime took at import
    assert runtime == [0]
