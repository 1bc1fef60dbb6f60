"""Could 16-bit images be summed in float32? The accuracy side of the question.

    PYTHONPATH=src python benchmarks/sum_precision.py [--trials 1500] [--max-taps 8]

docs/spec.md section 5 asks every integer output to be within 1 of the float64
result and at least 99% of them to equal it (either tie rule). 16-bit images are
summed in float64 (docs/kernels.md). This script measures, on random uint16/int16
images with hard edges (bands of the minimum and maximum and a min/max checkerboard,
as tests/test_integer_kernels.py draws them), the share of outputs that would differ
from the float64 result if the sums were float32: plainly, and "centred" (uint16
values shifted by -32768 before summing and back after, which keeps sums near
mid-grey small). Only geometries whose tables sum at most ``--max-taps`` taps per
output are drawn. It prints the worst case, the mean and the 99th percentile.
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1500)
    ap.add_argument("--max-taps", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    shares = {"float32": [], "float32 centred": []}
    worst = dict.fromkeys(shares, (0.0, None))
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
        for name, c in (("float32", 0.0), ("float32 centred", centre)):
            y = cresize.resize(x.astype(np.float32) - np.float32(c), (oh, ow), **kw)
            got = np.clip(np.rint(y.astype(np.float64) + c), info.min, info.max)
            share = float(np.mean(np.abs(got - exact) > 0.5 + 1e-9 * 65535))
            shares[name].append(share)
            if share > worst[name][0]:
                worst[name] = (
                    share,
                    (mode, aa, ac, (int(h), int(w)), (int(oh), int(ow)), dtype.__name__),
                )
    print(f"{args.trials} geometries with at most {args.max_taps} taps per output")
    for name, s in shares.items():
        print(
            f"{name}: outputs differing from float64: worst {worst[name][0]:.3%} "
            f"{worst[name][1]}, mean {np.mean(s):.4%}, 99th percentile {np.percentile(s, 99):.3%}"
        )


if __name__ == "__main__":
    main()
