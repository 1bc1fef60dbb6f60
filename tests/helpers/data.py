"""The test data shipped in ``tests/data`` (see its README for provenance)."""

import functools
import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
BURN_CASES = DATA / "burn_interpolate_cases.json"


@functools.cache
def burn_cases():
    """burn's interpolate fixtures: a list of dicts (read once; never skipped when missing)."""
    return json.loads(BURN_CASES.read_text())
