"""Every SVM solver meets the accuracy its docstring states, against an
independent reference on random problems of several sizes, losses and C.

References, written here from the definitions and solved by SciPy:

* the hinge: the dual QP ``min 1/2 a^T Q a - 1^T a``, ``0 <= a <= C``,
  ``y^T a = 0`` by SLSQP, its bias from the KKT conditions;
* the squared hinge: the primal ``1/2 |w|^2 + C sum max(0, 1 - y f)^2``
  (bias unpenalised) by L-BFGS on explicit features -- smooth, so L-BFGS
  reaches it to rounding.

Stated accuracies: the dual (SMO) stops at a KKT violation below ``tol``
(LIBSVM's criterion: decision values within about ``tol`` of the scale);
the squared hinge in the primal is exact (:mod:`structk.learners._l2svm`);
the hinge in the primal agrees with the dual to about 1e-3 of the decision
values' scale (:mod:`structk.learners.primal`, the scaled bias feature) when it
converges, and warns when it stops at ``max_iter`` (large ``C``).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.svm import SVC
import pytest
from scipy.optimize import minimize

from structk.kernels import Linear
from structk.learners import KernelSVM


def _problem(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.8 * rng.normal(size=n) > 0.3, 1, 0)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    return X, y


def _squared_hinge_reference(X, s, C):
    def f(wb):
        w, b = wb[:-1], wb[-1]
        m = np.maximum(0.0, 1.0 - s * (X @ w + b))
        return (0.5 * w @ w + C * m @ m, np.r_[w - 2 * C * X.T @ (m * s), -2 * C * (m * s).sum()])

    r = minimize(
        f,
        np.zeros(X.shape[1] + 1),
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-13, "ftol": 1e-16, "maxiter": 50_000, "maxcor": 50},
    )
    return X @ r.x[:-1] + r.x[-1]


def _hinge_reference(K, s, C, start=None):
    """The hinge's decision values at the dual optimum by SLSQP, from
    ``start`` (default zero; a start near the optimum only saves SLSQP's
    iterations: it stops at its own ``ftol``, wherever it started)."""
    n = len(s)
    Q = K * np.outer(s, s)
    r = minimize(
        lambda a: (0.5 * a @ Q @ a - a.sum(), Q @ a - 1.0),
        np.zeros(n) if start is None else start,
        jac=True,
        method="SLSQP",
        bounds=[(0.0, C)] * n,
        constraints=[{"type": "eq", "fun": lambda a: a @ s, "jac": lambda a: s}],
        options={"ftol": 1e-15, "maxiter": 2000},
    )
    a = r.x
    f0 = K @ (a * s)
    free = (a > 1e-6 * C) & (a < C * (1 - 1e-6))
    if free.any():
        b = float(np.mean(s[free] - f0[free]))
    else:  # the midpoint of the feasible interval, as SMO
        up = ((s > 0) & (a < C)) | ((s < 0) & (a > 0))
        low = ((s > 0) & (a > 0)) | ((s < 0) & (a < C))
        g = s - f0
        b = 0.5 * (g[up].max() + g[low].min()) if up.any() and low.any() else 0.0
    return f0 + b


def _fit(X, y, warned=None, **params):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = KernelSVM(kernel=Linear(), **params).fit(X, y).decision_function(X)
    if warned is not None:
        warned.extend(str(w.message) for w in caught)
    return values


CASES = [(n, C, seed) for n, seed in ((20, 0), (60, 1), (150, 2)) for C in (0.1, 1.0, 100.0)]


@pytest.mark.parametrize(("n", "C", "seed"), CASES)
def test_squared_hinge_dual_and_primal_reach_the_optimum(n, C, seed):
    X, y = _problem(n, 5, seed)
    s = np.where(y == 1, 1.0, -1.0)
    ref = _squared_hinge_reference(X, s, C)
    scale = np.abs(ref).max()
    primal = _fit(X, y, C=C, loss="squared_hinge", solver="primal")
    # exact: within the reference's own rounding
    np.testing.assert_allclose(primal, ref, atol=1e-6 * scale)
    dual = _fit(X, y, C=C, loss="squared_hinge", solver="dual", tol=1e-3)
    np.testing.assert_allclose(dual, ref, atol=2e-3 * scale)
    # Nystroem with every object a landmark: exact features, so the same optimum
    nys = _fit(X, y, C=C, loss="squared_hinge", solver="nystroem", n_components=n, random_state=0)
    np.testing.assert_allclose(nys, ref, atol=1e-5 * scale)


@pytest.mark.parametrize(("n", "C", "seed"), CASES)
def test_hinge_dual_and_primal_reach_the_optimum(n, C, seed):
    X, y = _problem(n, 5, seed)
    s = np.where(y == 1, 1.0, -1.0)
    K = X @ X.T
    # SLSQP from LIBSVM's point at tol 1e-12 (an independent solver): 3-20x
    # fewer of its iterations than from zero (17 s of CPU at n = 150, C = 100)
    tight = SVC(kernel="precomputed", C=C, tol=1e-12, max_iter=10**7).fit(K, y)
    start = np.zeros(n)
    start[tight.support_] = np.abs(tight.dual_coef_[0])
    ref = _hinge_reference(K, s, C, start)
    scale = np.abs(ref).max()
    dual = _fit(X, y, C=C, solver="dual", tol=1e-3)
    # SMO stops at LIBSVM's KKT tolerance, not at the optimum: as close to it
    # as LIBSVM at the same tol (2.0e-3 of the scale at n=60, C=1), or 2e-3
    libsvm = SVC(kernel="precomputed", C=C, tol=1e-3).fit(K, y).decision_function(K)
    libsvm_error = np.abs(libsvm - ref).max()
    np.testing.assert_allclose(dual, ref, atol=max(2e-3 * scale, 2 * libsvm_error))
    # LIBLINEAR's coordinate descent (the bias a scaled feature): within
    # about 1e-3 of the scale when it converges; at a large C it may not
    # within max_iter, and then it says so (ConvergenceWarning)
    warned = []
    primal = _fit(X, y, warned, C=C, solver="primal", tol=1e-4, loss="hinge")
    if not any("max_iter" in w for w in warned):
        np.testing.assert_allclose(primal, ref, atol=5e-3 * scale)


def test_the_interior_point_has_no_cliff(tuning):
    """A hard problem (nearly separable, huge C) one variable above the
    interior point's eager bound is solved as well as one at the bound: the
    same model as SMO given all the iterations it needs."""
    tuning.set(SVM_IPM_EAGER_MAX_N=40)
    X, y = _problem(41, 2, 7)
    K = X @ X.T + 1.0
    s = np.where(y == 1, 1.0, -1.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fast = KernelSVM(C=1e7, max_iter=10**6).fit(K, y)
    assert not caught, [str(w.message) for w in caught]
    ref = _hinge_reference(K, s, 1e7)
    scale = np.abs(ref).max()
    np.testing.assert_allclose(fast.decision_function(K), ref, atol=1e-2 * scale)
