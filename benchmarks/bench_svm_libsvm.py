"""``KernelSVM`` with its defaults against scikit-learn's ``SVC`` (LIBSVM).

Usage: python benchmarks/bench_svm_libsvm.py [--sizes 5000 10000] [--repeat R]

Binary problems of ``n`` noisy points in 10 dimensions (the label is the
sign of the first coordinate plus noise), a Gaussian kernel of
``sigma = 3`` (``gamma = 1/18``), ``C = 1``, LIBSVM's tolerance 1e-3. For
each ``n``, in one run and alternating:

* from vectors: ``KernelSVM(Gaussian(sigma=3.0))`` (default safeguard,
  ``psd_check="auto"``), the same with ``psd_check="none"``, and
  ``SVC(kernel="rbf", gamma=1/18)``;
* precomputed: ``KernelSVM("precomputed")`` (default safeguard),
  ``psd_check="none"``, and ``SVC(kernel="precomputed")`` on the same Gram;
* the first contact: a fit of 170 points with and without the safeguard.

Prints median wall and CPU seconds, the ratio LIBSVM / structk (> 1: structk
faster) and the safeguard's share of the default fit, twice: the difference
of the two fits (noisy: what ran before a fit of a few hundred MB changes
its time by up to 30 %; and ``psd_check="none"`` still reads the Gram once
for finiteness, which the check's pass replaces) and the check alone, timed
as the fit runs it (on a given Gram: the necessary pass and the
factorisation of the free support vectors' block). Both fits' test
accuracies are printed too (they must agree to about 1 %).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import alternating_wall_cpu, median_wall_cpu, print_table  # noqa: E402


def problem(n, seed=0, d=10):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 10000])
    parser.add_argument("--repeat", type=int, default=6)
    args = parser.parse_args()

    from sklearn.svm import SVC

    from structk.algorithms.gram_blocks import mirror_and_scan
    from structk.kernels import Gaussian
    from structk.learners import KernelSVM
    from structk.learners._psd import check_psd_policy, solution_block_psd

    sigma = 3.0
    gamma = 1.0 / (2.0 * sigma**2)
    rows = []
    for n in [170, *args.sizes]:
        X, y = problem(n)
        Xt, yt = problem(2000, seed=1)
        K = Gaussian(sigma=sigma)(X)
        fits = {
            "vectors, default": lambda: KernelSVM(Gaussian(sigma=sigma)).fit(X, y),
            "vectors, psd_check='none'": lambda: KernelSVM(
                Gaussian(sigma=sigma), psd_check="none"
            ).fit(X, y),
            "vectors, LIBSVM": lambda: SVC(kernel="rbf", gamma=gamma).fit(X, y),
        }
        if n > 170:
            fits |= {
                "precomputed, default": lambda: KernelSVM("precomputed").fit(K, y),
                "precomputed, psd_check='none'": lambda: KernelSVM(
                    "precomputed", psd_check="none"
                ).fit(K, y),
                "precomputed, LIBSVM": lambda: SVC(kernel="precomputed").fit(K, y),
            }
        times = dict(zip(fits, alternating_wall_cpu(list(fits.values()), args.repeat)))
        # the safeguard alone, as each fit runs it: on a Gram the fit
        # computed (scanned when it was mirrored), and on a given one (the
        # necessary pass, and after the solve the block of the free support
        # vectors: structk.learners._psd, "What a precomputed SVM fit certifies")
        scan = mirror_and_scan(K.copy())
        model = KernelSVM("precomputed").fit(K, y) if n > 170 else None
        free = None if model is None else model.support_[np.abs(model.dual_coef_[0]) < model.C]

        def given_gram_check():
            if check_psd_policy(K, "auto", user_gram=True, solution_checked=True):
                solution_block_psd(K, free, free, "the free support vectors")

        checks = {
            "vectors": lambda: check_psd_policy(K, "auto", closed_form=True, scan=scan),
            "precomputed": given_gram_check,
        }
        alone = {k: median_wall_cpu(f, args.repeat)[1] for k, f in checks.items()}
        acc_s = KernelSVM(Gaussian(sigma=sigma)).fit(X, y).score(Xt, yt)
        acc_l = SVC(kernel="rbf", gamma=gamma).fit(X, y).score(Xt, yt)
        for source in ("vectors", "precomputed"):
            if f"{source}, default" not in times:
                continue
            (w, c), (wn, cn), (wl, cl) = (
                times[f"{source}, default"],
                times[f"{source}, psd_check='none'"],
                times[f"{source}, LIBSVM"],
            )
            rows.append(
                [
                    n,
                    source,
                    f"{w:.3f} / {c:.3f}",
                    f"{wn:.3f} / {cn:.3f}",
                    f"{wl:.3f} / {cl:.3f}",
                    f"{wl / w:.2f}x / {cl / c:.2f}x",
                    f"{100 * (c - cn) / c:.0f} % / {100 * alone[source] / c:.1f} %",
                    f"{acc_s:.3f} / {acc_l:.3f}" if source == "vectors" else "",
                ]
            )
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    print_table(
        rows,
        [
            "n",
            "from",
            "structk default (wall / cpu s)",
            "structk psd_check='none'",
            "LIBSVM SVC",
            "LIBSVM / structk (wall / cpu)",
            "safeguard share: fits' difference / check alone (cpu)",
            "test acc structk / LIBSVM",
        ],
    )


if __name__ == "__main__":
    main()
