"""KernelRidge against Ridge; KernelRidgeCV's leave-one-out against refits."""

import numpy as np
import pytest
from learners_util import blobs, rbf_gram, string_data, string_kernel
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import Ridge

from structk import Gaussian, Linear, NotPSDError, _tuning
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
        residuals.append(y[i] - model.predict(K[i : i + 1, keep])[0])
    return np.mean(np.square(residuals))


@pytest.fixture(params=["eigh", "tridiagonal"])
def reduction(request, tuning):
    """Run a test with each of KernelRidgeCV's two reductions of ``K``."""
    tuning.set(RIDGE_CV_EIGH_MAX_N=10**9 if request.param == "eigh" else 0)
    return request.param


def test_loo_errors_equal_brute_force_refits(reduction):
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


@pytest.mark.parametrize("block", [1, 3])
def test_penalty_blocks_of_the_tridiagonal_sweep_change_nothing(tuning, block):
    """Penalties swept 1 or 3 at a time (4 penalties: a partial last block)
    give the brute-force leave-one-out errors."""
    tuning.set(RIDGE_CV_EIGH_MAX_N=0, RIDGE_LOO_PENALTY_BLOCK=block)
    X, y = regression(20, seed=6)
    K = rbf_gram(X, gamma=0.3)
    alphas = [1e-3, 0.1, 1.0, 10.0]
    cv = KernelRidgeCV(alphas=alphas).fit(K, y)
    np.testing.assert_allclose(cv.loo_mse_, [brute_force_loo(K, y, a) for a in alphas], rtol=1e-7)


def test_loo_multi_output_averages_outputs(reduction):
    X, Y = regression(25, seed=4, outputs=2)
    K = Gaussian(sigma=2.0)(X)
    cv = KernelRidgeCV(kernel=Gaussian(sigma=2.0), alphas=[0.01, 1.0]).fit(X, Y)
    for j, a in enumerate([0.01, 1.0]):
        expected = np.mean([brute_force_loo(K, Y[:, o], a) for o in range(2)])
        assert cv.loo_mse_[j] == pytest.approx(expected, rel=1e-7)
    assert cv.predict(X).shape == Y.shape


def test_loo_on_rank_deficient_gram(reduction):
    X, y = blobs(30, d=2, seed=5)
    y = y.astype(float)
    K = X @ X.T  # rank 2
    cv = KernelRidgeCV(alphas=[0.5, 5.0]).fit(K, y)
    np.testing.assert_allclose(
        cv.loo_mse_, [brute_force_loo(K, y, a) for a in [0.5, 5.0]], rtol=1e-7
    )


@pytest.mark.parametrize("alphas", [[], [1.0, 0.0], [-1.0]])
def test_bad_alphas(alphas):
    with pytest.raises(ValueError, match="alphas"):
        KernelRidgeCV(alphas=alphas).fit(np.eye(3), [1.0, 2.0, 3.0])


def test_both_reductions_agree_above_the_eigendecomposition_bound():
    # above the bound the safeguard has started numba: the sweep's loop is cheap to load
    assert _tuning.RIDGE_CV_EIGH_MAX_N <= _tuning.PSD_NUMPY_PASS_MAX_N
    n = _tuning.RIDGE_CV_EIGH_MAX_N + 37
    X, Y = regression(n, d=3, seed=6, outputs=2)
    K = rbf_gram(X, gamma=0.5)  # eigenvalues down to ~1e-12 of the largest
    alphas = np.logspace(-6, 2, 9)
    tri = KernelRidgeCV(alphas=alphas).fit(K, Y)
    G_diag, coef = KernelRidgeCV(alphas=alphas)._loo_by_eigh(K, alphas, Y)
    expected = np.mean(np.square(coef / G_diag[:, :, None]), axis=(0, 2))
    np.testing.assert_allclose(tri.loo_mse_, expected, rtol=1e-6)
    assert tri.alpha_ == alphas[int(np.argmin(expected))]
    ref = KernelRidge(alpha=tri.alpha_).fit(K, Y)
    np.testing.assert_allclose(
        tri.dual_coef_, ref.dual_coef_, rtol=1e-6, atol=1e-8 * np.abs(ref.dual_coef_).max()
    )
    # one left-out object by brute force, for the smallest and largest penalty
    keep = np.arange(n) != 5
    for j in (0, len(alphas) - 1):
        model = KernelRidge(alpha=alphas[j]).fit(K[np.ix_(keep, keep)], Y[keep])
        np.testing.assert_allclose(
            Y[5] - model.predict(K[5:6, keep])[0], coef[5, j] / G_diag[5, j], rtol=1e-6
        )


def test_tridiagonalisation_reproduces_the_gram():
    from structk.learners.ridge import _tridiagonalise

    for n in (1, 2, 9):
        X, _ = regression(n, seed=n)
        K = rbf_gram(X)
        d, e, Q = _tridiagonalise(K)
        T = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
        np.testing.assert_allclose(Q @ T @ Q.T, K, atol=1e-13)
        np.testing.assert_allclose(Q.T @ Q, np.eye(n), atol=1e-13)


def test_tridiagonal_loo_reports_the_first_penalty_with_a_bad_pivot():
    from structk.learners._ridge_loo._numba import tridiagonal_loo

    d, e = np.array([1.0, 1.0]), np.array([2.0])  # eigenvalues 3 and -1
    alphas = np.array([5.0, 0.5, 2.0])
    G, X = np.zeros((3, 2)), np.zeros((2, 3, 1))
    assert tridiagonal_loo(np.eye(2), d, e, alphas, np.ones((2, 1)), G, X, 4) == 1
    alphas = np.array([5.0, 1.5])
    assert tridiagonal_loo(np.eye(2), d, e, alphas, np.ones((2, 1)), G[:2], X[:, :2], 4) == -1
    Tinv = np.linalg.inv(np.array([[6.0, 2.0], [2.0, 6.0]]))
    np.testing.assert_allclose(G[0], np.diag(Tinv))
    np.testing.assert_allclose(X[:, 0, 0], Tinv @ np.ones(2))


@pytest.mark.parametrize("shift, error", [(-0.5, NotPSDError), (-2e-9, np.linalg.LinAlgError)])
def test_large_non_psd_or_singular_grams_are_refused(shift, error):
    """Above the eigendecomposition bound the tridiagonal spectrum checks PSD."""
    n = _tuning.RIDGE_CV_EIGH_MAX_N + 1
    X, y = regression(n, d=2, seed=7)
    K = X @ X.T + shift * np.eye(n)  # rank 2, shifted below zero
    match = "NOT positive semi-definite" if error is NotPSDError else "singular for alpha=1e-09"
    with pytest.raises(error, match=match):
        KernelRidgeCV(alphas=[1e-9, 1.0]).fit(K, y)
