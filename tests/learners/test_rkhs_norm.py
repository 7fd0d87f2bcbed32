"""rkhs_norm_ of fitted learners and the Rademacher bound that uses it."""

import numpy as np
import pytest
from learners_util import blobs, string_data
from sklearn.linear_model import Ridge
from sklearn.svm import SVC

from structk import Linear, Normalize, Spectrum
from structk.feature_space import rademacher_bound
from structk.learners import (
    KernelLogisticRegression,
    KernelPerceptron,
    KernelRidge,
    KernelRidgeCV,
    KernelSVM,
)


def test_ridge_norm_is_the_primal_weight_norm():
    X, _ = blobs(40, d=3, seed=0)
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * np.random.default_rng(0).normal(size=40)
    w = Ridge(alpha=2.0, fit_intercept=False).fit(X, y).coef_
    assert KernelRidge(Linear(), alpha=2.0).fit(X, y).rkhs_norm_ == pytest.approx(
        np.linalg.norm(w), rel=1e-8
    )
    Y = np.column_stack([y, -3 * y])
    W = Ridge(alpha=2.0, fit_intercept=False).fit(X, Y).coef_
    np.testing.assert_allclose(
        KernelRidge(Linear(), alpha=2.0).fit(X, Y).rkhs_norm_, np.linalg.norm(W, axis=1), rtol=1e-8
    )
    cv = KernelRidgeCV(Linear(), alphas=(0.5, 2.0, 8.0)).fit(X, y)
    w = Ridge(alpha=cv.alpha_, fit_intercept=False).fit(X, y).coef_
    assert cv.rkhs_norm_ == pytest.approx(np.linalg.norm(w), rel=1e-6)


def test_svm_norm_is_the_primal_weight_norm():
    X, y = blobs(60, d=3, seed=1)
    ref = SVC(kernel="linear", C=0.5, tol=1e-8).fit(X, y)
    ours = KernelSVM(Linear(), C=0.5, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(ours.rkhs_norm_, np.linalg.norm(ref.coef_, axis=1), rtol=1e-4)


@pytest.mark.parametrize("cls", [KernelSVM, KernelPerceptron, KernelLogisticRegression])
def test_classifier_norms_equal_the_definition_on_strings(cls):
    X, y = string_data(30, seed=2)
    k = Normalize(Spectrum(k=2))
    model = cls(kernel=k).fit(X, y)
    rows = getattr(model, "support_", np.arange(len(X)))
    K = k(X)[np.ix_(rows, rows)]
    want = np.sqrt(np.einsum("mi,ij,mj->m", model.dual_coef_, K, model.dual_coef_))
    np.testing.assert_allclose(model.rkhs_norm_, want, rtol=1e-10)
    # the bound for the learned ball: 2 B / sqrt(n) with a normalised kernel
    bound = rademacher_bound(k, float(model.rkhs_norm_[0]), X=X)
    assert bound == pytest.approx(2 * model.rkhs_norm_[0] / np.sqrt(len(X)))


def test_bound_dominates_the_empirical_rademacher_complexity():
    """E sup_{||f|| <= B} (2/n) sum sigma_i f(x_i) = (2B/n) E sqrt(sigma^T K sigma)."""
    X, _ = string_data(50, seed=3)
    k = Spectrum(k=2)
    K = k(X)
    rng = np.random.default_rng(0)
    sigma = rng.choice([-1.0, 1.0], size=(20000, len(X)))
    B = 3.0
    monte_carlo = (2 * B / len(X)) * np.mean(np.sqrt(np.einsum("ri,ij,rj->r", sigma, K, sigma)))
    bound = rademacher_bound(k, B, X=X)
    assert bound == pytest.approx(2 * B * np.sqrt(np.trace(K)) / len(X))
    assert bound == rademacher_bound(K, B)
    assert 0.8 * bound < monte_carlo <= bound


@pytest.mark.parametrize(
    "args, match",
    [
        ((Linear(), 1.0), "pass the objects as X"),
        ((np.eye(3), 1.0, np.eye(3)), "X must not be given"),
        ((np.eye(3), -1.0), "B must be >= 0"),
        ((np.ones((2, 3)), 1.0), "square"),
        ((np.diag([1.0, -1.0]), 1.0), "object 1 is -1.0"),
        ((np.diag([1.0, np.nan]), 1.0), "object 1 is nan"),
    ],
)
def test_bound_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        rademacher_bound(*args)
