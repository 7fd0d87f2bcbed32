"""KernelRidge against Ridge; KernelRidgeCV's leave-one-out against refits."""

import numpy as np
import pytest
from learners_util import blobs, rbf_gram, string_data, string_kernel
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import Ridge

from structk import Gaussian, Linear, NotPSDError
from structk.learners import KernelRidge, KernelRidgeCV


def regression(n=50, d=4, seed=0, outputs=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    W = rng.normal(size=(d,) if outputs is None else (d, outputs))
    return X, X @ W + 0.1 * rng.normal(size=(n,) if outputs is None else (n, outputs))


@pytest.mark.parametrize("outputs", [None, 3])
@pytest.mark.parametrize("alpha", [1e-3, 1.0, 50.0])
def test_linear_kernel_reproduces_ridge(alpha, outputs):
    X, y = regression(outputs=outputs)
    Xt, _ = regression(20, seed=1)
    ours = KernelRidge(kernel=Linear(), alpha=alpha).fit(X, y)
    ref = Ridge(alpha=alpha, fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=1e-8, atol=1e-10)
    assert ours.dual_coef_.shape == y.shape


def test_precomputed_matches_sklearn_kernel_ridge():
    X, y = regression(80, seed=2)
    K = rbf_gram(X)
    ours = KernelRidge(alpha=0.3).fit(K, y)
    ref = SkKernelRidge(kernel="precomputed", alpha=0.3).fit(K, y)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.predict(K[:10]), ref.predict(K[:10]), rtol=1e-9)
    # the caller's Gram is not modified
    np.testing.assert_array_equal(K, rbf_gram(X))


def test_strings():
    X, labels = string_data(25)
    y = np.array([s.count("A") - s.count("T") for s in X], dtype=float)
    model = KernelRidge(kernel=string_kernel(), alpha=1e-3).fit(X, y)
    np.testing.assert_allclose(model.predict(X), y, atol=0.05)


def test_non_psd_gram_raises_with_report():
    K = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(NotPSDError, match="smallest eigenvalue: -1"):
        KernelRidge(alpha=0.1).fit(K, [1.0, 2.0, 3.0])
    with pytest.raises(NotPSDError):
        KernelRidgeCV(alphas=[0.1]).fit(K, [1.0, 2.0, 3.0])


def brute_force_loo(K, y, alpha):
    n = len(y)
    residuals = []
    for i in range(n):
        keep = np.arange(n) != i
        model = KernelRidge(alpha=alpha).fit(K[np.ix_(keep, keep)], y[keep])
        residuals.append(y[i] - model.predict(K[i:i + 1, keep])[0])
    return np.mean(np.square(residuals))


def test_loo_errors_equal_brute_force_refits():
    X, y = regression(30, seed=3)
    K = rbf_gram(X, gamma=0.3)
    alphas = [1e-3, 0.1, 1.0, 10.0]
    cv = KernelRidgeCV(alphas=alphas).fit(K, y)
    expected = [brute_force_loo(K, y, a) for a in alphas]
    np.testing.assert_allclose(cv.loo_mse_, expected, rtol=1e-7)
    best = alphas[int(np.argmin(expected))]
    assert cv.alpha_ == best
    np.testing.assert_allclose(
        cv.predict(K), KernelRidge(alpha=best).fit(K, y).predict(K), rtol=1e-8, atol=1e-10
    )


def test_loo_multi_output_averages_outputs():
    X, Y = regression(25, seed=4, outputs=2)
    K = Gaussian(sigma=2.0)(X)
    cv = KernelRidgeCV(kernel=Gaussian(sigma=2.0), alphas=[0.01, 1.0]).fit(X, Y)
    for j, a in enumerate([0.01, 1.0]):
        expected = np.mean([brute_force_loo(K, Y[:, o], a) for o in range(2)])
        assert cv.loo_mse_[j] == pytest.approx(expected, rel=1e-7)
    assert cv.predict(X).shape == Y.shape


def test_loo_on_rank_deficient_gram():
    X, y = blobs(30, d=2, seed=5)
    y = y.astype(float)
    K = X @ X.T  # rank 2
    cv = KernelRidgeCV(alphas=[0.5, 5.0]).fit(K, y)
    np.testing.assert_allclose(cv.loo_mse_, [brute_force_loo(K, y, a) for a in [0.5, 5.0]],
                               rtol=1e-7)


@pytest.mark.parametrize("alphas", [[], [1.0, 0.0], [-1.0]])
def test_bad_alphas(alphas):
    with pytest.raises(ValueError, match="alphas"):
        KernelRidgeCV(alphas=alphas).fit(np.eye(3), [1.0, 2.0, 3.0])
