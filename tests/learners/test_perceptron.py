"""KernelPerceptron: separable data, XOR, determinism, non-separable data."""

import numpy as np
import pytest
from learners_util import string_data, string_kernel
from sklearn.exceptions import ConvergenceWarning

from structk import Linear, Polynomial
from structk.learners import KernelPerceptron


def separable(n=80, d=3, seed=0, margin=0.3):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    X = rng.normal(size=(4 * n, d))
    s = (X @ w + 0.5) / np.linalg.norm(w)
    X = X[np.abs(s) > margin][:n]
    return X, np.where(X @ w + 0.5 > 0, "pos", "neg")


def test_linearly_separable_data_are_separated():
    X, y = separable()
    model = KernelPerceptron(kernel=Linear(), random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), y)
    # and the mistake-free pass ended training before max_iter
    assert model.n_iter_ < model.max_iter


def test_xor_needs_a_polynomial_kernel():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([0, 1, 1, 0])
    model = KernelPerceptron(kernel=Polynomial(degree=2, coef0=1.0), random_state=0)
    np.testing.assert_array_equal(model.fit(X, y).predict(X), y)
    with pytest.warns(ConvergenceWarning, match="not separable"):
        linear = KernelPerceptron(kernel=Linear(), max_iter=50, random_state=0).fit(X, y)
    assert (linear.predict(X) != y).any()


def test_dual_form_is_the_perceptron_rule():
    """Replay the updates in the primal and compare the final weights."""
    X, y = separable(40, seed=1)
    model = KernelPerceptron(kernel=Linear(), shuffle=False).fit(X, y)
    ypm = np.where(y == "pos", 1.0, -1.0)
    R2 = (X**2).sum(1).max()
    w, b = np.zeros(X.shape[1]), 0.0
    for _ in range(model.n_iter_):
        for i in range(len(X)):
            if ypm[i] * (X[i] @ w + b) <= 0:
                w += ypm[i] * X[i]
                b += ypm[i] * R2
    np.testing.assert_allclose(model.dual_coef_[0] @ X[model.support_], w, atol=1e-9)
    assert model.intercept_[0] == pytest.approx(b)


def test_seeded_shuffling_is_deterministic():
    X, y = separable(60, seed=2)
    a = KernelPerceptron(kernel=Linear(), random_state=7).fit(X, y)
    b = KernelPerceptron(kernel=Linear(), random_state=7).fit(X, y)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    np.testing.assert_array_equal(a.support_, b.support_)


def test_multiclass_one_vs_rest():
    rng = np.random.default_rng(3)
    centres = np.array([[0.0, 6.0], [6.0, 0.0], [-6.0, -6.0]])
    y = np.repeat([0, 1, 2], 15)
    X = centres[y] + rng.normal(size=(45, 2))
    model = KernelPerceptron(kernel=Linear(), random_state=0).fit(X, y)
    assert model.decision_function(X).shape == (45, 3)
    np.testing.assert_array_equal(model.predict(X), y)


def test_strings_and_precomputed_agree():
    X, y = string_data(30)
    k = string_kernel()
    a = KernelPerceptron(kernel=k, random_state=0, max_iter=500).fit(X, y)
    b = KernelPerceptron(random_state=0, max_iter=500).fit(k(X), y)
    np.testing.assert_array_equal(a.predict(X), b.predict(k(X)))
    np.testing.assert_array_equal(a.predict(X), y)
    assert a.support_vectors_ == [X[i] for i in a.support_]
