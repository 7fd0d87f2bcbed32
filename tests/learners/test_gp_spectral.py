"""The Gaussian process's marginal likelihood from one eigendecomposition
(``learners/_gp_spectral.py``: only an output scale and the noise move)
against the Cholesky factorisation at each step, which it replaces."""

import numpy as np
import pytest

from structk.exceptions import NotPSDError
from structk.kernels import Jaccard, MinMax
from structk.learners import GaussianProcessRegressor
from structk.learners.gaussian_process import kernel_candidates

RNG = np.random.default_rng(11)
COUNTS = RNG.poisson(0.5, size=(45, 20)).astype(float)
COUNTS[COUNTS.sum(axis=1) == 0, 0] = 1.0
Y = COUNTS[:, :4] @ [1.0, -0.5, 0.8, 0.3] + 0.8 * RNG.normal(size=45)
SETS = [set(np.flatnonzero(row).tolist()) for row in COUNTS]

# (estimator parameters, training objects, targets): scale and noise, noise
# only, scale only (noise fixed, or none), a precomputed Gram, two outputs
CASES = {
    "scale+noise": (dict(kernel=1.0 * MinMax(), noise=0.1, normalize_y=True), COUNTS, Y),
    "noise": (dict(kernel=MinMax(), noise=0.1), COUNTS, Y),
    "scale, fixed noise": (
        dict(kernel=2.0 * MinMax(), noise=0.3, noise_bounds="fixed"),
        COUNTS,
        Y,
    ),
    "scale, jitter": (dict(kernel=0.5 * Jaccard(), alpha=1e-2), SETS, Y),
    "precomputed": (dict(kernel="precomputed", noise=0.2), MinMax()(COUNTS), Y),
    "two outputs": (
        dict(kernel=1.0 * MinMax(), noise=0.1, normalize_y=True),
        COUNTS,
        np.column_stack([Y, np.sin(Y)]),
    ),
}


@pytest.fixture
def factorisations(monkeypatch):
    """The calls of the Cholesky form (``GaussianProcessRegressor._lml``)."""
    calls = []
    original = GaussianProcessRegressor._lml
    monkeypatch.setattr(
        GaussianProcessRegressor,
        "_lml",
        lambda self, *a, **kw: calls.append(a) or original(self, *a, **kw),
    )
    return calls


def _objective(case):
    """The fitted estimator, its objective, the Cholesky form, and theta's bounds."""
    params, X, y = CASES[case]
    gp = GaussianProcessRegressor(**params).fit(X, y)
    [(_, k, P)], _ = kernel_candidates(params["kernel"], X)
    space = gp._space(k)
    objective = gp._objective(k, P, space)

    def cholesky(theta, eval_gradient):
        return gp._lml(k, P, theta, eval_gradient)

    return gp, objective, cholesky, space[1]


@pytest.mark.parametrize("case", CASES)
def test_value_and_gradient_equal_the_cholesky_form(case, factorisations):
    gp, objective, cholesky, bounds = _objective(case)
    thetas = RNG.uniform(
        np.maximum(bounds[:, 0], -4.0), np.minimum(bounds[:, 1], 3.0), (6, len(bounds))
    )
    for theta in thetas:
        factorisations.clear()
        value, grad = objective(theta, eval_gradient=True)
        only_value = objective(theta)
        assert factorisations == []  # no factorisation: the eigendecomposition answered
        ref_value, ref_grad = cholesky(theta, True)
        assert value == pytest.approx(ref_value, rel=1e-10)
        assert only_value == pytest.approx(ref_value, rel=1e-10)
        np.testing.assert_allclose(grad, ref_grad, rtol=1e-10, atol=1e-10 * abs(ref_value))


@pytest.mark.parametrize("case", CASES)
def test_gradient_equals_finite_differences(case):
    _, objective, _, bounds = _objective(case)
    theta = RNG.uniform(np.maximum(bounds[:, 0], -2.0), np.minimum(bounds[:, 1], 2.0))
    _, grad = objective(theta, eval_gradient=True)
    h = 1e-5
    for i in range(theta.size):
        step = np.zeros_like(theta)
        step[i] = h
        fd = (objective(theta + step) - objective(theta - step)) / (2 * h)
        assert grad[i] == pytest.approx(fd, rel=1e-6, abs=1e-7)


def _fit_both(tuning, params, X, y, test=None):
    """The fitted results with the eigendecomposition and with the
    factorisation at each step (``GP_SPECTRAL_MIN_N`` above n)."""
    out = []
    for min_n in (0, 10**9):
        tuning.set(GP_SPECTRAL_MIN_N=min_n)
        gp = GaussianProcessRegressor(**params).fit(X, y)
        res = [gp.log_marginal_likelihood_value_, gp.noise_]
        if params["kernel"] != "precomputed":
            res.append(gp.kernel_.theta)
            mean, std = gp.predict(test, return_std=True)
            res += [mean, std, gp.predict(test, return_cov=True)[1]]
        out.append(res)
    return out


@pytest.mark.parametrize("case", CASES)
def test_same_optimum_and_predictions_as_the_cholesky_form(case, tuning):
    params, X, y = CASES[case]
    test = X[:7] if params["kernel"] != "precomputed" else None
    spectral, cholesky = _fit_both(tuning, params, X, y, test)
    for got, ref in zip(spectral, cholesky, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)


def test_an_indefinite_gram_gets_the_cholesky_forms_error(tuning):
    # passes the O(n^2) necessary conditions, eigenvalue -0.8: the learned
    # noise starts below it, and every step is refused as before
    K = np.array([[1.0, 0.9, -0.9], [0.9, 1.0, 0.9], [-0.9, 0.9, 1.0]])
    messages = []
    for min_n in (0, 10**9):
        tuning.set(GP_SPECTRAL_MIN_N=min_n)
        with pytest.raises(NotPSDError, match=r"not positive definite") as info:
            GaussianProcessRegressor("precomputed", noise=0.1).fit(K, [0.0, 1.0, 2.0])
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_a_singular_gram_is_left_to_the_factorisation(tuning):
    # duplicate objects without noise or jitter: an eigenvalue 0, which the
    # eigenvalues cannot judge; each step factorises, with the same outcome
    # (here rounding lets the factorisation through, as it did before)
    X = np.vstack([COUNTS[:6], COUNTS[2:3]])
    params = dict(kernel=1.0 * MinMax(), alpha=0.0)
    spectral, cholesky = _fit_both(tuning, params, X, Y[:7], X[:3])
    for got, ref in zip(spectral, cholesky, strict=True):
        np.testing.assert_array_equal(got, ref)


def test_near_singular_gram_is_left_to_the_factorisation(tuning, factorisations):
    # duplicates with a jitter of 1e-10: positive definite, but min(d) / max(d)
    # is below the eigenvalues' margin, so each step factorises, as before
    X = np.vstack([COUNTS, COUNTS[:3]])
    y = np.append(Y, Y[:3])
    params = dict(kernel=1.0 * MinMax(), alpha=1e-10)
    tuning.set(GP_SPECTRAL_MIN_N=0)
    GaussianProcessRegressor(**params).fit(X, y)
    assert len(factorisations) > 1  # each step factorised, not only the final state
    spectral, cholesky = _fit_both(tuning, params, X, y, X[:5])
    for got, ref in zip(spectral, cholesky, strict=True):
        np.testing.assert_array_equal(got, ref)


def _cholesky_lml(K0, y, scale, noise, alpha):
    """log p(y) and its derivatives in log c and log noise, by a Cholesky
    factorisation of ``c K0 + (alpha + noise) I`` (Rasmussen & Williams,
    Algorithm 2.1 and eq. 5.9), the reference of the reduced forms."""
    n = K0.shape[0]
    K = scale * K0 + (alpha + noise) * np.eye(n)
    L = np.linalg.cholesky(K)
    a = np.linalg.solve(K, y)
    value = -0.5 * y @ a - np.log(np.diag(L)).sum() - 0.5 * n * np.log(2 * np.pi)
    inner = np.outer(a, a) - np.linalg.inv(K)
    return value, 0.5 * np.sum(inner * scale * K0), 0.5 * noise * np.trace(inner)


@pytest.mark.parametrize(
    "n, targets",
    [
        (1, "random"),
        (2, "random"),
        (3, "random"),
        (30, "random"),
        (30, "first zero"),  # the reflection's sign from y[0] = 0
        (30, "first negative"),
        (30, "zeros"),  # |y| = 0: no reflection, only the determinant
        (30, "e1"),  # y already along e_1
    ],
)
def test_one_output_reduction_equals_the_factorisation(n, targets):
    # one output takes the Householder reflection and the tridiagonal
    # reduction (no eigenvectors; from two objects); two copies of the same
    # target the eigendecomposition: both against a factorisation at each point
    from structk.learners._gp_spectral import ScaleNoiseLikelihood

    rng = np.random.default_rng(n)
    K0 = MinMax()(rng.poisson(1.0, size=(n, 12)) + np.eye(n, 12))
    y = {
        "random": rng.normal(size=n),
        "first zero": np.r_[0.0, rng.normal(size=n - 1)],
        "first negative": np.r_[-3.0, rng.normal(size=n - 1)],
        "zeros": np.zeros(n),
        "e1": np.r_[2.0, np.zeros(n - 1)],
    }[targets]
    one = ScaleNoiseLikelihood(K0.copy(), y[:, None], 1e-10)
    two = ScaleNoiseLikelihood(K0.copy(), np.column_stack([y, y]), 1e-10)
    assert (one.tridiagonal is not None) == (n > 1) and two.tridiagonal is None
    for scale, noise in [(1.0, 0.1), (0.05, 2.0), (30.0, 1e-4), (1e-3, 1e-3)]:
        ref = _cholesky_lml(K0, y, scale, noise, 1e-10)
        value, d_scale, d_noise = one(scale, noise, eval_gradient=True)
        assert one(scale, noise) == value
        np.testing.assert_allclose([value, d_scale, d_noise], ref, rtol=1e-10, atol=1e-11)
        np.testing.assert_allclose(
            two(scale, noise, eval_gradient=True), 2 * np.array(ref), rtol=1e-10, atol=1e-11
        )


def test_one_output_reduction_on_an_ill_conditioned_gram():
    # duplicate objects: eigenvalues down to rounding, a noise of 1e-3 above
    # the margin; values and gradients against the factorisation
    from structk.learners._gp_spectral import ScaleNoiseLikelihood

    X = np.vstack([COUNTS, COUNTS[:10]])
    K0 = MinMax()(X)
    y = np.append(Y, Y[:10]) - Y.mean()
    spectral = ScaleNoiseLikelihood(K0.copy(), y[:, None], 0.0)
    for scale, noise in [(1.0, 1e-3), (10.0, 1e-3), (0.1, 1.0)]:
        got = spectral(scale, noise, eval_gradient=True)
        ref = _cholesky_lml(K0, y, scale, noise, 0.0)
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-9 * abs(ref[0]))
