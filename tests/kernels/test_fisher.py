"""Fisher scores against finite differences; FisherKernel definition and contract."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from structk import DiscreteHMM, FisherKernel, Normalize, check_psd
from structk.kernels import fisher_scores
from structk.testing import assert_kernel_psd, strings

ALL_PARTS = ("initial", "transition", "emission")


def _model(seed=0, K=3, M=4, zeros=False):
    rng = np.random.default_rng(seed)
    pi = rng.dirichlet(np.ones(K))
    A = rng.dirichlet(np.ones(K), size=K)
    B = rng.dirichlet(np.ones(M), size=K)
    if zeros:
        B[1, 2] = 0.0
        B[1] /= B[1].sum()
    return DiscreteHMM.from_params(pi, A, B, "ACGT"[:M])


def _loglik(pi, A, B, X, alphabet):
    return DiscreteHMM.from_params(pi, A, B, alphabet).score_samples(X)  # one per sequence


def _softmax(theta):
    e = np.exp(theta - theta.max())
    return e / e.sum()


def _finite_difference_scores(hmm, X, h=1e-5):
    """Central differences of log p(x) in the softmax parameters theta = log p."""
    params = [hmm.startprob_[None, :], hmm.transmat_, hmm.emissionprob_]
    columns = []
    for which, P in enumerate(params):
        for r in range(P.shape[0]):
            theta = np.log(P[r])
            for c in range(P.shape[1]):
                values = []
                for step in (h, -h):
                    t = theta.copy()
                    t[c] += step
                    moved = [p.copy() for p in params]
                    moved[which][r] = _softmax(t)
                    values.append(_loglik(moved[0][0], moved[1], moved[2], X, hmm.alphabet_))
                columns.append((values[0] - values[1]) / (2 * h))
    return np.column_stack(columns)


@pytest.mark.parametrize("seed", [0, 1])
def test_scores_equal_central_finite_differences(seed):
    hmm = _model(seed)
    X = hmm.sample(6, [1, 2, 5, 13, 30, 60], random_state=seed)
    G = fisher_scores(hmm, X, parts=ALL_PARTS)
    D = _finite_difference_scores(hmm, X)
    assert G.shape == D.shape == (6, 3 + 9 + 12)
    for i in range(len(X)):  # relative to the size of each sequence's score
        scale = np.abs(G[i]).max()
        np.testing.assert_allclose(G[i], D[i], rtol=0, atol=1e-6 * scale)


def test_parts_select_columns_in_canonical_order():
    hmm = _model(2)
    X = hmm.sample(4, 20, random_state=0)
    full = fisher_scores(hmm, X, parts=ALL_PARTS)
    np.testing.assert_array_equal(fisher_scores(hmm, X, parts=("initial",)), full[:, :3])
    np.testing.assert_array_equal(
        fisher_scores(hmm, X, parts=("emission", "transition")), full[:, 3:]
    )
    np.testing.assert_array_equal(fisher_scores(hmm, X), full[:, 12:])


def test_scores_of_each_probability_vector_sum_to_zero():
    hmm = _model(3)
    X = hmm.sample(5, 25, random_state=1)
    G = fisher_scores(hmm, X, parts=ALL_PARTS)
    np.testing.assert_allclose(G[:, :3].sum(1), 0, atol=1e-12)
    np.testing.assert_allclose(G[:, 3:12].reshape(5, 3, 3).sum(2), 0, atol=1e-12)
    np.testing.assert_allclose(G[:, 12:].reshape(5, 3, 4).sum(2), 0, atol=1e-12)


def test_zero_emission_probability_has_zero_finite_score():
    hmm = _model(4, zeros=True)
    X = hmm.sample(8, 30, random_state=2)
    G = fisher_scores(hmm, X)
    assert np.isfinite(G).all()
    np.testing.assert_array_equal(G[:, 1 * 4 + 2], 0.0)  # state 1, symbol G


def test_impossible_sequence_has_no_score():
    pi = np.array([1.0, 0.0])
    A = np.array([[1.0, 0.0], [0.5, 0.5]])
    B = np.array([[0.5, 0.5, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25]])
    hmm = DiscreteHMM.from_params(pi, A, B, "dna")
    with pytest.raises(
        ValueError,
        match=r"X\[1\] has probability zero under the "
        "HMM.*Fisher score is undefined",
    ):
        fisher_scores(hmm, ["ACCA", "ACGA"])
    with pytest.raises(ValueError, match=r"Y\[0\] has probability zero"):
        FisherKernel(hmm, information="identity")(["AC"], ["T"])


# ----------------------------------------------------------------- kernel
def _fitted_hmm():
    truth = _model(5)
    X = truth.sample(30, 25, random_state=3)
    with warnings.catch_warnings():  # n_iter=20 on purpose: any fitted model will do
        warnings.simplefilter("ignore", ConvergenceWarning)
        return DiscreteHMM(2, "ACGT", n_iter=20, random_state=0).fit(X), X


def test_identity_kernel_is_inner_product_of_scores():
    hmm, X = _fitted_hmm()
    G = fisher_scores(hmm, X[:7], parts=ALL_PARTS)
    H = fisher_scores(hmm, X[7:12], parts=ALL_PARTS)
    k = FisherKernel(hmm, information="identity", parts=ALL_PARTS)
    np.testing.assert_allclose(k(X[:7], X[7:12]), G @ H.T, rtol=1e-12)
    np.testing.assert_allclose(k.features(X[:7]), G, rtol=1e-15)
    np.testing.assert_allclose(k.diag(X[:7]), np.einsum("ij,ij->i", G, G), rtol=1e-12)


@pytest.mark.parametrize("reg", [1e-3, 0.5])
def test_empirical_kernel_equals_its_definition(reg):
    hmm, X = _fitted_hmm()
    train, test = X[:20], X[20:]
    k = FisherKernel(hmm, reg=reg, parts=("transition", "emission")).fit(train)
    G = fisher_scores(hmm, train, parts=("transition", "emission"))
    H = fisher_scores(hmm, test, parts=("transition", "emission"))
    F = G.T @ G / len(train)
    np.testing.assert_allclose(k.information_, F, rtol=1e-12)
    d = F.shape[0]
    F_reg = F + reg * np.trace(F) / d * np.eye(d)
    expected = H @ np.linalg.solve(F_reg, G.T)
    np.testing.assert_allclose(
        k(test, train), expected, rtol=1e-8, atol=1e-10 * np.abs(expected).max()
    )
    K = k(X)
    np.testing.assert_allclose(
        K[20:, :20], expected, rtol=1e-8, atol=1e-10 * np.abs(expected).max()
    )
    assert check_psd(K).is_psd


def test_information_is_estimated_by_fit_and_kept():
    hmm, X = _fitted_hmm()
    k = FisherKernel(hmm)
    with pytest.raises(NotFittedError, match=r"Call k.fit\(sequences\) first"):
        k(X[:10])  # evaluation never estimates F itself
    k.fit(X[:10])
    K_first = k(X[:10])
    assert k.n_information_ == 10
    F = k.information_.copy()
    cross = k(X[10:], X[:10])
    again = k(X[:10], X[10:])
    np.testing.assert_array_equal(k.information_, F)
    np.testing.assert_allclose(cross, again.T, rtol=1e-12)
    np.testing.assert_allclose(k(X[:10]), K_first, rtol=1e-12)
    assert k.n_information_ == 10


def test_evaluation_is_pure_whatever_the_call_order():
    hmm, X = _fitted_hmm()
    a = FisherKernel(hmm, parts=ALL_PARTS).fit(X[:10])
    b = FisherKernel(hmm, parts=ALL_PARTS).fit(X[:10])
    K_a = a(X)  # a evaluates X first, b other collections first
    b(X[20:]), b(X[:5], X[5:]), b.diag(X[3:9])
    np.testing.assert_array_equal(b(X), K_a)
    np.testing.assert_array_equal(a(X[20:], X[:10]), b(X[20:], X[:10]))


def test_fitted_kernel_pickles_deep_copies_and_clones():
    import copy
    import pickle

    from sklearn.base import clone

    hmm, X = _fitted_hmm()
    k = FisherKernel(hmm, parts=("transition", "emission")).fit(X[:12])
    K = k(X)
    for other in (pickle.loads(pickle.dumps(k)), copy.deepcopy(k)):
        np.testing.assert_array_equal(other(X), K)
        np.testing.assert_array_equal(other(X[3:], X[:4]), k(X[3:], X[:4]))
    fresh = clone(k)  # scikit-learn's clone: same parameters, not fitted
    assert fresh.hmm is hmm and fresh.parts == k.parts
    with pytest.raises(NotFittedError, match="not fitted"):
        fresh(X)
    np.testing.assert_array_equal(fresh.fit(X[:12])(X), K)


def test_fitted_kernel_gives_identical_grams_from_threads():
    from concurrent.futures import ThreadPoolExecutor

    hmm, X = _fitted_hmm()
    k = FisherKernel(hmm, parts=ALL_PARTS).fit(X)
    K, C = k(X), k(X[:9], X[9:])
    calls = [lambda: k(X), lambda: k(X[:9], X[9:])] * 8
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda f: f(), calls))
    for t, R in enumerate(results):
        np.testing.assert_array_equal(R, K if t % 2 == 0 else C)


@pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning"
)  # refitted with n_iter=20
def test_kernel_keeps_its_copy_of_the_model_until_refitted():
    hmm, X = _fitted_hmm()
    k = FisherKernel(hmm).fit(X)
    before = k(X[:5])
    hmm.fit(X[:3])  # the user refits the HMM
    np.testing.assert_array_equal(k(X[:5]), before)
    k.fit(X)
    assert not np.allclose(k(X[:5]), before)


def test_singular_information_is_regularised():
    # one training sequence: F = g g^T has rank one
    hmm, X = _fitted_hmm()
    k = FisherKernel(hmm, reg=1e-2).fit(X[:1])
    assert np.linalg.matrix_rank(k.information_) == 1
    K = k(X)
    assert np.isfinite(K).all() and check_psd(K).is_psd
    # F = 0 exactly: one uniform state scores every symbol-balanced sequence
    # zero (all arithmetic here is on powers of two, so exactly zero)
    one = DiscreteHMM.from_params([1.0], [[1.0]], [[0.25] * 4], "ACGT")
    k0 = FisherKernel(one, reg=0.25).fit(["ACGT", "TTGGCCAA"])
    np.testing.assert_array_equal(k0.information_, 0.0)
    G = fisher_scores(one, ["ACGTA", "GGGA"])
    assert np.abs(G).max() > 0.5
    np.testing.assert_allclose(k0(["ACGTA", "GGGA"]), G @ G.T / 0.25, rtol=1e-12)


def test_unfitted_hmm_raises_a_clear_error():
    k = FisherKernel(DiscreteHMM(2, "dna"))
    with pytest.raises(NotFittedError, match=r"Call hmm.fit\(sequences\) first"):
        k(["ACGT"])
    with pytest.raises(NotFittedError, match="not fitted"):
        k.fit(["ACGT"])
    with pytest.raises(NotFittedError):
        fisher_scores(DiscreteHMM(2, "dna"), ["ACGT"])


def test_changing_parameters_after_fit():
    hmm, X = _fitted_hmm()
    k = FisherKernel(hmm, reg=1e-3).fit(X)
    K1 = k(X)
    k.set_params(reg=1.0)  # reg is applied to the stored F: no refit needed
    K2 = k(X)
    assert not np.allclose(K1, K2)
    np.testing.assert_allclose(FisherKernel(hmm, reg=1.0).fit(X)(X), K2, rtol=1e-12)
    k.set_params(parts=ALL_PARTS)
    with pytest.raises(ValueError, match="changed since the kernel was fitted"):
        k(X)
    k.fit(X)
    assert k(X).shape == (30, 30)


def test_composes_with_the_algebra():
    hmm, X = _fitted_hmm()
    k = Normalize(FisherKernel(hmm).fit(X))
    K = k(X[:8])
    np.testing.assert_allclose(np.diag(K), 1.0, rtol=1e-12)
    assert check_psd(K).is_psd


def test_unknown_symbol_and_empty_sequence_are_named():
    hmm, _ = _fitted_hmm()
    k = FisherKernel(hmm, information="identity")
    with pytest.raises(ValueError, match=r"Y\[1\] has symbol 'N' at position 2"):
        k(["ACGT"], ["ACG", "ACNT"])
    with pytest.raises(ValueError, match=r"X\[0\] is empty"):
        k([""])


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"information": "observed"}, ValueError, "information must be"),
        ({"reg": 0.0}, ValueError, "reg must be > 0"),
        ({"parts": "emission"}, TypeError, r"write \('emission',\)"),
        ({"parts": ()}, ValueError, "at least one"),
        ({"parts": ("emissions",)}, ValueError, "unknown part 'emissions'"),
        ({"parts": ("emission", "emission")}, ValueError, "twice"),
    ],
)
def test_invalid_parameters(kwargs, error, match):
    hmm, X = _fitted_hmm()
    k = FisherKernel(hmm, **kwargs)  # constructors store; fit and evaluation check
    with pytest.raises(error, match=match):
        k.fit(X)
    with pytest.raises(error, match=match):
        k(X)
    with pytest.raises(TypeError, match="hmm must be a structk DiscreteHMM"):
        FisherKernel("hmm")(X)


@pytest.mark.parametrize("information", ["empirical", "identity"])
def test_fisher_kernel_is_psd_property(information):
    hmm, X = _fitted_hmm()
    k = FisherKernel(hmm, information=information, parts=ALL_PARTS).fit(X)
    assert_kernel_psd(k, strings("ACGT", min_size=1, max_size=12), pool_sizes=(16, 64))
