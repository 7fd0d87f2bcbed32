"""Nothing a learner does writes into an array it does not own.

A caller's precomputed Gram (or targets) is only read, even for a moment:
several fits of the same Gram in several threads (what a threading-backend
grid search does) give the models of serial fits, a watcher thread never
sees the Gram change during the fits, and the Gram is bit-identical after.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from learners_util import blobs, rbf_gram

from structk.learners import (
    KernelCCA,
    KernelCenterer,
    KernelLogisticRegression,
    KernelPCA,
    KernelPerceptron,
    KernelRidge,
    KernelRidgeCV,
    KernelSVM,
    NearestClassMean,
)


def _classification(n=600, n_classes=3, seed=11):
    X, y = blobs(n, n_classes=n_classes, noise=2.0, seed=seed)
    return rbf_gram(X), y


#: (estimator factory over a parameter, two parameter values, fit arguments kind)
CASES = {
    # one-vs-one, few large classes: the path that permuted the caller's Gram
    "svm-ovo": (lambda c: KernelSVM(C=c), (1.0, 10.0), "class"),
    # the squared hinge: the path that added 1/(2C) to the caller's diagonal
    "svm-squared": (lambda c: KernelSVM(C=c, loss="squared_hinge"), (1.0, 10.0), "class"),
    "svm-ovr-proba": (
        lambda c: KernelSVM(C=c, multi_class="ovr", probability=True, random_state=0),
        (1.0, 10.0),
        "class",
    ),
    "ridge": (lambda a: KernelRidge(alpha=a), (0.1, 1.0), "regression"),
    "ridge-cv": (lambda a: KernelRidgeCV(alphas=(a, 10 * a)), (0.1, 1.0), "regression"),
    "logistic": (lambda a: KernelLogisticRegression(alpha=a), (0.1, 1.0), "class"),
    "perceptron": (lambda m: KernelPerceptron(max_iter=m, random_state=0), (3, 5), "class"),
    "class-means": (lambda _: NearestClassMean(), (0, 1), "class"),
    "centerer": (lambda _: KernelCenterer(), (0, 1), "none"),
    "pca": (lambda m: KernelPCA(n_components=m), (2, 3), "none"),
    "cca": (lambda r: KernelCCA(n_components=2, reg=r), (0.1, 1.0), "pair"),
}


@pytest.fixture(autouse=True)
def _quiet_convergence(recwarn):
    """A few epochs of a perceptron on overlapping blobs do not separate them."""


def _fit(make, param, kind, K, y):
    est = make(param)
    if kind == "none":
        return est.fit(K)
    if kind == "pair":
        return est.fit(K, K)
    return est.fit(K, y)


def _state(est):
    """The fitted arrays of an estimator, for comparison."""
    return {
        k: v
        for k, v in vars(est).items()
        if k.endswith("_") and isinstance(v, np.ndarray) and v.dtype != object
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_fits_in_threads_never_write_the_callers_gram(name):
    make, params, kind = CASES[name]
    K, labels = _classification(n=450 if name.startswith("svm") else 160)
    y = labels if kind != "regression" else labels.astype(float) + 0.1 * np.arange(len(labels))
    y_before = y.copy()
    before = K.copy()
    serial = [_fit(make, p, kind, K, y) for p in params]
    np.testing.assert_array_equal(K, before)

    changed = []
    done = threading.Event()

    def watch():
        while not done.is_set():
            if not np.array_equal(K, before):
                changed.append(True)
                return

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with ThreadPoolExecutor(max_workers=len(params)) as pool:
            threaded = list(pool.map(lambda p: _fit(make, p, kind, K, y), params * 2))
    finally:
        done.set()
        watcher.join()
    assert not changed, f"{name}: the caller's Gram changed during a fit"
    np.testing.assert_array_equal(K, before)
    np.testing.assert_array_equal(y, y_before)
    for t, est in enumerate(threaded):
        ref = _state(serial[t % len(params)])
        got = _state(est)
        assert ref.keys() == got.keys()
        for key in ref:  # BLAS may sum in another order on another thread
            _assert_close(got[key], ref[key], f"{name}: {key}")


def _assert_close(got, ref, what):
    if ref.dtype.kind in "fc":
        scale = max(float(np.max(np.abs(ref), initial=0.0)), 1e-300)
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12 * scale, err_msg=what)
    else:
        np.testing.assert_array_equal(got, ref, err_msg=what)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_read_only_gram_is_fitted(name):
    """A read-only Gram (a memory map opened "r", say) fits as a writeable
    one does: no path tries to write it."""
    make, params, kind = CASES[name]
    K, labels = _classification(n=450 if name.startswith("svm") else 160)
    y = labels if kind != "regression" else labels.astype(float)
    ref = _state(_fit(make, params[0], kind, K, y))
    K.flags.writeable = False
    got = _state(_fit(make, params[0], kind, K, y))
    for key in ref:
        _assert_close(got[key], ref[key], f"{name}: {key}")


def test_a_refit_by_another_path_forgets_the_first():
    """Dual, then primal: no dual attribute is left beside the primal's."""
    from structk.kernels import Linear

    X, y = blobs(60, noise=1.0, seed=2)
    svm = KernelSVM(Linear()).fit(X, y)
    assert hasattr(svm, "dual_coef_")
    svm.set_params(solver="primal").fit(X, y)
    assert not hasattr(svm, "dual_coef_") and not hasattr(svm, "support_")
    assert svm.solver_ == "primal"
    ridge = KernelRidge(Linear()).fit(X, y.astype(float))
    ridge.set_params(solver="primal").fit(X, y.astype(float))
    assert getattr(ridge, "X_fit_", None) is None


def test_ridge_with_psd_check_none_solves_an_indefinite_gram():
    """``psd_check="none"`` is honoured by the ridge as by the SVM: an
    indefinite ``K + alpha I`` is solved, not refused; the default refuses."""
    from structk.exceptions import NotPSDError

    rng = np.random.default_rng(3)
    Q, _ = np.linalg.qr(rng.normal(size=(30, 30)))
    K = (Q * np.r_[np.linspace(1, 5, 29), -2.0]) @ Q.T
    y = rng.normal(size=30)
    with pytest.raises(NotPSDError):
        KernelRidge(alpha=0.5).fit(K, y)
    before = K.copy()
    model = KernelRidge(alpha=0.5, psd_check="none").fit(K, y)
    np.testing.assert_allclose(
        model.dual_coef_, np.linalg.solve(K + 0.5 * np.eye(30), y), rtol=1e-8
    )
    np.testing.assert_array_equal(K, before)
