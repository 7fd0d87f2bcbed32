"""cross_validate_grams: one PSD check per Gram, the folds as fitting on slices."""

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from structk import Gaussian, KernelSVM, NotPSDError
from structk.cli.evaluation import cross_validate_grams
from structk.kernels import FunctionKernel


def data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_a_certified_gram_is_checked_once_and_the_folds_score_as_direct_fits(factorisations):
    X, y = data()
    kernel = Gaussian(sigma=1.0)
    (row,) = cross_validate_grams([kernel], [KernelSVM(C=2.0)], X, y, folds=4, seed=3)
    # the whole Gram, not each fold's submatrix
    assert [n for n, _ in factorisations] == [len(X)]
    assert row.is_psd and row.learner == repr(KernelSVM(C=2.0))
    K = kernel(X)
    folds = StratifiedKFold(4, shuffle=True, random_state=3).split(X, y)
    expected = [
        np.mean(KernelSVM(C=2.0).fit(K[np.ix_(tr, tr)], y[tr]).predict(K[np.ix_(te, tr)]) == y[te])
        for tr, te in folds
    ]
    np.testing.assert_allclose(row.scores, expected)


def test_a_gram_that_is_not_psd_is_still_refused_by_the_learners():
    X, y = data()
    sigmoid = FunctionKernel(lambda a, b: np.tanh(3.0 * a @ b - 1.0), name="tanh")
    with pytest.raises(NotPSDError, match="NOT positive semi-definite"):
        cross_validate_grams([sigmoid], [KernelSVM()], X, y, folds=4)


def test_compute_gram_tiles_past_the_one_call_size(tuning, monkeypatch):
    """Up to CLI_GRAM_ONE_CALL_MAX_N objects one kernel call, past it tiles of
    CLI_GRAM_TILE objects through structk.gram: the same matrix either way."""
    from structk.cli.evaluation import compute_gram
    from structk.scale import blockwise

    calls = []
    original = blockwise.gram
    monkeypatch.setattr(
        blockwise, "gram", lambda *a, **kw: calls.append(kw["block_size"]) or original(*a, **kw)
    )
    X, _ = data(30)
    kernel = Gaussian(sigma=1.0)
    tuning.set(CLI_GRAM_ONE_CALL_MAX_N=30)
    K, _ = compute_gram(kernel, X)
    assert calls == []
    tuning.set(CLI_GRAM_ONE_CALL_MAX_N=29, CLI_GRAM_TILE=7)
    K2, _ = compute_gram(kernel, X)
    assert calls == [7]
    tuning.set(CLI_GRAM_TILE=100)
    K3, _ = compute_gram(kernel, X)
    assert calls == [7, 16]  # under 4 tiles' worth: about 4 tiles a side, 16 at least
    np.testing.assert_allclose(K2, K, rtol=1e-14)
    np.testing.assert_allclose(K3, K, rtol=1e-14)
