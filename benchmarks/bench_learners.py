"""Benchmark structk's learners against scikit-learn on the same Gram matrices.

* ``KernelSVM`` vs ``SVC(kernel="precomputed")`` (LIBSVM) on RBF Grams of
  noisy points, n = 2000, 5000, 10000 and C = 1, 10, 100, both with
  tol = 1e-3: fit times (medians), their ratio, the relative difference of the
  dual objectives and the agreement of the predictions on held-out points.
* ``KernelRidge`` vs ``sklearn.kernel_ridge.KernelRidge`` (precomputed).
* ``KernelRidgeCV`` over 20 penalties vs one ``KernelRidge`` fit, vs
  ``KernelRidgeCV`` with a single penalty, and vs 20 separate fits.
* ``KernelLogisticRegression``: n = 2000 with 3 classes, n = 5000 binary.

Each Gram matrix is computed once per n (the n = 10000 one takes 800 MB).
Timings are medians over ``--repeats`` runs; structk and the peer run
alternately on the same inputs, so machine load affects both alike.

Usage::

    PYTHONPATH=. python benchmarks/bench_learners.py            # full run
    PYTHONPATH=. python benchmarks/bench_learners.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import os
import time
from functools import partial

import numpy as np


def noisy_points(n, seed, d=10):
    """Points in R^d labelled by a curved boundary with label noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X[:, 0] + X[:, 1] ** 2 - 1.0 + 0.8 * rng.normal(size=n)
    y3 = np.digitize(X[:, 2] + 0.5 * X[:, 0] + 0.5 * rng.normal(size=n), [-0.5, 0.5])
    return X, (score > 0).astype(int), y3


def rbf(X, Y, gamma):
    """exp(-gamma ||x - y||^2), built in place (one n x m buffer)."""
    K = X @ Y.T
    K *= -2.0
    K += (X**2).sum(1)[:, None]
    K += (Y**2).sum(1)[None, :]
    np.maximum(K, 0.0, out=K)
    K *= -gamma
    np.exp(K, out=K)
    return K


def timed(fit, repeats):
    """Median wall time of ``fit()`` and its last result."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fit()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def dual_objective(K, dual_coef, support):
    c = np.ravel(dual_coef)
    return 0.5 * c @ K[np.ix_(support, support)] @ c - np.abs(c).sum()


def bench_svm(sizes, Cs, repeats, n_test=1000):
    from sklearn.svm import SVC

    from structk.learners import KernelSVM

    print("\n== KernelSVM vs SVC(kernel='precomputed') (LIBSVM), RBF, tol=1e-3 ==")
    print(
        f"{'n':>6} {'C':>5} {'structk s':>10} {'libsvm s':>10} {'ratio':>6} "
        f"{'rel dObj':>9} {'pred agree':>10} {'max|df|':>8} {'iters s/l':>15}"
    )
    KernelSVM(C=1.0).fit(np.eye(2), [0, 1])  # numba compile outside the timings
    rows = []
    for n in sizes:
        X, y, _ = noisy_points(n + n_test, seed=n)
        X, Xt, y = X[:n], X[n:], y[:n]
        K = rbf(X, X, gamma=0.1)
        Kt = rbf(Xt, X, gamma=0.1)
        for C in Cs:
            t_ours, ours, t_ref, ref = None, None, None, None
            ts_ours, ts_ref = [], []
            for _ in range(repeats):  # alternate, so that load hits both alike
                t, ours = timed(partial(KernelSVM(C=C).fit, K, y), 1)
                ts_ours.append(t)
                t, ref = timed(partial(SVC(kernel="precomputed", C=C).fit, K, y), 1)
                ts_ref.append(t)
            t_ours, t_ref = float(np.median(ts_ours)), float(np.median(ts_ref))
            obj = dual_objective(K, ours.dual_coef_, ours.support_)
            obj_ref = dual_objective(K, ref.dual_coef_, ref.support_)
            f, f_ref = ours.decision_function(Kt), ref.decision_function(Kt)
            same = ours.predict(Kt) == ref.predict(Kt)
            agree = float(np.mean(same))
            # a disagreement is only legitimate where |f| is within the tolerance
            assert np.all(same | (np.abs(f_ref) < 10 * 1e-3)), "predictions differ"
            rel = abs(obj - obj_ref) / abs(obj_ref)
            print(
                f"{n:>6} {C:>5g} {t_ours:>10.3f} {t_ref:>10.3f} {t_ours / t_ref:>6.2f} "
                f"{rel:>9.1e} {agree:>10.4f} {np.abs(f - f_ref).max():>8.1e} "
                f"{int(ours.n_iter_[0]):>7}/{int(ref.n_iter_[0]):<7}"
            )
            rows.append((n, C, t_ours, t_ref))
        del K, Kt
    return rows


def bench_ridge(sizes, repeats):
    from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

    from structk.learners import KernelRidge, KernelRidgeCV

    print("\n== KernelRidge vs sklearn KernelRidge (precomputed RBF), alpha=1 ==")
    print(f"{'n':>6} {'structk s':>10} {'sklearn s':>10} {'ratio':>6} {'max|dcoef|':>10}")
    cv_rows = []
    for n in sizes:
        X, _, _ = noisy_points(n, seed=n + 1)
        y = np.sin(X[:, 0]) + 0.1 * X[:, 1]
        K = rbf(X, X, gamma=0.1)
        ts_ours, ts_ref = [], []
        for _ in range(repeats):
            t, ours = timed(lambda: KernelRidge(alpha=1.0).fit(K, y), 1)
            ts_ours.append(t)
            t, ref = timed(lambda: SkKernelRidge(kernel="precomputed", alpha=1.0).fit(K, y), 1)
            ts_ref.append(t)
        t_ours, t_ref = float(np.median(ts_ours)), float(np.median(ts_ref))
        diff = np.abs(ours.dual_coef_ - ref.dual_coef_).max()
        print(f"{n:>6} {t_ours:>10.3f} {t_ref:>10.3f} {t_ours / t_ref:>6.2f} {diff:>10.1e}")
        alphas = np.logspace(-3, 2, 20)
        r = 1 if n >= 5000 else repeats  # an n = 5000 eigendecomposition takes ~40 s
        t_cv, cv = timed(lambda: KernelRidgeCV(alphas=alphas).fit(K, y), r)
        t_cv1, _ = timed(lambda: KernelRidgeCV(alphas=[1.0]).fit(K, y), r)
        cv_rows.append((n, t_cv, t_cv1, t_ours, cv.alpha_))
    print("\n== KernelRidgeCV, 20 alphas, exact leave-one-out from one eigendecomposition ==")
    print(
        f"{'n':>6} {'CV(20) s':>9} {'CV(1) s':>8} {'CV20/CV1':>8} {'1 fit s':>8} "
        f"{'CV20/fit':>8} {'CV20/(20 fits)':>14} {'alpha_':>8}"
    )
    for n, t_cv, t_cv1, t_fit, best in cv_rows:
        print(
            f"{n:>6} {t_cv:>9.3f} {t_cv1:>8.3f} {t_cv / t_cv1:>8.2f} {t_fit:>8.3f} "
            f"{t_cv / t_fit:>8.2f} {t_cv / (20 * t_fit):>14.2f} {best:>8.3g}"
        )


def bench_logistic(cases, repeats):
    from structk.learners import KernelLogisticRegression

    print("\n== KernelLogisticRegression (precomputed RBF), alpha=1e-2 ==")
    print(
        f"{'n':>6} {'classes':>7} {'fit s':>8} {'target s':>8} {'chol s':>7} {'iters':>6} "
        f"{'|grad|_inf':>10} {'train acc':>9}"
    )
    from structk.learners.logistic import _jittered_cholesky

    for n, n_classes, target in cases:
        X, y2, y3 = noisy_points(n, seed=n + 2)
        y = y2 if n_classes == 2 else y3
        K = rbf(X, X, gamma=0.1)
        t, model = timed(lambda: KernelLogisticRegression(alpha=1e-2).fit(K, y), repeats)
        t_chol, _ = timed(lambda: _jittered_cholesky(K), repeats)
        print(
            f"{n:>6} {n_classes:>7} {t:>8.3f} {target:>8.1f} {t_chol:>7.3f} {model.n_iter_:>6} "
            f"{model.gradient_norm_:>10.1e} {model.score(K, y):>9.3f}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=["svm", "ridge", "logistic"], default=None)
    parser.add_argument(
        "--svm-sizes",
        type=int,
        nargs="+",
        default=None,
        help="override the SVM sizes (default 2000 5000 10000)",
    )
    parser.add_argument(
        "--blas-threads",
        type=int,
        default=1,
        help="BLAS threads for both libraries (default 1: on a shared, loaded machine "
        "multi-threaded OpenBLAS spins and runs 10x slower; 0 = library default)",
    )
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    if args.blas_threads > 0:
        import scipy.linalg  # noqa: F401 - load every BLAS before limiting them
        import sklearn.svm  # noqa: F401
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.blas_threads)
    print(
        f"structk learners benchmark; {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f}; BLAS threads {args.blas_threads or 'default'}; "
        f"medians of {repeats} run(s)"
    )
    if args.only in (None, "svm"):
        sizes = [1000, 2000] if args.quick else [2000, 5000, 10000]
        sizes = args.svm_sizes or sizes
        bench_svm(sizes, [1.0, 10.0, 100.0], repeats, n_test=200 if args.quick else 1000)
    if args.only in (None, "ridge"):
        bench_ridge([1000] if args.quick else [2000, 5000], repeats)
    if args.only in (None, "logistic"):
        cases = [(2000, 3, 2.0), (5000, 2, 10.0)]
        if args.quick:
            cases = [(500, 3, 2.0), (1000, 2, 10.0)]
        bench_logistic(cases, repeats)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
