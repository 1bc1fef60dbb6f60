"""Fixtures shared by the test modules; shared code lives in ``tests/helpers``."""

import pytest

from helpers.data import burn_cases as _burn_cases


@pytest.fixture(scope="session")
def burn_cases():
    """burn's interpolate fixtures (``tests/data/burn_interpolate_cases.json``)."""
    return _burn_cases()


@pytest.fixture(scope="module")
def torch_one_thread():
    """One PyTorch thread for a module of tiny tensors (``torch.set_num_threads`` sets
    the shared OpenMP default); the count before is restored after the module."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
