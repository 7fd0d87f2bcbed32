"""GaussianProcessClassifier (Laplace) against scikit-learn's on vectors, its
gradient against finite differences, and its probabilities against a direct
integral."""

import numpy as np
import pytest
from scipy import integrate
from sklearn.gaussian_process import GaussianProcessClassifier as SkGPC
from sklearn.gaussian_process.kernels import RBF
from sklearn.gaussian_process.kernels import ConstantKernel as C

from structk.kernels import Gaussian, Normalize, Scaled, Spectrum
from structk.learners import GaussianProcessClassifier

RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 2))
Y2 = (X[:, 0] + 0.5 * RNG.normal(size=40) > 0).astype(int)
Y3 = np.digitize(X[:, 0] + X[:, 1], [-0.7, 0.7])
X_TEST = RNG.normal(size=(9, 2))


def kernels():
    """The same prior in structk and scikit-learn (output scale bounded)."""
    return (
        Scaled(Gaussian(sigma=1.0), 2.0, factor_bounds=(1e-2, 1e2)),
        C(2.0, (1e-2, 1e2)) * RBF(1.0),
    )


@pytest.mark.parametrize("optimizer", [None, "fmin_l_bfgs_b"])
def test_binary_mode_and_marginal_likelihood_equal_scikit_learns(optimizer):
    ours, theirs = kernels()
    gp = GaussianProcessClassifier(ours, optimizer=optimizer).fit(X, Y2)
    sk = SkGPC(theirs, optimizer=optimizer).fit(X, Y2)
    np.testing.assert_allclose(gp.kernel_.theta, sk.kernel_.theta, atol=1e-6)
    assert gp.log_marginal_likelihood_value_ == pytest.approx(
        sk.log_marginal_likelihood_value_, abs=1e-6
    )
    # the latent mode: pi = logistic(f^) at the training objects
    np.testing.assert_allclose(
        1 / (1 + np.exp(-gp.latent_mode_)), sk.base_estimator_.pi_, atol=1e-6
    )
    for theta in RNG.uniform(-1, 1, size=(4, 2)):
        value, grad = gp.log_marginal_likelihood(theta, eval_gradient=True)
        value_sk, grad_sk = sk.log_marginal_likelihood(theta, eval_gradient=True)
        assert value == pytest.approx(value_sk, abs=1e-6)
        np.testing.assert_allclose(grad, grad_sk, atol=1e-6)
    np.testing.assert_array_equal(gp.predict(X_TEST), sk.predict(X_TEST))
    # scikit-learn approximates the logistic function by error functions
    np.testing.assert_allclose(gp.predict_proba(X_TEST), sk.predict_proba(X_TEST), atol=1e-3)


def test_one_vs_rest_equals_scikit_learns():
    ours, theirs = kernels()
    gp = GaussianProcessClassifier(ours).fit(X, Y3)
    sk = SkGPC(theirs).fit(X, Y3)
    assert gp.log_marginal_likelihood_value_ == pytest.approx(
        sk.log_marginal_likelihood_value_, abs=1e-6
    )
    for k, est in zip(gp.kernel_, sk.base_estimator_.estimators_):
        np.testing.assert_allclose(k.theta, est.kernel_.theta, atol=1e-5)
    P = gp.predict_proba(X_TEST)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(P, sk.predict_proba(X_TEST), atol=1e-3)
    np.testing.assert_array_equal(gp.predict(X_TEST), sk.predict(X_TEST))


def test_gradient_matches_finite_differences():
    gp = GaussianProcessClassifier(2.0 * Gaussian(sigma=0.8), optimizer=None).fit(X, Y2)
    theta = np.log([1.7, 0.6])
    _, grad = gp.log_marginal_likelihood(theta, eval_gradient=True)
    h = 1e-5
    for i in range(2):
        e = np.eye(2)[i] * h
        fd = (gp.log_marginal_likelihood(theta + e) - gp.log_marginal_likelihood(theta - e)) / (
            2 * h
        )
        assert grad[i] == pytest.approx(fd, abs=1e-6)


def test_probability_is_the_integral_of_the_logistic():
    seqs = ["".join(RNG.choice(list("ACGT"), size=10)) for _ in range(30)]
    labels = [int(s.count("A") > 2) for s in seqs]
    gp = GaussianProcessClassifier(1.0 * Normalize(Spectrum(k=2))).fit(seqs, labels)
    test = ["AAAACGTCGT", "CCGGTTCGCG"]
    k, b = gp.kernel_, gp._binary[0]
    # latent mean and variance from the closed forms (Algorithm 3.2)
    K, Ks = k(seqs), k(test, seqs)
    W = b["pi"] * (1 - b["pi"])
    mean = Ks @ (np.array(labels) - b["pi"])
    var = k.diag(test) - np.einsum("ij,ij->i", Ks @ np.linalg.inv(K + np.diag(1 / W)), Ks)
    for i in range(2):
        direct = integrate.quad(
            lambda z: (
                np.exp(-((z - mean[i]) ** 2) / (2 * var[i]))
                / np.sqrt(2 * np.pi * var[i])
                / (1 + np.exp(-z))
            ),
            -np.inf,
            np.inf,
            epsabs=1e-12,
        )[0]
        assert gp.predict_proba(test)[i, 1] == pytest.approx(direct, abs=1e-8)


def test_precomputed_equals_the_kernel():
    k = Scaled(Gaussian(sigma=1.0, sigma_bounds="fixed"), 2.0, factor_bounds="fixed")
    by_kernel = GaussianProcessClassifier(k).fit(X, Y2)
    by_gram = GaussianProcessClassifier("precomputed").fit(k(X), Y2)
    np.testing.assert_allclose(by_gram.latent_mode_, by_kernel.latent_mode_, atol=1e-10)
    np.testing.assert_allclose(
        by_gram.predict_proba(k(X_TEST, X), test_gram=k.diag(X_TEST)),
        by_kernel.predict_proba(X_TEST),
        atol=1e-10,
    )
    with pytest.raises(ValueError, match="a probability needs test_gram="):
        by_gram.predict_proba(k(X_TEST, X))
