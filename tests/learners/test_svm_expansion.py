"""A two-class ``KernelSVM`` whose kernel has an expansion (``GappedKmer``)
decides through it: the same decision values as the cross-Gram with the
dual coefficients, by definition, for library users as for ``structk
predict``."""

import numpy as np
import pytest

from structk.kernels import GappedKmer
from structk.learners import KernelSVM


def _dna(n, length, seed):
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(list("ACGT"), length)) for _ in range(n)]


@pytest.mark.parametrize("normalize", [True, False])
def test_decision_values_through_the_expansion_equal_the_cross_gram(normalize, monkeypatch):
    X, T = _dna(60, 40, 0), _dna(300, 40, 1)
    y = np.array([s.count("GC") > 2 for s in X])
    kernel = GappedKmer(l=6, k=4, d=2, normalize=normalize)
    model = KernelSVM(kernel=kernel, C=1.0).fit(X, y)
    by_gram = kernel(T, model.support_vectors_) @ model.dual_coef_[0] + model.intercept_[0]
    calls = []
    real = GappedKmer.expansion_prepared
    monkeypatch.setattr(
        GappedKmer,
        "expansion_prepared",
        lambda self, P, coef: calls.append(coef.shape) or real(self, P, coef),
    )
    scores = model.decision_function(T)
    assert calls == [(1, len(model.support_))]
    np.testing.assert_allclose(scores, by_gram, rtol=1e-10, atol=1e-12 * np.abs(by_gram).max())
    np.testing.assert_array_equal(model.predict(T), model.classes_[(scores > 0).astype(int)])


def test_three_classes_keep_the_cross_gram(monkeypatch):
    """One table per machine would cost 4^l floats each: several machines
    decide through the cross-Gram."""
    X = _dna(45, 30, 2)
    y = np.repeat([0, 1, 2], 15)
    model = KernelSVM(kernel=GappedKmer(l=5, k=3, d=1), C=1.0).fit(X, y)
    monkeypatch.setattr(GappedKmer, "expansion_prepared", None)  # any use would fail
    assert model.decision_function(X[:5]).shape == (5, 3)
