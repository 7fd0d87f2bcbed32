"""KernelSVM against LIBSVM (scikit-learn's SVC) and against the KKT conditions."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from learners_util import blobs, rbf_gram, string_data, string_kernel
from sklearn.svm import SVC

from structk import Gaussian, Linear, NotPSDError
from structk.learners import KernelSVM


def dual_objective(K, dual_coef, support):
    """``1/2 c^T K c - sum |c|`` with ``c = y * alpha`` on the support vectors."""
    c = np.ravel(dual_coef)
    return 0.5 * c @ K[np.ix_(support, support)] @ c - np.abs(c).sum()


def assert_same_as_libsvm(K, y, C, K_test=None, tol=1e-3, rtol=1e-4, **kw):
    ours = KernelSVM(C=C, tol=tol, **kw).fit(K, y)
    ref = SVC(kernel="precomputed", C=C, tol=tol).fit(K, y)
    obj = dual_objective(K, ours.dual_coef_, ours.support_)
    obj_ref = dual_objective(K, ref.dual_coef_, ref.support_)
    assert obj == pytest.approx(ours.dual_objective_[0], rel=1e-9)
    assert obj == pytest.approx(obj_ref, rel=rtol)
    K_test = K if K_test is None else K_test
    f, f_ref = ours.decision_function(K_test), ref.decision_function(K_test)
    assert f.shape == f_ref.shape
    clear = np.abs(f_ref) > 10 * tol  # both solutions are only tol-accurate
    np.testing.assert_array_equal(ours.predict(K_test)[clear], ref.predict(K_test)[clear])
    assert clear.mean() > 0.9
    return ours, ref


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0, 100.0])
def test_binary_rbf_matches_libsvm(C):
    X, y = blobs(120, noise=2.0, seed=1)
    Xt, _ = blobs(50, noise=2.0, seed=2)
    assert_same_as_libsvm(rbf_gram(X), y, C, K_test=rbf_gram(Xt, X))


@pytest.mark.parametrize("shrinking", [True, False])
def test_linear_kernel_and_shrinking_give_the_same_optimum(shrinking):
    X, y = blobs(150, d=3, noise=1.5, seed=3)
    K = X @ X.T  # rank 3: the dual has many optimal alphas, one objective
    assert_same_as_libsvm(K, y, 5.0, shrinking=shrinking)


def test_shrinking_reaches_large_problems_compaction():
    # enough points and a large C so that shrinking compacts the working set
    X, y = blobs(1500, d=5, noise=2.5, seed=4)
    assert_same_as_libsvm(rbf_gram(X, gamma=0.5), y, 100.0, rtol=1e-5)


def test_kkt_conditions_at_tight_tolerance():
    X, y = blobs(100, noise=2.0, seed=5)
    K = rbf_gram(X)
    C, tol = 3.0, 1e-7
    svm = KernelSVM(C=C, tol=tol).fit(K, y)
    ypm = np.where(y == svm.classes_[1], 1.0, -1.0)
    alpha = np.zeros(len(y))
    alpha[svm.support_] = svm.dual_coef_[0] * ypm[svm.support_]
    assert (alpha >= 0).all() and (alpha <= C).all()
    assert abs(alpha @ ypm) < 1e-9 * C * len(y)
    margin = ypm * svm.decision_function(K)
    free = (alpha > 1e-9) & (alpha < C - 1e-9)
    assert free.any()
    assert (margin[alpha == 0] >= 1 - 1e-5).all()
    assert (margin[alpha == C] <= 1 + 1e-5).all()
    np.testing.assert_allclose(margin[free], 1.0, atol=1e-5)


def test_indefinite_gram_is_solved_like_libsvm_when_allowed():
    rng = np.random.default_rng(6)
    X, y = blobs(80, seed=6)
    A = rng.normal(size=(80, 80))
    K = rbf_gram(X) + 0.05 * (A + A.T)  # symmetric, clearly indefinite
    with pytest.raises(NotPSDError, match="NOT positive semi-definite"):
        KernelSVM().fit(K, y)
    # indefinite: the dual is not convex and both solvers stop at a local
    # solution; LIBSVM's path differs through its float32 cache. Ours must be
    # feasible and at least as good.
    ours = KernelSVM(C=1.0, psd_check="none").fit(K, y)
    ref = SVC(kernel="precomputed", C=1.0).fit(K, y)
    obj = dual_objective(K, ours.dual_coef_, ours.support_)
    obj_ref = dual_objective(K, ref.dual_coef_, ref.support_)
    assert obj <= obj_ref + 1e-4 * abs(obj_ref)
    c = ours.dual_coef_[0]
    assert abs(c.sum()) < 1e-9 and (np.abs(c) <= 1.0 + 1e-12).all()
    assert np.isfinite(ours.decision_function(K)).all()


@pytest.mark.parametrize("multi_class", ["ovo", "ovr"])
def test_multiclass(multi_class):
    X, y = blobs(150, n_classes=4, noise=1.5, seed=7)
    K = rbf_gram(X)
    svm = KernelSVM(C=2.0, multi_class=multi_class, decision_function_shape="ovo").fit(K, y)
    n_machines = 6 if multi_class == "ovo" else 4
    assert svm.dual_coef_.shape == (n_machines, len(svm.support_))
    assert svm.decision_function(K).shape == (150, n_machines)
    assert svm.n_support_.sum() == len(svm.support_)
    assert svm.score(K, y) > 0.8
    if multi_class == "ovo":
        ref = SVC(kernel="precomputed", C=2.0, decision_function_shape="ovo").fit(K, y)
        f, f_ref = svm.decision_function(K), ref.decision_function(K)
        np.testing.assert_allclose(f, f_ref, atol=5e-3)
        clear = (np.abs(f_ref) > 1e-2).all(axis=1)
        np.testing.assert_array_equal(svm.predict(K)[clear], ref.predict(K)[clear])
        # the per-class ("ovr") shape: as SVC's, and its argmax is the prediction
        svm.set_params(decision_function_shape="ovr")
        scores = svm.decision_function(K)
        np.testing.assert_allclose(
            scores, SVC(kernel="precomputed", C=2.0).fit(K, y).decision_function(K), atol=5e-3
        )
        np.testing.assert_array_equal(
            svm.classes_[scores.argmax(axis=1)][clear], svm.predict(K)[clear]
        )
    else:  # each machine is a binary SVM of one class against the rest
        for c in range(4):
            binary = KernelSVM(C=2.0).fit(K, y == c)
            np.testing.assert_allclose(
                svm.decision_function(K)[:, c], binary.decision_function(K), atol=1e-9
            )


@pytest.mark.parametrize("multi_class", ["ovo", "ovr"])
def test_machines_on_threads_equal_one_thread_bit_for_bit(multi_class, monkeypatch):
    """Large one-vs-one / one-vs-rest machines are solved on threads; every
    machine depends only on its own problem, so the fit is identical to the
    one-thread fit (and the threads were really used)."""
    import structk._threads as threads_module
    import structk.learners._smo.machines as svm_module

    # machines of > 400 objects; one-vs-one blocks small enough for a copy
    # per thread (SVM_BLOCK_COPY_MAX_FRACTION)
    X, y = (
        blobs(2000, n_classes=8, noise=2.0, seed=3)
        if multi_class == "ovo"
        else blobs(1300, n_classes=3, noise=2.0, seed=3)
    )
    K = rbf_gram(X)
    used = []
    real = svm_module.run_chunks

    def spy(fn, bounds, threads):
        used.append(threads)
        return real(fn, bounds, threads)

    monkeypatch.setattr(svm_module, "run_chunks", spy)

    def fit(n_threads):
        monkeypatch.setattr(threads_module, "num_threads", lambda: n_threads)
        return KernelSVM(C=1.0, multi_class=multi_class).fit(K, y)

    one, two = fit(1), fit(2)
    assert used == [1, 2]
    for name in ("dual_coef_", "support_", "intercept_", "n_iter_", "dual_objective_"):
        assert np.array_equal(getattr(one, name), getattr(two, name)), name
    assert np.array_equal(one.decision_function(K[:50]), two.decision_function(K[:50]))


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_one_vs_one_in_place_equals_copied_blocks_bit_for_bit(loss, tuning):
    """Few large classes: each pair's block is solved on a Gram the fit owns
    (its squared-hinge copy, or one it computed), permuted in place, instead
    of a copy; the same numbers come out (the RKHS norms, summed in the
    permuted order, to rounding), and a caller's Gram is never written."""
    X, y = blobs(900, n_classes=3, noise=2.0, seed=4)  # pair blocks of 600
    y = np.array(["c", "a", "b"])[y]
    K = rbf_gram(X)
    before = K.copy()
    default = tuning.SVM_BLOCK_COPY_MAX_FRACTION
    in_place = KernelSVM(C=2.0, loss=loss).fit(K, y)
    np.testing.assert_array_equal(K, before)
    tuning.set(SVM_BLOCK_COPY_MAX_FRACTION=1.0)
    copied = KernelSVM(C=2.0, loss=loss).fit(K, y)
    for name in ("dual_coef_", "support_", "intercept_", "n_iter_", "dual_objective_"):
        np.testing.assert_array_equal(getattr(in_place, name), getattr(copied, name), name)
    np.testing.assert_allclose(in_place.rkhs_norm_, copied.rkhs_norm_, rtol=1e-13)
    if loss == "hinge":  # a read-only Gram (a memory map, say) is never written
        tuning.set(SVM_BLOCK_COPY_MAX_FRACTION=default)
        K.flags.writeable = False
        read_only = KernelSVM(C=2.0, loss=loss).fit(K, y)
        np.testing.assert_array_equal(read_only.dual_coef_, in_place.dual_coef_)
        K = K.copy()
    # and with a kernel (the learner's own Gram, left permuted)
    from structk.kernels import Gaussian

    kernel = Gaussian(sigma=1.0)
    tuning.set(SVM_BLOCK_COPY_MAX_FRACTION=default)
    own = KernelSVM(kernel=kernel, C=2.0, loss=loss).fit(X, y)
    ref = KernelSVM(C=2.0, loss=loss).fit(kernel(X), y)
    for name in ("dual_coef_", "support_", "intercept_", "dual_objective_"):
        np.testing.assert_array_equal(getattr(own, name), getattr(ref, name), name)
    np.testing.assert_allclose(own.rkhs_norm_, ref.rkhs_norm_, rtol=1e-12)
    np.testing.assert_array_equal(own.predict(X[:40]), ref.predict(kernel(X[:40], X)))


def test_kernel_mode_keeps_only_support_vectors():
    X, y = string_data(30)
    k = string_kernel()
    svm = KernelSVM(kernel=k, C=1.0).fit(X, y)
    assert svm.support_vectors_ == [X[i] for i in svm.support_]
    assert len(svm.support_vectors_) < len(X)
    pre = KernelSVM(C=1.0).fit(k(X), y)
    X_test, _ = string_data(10, seed=9)
    np.testing.assert_allclose(
        svm.decision_function(X_test), pre.decision_function(k(X_test, X)), atol=1e-12
    )
    assert set(svm.predict(X_test)) <= {"rich", "poor"}


def test_vector_kernel_mode_matches_precomputed():
    X, y = blobs(60, seed=10)
    a = KernelSVM(kernel=Gaussian(sigma=2.0), C=2.0).fit(X, y)
    b = KernelSVM(C=2.0).fit(Gaussian(sigma=2.0)(X), y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(Gaussian(sigma=2.0)(X)))
    assert isinstance(a.support_vectors_, np.ndarray)
    np.testing.assert_array_equal(a.support_vectors_, X[a.support_])


@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 40),
    C=st.sampled_from([0.01, 1.0, 1e3]),
    linear=st.booleans(),
)
def test_dual_objective_matches_libsvm_property(seed, n, C, linear):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = rng.integers(0, 2, size=n)
    y[:2] = [0, 1]
    K = Linear()(X) if linear else rbf_gram(X, gamma=1.0)
    ours = KernelSVM(C=C, psd_check="none").fit(K, y)
    ref = SVC(kernel="precomputed", C=C).fit(K, y)
    obj = dual_objective(K, ours.dual_coef_, ours.support_)
    obj_ref = dual_objective(K, ref.dual_coef_, ref.support_)
    # both stop at a 1e-3 KKT gap; the objective gap is then O(tol * sum alpha)
    assert abs(obj - obj_ref) <= 1e-4 * abs(obj_ref) + 2e-3 * max(1.0, C)


def test_large_one_vs_one_machines_equal_binary_fits_on_their_blocks():
    """The blocks of K for large machines are copied into one reused buffer
    per thread; each machine must still see exactly its own block."""
    from itertools import combinations

    X, y = blobs(1500, n_classes=3, noise=2.0, seed=4)
    keep = np.flatnonzero((y != 2) | (np.arange(len(y)) % 3 == 0))  # uneven classes
    X, y = X[keep], y[keep]
    K = rbf_gram(X)
    svm = KernelSVM(C=1.0).fit(K, y)
    sizes = []
    for t, (a, b) in enumerate(combinations(range(3), 2)):
        rows = np.flatnonzero((y == a) | (y == b))
        sizes.append(len(rows))
        binary = KernelSVM(C=1.0).fit(K[np.ix_(rows, rows)], np.where(y[rows] == a, 1, 0))
        coef = np.zeros(len(y))
        coef[rows[binary.support_]] = binary.dual_coef_[0]
        np.testing.assert_array_equal(svm.dual_coef_[t], coef[svm.support_])
        assert svm.intercept_[t] == binary.intercept_[0]
    assert min(sizes) > 400 and len(set(sizes)) > 1


@pytest.mark.parametrize("n", [7, 450])
def test_take_block_equals_fancy_indexing(n):
    from structk._linalg import take_block
    from structk._tuning import GRAM_BLOCK_NUMPY_MAX
    from structk.defaults import SVM_NUMPY_MAX_N

    SMALL_BLOCK = GRAM_BLOCK_NUMPY_MAX
    assert SMALL_BLOCK == SVM_NUMPY_MAX_N**2  # no compiled copy for a NumPy-solved machine

    rng = np.random.default_rng(n)
    K = rng.normal(size=(n, n))
    rows = np.sort(rng.choice(n, n - 3, replace=False))
    cols = rng.permutation(n)[: n // 2]
    assert (len(rows) ** 2 > SMALL_BLOCK) is (n == 450)  # both copies are tested
    np.testing.assert_array_equal(take_block(K, rows), K[np.ix_(rows, rows)])
    np.testing.assert_array_equal(take_block(K, rows, cols), K[np.ix_(rows, cols)])
    out = np.full((len(rows), len(cols)), np.nan)
    assert take_block(K, rows, cols, out=out) is out
    np.testing.assert_array_equal(out, K[np.ix_(rows, cols)])
    # other layouts and dtypes are copied by NumPy, as float64
    F = np.asfortranarray(K).astype(np.float32)
    np.testing.assert_array_equal(take_block(F, rows), K[np.ix_(rows, rows)].astype(np.float32))
    assert take_block(F, rows).dtype == np.float64
