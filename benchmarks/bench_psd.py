"""check_psd (Cholesky fast path) vs numpy.linalg.eigvalsh on PSD Gram matrices.

Usage: python benchmarks/bench_psd.py [--quick] [--repeat R]

Both decide the same question on the same matrix in the same run: is the
smallest eigenvalue >= -tol? eigvalsh computes all eigenvalues; check_psd
certifies a PSD matrix by one Cholesky factorisation of K + tol*I.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import median_time, print_table  # noqa: E402

from structk import check_psd  # noqa: E402
from structk.kernels import Gaussian  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    sizes = [300, 600] if args.quick else [2000, 5000]
    repeat = 1 if args.quick else args.repeat

    rng = np.random.default_rng(0)
    rows = []
    for n in sizes:
        X = rng.normal(size=(n, 5))
        K = Gaussian(sigma=2.0)(X)  # valid kernel: PSD up to rounding
        report = check_psd(K)
        lam_min = np.linalg.eigvalsh(K)[0]
        assert report.is_psd and lam_min >= -report.tol, "benchmark input must be PSD"
        t_chk = median_time(lambda: check_psd(K), repeat=repeat)
        t_eig = median_time(lambda: np.linalg.eigvalsh(K), repeat=repeat)
        rows.append(
            [
                n,
                f"{t_chk:.3f}",
                f"{t_eig:.3f}",
                f"{t_eig / t_chk:.1f}x",
                f"{lam_min:.2e}",
                f"{report.tol:.2e}",
            ]
        )
    print(f"PSD check on RBF Gram matrices (median of {repeat}; {os.cpu_count()} cores)")
    print_table(rows, ["n", "check_psd s", "eigvalsh s", "speed-up", "lambda_min", "tol"])


if __name__ == "__main__":
    main()
