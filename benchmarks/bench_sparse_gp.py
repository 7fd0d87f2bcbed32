"""Benchmark: the sparse GP (Titsias' bound on landmarks) against the exact GP.

Two tasks, each with a held-out test set of 1000 objects:

* ``strings``: random DNA sequences of length 20; the target is a sum of
  position-free motif counts (``CG`` dinucleotides, ``AAT``) plus Gaussian
  noise of sd 0.3; kernel ``1.0 * Normalize(Spectrum(k=5))`` (output scale
  and noise learned);
* ``vectors``: Friedman's first function on 5 uniform inputs (noise sd
  1.0); kernel ``1.0 * Gaussian(sigma=1.0)`` (output scale, bandwidth and
  noise learned).

For each ``n`` where the exact GP fits (``--exact-n``), both are fitted
with ``normalize_y=True`` from the same starting hyperparameters and
compared on the test set: RMSE, the mean negative log predictive density
(NLPD, nats per test object, from the predictive mean and std, which
include the learned noise), the coverage of the 95 % intervals, the
largest relative difference between the sparse and the exact predictive
std, fit and predict wall time, and the peak of the memory that Python and
NumPy allocate during fit + predict (``tracemalloc``; numba's own
scratch is not counted, and it holds no n x n array either).

``--large-n`` (default 100000; 0 skips it) then fits the sparse GP on that
many strings and reports the same figures with the peak memory beside the
8 n^2 bytes one n x n float64 matrix would take.

Figures depend on the machine and what else runs on it; the ones in
``docs/gp.md`` come from a shared 2-core machine under load.

Usage::

    python benchmarks/bench_sparse_gp.py [--quick] [--m 200 500] [--exact-n 1000 2000]
        [--large-n 100000] [--task strings vectors]
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def strings(n, rng):
    X = ["".join(s) for s in rng.choice(list("ACGT"), size=(n, 20))]
    y = np.array([s.count("CG") + 0.7 * s.count("AAT") for s in X], dtype=float)
    return X, y + 0.3 * rng.normal(size=n)


def vectors(n, rng):
    X = rng.uniform(size=(n, 5))
    f = (
        10 * np.sin(np.pi * X[:, 0] * X[:, 1])
        + 20 * (X[:, 2] - 0.5) ** 2
        + 10 * X[:, 3]
        + 5 * X[:, 4]
    )
    return X, f + rng.normal(size=n)


def kernel(task):
    from structk.kernels import Gaussian, Normalize, Spectrum

    return 1.0 * Normalize(Spectrum(k=5)) if task == "strings" else 1.0 * Gaussian(sigma=1.0)


def run(model, X, y, X_test, y_test):
    """Fit and predict, with the wall times and the tracemalloc peak."""
    tracemalloc.start()
    try:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
        t1 = time.perf_counter()
        mean, std = model.predict(X_test, return_std=True)
        t2 = time.perf_counter()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    err = y_test - mean
    nlpd = float(np.mean(0.5 * np.log(2 * np.pi * std**2) + 0.5 * (err / std) ** 2))
    return {
        "rmse": float(np.sqrt(np.mean(err**2))),
        "nlpd": nlpd,
        "cover": float(np.mean(np.abs(err) <= 1.96 * std)),
        "fit": t1 - t0,
        "predict": t2 - t1,
        "peak": peak,
        "std": std,
        "bound": model.log_marginal_likelihood_value_,
    }


def row(label, n, r, extra=""):
    print(
        f"{label:<8} {n:>7} {r['rmse']:>7.3f} {r['nlpd']:>7.3f} {r['cover']:>6.3f} "
        f"{r['fit']:>8.1f} {r['predict']:>7.2f} {r['peak'] / 2**20:>9.1f} {extra}",
        flush=True,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run")
    parser.add_argument(
        "--m",
        type=int,
        nargs="+",
        default=[200],
        help="landmarks of the sparse GP (the first: large n)",
    )
    parser.add_argument("--exact-n", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--large-n", type=int, default=100_000)
    parser.add_argument("--task", nargs="+", default=["strings", "vectors"])
    args = parser.parse_args()
    if args.quick:
        args.exact_n, args.large_n, args.m = [300], 2000, [50]

    from structk.learners import GaussianProcessRegressor, SparseGaussianProcessRegressor

    for task in args.task:
        make = strings if task == "strings" else vectors
        rng = np.random.default_rng(0)
        X_test, y_test = make(1000, rng)
        # compile the kernel's loops outside the timings
        X, y = make(60, np.random.default_rng(1))
        GaussianProcessRegressor(kernel(task), noise=0.1).fit(X, y).predict(X_test[:5])
        SparseGaussianProcessRegressor(kernel(task), n_components=10, noise=0.1).fit(X, y)
        print(f"\n{task}: kernel {kernel(task)!r}, m = {args.m} landmarks (uniform)")
        print(
            f"{'model':<8} {'n':>7} {'RMSE':>7} {'NLPD':>7} {'cover':>6} "
            f"{'fit s':>8} {'pred s':>7} {'peak MiB':>9}"
        )
        for n in args.exact_n:
            X, y = make(n, np.random.default_rng(n))
            exact = run(
                GaussianProcessRegressor(kernel(task), noise=0.1, normalize_y=True),
                X,
                y,
                X_test,
                y_test,
            )
            row("exact", n, exact, f"lml {exact['bound']:.1f}")
            for m in args.m:
                sparse = run(
                    SparseGaussianProcessRegressor(
                        kernel(task),
                        n_components=min(m, n),
                        noise=0.1,
                        normalize_y=True,
                        random_state=0,
                    ),
                    X,
                    y,
                    X_test,
                    y_test,
                )
                ratio = sparse["std"] / exact["std"] - 1.0
                row(
                    f"m={m}",
                    n,
                    sparse,
                    f"bound {sparse['bound']:.1f}; std / exact std - 1: median "
                    f"{np.median(ratio):.3f}, max |.| {np.max(np.abs(ratio)):.3f}",
                )
        if task == "strings" and args.large_n:
            n = args.large_n
            X, y = make(n, np.random.default_rng(n))
            sparse = run(
                SparseGaussianProcessRegressor(
                    kernel(task),
                    n_components=args.m[0],
                    noise=0.1,
                    normalize_y=True,
                    random_state=0,
                ),
                X,
                y,
                X_test,
                y_test,
            )
            row(f"m={args.m[0]}", n, sparse, f"(one n x n matrix: {8 * n * n / 2**30:.1f} GiB)")


if __name__ == "__main__":
    main()
