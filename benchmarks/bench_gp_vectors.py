"""Benchmark: Gaussian-process regression on vectors, structk against scikit-learn.

The issue's goal for vector kernels (#37): structk's
``GaussianProcessRegressor`` at least as fast as scikit-learn's on the same
model. Both fit ``c * RBF(sigma)`` plus a learned noise variance by L-BFGS-B
on the exact marginal likelihood from the same start (``c = 1``,
``sigma = 1``, noise 1, ``normalize_y=True``, no restarts), then predict the
mean and standard deviation of the test part:

* structk: ``GaussianProcessRegressor(1.0 * Gaussian(1.0), noise=1.0,
  normalize_y=True)``;
* scikit-learn: ``GaussianProcessRegressor(ConstantKernel(1.0) * RBF(1.0) +
  WhiteKernel(1.0), normalize_y=True)`` (the same model: its white noise is
  structk's learned noise, and both add it to the predictive variance).

Data: scikit-learn's bundled diabetes regression (442 x 10, standardised
features) and a smooth synthetic function of 8 standardised features with
noise, at several sizes; 80 / 20 split (``random_state=0``). Each fit plus
prediction is timed alternately for the two libraries in one process
(``_timing.alternating_wall_cpu``: each takes every place in turn), medians
of wall clock and of the process's CPU seconds (all threads), and the
machine's load average before and after. Printed beside them: the largest
relative difference of the learned hyperparameters, log marginal
likelihoods, means and standard deviations between the two (the fits
agree when the optimisers stop at the same point).

Usage::

    python benchmarks/bench_gp_vectors.py [--sizes 200 500 1000] [--repeats 6]
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import alternating_wall_cpu, print_table  # noqa: E402


def datasets(sizes):
    """``{name: (X, y)}``: diabetes and the synthetic function at each size."""
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    out = {"diabetes 442 x 10": (X, y)}
    rng = np.random.default_rng(0)
    for n in sizes:
        Z = rng.normal(size=(n, 8))
        f = np.sin(Z[:, 0]) + 0.5 * Z[:, 1] * Z[:, 2] + np.cos(Z[:, 3] + Z[:, 4])
        out[f"synthetic {n} x 8"] = (Z, f + 0.2 * rng.normal(size=n))
    return out


def fitters(X, y):
    """The two fit-and-predict calls on one 80 / 20 split, each returning
    (learned values, log marginal likelihood, mean, std)."""
    from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from structk.kernels import Gaussian
    from structk.learners import GaussianProcessRegressor

    tr, te = train_test_split(np.arange(len(y)), test_size=0.2, random_state=0)
    scaler = StandardScaler().fit(X[tr])
    Xtr, Xte = scaler.transform(X[tr]), scaler.transform(X[te])

    def structk_fit():
        gp = GaussianProcessRegressor(1.0 * Gaussian(1.0), noise=1.0, normalize_y=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gp.fit(Xtr, y[tr])
        mean, std = gp.predict(Xte, return_std=True)
        learned = [gp.kernel_.factor, gp.kernel_.kernel.sigma, gp.noise_]
        return learned, gp.log_marginal_likelihood_value_, mean, std

    def sklearn_fit():
        kernel = ConstantKernel(1.0) * RBF(1.0) + WhiteKernel(1.0)
        gp = SkGPR(kernel, normalize_y=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gp.fit(Xtr, y[tr])
        mean, std = gp.predict(Xte, return_std=True)
        k = gp.kernel_
        learned = [k.k1.k1.constant_value, k.k1.k2.length_scale, k.k2.noise_level]
        return learned, gp.log_marginal_likelihood_value_, mean, std

    return structk_fit, sklearn_fit


def _rel(a, b):
    a, b = np.atleast_1d(np.asarray(a, float)), np.atleast_1d(np.asarray(b, float))
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 500, 1000])
    parser.add_argument("--repeats", type=int, default=6, help="alternated rounds (6)")
    args = parser.parse_args(argv)
    rows = []
    for name, (X, y) in datasets(args.sizes).items():
        ours, theirs = fitters(X, y)
        a, b = ours(), theirs()
        diff = {
            "theta": _rel(a[0], b[0]),
            "lml": _rel(a[1], b[1]),
            "mean": _rel(a[2], b[2]),
            "std": _rel(a[3], b[3]),
        }
        before = os.getloadavg()[0]
        (w_s, c_s), (w_k, c_k) = alternating_wall_cpu([ours, theirs], args.repeats)
        after = os.getloadavg()[0]
        rows.append(
            [
                name,
                f"{w_s * 1e3:.1f} / {c_s * 1e3:.1f}",
                f"{w_k * 1e3:.1f} / {c_k * 1e3:.1f}",
                f"{w_k / w_s:.2f}x / {c_k / c_s:.2f}x",
                " ".join(f"{k} {v:.0e}" for k, v in diff.items()),
                f"{before:.1f} / {after:.1f}",
            ]
        )
        print(f"{name}: done", flush=True)
    print_table(
        rows,
        [
            "data",
            "structk ms (wall / CPU)",
            "scikit-learn ms (wall / CPU)",
            "sklearn / structk",
            "largest relative difference",
            "load",
        ],
    )


if __name__ == "__main__":
    main()
