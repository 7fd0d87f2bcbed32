"""KernelSVM(probability=True): Platt scaling by internal cross-validation,
checked against scikit-learn's SVC(probability=True) and direct optimisation."""

import warnings
from itertools import combinations

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.svm import SVC

from structk.learners import KernelSVM
from structk.learners._smo.platt import fit_sigmoid, pairwise_coupling, platt_objective


def _data(n_classes, n=400, seed=0):
    X, y = make_classification(
        n,
        n_features=5,
        n_informative=3,
        n_classes=n_classes,
        n_clusters_per_class=1,
        flip_y=0.1,
        random_state=seed,
    )
    K = X @ X.T
    tr, te = np.arange(300), np.arange(300, n)
    return K[np.ix_(tr, tr)], y[tr], K[np.ix_(te, tr)], y[te]


def _sklearn_proba(K, y, Kt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # deprecated in sklearn >= 1.9
        return (
            SVC(kernel="precomputed", C=1.0, probability=True, random_state=0)
            .fit(K, y)
            .predict_proba(Kt)
        )


@pytest.mark.parametrize("n_classes", [2, 3])
def test_probabilities_agree_with_sklearn_svc(n_classes):
    K, y, Kt, _ = _data(n_classes)
    P = KernelSVM(C=1.0, probability=True, random_state=0).fit(K, y).predict_proba(Kt)
    ref = _sklearn_proba(K, y, Kt)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert P.shape == ref.shape and np.all(P >= 0)
    # different random internal folds: the same model up to a few hundredths
    assert np.abs(P - ref).max() < 0.08 and np.abs(P - ref).mean() < 0.02


def test_binary_probability_orders_as_the_decision_function():
    K, y, Kt, _ = _data(2)
    svm = KernelSVM(C=1.0, probability=True, random_state=0).fit(K, y)
    p, d = svm.predict_proba(Kt)[:, 1], svm.decision_function(Kt)
    assert svm.probA_[0] < 0
    order = np.argsort(d)
    assert np.all(np.diff(p[order]) >= 0)
    assert np.all((p > 0.5) == (d > -svm.probB_[0] / svm.probA_[0]))


def test_probabilities_are_calibrated_on_held_out_data():
    # a logistic model: a sigmoid of the (linear) decision value is the truth
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 2))
    y = (rng.random(3000) < 1 / (1 + np.exp(-2.0 * X[:, 0] + 0.5))).astype(int)
    K = X @ X.T
    tr, te = np.arange(600), np.arange(600, 3000)
    p = (
        KernelSVM(C=1.0, probability=True, random_state=0)
        .fit(K[np.ix_(tr, tr)], y[tr])
        .predict_proba(K[np.ix_(te, tr)])[:, 1]
    )
    bins = np.digitize(p, [0.2, 0.4, 0.6, 0.8])
    for b in range(5):
        inside = bins == b
        if inside.sum() >= 100:
            assert abs(p[inside].mean() - y[te][inside].mean()) < 0.08, b
    brier = np.mean((p - y[te]) ** 2)
    ref = _sklearn_proba(K[np.ix_(tr, tr)], y[tr], K[np.ix_(te, tr)])[:, 1]
    assert brier < np.mean((ref - y[te]) ** 2) + 0.01


@pytest.mark.parametrize("seed", range(4))
def test_sigmoid_fit_matches_direct_minimisation(seed):
    rng = np.random.default_rng(seed)
    f = rng.normal(size=80) * 2
    signs = np.where(rng.random(80) < 1 / (1 + np.exp(-1.5 * f + 0.3)), 1.0, -1.0)
    A, B = fit_sigmoid(f, signs)
    n_pos, n_neg = (signs > 0).sum(), (signs < 0).sum()
    t = np.where(signs > 0, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    res = minimize(
        lambda v: platt_objective(v[0], v[1], f, t),
        [0.0, 0.0],
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000},
    )
    np.testing.assert_allclose([A, B], res.x, atol=1e-4)
    assert platt_objective(A, B, f, t) <= res.fun + 1e-9


def test_separable_values_give_a_finite_steep_sigmoid():
    f = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    A, B = fit_sigmoid(f, np.sign(f))
    assert np.isfinite(A) and np.isfinite(B) and A < 0 and abs(B) < 1e-8  # symmetric


def test_pairwise_coupling_solves_the_wu_lin_weng_problem():
    rng = np.random.default_rng(0)
    k = 4
    P = rng.uniform(0.05, 0.95, size=(3, k * (k - 1) // 2))
    got = pairwise_coupling(P, k)
    for row, p in zip(P, got):
        r = np.zeros((k, k))
        for m, (a, b) in enumerate(combinations(range(k), 2)):
            r[a, b], r[b, a] = row[m], 1 - row[m]

        def objective(q, r=r):
            return sum(
                (r[j, i] * q[i] - r[i, j] * q[j]) ** 2 for i in range(k) for j in range(k) if i != j
            )

        res = minimize(
            objective,
            np.full(k, 1 / k),
            method="SLSQP",
            constraints={"type": "eq", "fun": lambda q: q.sum() - 1},
            options={"ftol": 1e-14, "maxiter": 500},
        )
        np.testing.assert_allclose(p, res.x, atol=1e-5)


def test_probability_is_an_ordinary_parameter():
    K, y, Kt, _ = _data(2, n=340)
    svm = KernelSVM(probability=True, random_state=3)
    assert clone(svm).get_params()["probability"] is True
    a = svm.fit(K, y).predict_proba(Kt)
    b = clone(svm).fit(K, y).predict_proba(Kt)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(svm.predict_log_proba(Kt), np.log(a))
    plain = KernelSVM().fit(K, y)
    assert not hasattr(plain, "predict_proba")  # as SVC: meta-estimators can tell
    # and the message says what to do, not scikit-learn's bare "has no attribute"
    for method in ("predict_proba", "predict_log_proba"):
        with pytest.raises(
            AttributeError,
            match=rf"{method} needs a model fitted with "
            r"KernelSVM\(probability=True\).*refit",
        ):
            getattr(plain, method)(Kt)
    with pytest.raises(TypeError, match="probability must be True or False"):
        KernelSVM(probability="yes").fit(K, y)


def test_ovr_probabilities_sum_to_one():
    K, y, Kt, yt = _data(3)
    P = KernelSVM(multi_class="ovr", probability=True, random_state=0).fit(K, y).predict_proba(Kt)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert np.mean(P.argmax(axis=1) == yt) > 0.7
