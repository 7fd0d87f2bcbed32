"""An exact fit's memory: the Gram and little else (tracemalloc, NumPy's
allocations; the compiled solver's working block is not traced and is
bounded by its own rule, a quarter of the Gram)."""

import tracemalloc

import numpy as np
import pytest

from structk import (
    KernelLogisticRegression,
    KernelRidge,
    KernelSVM,
    Normalize,
    Spectrum,
    defaults,
)


def _dna(n, length, seed):
    rng = np.random.default_rng(seed)
    return ["".join(s) for s in rng.choice(list("ACGT"), size=(n, length))]


def _peak(func):
    tracemalloc.start()
    try:
        func()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("n", [1200])
def test_a_normalised_kernel_svm_fit_peaks_near_the_grams_bytes(n):
    X = _dna(n, 60, seed=0)
    y = np.arange(n) % 2
    k = Normalize(Spectrum(k=3))
    KernelSVM(kernel=k, solver="dual").fit(X, y)  # compiled code loaded outside the measurement
    gram = 8 * n * n
    peak = _peak(lambda: KernelSVM(kernel=k, solver="dual").fit(X, y))
    assert peak <= 1.3 * gram, f"fit peaked at {peak / gram:.2f} x the Gram"
    # the Gram alone, for comparison: the fit adds little to it
    assert _peak(lambda: k(X)) <= 1.3 * gram


def test_a_precomputed_fit_copies_nothing_of_the_gram():
    n = 1200
    X = np.random.default_rng(1).normal(size=(n, 3))
    K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    y = (X[:, 0] > 0).astype(int)
    KernelSVM().fit(K, y)
    peak = _peak(lambda: KernelSVM().fit(K, y))
    # beyond the Gram: at most the PSD safeguard's sampled principal block
    # and its factor, whose size does not grow with n
    block = 2 * 8 * defaults.PSD_FACTORISE_MAX_N**2
    assert peak <= 0.1 * K.nbytes + block, f"fit allocated {peak / K.nbytes:.2f} x the Gram"


def test_a_kernel_ridge_fit_factorises_its_own_gram_in_place():
    n = 1200
    X = _dna(n, 60, seed=2)
    y = np.random.default_rng(2).normal(size=n)
    k = Normalize(Spectrum(k=3))
    ridge = KernelRidge(kernel=k, solver="dual").fit(X, y)
    gram = 8 * n * n
    peak = _peak(lambda: KernelRidge(kernel=k, solver="dual").fit(X, y))
    assert peak <= 1.3 * gram, f"fit peaked at {peak / gram:.2f} x the Gram"
    # the same model as from the Gram the caller holds (which is copied)
    K = k(X)
    twin = KernelRidge().fit(K, y)
    np.testing.assert_allclose(ridge.dual_coef_, twin.dual_coef_, rtol=1e-9, atol=1e-12)
    assert ridge.rkhs_norm_ == pytest.approx(twin.rkhs_norm_, rel=1e-9)
    np.testing.assert_array_equal(K, k(X))  # the caller's Gram untouched


@pytest.mark.parametrize(
    "learner",
    [
        KernelSVM(solver="dual"),  # one-vs-one: each pair's block of the Gram itself
        KernelSVM(solver="dual", multi_class="ovr"),
        KernelLogisticRegression(solver="dual"),  # factorises its own Gram in place
    ],
)
def test_a_three_class_fit_peaks_near_the_grams_bytes(learner):
    from sklearn.base import clone

    n = 1200
    X = _dna(n, 60, seed=3)
    y = np.arange(n) % 3
    k = Normalize(Spectrum(k=3))
    model = clone(learner).set_params(kernel=k)
    clone(model).fit(X, y)  # compiled code and modules loaded outside the measurement
    gram = 8 * n * n
    # L-BFGS keeps 2 x 50 vectors of n x classes: 0.25 x a Gram of 1,200
    # objects, 0.015 x one of 20,000
    history = 8 * 2 * 50 * n * 3 if isinstance(learner, KernelLogisticRegression) else 0
    peak = _peak(lambda: clone(model).fit(X, y))
    assert peak <= 1.3 * gram + history, f"fit peaked at {peak / gram:.2f} x the Gram"


def test_a_logistic_fit_keeps_the_callers_gram():
    n = 1200
    X = _dna(n, 60, seed=4)
    y = np.arange(n) % 2
    k = Normalize(Spectrum(k=3))
    K = k(X)
    model = KernelLogisticRegression(kernel=k, solver="dual").fit(X, y)
    twin = KernelLogisticRegression().fit(K, y)  # the caller's Gram is copied
    np.testing.assert_array_equal(K, k(X))
    np.testing.assert_allclose(model.dual_coef_, twin.dual_coef_, rtol=1e-8, atol=1e-10)
