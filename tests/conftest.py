"""Fixtures shared by the test modules; shared code lives in ``tests/helpers``."""

import pytest

from helpers.data import burn_cases as _burn_cases


@pytest.fixture(scope="session")
def burn_cases():
    """burn's interpolate fixtures (``tests/data/burn_interpolate_cases.json``)."""
    return _burn_cases()
