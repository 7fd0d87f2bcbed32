"""Kernels of every kind and fitted estimators survive pickle and deepcopy.

The kernels are those of ``bad_input_cases.KERNELS`` (every public kernel
class, checked there), the learners every class in ``structk.learners``.
"""

import copy
import inspect
import pickle

import numpy as np
import pytest
from bad_input_cases import _GOOD, KERNELS, _hmm

import structk.learners


def _round_trips(obj):
    return [pickle.loads(pickle.dumps(obj)), copy.deepcopy(obj)]


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_pickles_and_deep_copies(name):
    make, family = KERNELS[name]
    kernel = make()
    X = _GOOD[family]()
    for clone in _round_trips(kernel):
        assert type(clone) is type(kernel) and repr(clone) == repr(kernel)
        np.testing.assert_array_equal(clone(X), kernel(X))
        np.testing.assert_array_equal(clone(X[:2], X), kernel(X[:2], X))


def test_fitted_hmm_pickles_and_deep_copies():
    hmm = _hmm()
    X = _GOOD["strings"]()
    for clone in _round_trips(hmm):
        np.testing.assert_array_equal(clone.score(X), hmm.score(X))


_SUPERVISED = {
    "KernelPerceptron",
    "KernelSVM",
    "KernelLogisticRegression",
    "NearestClassMean",
    "KernelRidge",
    "KernelRidgeCV",
    "GaussianProcessRegressor",
    "GaussianProcessClassifier",
    "SparseGaussianProcessRegressor",
}


@pytest.mark.parametrize("name", sorted(structk.learners.__all__))
@pytest.mark.parametrize("mode", ["kernel", "precomputed"])
def test_fitted_learner_pickles_and_deep_copies(name, mode):
    from structk.kernels import Gaussian

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(10, 2)) - 2, rng.normal(size=(10, 2)) + 2])
    y = np.repeat([0, 1], 10)
    kernel = Gaussian(sigma=2.0)
    cls = getattr(structk.learners, name)
    if "kernel_x" in inspect.signature(cls.__init__).parameters:  # two views
        views = (X, X[:, ::-1]) if mode == "kernel" else (kernel(X), kernel(X[:, ::-1]))
        est = (cls(kernel_x=kernel, kernel_y=kernel) if mode == "kernel" else cls()).fit(*views)
        expected = est.transform(views[0])
        for clone in _round_trips(est):
            # a BLAS product whose operands moved in memory may round the last
            # bit differently (aligned and unaligned kernels): 1 ulp, not more
            np.testing.assert_allclose(
                clone.transform(views[0]), expected, rtol=4 * np.finfo(float).eps, atol=1e-15
            )
        return
    if name == "SparseGaussianProcessRegressor":  # landmarks; no precomputed Gram
        if mode == "precomputed":
            with pytest.raises(ValueError, match="precomputed"):
                cls(kernel="precomputed").fit(kernel(X), y)
            return
        est, data, test = cls(kernel=kernel, n_components=5, random_state=0), X, X[:5]
    elif mode == "kernel":
        est, data, test = cls(kernel=kernel), X, X[:5]
    else:
        est, data, test = cls(kernel="precomputed"), kernel(X), kernel(X[:5], X)
    est = est.fit(data, y) if name in _SUPERVISED else est.fit(data)
    method = next(m for m in ("predict", "transform") if hasattr(est, m))
    expected = getattr(est, method)(test)
    for clone in _round_trips(est):
        np.testing.assert_array_equal(getattr(clone, method)(test), expected)
