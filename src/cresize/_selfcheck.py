"""``python -m cresize``: the build configuration and a self-check of every mode.

Each mode configuration is resized forward and backward on a small random
batch and checked against the dense operator ``cresize.weights`` (float64), the
adjoint identity and thread-count independence. Exit status 1 on any failure.
"""

import argparse

import numpy as np

import cresize
from cresize import _spec


def configurations():
    """Every valid (mode, align_corners, antialias)."""
    return _spec.configurations()


def check(options, shape=(2, 3, 23, 17), size=(9, 40)):
    """Worst errors of one configuration: (dense, adjoint, threads) in float64."""
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, shape)
    y = cresize.resize(x, size, **options)
    wy = cresize.weights(shape[-2], size[0], **options)
    wx = cresize.weights(shape[-1], size[1], **options)
    dense = np.abs(y - np.einsum("oi,bcij,pj->bcop", wy, x, wx)).max()
    g = rng.uniform(-1, 1, y.shape)
    gx = cresize.resize_backward(g, x.shape, **options)
    adjoint = abs(np.vdot(y, g) - np.vdot(x, gx)) / (np.abs(y).ravel() @ np.abs(g).ravel())
    same = all(
        np.array_equal(cresize.resize(x, size, num_threads=n, **options), y)
        and np.array_equal(cresize.resize_backward(g, x.shape, num_threads=n, **options), gx)
        for n in (1, 2, 3)
    )
    return dense, adjoint, same


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="cresize selfcheck",
        description="Print the build configuration and self-check every mode.",
    )
    try:
        parser.parse_args(argv)
    except SystemExit as exc:  # -h or a usage error: the status, as the other subcommands
        return exc.code
    cresize.show_config()
    print()
    print(
        f"{'mode':14s} {'align_corners':>13s} {'antialias':>9s} {'vs dense':>10s} "
        f"{'adjoint':>10s} {'threads':>8s}"
    )
    failed = 0
    for options in configurations():
        dense, adjoint, same = check(options)
        ok = dense < 1e-12 and adjoint < 1e-13 and same
        failed += not ok
        print(
            f"{options['mode']:14s} {options['align_corners']!s:>13s} {options['antialias']!s:>9s} "
            f"{dense:10.1e} {adjoint:10.1e} {'same' if same else 'DIFFER':>8s}"
            f"{'' if ok else '  FAILED'}"
        )
    print("self-check " + ("passed" if not failed else f"FAILED in {failed} configurations"))
    return 1 if failed else 0
