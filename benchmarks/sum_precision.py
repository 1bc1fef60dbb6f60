"""Could 16-bit images be summed in float32? The accuracy side of the question.

    PYTHONPATH=src python benchmarks/sum_precision.py [--trials 1500] [--max-taps 8] [--seed 1]

docs/spec.md section 5 asks every integer output to be within 1 of the float64
result and at least 99% of them to equal it (either tie rule). 16-bit images are
summed in float64 (docs/kernels.md). This script measures, on random uint16/int16
images with hard edges (bands of the minimum and maximum and a min/max checkerboard,
as tests/test_integer_kernels.py draws them), the share of outputs that would differ
from the float64 result under other sums:

- ``float32``: both passes in float32;
- ``float32 centred``: the same with uint16 values shifted by -32768 before summing
  and back after, which keeps sums near mid-grey small;
- ``f64 rows, f32 ring``: the width resampled in float64 (centred), its rows stored as
  float32 (the ring of an enlarging), the height summed in float32;
- ``f64 rows, f32 ring, f64 sums``: the same rows stored as float32, the height summed
  in float64 (only the rounding of the stored rows).

The last two resample the width first, as the ring of an enlarging does. Only
geometries whose tables sum at most ``--max-taps`` taps per output are drawn. It
prints the worst case, the mean, the 99th percentile and the largest difference.
"""

import argparse

import numpy as np

import cresize


def image(rng, shape, dtype):
    info = np.iinfo(dtype)
    x = rng.integers(info.min, int(info.max) + 1, shape, dtype=np.int64)
    w = shape[1]
    x[:, : w // 4] = info.max
    x[:, w // 4 : w // 3 + 1] = info.min
    i, j = np.indices(shape)
    right = j >= 2 * w // 3
    x[right] = np.where(((i + j) % 2 == 0)[right], info.max, info.min)
    return x.astype(dtype)


def _schemes(x, size, c, kw):
    """The float results of the schemes above (``c``: the centring shift)."""
    h = x.shape[0]
    xc = x.astype(np.float64) - c
    rows = cresize.resize(xc, (h, size[1]), **kw).astype(np.float32)
    return {
        "float32": cresize.resize(x.astype(np.float32), size, **kw).astype(np.float64),
        "float32 centred": cresize.resize(xc.astype(np.float32), size, **kw).astype(np.float64) + c,
        "f64 rows, f32 ring": cresize.resize(rows, size, **kw).astype(np.float64) + c,
        "f64 rows, f32 ring, f64 sums": cresize.resize(rows.astype(np.float64), size, **kw) + c,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1500)
    ap.add_argument("--max-taps", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    shares, worst, most = {}, {}, {}
    done = 0
    while done < args.trials:
        mode = str(rng.choice(["bilinear", "bicubic", "lanczos3", "area"]))
        aa = bool(rng.integers(2)) and mode != "area"
        ac = bool(rng.integers(2)) and mode in ("bilinear", "bicubic")
        (h, w), (oh, ow) = rng.integers(3, 120, 2), rng.integers(3, 300, 2)
        kw = dict(mode=mode, antialias=aa, align_corners=ac)
        taps = max(
            int((cresize.weights(n, o, **kw) != 0).sum(1).max()) for n, o in ((h, oh), (w, ow))
        )
        if taps > args.max_taps:
            continue
        done += 1
        dtype = np.uint16 if rng.integers(2) else np.int16
        info = np.iinfo(dtype)
        x = image(rng, (int(h), int(w)), dtype)
        exact = np.clip(cresize.resize(x.astype(np.float64), (oh, ow), **kw), info.min, info.max)
        centre = 32768.0 if info.min == 0 else 0.0
        for name, y in _schemes(x, (int(oh), int(ow)), centre, kw).items():
            got = np.clip(np.rint(y), info.min, info.max)
            off = np.abs(got - exact)
            share = float(np.mean(off > 0.5 + 1e-9 * 65535))
            shares.setdefault(name, []).append(share)
            most[name] = max(most.get(name, 0.0), float(off.max()))
            if share > worst.get(name, (0.0, None))[0]:
                worst[name] = (
                    share,
                    (mode, aa, ac, (int(h), int(w)), (int(oh), int(ow)), dtype.__name__),
                )
    print(f"{args.trials} geometries with at most {args.max_taps} taps per output")
    for name, s in shares.items():
        share, where = worst.get(name, (0.0, None))
        print(
            f"{name}: outputs differing from float64: worst {share:.3%} {where}, "
            f"mean {np.mean(s):.4%}, 99th percentile {np.percentile(s, 99):.3%}, "
            f"largest difference {most[name]:.2f}"
        )


if __name__ == "__main__":
    main()
