"""Class-conditional Fisher kernel: finite differences, Bayes' rule in the prior
scores, and the reparametrisation invariance of the Fisher kernel."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from structk import DiscreteHMM, FisherKernel, check_psd
from structk.kernels import ClassConditionalFisherKernel
from structk.learners import KernelSVM

ALL_PARTS = ("initial", "transition", "emission")


def _model(seed, K=2, M=4):
    rng = np.random.default_rng(seed)
    return DiscreteHMM.from_params(
        rng.dirichlet(np.ones(K)),
        rng.dirichlet(np.ones(K), size=K),
        rng.dirichlet(np.ones(M), size=K),
        "ACGT"[:M],
    )


def _softmax(theta):
    e = np.exp(theta - theta.max())
    return e / e.sum()


def _mixture_loglik(models, priors, X):
    """log sum_k pi_k p(x | k) from each model's own log-likelihood."""
    ll = np.column_stack([DiscreteHMM.from_params(*m, "ACGT").score_samples(X) for m in models])
    return np.logaddexp.reduce(ll + np.log(priors), axis=1)


def _finite_differences(hmms, priors, X, h=1e-5):
    """Central differences of log p(x) in eta (priors = softmax(eta)) and in each
    class's softmax HMM parameters, in the kernel's column order."""
    models = [[hmm.startprob_[None, :], hmm.transmat_, hmm.emissionprob_] for hmm in hmms]

    def loglik(models, priors):
        return _mixture_loglik([(m[0][0], m[1], m[2]) for m in models], priors, X)

    columns = []
    eta = np.log(priors)
    for c in range(len(priors)):
        values = []
        for step in (h, -h):
            e = eta.copy()
            e[c] += step
            values.append(loglik(models, _softmax(e)))
        columns.append((values[0] - values[1]) / (2 * h))
    for k, params in enumerate(models):
        for which, P in enumerate(params):
            for r in range(P.shape[0]):
                theta = np.log(P[r])
                for c in range(P.shape[1]):
                    values = []
                    for step in (h, -h):
                        t = theta.copy()
                        t[c] += step
                        moved = [[p.copy() for p in m] for m in models]
                        moved[k][which][r] = _softmax(t)
                        values.append(loglik(moved, priors))
                    columns.append((values[0] - values[1]) / (2 * h))
    return np.column_stack(columns)


def _data(n=8, seed=0):
    hmms = [_model(seed), _model(seed + 10)]
    X = hmms[0].sample(n // 2, [3, 8, 20, 40][: n // 2], random_state=seed)
    X += hmms[1].sample(n // 2, [5, 12, 25, 33][: n // 2], random_state=seed + 1)
    return hmms, X


@pytest.mark.parametrize("seed", [0, 1])
def test_scores_equal_central_finite_differences(seed):
    hmms, X = _data(seed=seed)
    priors = np.array([0.3, 0.7])
    k = ClassConditionalFisherKernel(hmms, priors, information="identity", parts=ALL_PARTS)
    G = k.features(X)
    D = _finite_differences(hmms, priors, X)
    assert G.shape == D.shape == (8, 2 + 2 * (2 + 4 + 8))
    np.testing.assert_allclose(G, D, rtol=1e-5, atol=1e-6 * np.abs(D).max())


def test_prior_scores_are_posterior_minus_prior():
    hmms, X = _data(seed=2)
    priors = np.array([0.8, 0.2])
    k = ClassConditionalFisherKernel(hmms, priors, information="identity")
    # Bayes' rule, from each model's own likelihood
    joint = np.column_stack([hmm.score_samples(X) for hmm in hmms]) + np.log(priors)
    posterior = np.exp(joint - np.logaddexp.reduce(joint, axis=1, keepdims=True))
    np.testing.assert_allclose(k.features(X)[:, :2], posterior - priors, atol=1e-12)
    np.testing.assert_allclose(k.posteriors(X), posterior, atol=1e-12)
    # the HMM blocks are the single-model scores weighted by the posterior
    single = [FisherKernel(hmm, information="identity").features(X) for hmm in hmms]
    np.testing.assert_allclose(k.features(X)[:, 2:10], posterior[:, :1] * single[0], atol=1e-12)
    np.testing.assert_allclose(k.features(X)[:, 10:], posterior[:, 1:] * single[1], atol=1e-12)


def test_impossible_under_one_class_has_a_zero_block():
    zero_a = DiscreteHMM.from_params([1.0], [[1.0]], [[0.0, 0.5, 0.5, 0.0]], "ACGT")
    uniform = DiscreteHMM.from_params([1.0], [[1.0]], [[0.25] * 4], "ACGT")
    k = ClassConditionalFisherKernel([zero_a, uniform], information="identity")
    G = k.features(["AAC", "CGG"])
    assert np.isfinite(G).all()
    np.testing.assert_allclose(G[0, :2], [-0.5, 0.5])  # certainly class 1
    np.testing.assert_allclose(G[0, 2:6], 0.0)
    with pytest.raises(ValueError, match=r"X\[1\] has probability zero under every class"):
        ClassConditionalFisherKernel([zero_a, zero_a], information="identity").features(
            ["CG", "TA"]
        )


@pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning"
)  # the default n_iter=100
def test_empirical_kernel_is_whitened_scores_and_learns():
    rng = np.random.default_rng(0)
    hmms = [_model(3), _model(4)]
    X = hmms[0].sample(40, 30, random_state=0) + hmms[1].sample(40, 30, random_state=1)
    y = np.repeat([0, 1], 40)
    k = ClassConditionalFisherKernel.from_labelled(X, y, hmm=DiscreteHMM(random_state=0))
    with pytest.raises(NotFittedError, match="k.fit"):
        k(X)
    k.fit(X)
    G = ClassConditionalFisherKernel(k.hmms, k.priors, information="identity").features(X)
    F = G.T @ G / len(X)
    w, V = np.linalg.eigh(F)
    W = V @ np.diag(1 / np.sqrt(np.maximum(w, 0) + 1e-3 * np.trace(F) / len(F))) @ V.T
    np.testing.assert_allclose(k(X), G @ W @ W @ G.T, rtol=1e-8, atol=1e-10)
    assert check_psd(k(X)).is_psd
    order = rng.permutation(80)
    train, test = order[:60], order[60:]
    Xtr = [X[i] for i in train]
    model = KernelSVM(
        kernel=ClassConditionalFisherKernel.from_labelled(
            Xtr, y[train], hmm=DiscreteHMM(random_state=0)
        ),
        C=1.0,
    ).fit(Xtr, y[train])
    assert model.score([X[i] for i in test], y[test]) >= 0.8
    twin = clone(model.kernel)
    assert twin.hmms[0] is model.kernel.hmms[0]


def test_fisher_kernel_is_invariant_to_reparametrisation():
    """With the empirical Fisher information the kernel does not depend on how the
    model is parametrised: g_lambda = J^T g_theta and F_lambda = J^T F_theta J give
    g^T F^{-1} g unchanged. Here theta are the softmax logits FisherKernel uses, and
    lambda the first M-1 emission probabilities of each state (the last one is
    1 - their sum), whose scores we take by finite differences of log p(x). With
    the identity in place of F the two kernels differ."""
    hmm = _model(5, K=2, M=4)
    X = hmm.sample(60, 25, random_state=3)
    K_softmax = FisherKernel(hmm, information="empirical", reg=1e-11).fit(X)(X)
    B = hmm.emissionprob_
    h = 1e-6
    columns = []
    for s in range(B.shape[0]):
        for j in range(B.shape[1] - 1):
            values = []
            for step in (h, -h):
                moved = B.copy()
                moved[s, j] += step
                moved[s, -1] -= step
                values.append(
                    DiscreteHMM.from_params(
                        hmm.startprob_, hmm.transmat_, moved, "ACGT"
                    ).score_samples(X)
                )
            columns.append((values[0] - values[1]) / (2 * h))
    G = np.column_stack(columns)
    F = G.T @ G / len(X)
    K_probabilities = G @ np.linalg.solve(F, G.T)
    np.testing.assert_allclose(
        K_probabilities, K_softmax, rtol=1e-5, atol=1e-6 * np.abs(K_softmax).max()
    )
    K_identity = FisherKernel(hmm, information="identity")(X)
    assert not np.allclose(G @ G.T, K_identity, rtol=1e-2)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda h: ClassConditionalFisherKernel([h]), ValueError, "at least 2 models"),
        (lambda h: ClassConditionalFisherKernel([h, "x"]), TypeError, r"hmms\[1\]"),
        (lambda h: ClassConditionalFisherKernel([h, DiscreteHMM()]), NotFittedError, "not fitted"),
        (
            lambda h: ClassConditionalFisherKernel([h, h], priors=[0.5]),
            ValueError,
            "one entry per model",
        ),
        (
            lambda h: ClassConditionalFisherKernel([h, h], priors=[0.0, 1.0]),
            ValueError,
            r"priors\[0\] is 0.0",
        ),
        (lambda h: ClassConditionalFisherKernel([h, h], priors=[0.5, 0.6]), ValueError, "sum to 1"),
        (
            lambda h: ClassConditionalFisherKernel(
                [h, DiscreteHMM.from_params([1.0], [[1.0]], [[0.5, 0.5]], "AB")]
            ),
            ValueError,
            "share one alphabet",
        ),
    ],
)
def test_bad_models_and_priors(make, error, match):
    with pytest.raises(error, match=match):
        make(_model(0)).fit(["ACGT"])
