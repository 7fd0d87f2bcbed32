"""Benchmark: the Gaussian Gram against scikit-learn's ``rbf_kernel``.

structk centres the data on a shared point before the BLAS expansion
``|x|^2 + |y|^2 - 2 <x, y>`` and recomputes from direct differences the
entries whose rounding bound is too large (``structk.kernels.vectors._sq_dist``),
so its entries match ``exp(-|x - y|^2 / (2 sigma^2))`` computed from the
differences to about 1e-13 relative, also far from the origin. Printed per
input: medians of both, their ratio, and each one's largest relative error
against the direct computation (``scipy.spatial.distance.cdist``).

Usage::

    python benchmarks/bench_vectors.py [--quick] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import median_time, print_table  # noqa: E402


def _rel_err(K, ref):
    m = ref > 0
    return float(np.abs(K[m] / ref[m] - 1.0).max())


def main():
    from scipy.spatial.distance import cdist
    from sklearn.metrics.pairwise import rbf_kernel

    from structk.kernels import Gaussian

    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n = 500 if args.quick else 3000
    rng = np.random.default_rng(0)
    inputs = [
        ("N(0,1), d=20", rng.normal(size=(n, 20)), 3.0),
        ("N(0,1), d=300", rng.normal(size=(n, 300)), 12.0),
        ("1e6 + N(0,1), d=20", 1e6 + rng.normal(size=(n, 20)), 3.0),
        (
            "two clusters +-1e6, d=20",
            np.vstack(
                [1e6 + rng.normal(size=(n // 2, 20)), -1e6 + rng.normal(size=(n - n // 2, 20))]
            ),
            3.0,
        ),
    ]
    rows = []
    for name, X, sigma in inputs:
        k = Gaussian(sigma=sigma)
        ref = np.exp(-cdist(X, X, "sqeuclidean") / (2 * sigma**2))
        t_s = median_time(lambda: k(X), args.repeats)
        t_p = median_time(lambda: rbf_kernel(X, gamma=1 / (2 * sigma**2)), args.repeats)
        rows.append(
            [
                name,
                f"{t_s * 1e3:.1f}",
                f"{t_p * 1e3:.1f}",
                f"{t_s / t_p:.2f}",
                f"{_rel_err(k(X), ref):.1e}",
                f"{_rel_err(rbf_kernel(X, gamma=1 / (2 * sigma**2)), ref):.1e}",
            ]
        )
    print(f"n = {n}, load average {os.getloadavg()[0]:.1f}")
    print_table(
        rows, ["input", "structk ms", "sklearn ms", "ratio", "structk rel err", "sklearn rel err"]
    )


if __name__ == "__main__":
    main()
