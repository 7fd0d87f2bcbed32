"""KernelLogisticRegression: optimality, gradients, and scikit-learn's primal model."""

import numpy as np
import pytest
from learners_util import blobs, rbf_gram, string_data, string_kernel
from sklearn.linear_model import LogisticRegression

from structk import Linear
from structk.learners import KernelLogisticRegression
from structk.learners.logistic import (
    _binary_loss_grad,
    _jittered_cholesky,
    _softmax_loss_grad,
    _whitened,
)


def primal(C, X, y):
    return LogisticRegression(C=C, fit_intercept=False, tol=1e-12, max_iter=100_000).fit(X, y)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_linear_kernel_reproduces_logistic_regression(n_classes, C):
    """lambda = 1 / C: the documented mapping."""
    X, y = blobs(80, d=3, n_classes=n_classes, noise=2.0, seed=n_classes)
    Xt, _ = blobs(30, d=3, n_classes=n_classes, seed=11)
    ours = KernelLogisticRegression(kernel=Linear(), alpha=1.0 / C, tol=1e-8).fit(X, y)
    ref = primal(C, X, y)
    np.testing.assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), atol=1e-6)
    np.testing.assert_array_equal(ours.classes_, ref.classes_)


def objective_alpha(A, K, Y, lam, fun):
    """The objective in the dual coefficients, written independently of the solver."""
    F = K @ A
    return fun(F, Y)[0] + 0.5 * lam * np.einsum("ic,ij,jc->", A, K, A)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_solution_is_stationary(n_classes):
    X, y = blobs(70, n_classes=n_classes, noise=1.5, seed=4)
    K = rbf_gram(X, gamma=0.5)
    lam = 0.05
    model = KernelLogisticRegression(alpha=lam, tol=1e-8).fit(K, y)
    assert model.gradient_norm_ < 1e-6
    A = model.dual_coef_.T
    if n_classes == 2:
        Y = np.where(y == model.classes_[1], 1.0, -1.0)[:, None]
        fun = _binary_loss_grad
    else:
        Y = np.eye(n_classes)[y]
        fun = _softmax_loss_grad
    # gradient in alpha: K (dloss/df + lam alpha) = 0 at the optimum
    dF = fun(K @ A, Y)[1]
    grad = K @ (dF + lam * A)
    assert np.abs(grad).max() < 1e-6 * max(1.0, np.abs(K @ dF).max())
    # and no nearby point is better
    f0 = objective_alpha(A, K, Y, lam, fun)
    rng = np.random.default_rng(0)
    for _ in range(5):
        step = 1e-3 * rng.normal(size=A.shape)
        assert objective_alpha(A + step, K, Y, lam, fun) >= f0 - 1e-9


@pytest.mark.parametrize("fun,n_classes", [(_binary_loss_grad, 1), (_softmax_loss_grad, 3)])
def test_whitened_gradient_by_finite_differences(fun, n_classes):
    rng = np.random.default_rng(1)
    n = 12
    X = rng.normal(size=(n, 2))
    L = _factor(rbf_gram(X))[0]
    if n_classes == 1:
        Y = rng.choice([-1.0, 1.0], size=(n, 1))
    else:
        Y = np.eye(n_classes)[rng.integers(0, n_classes, size=n)]
    B = rng.normal(size=(n, Y.shape[1]))
    value, grad = _whitened(fun, B, L, Y, 0.7)
    h = 1e-6
    fd = np.empty(B.size)
    for k in range(B.size):
        E = np.zeros(B.size)
        E[k] = h
        E = E.reshape(B.shape)
        up, down = _whitened(fun, B + E, L, Y, 0.7)[0], _whitened(fun, B - E, L, Y, 0.7)[0]
        fd[k] = (up - down) / (2 * h)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-7)
    # the whitened objective is the objective in alpha = L^{-T} b
    A = np.linalg.solve(L.T, B)
    K = L @ L.T
    assert value == pytest.approx(objective_alpha(A, K, Y, 0.7, fun), rel=1e-10)


def _factor(K):
    """The lower factor of K + eps I (in place in a copy of K) and the copy."""
    work = K.copy()
    eps = _jittered_cholesky(work, np.diag(K).copy())
    return np.tril(work), work, eps


def test_jittered_cholesky_on_singular_gram():
    X = np.random.default_rng(2).normal(size=(20, 2))
    K = X @ X.T  # rank 2
    L, work, eps = _factor(K)
    assert 0 < eps < 1e-6 * np.linalg.norm(K)
    np.testing.assert_allclose(L @ L.T, K + eps * np.eye(20), atol=1e-12)
    # in place: the factor took the lower triangle, the strict upper one keeps K
    iu = np.triu_indices(20, 1)
    np.testing.assert_array_equal(work[iu], K[iu])
    np.testing.assert_array_equal(np.tril(work), L)


def test_an_indefinite_gram_is_refused_after_the_factorisation_fails():
    from structk.exceptions import NotPSDError

    K = np.diag([1.0, 1.0, -1.0]) + 0.1
    with pytest.raises(NotPSDError):
        _jittered_cholesky(K.copy(), np.diag(K).copy())
    with pytest.raises(NotPSDError):
        KernelLogisticRegression().fit(K, [0, 1, 0])


def test_the_kernel_path_factorises_its_own_gram_and_keeps_the_callers():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 3))
    y = rng.integers(0, 3, 50)
    from structk.kernels import Gaussian

    K = Gaussian(sigma=1.0)(X)
    before = K.copy()
    direct = KernelLogisticRegression(kernel=Gaussian(sigma=1.0), alpha=0.1).fit(X, y)
    pre = KernelLogisticRegression(alpha=0.1).fit(K, y)
    np.testing.assert_array_equal(K, before)  # the caller's Gram untouched
    np.testing.assert_allclose(direct.dual_coef_, pre.dual_coef_, rtol=1e-8, atol=1e-10)
    A = pre.dual_coef_
    np.testing.assert_allclose(
        pre.rkhs_norm_, np.sqrt(np.einsum("ij,jk,ik->i", A, K, A)), rtol=1e-10
    )
    np.testing.assert_allclose(direct.rkhs_norm_, pre.rkhs_norm_, rtol=1e-8)


def test_probabilities_and_log_probabilities():
    X, y = blobs(60, n_classes=3, seed=5)
    model = KernelLogisticRegression(kernel=Linear(), alpha=0.1).fit(X, y)
    P = model.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(model.predict_log_proba(X), np.log(P), atol=1e-12)
    np.testing.assert_array_equal(model.predict(X), model.classes_[P.argmax(axis=1)])
    X2, y2 = blobs(60, seed=6)
    binary = KernelLogisticRegression(kernel=Linear(), alpha=0.1).fit(X2, y2 * 5)
    P2 = binary.predict_proba(X2)
    np.testing.assert_allclose(P2[:, 1], 1 / (1 + np.exp(-binary.decision_function(X2))))
    np.testing.assert_allclose(binary.predict_log_proba(X2), np.log(P2), atol=1e-12)


def test_extreme_scores_do_not_overflow():
    X = np.array([[-50.0], [-40.0], [40.0], [50.0]])
    model = KernelLogisticRegression(kernel=Linear(), alpha=1e-6).fit(X, [0, 0, 1, 1])
    P = model.predict_proba(np.array([[-1e4], [1e4]]))
    assert np.isfinite(P).all()
    np.testing.assert_allclose(P, [[1, 0], [0, 1]])
    assert np.isfinite(model.predict_log_proba(np.array([[-1e4], [1e4]]))).all()


def test_strings():
    X, y = string_data(30)
    model = KernelLogisticRegression(kernel=string_kernel(), alpha=0.01).fit(X, y)
    assert model.score(X, y) >= 0.9
    assert model.predict_proba(X[:3]).shape == (3, 2)


def test_stop_at_floating_point_precision_says_so():
    from sklearn.exceptions import ConvergenceWarning

    from structk.kernels import Gaussian

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(int)
    with pytest.warns(ConvergenceWarning, match="limit of floating-point precision") as record:
        KernelLogisticRegression(kernel=Gaussian(), tol=1e-15, alpha=1e-3).fit(X, y)
    assert "raise max_iter" not in str(record[0].message)
    with pytest.warns(ConvergenceWarning, match="used all max_iter=3 iterations"):
        KernelLogisticRegression(kernel=Gaussian(), tol=1e-12, max_iter=3).fit(X, y)
