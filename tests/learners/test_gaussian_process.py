"""GaussianProcessRegressor against scikit-learn's on vector kernels, and on
objects scikit-learn cannot take (strings), against the posterior formulas."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process.kernels import RBF, DotProduct, WhiteKernel
from sklearn.gaussian_process.kernels import ConstantKernel as C

from structk.exceptions import NotPSDError
from structk.kernels import Constant, Gaussian, Normalize, Polynomial, Spectrum
from structk.learners import GaussianProcessRegressor

RNG = np.random.default_rng(3)
X = RNG.normal(size=(40, 2))
Y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.1 * RNG.normal(size=40)
X_TEST = RNG.normal(size=(7, 2))

# structk kernel and noise, the equivalent scikit-learn kernel, and the map
# from structk's theta to scikit-learn's
PAIRS = [
    (
        dict(kernel=1.5 * Gaussian(sigma=0.7), noise=0.05),
        C(1.5) * RBF(0.7) + WhiteKernel(0.05),
        lambda t: t,
    ),
    (
        dict(kernel=2.0 * Gaussian(sigma=1.2) + Constant(0.3), alpha=1e-2),
        C(2.0) * RBF(1.2) + C(0.3),
        lambda t: t,
    ),
    # DotProduct(sigma_0) ** 2 is Polynomial(degree=2, coef0=sigma_0^2, gamma=1)
    (
        dict(kernel=Polynomial(degree=2, coef0=0.25, gamma_bounds="fixed"), noise=0.5),
        DotProduct(0.5) ** 2 + WhiteKernel(0.5),
        lambda t: t * np.array([0.5, 1.0]),
    ),
]


@pytest.mark.parametrize("normalize_y", [False, True])
@pytest.mark.parametrize("ours, theirs, to_sk", PAIRS, ids=["rbf+noise", "rbf+const", "poly"])
def test_log_marginal_likelihood_and_gradient_equal_scikit_learns(ours, theirs, to_sk, normalize_y):
    gp = GaussianProcessRegressor(**ours, optimizer=None, normalize_y=normalize_y).fit(X, Y)
    sk = SkGPR(theirs, alpha=ours.get("alpha", 1e-10), optimizer=None, normalize_y=normalize_y).fit(
        X, Y
    )
    assert gp.log_marginal_likelihood_value_ == pytest.approx(
        sk.log_marginal_likelihood_value_, abs=1e-8
    )
    for theta in RNG.uniform(-1.5, 1.5, size=(5, len(sk.kernel_.theta))):
        ours_theta = theta / (to_sk(np.ones_like(theta)))
        value, grad = gp.log_marginal_likelihood(ours_theta, eval_gradient=True)
        value_sk, grad_sk = sk.log_marginal_likelihood(theta, eval_gradient=True)
        assert value == pytest.approx(value_sk, abs=1e-8)
        # d/d(theta_sk) = d/d(theta_ours) / (d theta_sk / d theta_ours)
        np.testing.assert_allclose(grad / to_sk(np.ones_like(theta)), grad_sk, rtol=1e-9, atol=1e-8)


@pytest.mark.parametrize("restarts", [0, 3])
def test_same_optimum_and_predictions_as_scikit_learn(restarts):
    gp = GaussianProcessRegressor(
        1.5 * Gaussian(sigma=0.7),
        noise=0.05,
        normalize_y=True,
        n_restarts_optimizer=restarts,
        random_state=1,
    ).fit(X, Y)
    sk = SkGPR(
        C(1.5) * RBF(0.7) + WhiteKernel(0.05),
        normalize_y=True,
        n_restarts_optimizer=restarts,
        random_state=1,
    ).fit(X, Y)
    ours = np.append(gp.kernel_.theta, np.log(gp.noise_))
    np.testing.assert_allclose(ours, sk.kernel_.theta, atol=1e-5)
    assert gp.log_marginal_likelihood_value_ == pytest.approx(
        sk.log_marginal_likelihood_value_, abs=1e-8
    )
    mean, std = gp.predict(X_TEST, return_std=True)
    mean_sk, std_sk = sk.predict(X_TEST, return_std=True)
    np.testing.assert_allclose(mean, mean_sk, atol=1e-5)
    np.testing.assert_allclose(std, std_sk, atol=1e-5)
    _, cov = gp.predict(X_TEST, return_cov=True)
    _, cov_sk = sk.predict(X_TEST, return_cov=True)
    np.testing.assert_allclose(cov, cov_sk, atol=1e-5)
    np.testing.assert_allclose(
        gp.sample_y(X_TEST, 4, random_state=2), sk.sample_y(X_TEST, 4, random_state=2), atol=1e-4
    )


def test_several_outputs_as_scikit_learn():
    Y2 = np.column_stack([Y, np.cos(X[:, 1])])
    gp = GaussianProcessRegressor(1.0 * Gaussian(sigma=1.0), noise=0.1, normalize_y=True).fit(X, Y2)
    sk = SkGPR(C(1.0) * RBF(1.0) + WhiteKernel(0.1), normalize_y=True).fit(X, Y2)
    assert gp.log_marginal_likelihood_value_ == pytest.approx(
        sk.log_marginal_likelihood_value_, abs=1e-6
    )
    mean, std = gp.predict(X_TEST, return_std=True)
    mean_sk, std_sk = sk.predict(X_TEST, return_std=True)
    assert mean.shape == std.shape == (7, 2)
    np.testing.assert_allclose(mean, mean_sk, atol=1e-5)
    np.testing.assert_allclose(std, std_sk, atol=1e-5)


def test_precomputed_equals_the_kernel():
    k = 1.3 * Gaussian(sigma=0.9, sigma_bounds="fixed")
    k.factor_bounds = "fixed"
    by_kernel = GaussianProcessRegressor(k, noise=0.1).fit(X, Y)
    by_gram = GaussianProcessRegressor("precomputed", noise=0.1).fit(k(X), Y)
    assert by_gram.noise_ == pytest.approx(by_kernel.noise_, rel=1e-6)
    mean, std = by_kernel.predict(X_TEST, return_std=True)
    mean_g, std_g = by_gram.predict(k(X_TEST, X), return_std=True, test_gram=k.diag(X_TEST))
    np.testing.assert_allclose(mean_g, mean, rtol=1e-6)
    np.testing.assert_allclose(std_g, std, rtol=1e-6)
    _, cov = by_kernel.predict(X_TEST, return_cov=True)
    _, cov_g = by_gram.predict(k(X_TEST, X), return_cov=True, test_gram=k(X_TEST))
    np.testing.assert_allclose(cov_g, cov, rtol=1e-6, atol=1e-10)
    with pytest.raises(ValueError, match="needs test_gram="):
        by_gram.predict(k(X_TEST, X), return_std=True)


def test_strings_posterior_formulas():
    rng = np.random.default_rng(0)
    seqs = ["".join(rng.choice(list("ACGT"), size=12)) for _ in range(30)]
    y = np.array([s.count("A") + 2 * s.count("CG") for s in seqs]) + rng.normal(0, 0.5, 30)
    gp = GaussianProcessRegressor(1.0 * Normalize(Spectrum(k=2)), noise=0.1).fit(seqs, y)
    k, s2 = gp.kernel_, gp.noise_
    test = ["ACGTACCT", "GGGCCCAT"]
    K = k(seqs) + (1e-10 + s2) * np.eye(len(seqs))
    Ks = k(test, seqs)
    mean, cov = gp.predict(test, return_cov=True)
    np.testing.assert_allclose(mean, Ks @ np.linalg.solve(K, y), rtol=1e-8)
    np.testing.assert_allclose(
        cov, k(test) - Ks @ np.linalg.solve(K, Ks.T) + s2 * np.eye(2), rtol=1e-7, atol=1e-10
    )
    # the optimum is a stationary point of the marginal likelihood
    theta = np.append(k.theta, np.log(s2))
    _, grad = gp.log_marginal_likelihood(theta, eval_gradient=True)
    assert np.abs(grad).max() < 1e-3


def test_discrete_parameters_chosen_by_the_marginal_likelihood():
    gp = GaussianProcessRegressor(1.0 * Polynomial(degree=[1, 2, 3]), noise=0.1).fit(X, Y)
    values = [v for _, v in gp.candidates_]
    assert [p for p, _ in gp.candidates_] == [{"kernel__degree": d} for d in (1, 2, 3)]
    for d, value in zip((1, 2, 3), values):
        alone = GaussianProcessRegressor(1.0 * Polynomial(degree=d), noise=0.1).fit(X, Y)
        assert value == pytest.approx(alone.log_marginal_likelihood_value_, abs=1e-9)
    assert gp.kernel_.kernel.degree == (1, 2, 3)[int(np.argmax(values))]
    assert gp.log_marginal_likelihood_value_ == max(values)
    # a list of kernels: the same choice
    listed = GaussianProcessRegressor(
        [1.0 * Polynomial(degree=d) for d in (1, 2, 3)], noise=0.1
    ).fit(X, Y)
    assert listed.log_marginal_likelihood_value_ == pytest.approx(max(values), abs=1e-9)


def test_duplicate_objects_without_noise_are_named():
    Xd = np.vstack([X[:5], X[2:3]])
    gp = GaussianProcessRegressor(1.0 * Gaussian(sigma=1.0), alpha=0.0, optimizer=None)
    with pytest.raises(NotPSDError, match=r"X\[2\] and X\[5\] have the same kernel row.*noise"):
        gp.fit(Xd, np.arange(6.0))


def test_indefinite_gram_is_explained():
    # a clearly indefinite Gram: structk's PSD report, as for every learner
    K = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(NotPSDError, match=r"NOT positive semi-definite\n  smallest eigenvalue: -1"):
        GaussianProcessRegressor("precomputed").fit(K, [0.0, 1.0])
    # one that passes the O(n^2) necessary conditions fails the factorisation
    K = np.array([[1.0, 0.9, -0.9], [0.9, 1.0, 0.9], [-0.9, 0.9, 1.0]])
    with pytest.raises(
        NotPSDError,
        match=r"precomputed Gram .* smallest eigenvalue -0\.8\b.*"
        r"alpha above 0\.8 \(e\.g\. alpha=1\.6\)",
    ):
        GaussianProcessRegressor("precomputed").fit(K, [0.0, 1.0, 2.0])


def test_parameter_at_its_bound_warns_with_its_name():
    gp = GaussianProcessRegressor(1.0 * Gaussian(sigma=1.0, sigma_bounds=(1e-3, 0.05)), noise=0.1)
    with pytest.warns(ConvergenceWarning, match=r"kernel__sigma .* at its upper bound 0\.05"):
        gp.fit(X, Y)
    assert gp.kernel_.kernel.sigma == pytest.approx(0.05)


def test_clear_errors():
    with pytest.raises(RuntimeError, match="At most one"):
        GaussianProcessRegressor(noise=0.1).fit(X, Y).predict(X, True, True)
    with pytest.raises(ValueError, match=r"noise_bounds=\(1, 0\)"):
        GaussianProcessRegressor(noise=0.1, noise_bounds=(1, 0)).fit(X, Y)
    with pytest.raises(ValueError, match=r"alpha\[3\] is -1"):
        GaussianProcessRegressor(alpha=np.where(np.arange(40) == 3, -1.0, 0.1)).fit(X, Y)
    with pytest.raises(ValueError, match="theta has 1 entries; this model has 3"):
        GaussianProcessRegressor(1.0 * Gaussian(), noise=0.1).fit(X, Y).log_marginal_likelihood(
            [0.0]
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GaussianProcessRegressor().fit(X, Y)  # scikit-learn's default: all fixed


def test_sparse_count_matrix_as_objects():
    """A scipy.sparse matrix of counts is a collection for MinMax (one row
    per object): the GP fits and predicts on it as on the dense matrix and
    on the rows as multisets (fit used to fail on len() of the matrix)."""
    import scipy.sparse as sp

    from structk.kernels import MinMax

    rng = np.random.default_rng(3)
    X = rng.poisson(0.4, size=(30, 12)).astype(float)
    X[X.sum(axis=1) == 0, 0] = 1.0
    y = X[:, :3].sum(axis=1) + 0.1 * rng.normal(size=30)
    rows = [{j: X[i, j] for j in np.flatnonzero(X[i])} for i in range(30)]
    results = []
    for train, test in (
        (sp.csr_matrix(X[:24]), sp.csr_matrix(X[24:])),
        (X[:24], X[24:]),
        (rows[:24], rows[24:]),
    ):
        gp = GaussianProcessRegressor(1.0 * MinMax(), noise=0.1, normalize_y=True)
        results.append(gp.fit(train, y[:24]).predict(test, return_std=True))
    for mean, std in results[1:]:
        np.testing.assert_allclose(mean, results[0][0], rtol=1e-7)
        np.testing.assert_allclose(std, results[0][1], rtol=1e-7)
