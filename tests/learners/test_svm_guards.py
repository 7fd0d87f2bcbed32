"""KernelSVM refuses a one-vs-one problem it cannot build, warns when its
Platt sigmoid is inverted, and keeps log-probabilities finite."""

import time
import warnings

import numpy as np
import pytest

from structk.kernels import Linear
from structk.learners import KernelSVM


def test_thousands_of_single_object_classes_are_refused_up_front():
    X = np.random.default_rng(0).normal(size=(10_000, 2))
    start = time.perf_counter()
    with pytest.raises(
        ValueError,
        match=r"10,000 classes \(10,000 of them with one object\).*"
        r"49,995,000 binary machines.*multi_class='ovr'",
    ):
        KernelSVM(Linear()).fit(X, np.arange(10_000))
    assert time.perf_counter() - start < 30  # refused before any machine (no timing claim)


def test_ovr_with_many_classes_is_not_refused():
    X = np.random.default_rng(0).normal(size=(30, 2))
    model = KernelSVM(Linear(), multi_class="ovr").fit(X, np.arange(30) % 10)
    assert model.predict(X).shape == (30,)


def _inverted_fit():
    """A fit on 8 objects whose Platt sigmoid comes out inverted (seed found by search)."""
    X = np.random.default_rng(1).normal(size=(8, 2))
    return X, [0, 0, 0, 0, 1, 1, 1, 1]


def test_inverted_platt_sigmoid_warns_and_is_what_it_says():
    X, y = _inverted_fit()
    with pytest.warns(UserWarning, match="Platt scaling fitted on 8 objects is inverted"):
        model = KernelSVM(Linear(), probability=True, random_state=1).fit(X, y)
    assert model.probA_[0] > 0
    # the warning is about a real disagreement between predict and predict_proba
    assert (
        np.argmax(model.predict_proba(X), axis=1)
        != np.searchsorted(model.classes_, model.predict(X))
    ).any()


def test_a_well_fitted_sigmoid_does_not_warn():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(40, 2)) - 1.5, rng.normal(size=(40, 2)) + 1.5]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = KernelSVM(Linear(), probability=True, random_state=0).fit(X, [0] * 40 + [1] * 40)
    assert model.probA_[0] < 0


def test_log_proba_is_finite_on_separable_data_and_matches_log_of_proba():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(20, 2)) - 5, rng.normal(size=(20, 2)) + 5]
    model = KernelSVM(Linear(), probability=True, random_state=0).fit(X, [0] * 20 + [1] * 20)
    far = np.array([[-500.0, -500.0], [500.0, 500.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no divide-by-zero warning from numpy
        L = model.predict_log_proba(far)
    assert np.isfinite(L).all()
    P = model.predict_proba(X)
    np.testing.assert_allclose(model.predict_log_proba(X), np.log(P), rtol=1e-12)
    np.testing.assert_allclose(np.exp(L).sum(axis=1), 1.0, rtol=1e-12)
