"""What the learners' default PSD check (``psd_check="auto"``) costs a fit.

Usage: python benchmarks/bench_psd_learners.py [--quick] [--repeat R]

For Grams above ``defaults.PSD_FACTORISE_MAX_N`` objects the default check is
the O(n^2) necessary conditions, one factorised principal submatrix and
``defaults.PSD_LANCZOS_STEPS`` Lanczos steps (``PSD_LANCZOS_STEPS_USER`` for
a precomputed Gram). Each case times, in one run and
alternating, the same ``KernelSVM`` fit with ``psd_check="none"`` and with
``"auto"``, and the check alone, against the fit and against computing the
Gram and fitting (a precomputed Gram's fit is all the SVM: the check is
weighed against the user's Gram too); the peer is what a user would otherwise run
to know, ``numpy.linalg.eigvalsh`` of the Gram. Cases: precomputed Gaussian
Grams (the SVM alone: the smallest fit a check can be charged to) and, when
``STRUCTK_DATA`` is set, fits that compute their Gram (UCI splice, spectrum
kernel, 3,190 sequences).

Since issue #39, ``KernelSVM`` on a *given* Gram runs another check (the
necessary pass and the block of its free support vectors:
``structk.learners._psd``, "What a precomputed SVM fit certifies"), so the
precomputed rows' "auto" fit no longer contains the check timed beside it:
that column is the general check the other learners run on a given Gram.
``benchmarks/bench_svm_libsvm.py`` times the SVM's own.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import alternating, median_time, print_table  # noqa: E402


def cases(quick):
    from structk.kernels import Gaussian, Normalize, Spectrum

    rng = np.random.default_rng(0)
    for n in [800] if quick else [2000, 5000]:
        X = rng.normal(size=(n, 10))
        y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
        yield f"Gaussian Gram, precomputed, n={n}", "precomputed", (Gaussian(sigma=3.0), X), y
        if n == 5000:  # the same Gram computed by the fit (a structk kernel)
            yield f"Gaussian(sigma=3.0) in the fit, n={n}", Gaussian(sigma=3.0), X, y
    root = os.environ.get("STRUCTK_DATA")
    if root and not quick:
        from structk.datasets import load_splice

        data = load_splice(os.path.join(root, "sequences", "splice", "splice.data"))
        X, y = data[0], data[1]
        yield (
            f"splice, Normalize(Spectrum(k=5)), n={len(X)}",
            Normalize(Spectrum(k=5, unknown="skip")),
            X,
            y,
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one small case, one repeat")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else args.repeat

    from structk import _tuning, defaults
    from structk.learners import KernelSVM
    from structk.learners._base import user_gram
    from structk.learners._psd import check_psd_policy

    rows = []
    for name, kernel, X, y in cases(args.quick):
        if kernel == "precomputed":  # the Gram the user computed first
            t_gram = median_time(lambda: X[0](X[1]), repeat=repeat)
            X = K = X[0](X[1])
        else:
            t_gram = median_time(lambda: kernel(X), repeat=repeat)
            K = kernel(X)
        svm = KernelSVM(kernel=kernel, solver="dual")
        t_none, t_auto = alternating(
            [
                lambda: svm.set_params(psd_check="none").fit(X, y),
                lambda: svm.set_params(psd_check="auto").fit(X, y),
            ],
            repeat,
        )
        user = user_gram(kernel)
        t_check = median_time(lambda: check_psd_policy(K, "auto", user_gram=user), repeat=repeat)
        with _tuning.override(PSD_LANCZOS_STEPS=0, PSD_LANCZOS_STEPS_USER=0):
            t_block = median_time(
                lambda: check_psd_policy(K, "auto", user_gram=user), repeat=repeat
            )
        t_user_gram = t_gram if kernel == "precomputed" else 0.0  # else in the fit
        steps = defaults.PSD_LANCZOS_STEPS_USER if user else defaults.PSD_LANCZOS_STEPS
        t_eig = median_time(lambda: np.linalg.eigvalsh(K), repeat=max(1, repeat // 2))
        rows.append(
            [
                name,
                str(steps),
                f"{t_none:.3f}",
                f"{t_auto:.3f}",
                f"{t_check:.3f}",
                f"{t_check - t_block:.3f}",
                f"{100 * t_check / t_none:.0f} %",
                f"{t_gram:.3f}",
                f"{100 * t_check / (t_none + t_user_gram):.0f} %",
                f"{t_eig:.2f}",
                f"{t_eig / t_check:.0f}x",
            ]
        )
    print(f"KernelSVM fit with the default PSD check (medians of {repeat}; {os.cpu_count()} cores)")
    print_table(
        rows,
        [
            "case",
            "Lanczos steps",
            "fit none s",
            "fit auto s",
            "check s",
            "of it Lanczos s",
            "check / fit",
            "Gram s",
            "check / (Gram + fit)",
            "eigvalsh s",
            "eigvalsh / check",
        ],
    )


if __name__ == "__main__":
    main()
