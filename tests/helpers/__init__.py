"""Shared test code: the dense oracle, the PyTorch reference, test data and case lists.

Test modules import from here (``from helpers.oracle import ...``) and never from
one another. ``tests/`` is on ``sys.path`` because it has no ``__init__.py``
(pytest's default ``prepend`` import mode).
"""
