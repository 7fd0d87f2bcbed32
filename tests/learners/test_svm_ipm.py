"""The dense interior-point start of the SVM dual (``_smo.dense_ipm``).

The interior point alone is checked against the exact optimum of tiny duals
found by brute force over active sets; the finished solution (SMO from the
interior point) against a cold SMO, to the solver's tolerance; and the path
where the interior point fails.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pytest

from structk.learners import KernelSVM, _smo
from structk.learners._smo import dense_ipm


def _dual_objective(K, y, alpha):
    return 0.5 * float(alpha @ (K * np.outer(y, y)) @ alpha) - float(alpha.sum())


def _brute_force_optimum(K, y, C):
    """The optimal value of the C-SVM dual by enumerating every assignment of
    the variables to {0, free, C}: on each, the free variables solve the
    equality-constrained problem (least squares for a singular system, kept
    only when consistent); the best point inside the box is optimal (a
    convex QP has an optimum whose free-set system has a unique solution)."""
    n = len(y)
    Q = K * np.outer(y, y)
    best = np.inf
    for status in itertools.product((0, 1, 2), repeat=n):
        status = np.array(status)
        free = np.flatnonzero(status == 1)
        alpha = np.where(status == 2, C, 0.0)
        if free.size:
            m = free.size
            A = np.zeros((m + 1, m + 1))
            A[:m, :m] = Q[np.ix_(free, free)]
            A[:m, m] = -y[free]
            A[m, :m] = y[free]
            b = np.append(1.0 - Q[free] @ alpha, -y @ alpha)
            sol = np.linalg.lstsq(A, b, rcond=None)[0]
            if np.linalg.norm(A @ sol - b) > 1e-8 * (1.0 + np.linalg.norm(b)):
                continue
            alpha[free] = sol[:m]
        if alpha.min() < -1e-9 * C or alpha.max() > C * (1 + 1e-9) or abs(y @ alpha) > 1e-9 * C * n:
            continue
        best = min(best, _dual_objective(K, y, alpha))
    return best


def _tiny(kind, seed):
    rng = np.random.default_rng(seed)
    n = 5
    y = np.array([1.0, 1.0, -1.0, -1.0, -1.0 if kind != "unbalanced" else 1.0])
    if kind == "duplicates":  # two pairs of identical rows: a singular Q
        X = rng.normal(size=(n, 3))
        X[1] = X[0]
        X[4] = X[3]
        K = X @ X.T
    elif kind == "rank2":  # rank-deficient linear kernel
        X = rng.normal(size=(n, 2))
        K = X @ X.T
    else:
        X = rng.normal(size=(n, 3))
        K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0)
    return K, y


@pytest.mark.parametrize("kind", ["rbf", "duplicates", "rank2", "unbalanced"])
@pytest.mark.parametrize("C", [1e-2, 1.0, 1e2, 1e4, 1e7])
def test_interior_point_reaches_the_brute_force_optimum(kind, C):
    K, y = _tiny(kind, seed=3)
    exact = _brute_force_optimum(K, y, C)
    alpha, bounds, n_iter = dense_ipm.interior_point(K, y, C)
    assert n_iter < dense_ipm.MAX_ITER
    assert alpha.min() >= 0.0 and alpha.max() <= C
    assert abs(y @ alpha) <= 1e-8 * C * len(y)
    assert _dual_objective(K, y, alpha) == pytest.approx(exact, rel=1e-7, abs=1e-9 * C)
    # the polished point: feasible, on the bounds where it should be, as good
    alpha0, G0 = dense_ipm.polish(K, y, alpha, bounds, C)
    assert alpha0.min() >= 0.0 and alpha0.max() <= C
    assert abs(y @ alpha0) <= 1e-12 * C * len(y)
    np.testing.assert_allclose(G0, (K * np.outer(y, y)) @ alpha0 - 1.0)
    assert _dual_objective(K, y, alpha0) == pytest.approx(exact, rel=1e-7, abs=1e-9 * C)


def test_one_class_has_only_the_zero_solution():
    K, _ = _tiny("rbf", seed=1)
    alpha, bounds, n_iter = dense_ipm.interior_point(K, np.ones(5), 10.0)
    np.testing.assert_array_equal(alpha, np.zeros(5))


def test_every_variable_at_its_bound_gives_the_cold_offset(tuning):
    """Balanced classes and a tiny C: every alpha at C, the offset in the
    middle of its interval, exactly as from zero (no variable left a hair
    inside the box by the interior point)."""
    K, y = _problem(40, 2)
    tuning.set(SVM_IPM_MAX_N=0)  # SMO alone, and from the given start
    assert _smo.uses_start(40, 1e-3, 10**6)
    cold = _smo.solve(K, y, 1e-3, 1e-3, 1e-12, True, 10**6)
    x, bounds, _ = dense_ipm.interior_point(K, y, 1e-3)
    alpha0, G0 = dense_ipm.polish(K, y, x, bounds, 1e-3)
    warm = _smo.solve(K, y, 1e-3, 1e-3, 1e-12, True, 10**6, start=(alpha0, G0))
    np.testing.assert_array_equal(cold[0], np.full(40, 1e-3))
    np.testing.assert_array_equal(warm[0], cold[0])
    assert warm[1] == pytest.approx(cold[1], rel=1e-12)


def _problem(n, seed, noise=0.7):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + noise * rng.normal(size=n) > 0, 1.0, -1.0)
    if seed == 2:  # balanced
        y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / 4.0)
    return K, y


def _decisions(K, y, result):
    alpha, rho = result[0], result[1]
    return K @ (alpha * y) - rho


@pytest.mark.parametrize("C", [0.1, 10.0, 1e3, 1e5])
@pytest.mark.parametrize("tol", [1e-3, 1e-5])
def test_finished_solution_equals_cold_smo(tuning, C, tol):
    K, y = _problem(80, 4)
    tuning.set(SVM_IPM_MAX_N=0)
    cold = _smo.solve(K, y, C, tol, 1e-12, True, 10**7)
    tuning.set(SVM_IPM_MAX_N=1000, SVM_IPM_AFTER=1)  # every problem to the IPM
    warm = _smo.solve(K, y, C, tol, 1e-12, True, 10**7)
    assert cold[4] and warm[4]
    f_cold, f_warm = _decisions(K, y, cold), _decisions(K, y, warm)
    assert np.max(np.abs(f_warm - f_cold)) <= 10 * tol * max(1.0, np.max(np.abs(f_cold)))
    assert warm[2] == pytest.approx(cold[2], rel=10 * tol)
    assert warm[2] <= cold[2] + 1e-9 * abs(cold[2])  # not worse than SMO's own point


def test_an_easy_problem_never_reaches_the_interior_point(tuning, monkeypatch):
    K, y = _problem(60, 5)
    called = []
    monkeypatch.setattr(
        dense_ipm,
        "interior_point",
        lambda *a, **k: called.append(1) or (_ for _ in ()).throw(AssertionError),
    )
    _smo.solve(K, y, 1.0, 1e-3, 1e-12, True, 10**6)
    assert not called


@pytest.mark.parametrize("failure", ["raises", "no_convergence"])
def test_a_failed_interior_point_falls_back_to_smo(tuning, monkeypatch, failure):
    K, y = _problem(80, 6)
    C = 1e3
    tuning.set(SVM_IPM_MAX_N=0)
    cold = _smo.solve(K, y, C, 1e-3, 1e-12, True, 10**7)
    tuning.set(SVM_IPM_MAX_N=1000, SVM_IPM_AFTER=50)
    if failure == "raises":

        def broken(*args, **kwargs):
            raise dense_ipm.IPMFailure("forced")

        monkeypatch.setattr(dense_ipm, "interior_point", broken)
    else:
        monkeypatch.setattr(dense_ipm, "MAX_ITER", 2)
        monkeypatch.setattr(dense_ipm.interior_point, "__defaults__", (dense_ipm.TOL, 2))
        with pytest.raises(dense_ipm.IPMFailure, match="no convergence"):
            dense_ipm.interior_point(K, y, C)
    result = _smo.solve(K, y, C, 1e-3, 1e-12, True, 10**7)
    assert result[4] and result[3] > 50  # SMO went on from its 50 iterations
    f_cold, f_res = _decisions(K, y, cold), _decisions(K, y, result)
    assert np.max(np.abs(f_res - f_cold)) <= 1e-2 * np.max(np.abs(f_cold))
    assert result[2] == pytest.approx(cold[2], rel=1e-3)


def test_non_finite_interior_point_is_a_failure():
    K, y = _problem(20, 7)
    K = K.copy()
    K[3, 3] = np.inf
    with pytest.raises(dense_ipm.IPMFailure):
        dense_ipm.interior_point(K, y, 10.0)


@pytest.mark.parametrize("multi_class", ["ovo", "ovr"])
def test_multiclass_models_agree_with_and_without_the_interior_point(tuning, multi_class):
    rng = np.random.default_rng(8)
    X = rng.normal(size=(90, 4))
    labels = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=90), [-0.6, 0.6])
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 4.0)
    tol = 1e-3
    tuning.set(SVM_IPM_MAX_N=0)
    cold = KernelSVM(C=1e3, tol=tol, multi_class=multi_class).fit(K, labels)
    tuning.set(SVM_IPM_MAX_N=1000, SVM_IPM_AFTER=1)
    warm = KernelSVM(C=1e3, tol=tol, multi_class=multi_class).fit(K, labels)
    d_cold = cold.decision_function(K)
    d_warm = warm.decision_function(K)
    assert np.max(np.abs(d_warm - d_cold)) <= 10 * tol * max(1.0, np.max(np.abs(d_cold)))
    np.testing.assert_allclose(warm.dual_objective_, cold.dual_objective_, rtol=10 * tol)


def test_a_small_cv_chooses_the_same_C(tuning):
    from structk.cli.evaluation import LearnerSpec, _inner_losses, _inner_splits, make_splits

    K, y = _problem(90, 9, noise=1.0)
    spec = LearnerSpec(
        KernelSVM(kernel="precomputed", psd_check="none"), {"C": [0.1, 1.0, 10.0, 1e2, 1e3, 1e4]}
    )
    splits = make_splits(3, y, "classification")
    train = splits.folds[0][0]
    inner = _inner_splits(splits, train, y, "classification")
    out = {}
    for ipm in (False, True):
        tuning.set(SVM_IPM_MAX_N=1000 if ipm else 0, SVM_IPM_AFTER=1)
        cands, losses, ok = _inner_losses(spec, K, y, train, inner, "classification")
        out[ipm] = (cands[min(ok, key=lambda c: losses[c])]["C"], losses)
    assert out[True][0] == out[False][0]
    np.testing.assert_allclose(out[True][1], out[False][1], atol=0.02)


@pytest.mark.blas_threads
def test_machines_on_threads_share_the_callers_blas_limit(tuning, monkeypatch):
    """The interior point factorises on one BLAS thread, a process-wide
    limit each holder restores on leaving: with one-vs-one machines on
    threads the calling thread holds it around all of them, so no machine
    lifts it under another, and the user's pool is back afterwards."""
    import scipy.linalg  # noqa: F401 - load SciPy's BLAS as the learners do
    from threadpoolctl import threadpool_info, threadpool_limits

    from structk import _threads
    from structk.learners._smo import machines as svm

    def blas_threads():
        return {
            lib["filepath"]: lib["num_threads"]
            for lib in threadpool_info()
            if lib["user_api"] == "blas"
        }

    events = []
    real = _threads._one_thread

    class Spy:
        def __enter__(self):
            self.inner = real()
            self.inner.__enter__()
            events.append(("enter", threading.current_thread()))

        def __exit__(self, *exc):
            events.append(("exit", threading.current_thread()))
            return self.inner.__exit__(*exc)

    monkeypatch.setattr(_threads, "_one_thread", Spy)
    monkeypatch.setattr(svm, "threads_for", lambda work, min_work: 2)
    # machines of ~60 objects count as large (compiled, on threads) and all
    # go to the interior point
    tuning.set(
        SVM_NUMPY_MAX_N=20,
        SVM_IPM_MAX_N=1000,
        SVM_IPM_AFTER=1,
        SVM_BLOCK_COPY_MAX_FRACTION=10.0,
    )  # each thread copies its blocks
    rng = np.random.default_rng(8)
    X = rng.normal(size=(90, 4))
    labels = np.digitize(X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=90), [-0.6, 0.6])
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 4.0)
    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        KernelSVM(C=1e3).fit(K, labels)
        assert blas_threads() == before
    main = threading.current_thread()
    workers = [t for kind, t in events if t is not main]
    assert workers, "the machines' interior points ran on threads"
    assert events[0] == ("enter", main) and events[-1] == ("exit", main)
