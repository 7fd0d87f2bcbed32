"""Learners fit a clone of their kernel and keep the prepared training data prediction needs."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV

from structk import DiscreteHMM, FisherKernel, Spectrum
from structk.learners import (
    KernelCenterer,
    KernelLogisticRegression,
    KernelPerceptron,
    KernelRidge,
    KernelRidgeCV,
    KernelSVM,
    NearestClassMean,
)
from structk.scale import Nystroem

LEARNERS = [
    KernelSVM,
    KernelPerceptron,
    KernelLogisticRegression,
    NearestClassMean,
    KernelRidge,
    KernelRidgeCV,
    KernelCenterer,
]


class CountingSpectrum(Spectrum):
    """Spectrum that counts the objects it prepares (class-level, survives clone)."""

    prepared = []

    def _prepare(self, X, name):
        CountingSpectrum.prepared.append(len(X))
        return super()._prepare(X, name)


def _strings(n, seed):
    rng = np.random.default_rng(seed)
    X = ["".join(rng.choice(list("ACGT"), size=rng.integers(8, 20))) for _ in range(n)]
    y = np.array([x.count("A") > x.count("T") for x in X], dtype=int)
    return X, y


def _make(cls, kernel):
    model = cls(kernel=kernel)
    if "random_state" in model.get_params():
        model.set_params(random_state=0)
    return model


def _fit(cls, kernel, X, y):
    model = _make(cls, kernel)
    if cls is KernelCenterer:
        return model.fit(X)
    return model.fit(X, y.astype(float) if cls in (KernelRidge, KernelRidgeCV) else y)


def _predict(model, X):
    return (
        model.transform(X)
        if isinstance(model, KernelCenterer)
        else (
            model.decision_function(X) if hasattr(model, "decision_function") else model.predict(X)
        )
    )


@pytest.mark.parametrize("cls", LEARNERS)
def test_prediction_prepares_only_the_new_objects(cls):
    X, y = _strings(30, 0)
    test, _ = _strings(7, 1)
    model = _fit(cls, CountingSpectrum(k=2), X, y)
    CountingSpectrum.prepared.clear()
    values = _predict(model, test)
    assert CountingSpectrum.prepared == [7]  # the test objects, once
    # the same values as the kernel evaluated from scratch on objects
    kept = getattr(model, "support_vectors_", None)
    reference = _make(cls, "precomputed").fit(
        *(
            (Spectrum(k=2)(X),)
            if cls is KernelCenterer
            else (Spectrum(k=2)(X), y.astype(float) if cls in (KernelRidge, KernelRidgeCV) else y)
        )
    )
    np.testing.assert_allclose(
        _predict(model, test), _predict(reference, Spectrum(k=2)(test, X)), rtol=1e-10
    )
    np.testing.assert_array_equal(_predict(pickle.loads(pickle.dumps(model)), test), values)
    if kept is not None:
        assert len(kept) == len(model.support_)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("cls", LEARNERS)
def test_learners_fit_a_clone_of_a_kernel_that_needs_fitting(cls):
    truth = DiscreteHMM.from_params(
        [0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]], [[0.4, 0.1, 0.1, 0.4], [0.1, 0.4, 0.4, 0.1]], "ACGT"
    )
    X, y = truth.sample(24, 20, random_state=0, return_states=True)
    y = np.array([int(s.mean() > 0.5) for s in y])
    hmm = DiscreteHMM(2, "ACGT", n_iter=10, random_state=0).fit(X)
    kernel = FisherKernel(hmm)
    model = _fit(cls, kernel, X, y)
    assert not hasattr(kernel, "information_")  # the user's kernel is untouched
    assert model.kernel_ is not kernel and model.kernel_.n_information_ == 24
    fitted = FisherKernel(hmm).fit(X)
    reference = _make(cls, "precomputed").fit(
        *(
            (fitted(X),)
            if cls is KernelCenterer
            else (fitted(X), y.astype(float) if cls in (KernelRidge, KernelRidgeCV) else y)
        )
    )
    np.testing.assert_allclose(
        _predict(model, X[:5]), _predict(reference, fitted(X[:5], X)), rtol=1e-8, atol=1e-10
    )


@pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning"
)  # an HMM fitted with n_iter=5
def test_grid_search_refits_the_kernel_on_each_fold():
    truth = DiscreteHMM.from_params(
        [0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]], [[0.4, 0.1, 0.1, 0.4], [0.1, 0.4, 0.4, 0.1]], "ACGT"
    )
    X = truth.sample(30, 15, random_state=1)
    y = np.arange(30) % 2
    hmm = DiscreteHMM(2, "ACGT", n_iter=5, random_state=0).fit(X)
    search = GridSearchCV(
        KernelSVM(kernel=FisherKernel(hmm)), {"kernel__reg": [1e-3, 1e-1]}, cv=3
    ).fit(X, y)
    assert search.best_estimator_.kernel_.n_information_ == 30
    with pytest.raises(NotFittedError, match="not fitted"):
        clone(search.best_estimator_.kernel)(X)


def test_nystroem_fits_a_clone_and_keeps_its_landmarks_prepared():
    X, _ = _strings(20, 2)
    model = Nystroem(CountingSpectrum(k=2), n_components=5, random_state=0).fit(X)
    CountingSpectrum.prepared.clear()
    F = model.transform(X[:4])
    assert CountingSpectrum.prepared == [4]
    np.testing.assert_allclose(
        F @ model.transform(X[:4]).T,
        Spectrum(k=2)(X[:4], model.components_)
        @ model.normalization_
        @ model.normalization_.T
        @ Spectrum(k=2)(model.components_, X[:4]),
        rtol=1e-10,
        atol=1e-12,
    )
