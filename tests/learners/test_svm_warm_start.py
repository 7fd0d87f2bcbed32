"""KernelSVM started from another C's solution (``fit(..., init=)``): the same
optimum as a start from zero, to the solver's tolerance, and the inner
cross-validation of ``structk cv`` choosing the same C along the path."""

import numpy as np
import pytest
from learners_util import blobs, rbf_gram

from structk.cli.evaluation import (
    LearnerSpec,
    _inner_losses,
    _inner_splits,
    _path_order,
    make_splits,
)
from structk.learners import KernelSVM

PATH = [0.1, 1.0, 10.0, 100.0, 1000.0]


def flat_gram(n, seed):
    """A normalised Gram with entries near 1 (as normalised random walks on
    graphs): large C needed, many SMO iterations there."""
    X, y = blobs(n, d=3, n_classes=3, noise=2.0, seed=seed)
    K = 0.8 + 0.2 * rbf_gram(X, gamma=0.3)
    d = np.sqrt(np.diag(K))
    return K / np.outer(d, d), y


def problems():
    X, y = blobs(90, noise=2.0, seed=11)
    yield "binary rbf", rbf_gram(X), y
    X, y = blobs(120, n_classes=4, noise=1.5, seed=12)
    yield "4 classes rbf", rbf_gram(X), y
    yield "3 classes flat", *flat_gram(120, 13)
    X, y = blobs(100, d=2, noise=1.0, seed=14)
    yield "binary linear, rank 2", X @ X.T, y


@pytest.mark.parametrize("multi_class", ["ovo", "ovr"])
@pytest.mark.parametrize(
    "name, K, y", list(problems()), ids=lambda v: v if isinstance(v, str) else ""
)
def test_path_reaches_the_cold_optimum(name, K, y, multi_class, tuning):
    # machines this small take no start (the interior point is as fast
    # from zero): the start is tested here with the interior point off
    tuning.set(SVM_IPM_MAX_N=0)
    tol = 1e-3
    Kt = K[::3]
    previous, fewer = None, 0
    for C in PATH:
        cold = KernelSVM(C=C, tol=tol, multi_class=multi_class).fit(K, y)
        warm = KernelSVM(C=C, tol=tol, multi_class=multi_class).fit(K, y, init=previous)
        f, g = cold._machine_values(Kt), warm._machine_values(Kt)
        # both solutions are tol-accurate: the decision values agree to ~tol,
        # relative to their size, and the dual objectives closely
        assert np.abs(f - g).max() <= 10 * tol * max(1.0, np.abs(f).max()), (name, C)
        np.testing.assert_allclose(warm.dual_objective_, cold.dual_objective_, rtol=1e-4)
        assert warm.dual_coef_.shape[0] == cold.dual_coef_.shape[0]
        assert np.all(np.abs(warm.dual_coef_) <= C * (1 + 1e-12))
        clear = np.abs(f) > 10 * tol * max(1.0, np.abs(f).max())
        assert np.array_equal(np.sign(f)[clear], np.sign(g)[clear])
        if previous is not None:
            fewer += warm.n_iter_.sum() < cold.n_iter_.sum()
        previous = warm
    assert fewer >= 2  # the start is used, and it helps


def test_init_that_does_not_fit_is_a_cold_start():
    X, y = blobs(80, n_classes=3, noise=1.5, seed=15)
    K = rbf_gram(X)
    cold = KernelSVM(C=10.0).fit(K, y)
    others = [
        KernelSVM(C=1.0).fit(K, y == 1),  # other classes
        KernelSVM(C=1.0).fit(K[:60, :60], y[:60]),  # other size
        KernelSVM(C=1.0, multi_class="ovr").fit(K, y),  # other machines
        KernelSVM(C=1.0, loss="squared_hinge").fit(K, y),  # other loss
        KernelSVM(C=1.0),
    ]  # not fitted
    for init in others:
        warm = KernelSVM(C=10.0).fit(K, y, init=init)
        np.testing.assert_array_equal(warm.dual_coef_, cold.dual_coef_)
        np.testing.assert_array_equal(warm.n_iter_, cold.n_iter_)
    # squared hinge and Platt scaling never take a start
    for kw in ({"loss": "squared_hinge"}, {"probability": True, "random_state": 0}):
        seeded = KernelSVM(C=10.0, **kw).fit(K, y, init=KernelSVM(C=1.0, **kw).fit(K, y))
        plain = KernelSVM(C=10.0, **kw).fit(K, y)
        np.testing.assert_array_equal(seeded.dual_coef_, plain.dual_coef_)


def test_a_machine_small_enough_for_the_interior_point_takes_no_start(tuning):
    X, y = blobs(90, noise=2.0, seed=11)
    K = rbf_gram(X)
    init = KernelSVM(C=10.0).fit(K, y)
    cold = KernelSVM(C=1e3).fit(K, y)
    warm = KernelSVM(C=1e3).fit(K, y, init=init)
    np.testing.assert_array_equal(warm.dual_coef_, cold.dual_coef_)
    tuning.set(SVM_IPM_MAX_N=0)
    seeded = KernelSVM(C=1e3).fit(K, y, init=init)
    assert seeded.n_iter_.sum() < KernelSVM(C=1e3).fit(K, y).n_iter_.sum()


def test_path_order_sorts_C_within_the_other_parameters():
    cands = [{"C": c, "tol": t} for t in (1e-3, 1e-2) for c in (100.0, 1.0, 10.0)]
    order, seeds = _path_order(KernelSVM(), cands)
    assert [cands[c]["C"] for c in order] == [1.0, 10.0, 100.0] * 2
    assert [seeds[c] for c in order] == [None, order[0], order[1], None, order[3], order[4]]
    from structk.learners import KernelRidge

    plain = [{"alpha": a} for a in (1.0, 0.1)]
    assert _path_order(KernelRidge(), plain) == ([0, 1], [None, None])


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("ipm_max_n", [0, 600])
def test_inner_cv_along_the_path_chooses_as_cold(seed, ipm_max_n, tuning):
    """The inner losses of every C, and so the chosen C, with and without the
    path (one-vs-one on three classes, and a binary problem); with the
    interior point off (every machine seeded) and on (none is)."""
    tuning.set(SVM_IPM_MAX_N=ipm_max_n)
    K, y = flat_gram(150, 20 + seed)
    if seed:
        y = (y == 0).astype(int)
    spec = LearnerSpec(KernelSVM(psd_check="none"), {"C": [0.1, 1.0, 10.0, 100.0, 1e3, 1e4]})
    splits = make_splits(3, y, "classification", seed=seed)
    for train, _ in splits.folds:
        inner = _inner_splits(splits, train, y, "classification")
        out = {}
        for path in (True, False):
            tuning.set(CV_SVM_C_PATH=path)  # _fit_predict: compiled_small
            cands, losses, ok = _inner_losses(spec, K, y, train, inner, "classification")
            out[path] = losses
        # a prediction may flip only where a decision value is within tol of 0
        np.testing.assert_allclose(out[True], out[False], atol=2 / len(train))
        assert int(np.argmin(out[True])) == int(np.argmin(out[False]))
