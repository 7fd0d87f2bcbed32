"""check_psd: correct answers, no false alarms at scale, clear diagnosis and errors."""

import numpy as np
import pytest

from structk import NotPSDError, assert_psd, check_psd
from structk.kernels import Gaussian, Linear
from structk._linalg import cholesky_ok, orthogonal_of_tridiagonal, unblocked_cholesky
from structk._tuning import NUMPY_CHOLESKY_MAX_N, PSD_SMALL_CERTIFICATE_MAX_N
from structk.learners._psd import check_psd_policy

RNG = np.random.default_rng(2)


def test_identity_and_zero_are_psd():
    assert check_psd(np.eye(5)).is_psd
    r = check_psd(np.zeros((3, 3)))
    assert r.is_psd and r.tol == 0.0


def test_indefinite_matrix_is_diagnosed_with_witness():
    K = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues -1, 3
    r = check_psd(K)
    assert not r.is_psd and not r
    assert r.method == "eigh"
    assert r.min_eigenvalue == pytest.approx(-1.0, rel=1e-12)
    z = r.witness
    assert np.linalg.norm(z) == pytest.approx(1.0)
    assert z @ K @ z == pytest.approx(-1.0, rel=1e-12)
    text = str(r)
    assert "NOT positive semi-definite" in text and "witness" in text


def test_fast_path_certifies_without_eigenvalues_and_eigh_method_reports_them():
    X = RNG.normal(size=(50, 3))
    K = Gaussian()(X)
    fast = check_psd(K)
    assert fast.is_psd and fast.method == "cholesky" and fast.min_eigenvalue is None
    full = check_psd(K, method="eigh")
    assert full.is_psd and full.min_eigenvalue == pytest.approx(np.linalg.eigvalsh(K)[0], abs=1e-12)


def test_default_tolerance_is_relative_to_scale():
    K = np.array([[2.0, 1.0], [1.0, 2.0]])
    for c in (1e-200, 1.0, 1e200):
        r = check_psd(c * K)
        assert r.is_psd
        assert np.isfinite(r.tol) and r.tol > 0
        assert r.tol == pytest.approx(10 * 2 * np.finfo(float).eps * c * np.linalg.norm(K))
        bad = c * np.array([[1.0, 2.0], [2.0, 1.0]])
        assert not check_psd(bad).is_psd


@pytest.mark.parametrize("n", [400, 1200])
def test_no_false_alarm_on_rank_deficient_grams(n):
    # low-rank and near-singular Grams: rounding pushes many eigenvalues below 0
    X = RNG.normal(size=(n, 3))
    K_lin = Linear()(X)
    assert np.linalg.eigvalsh(K_lin)[0] < 0  # the rounding the tolerance must absorb
    assert check_psd(K_lin).is_psd
    assert check_psd(K_lin, method="eigh").is_psd
    K_rbf = Gaussian(sigma=3.0)(RNG.normal(size=(n, 2)))
    assert check_psd(K_rbf).is_psd
    assert check_psd(K_rbf, method="eigh").is_psd


def test_small_genuine_violation_is_caught():
    n = 400
    X = RNG.normal(size=(n, 5))
    K = Linear()(X)
    u = RNG.normal(size=n)
    u /= np.linalg.norm(u)
    # push one eigen-direction of the null space 1e-8 * ||K|| below zero
    P = np.eye(n) - X @ np.linalg.pinv(X)
    v = P @ u
    v /= np.linalg.norm(v)
    bad = K - 1e-8 * np.linalg.norm(K) * np.outer(v, v)
    r = check_psd(bad)
    assert not r.is_psd
    assert r.min_eigenvalue == pytest.approx(-1e-8 * np.linalg.norm(K), rel=1e-3)
    assert r.witness @ bad @ r.witness < -r.tol


def test_explicit_tolerance():
    K = np.diag([1.0, -1e-6])
    assert not check_psd(K).is_psd
    assert check_psd(K, tol=1e-5).is_psd
    with pytest.raises(ValueError, match="tol must be >= 0"):
        check_psd(K, tol=-1.0)


def test_tiny_asymmetry_is_symmetrised_and_reported():
    K = np.array([[2.0, 1.0], [1.0 + 1e-14, 2.0]])
    r = check_psd(K)
    assert r.is_psd and r.asymmetry == pytest.approx(1e-14, rel=1e-2)


@pytest.mark.parametrize(
    "K, message",
    [
        (np.ones((2, 3)), r"square matrix, got shape \(2, 3\)"),
        (np.ones(4), r"square matrix, got shape \(4,\)"),
        (np.zeros((0, 0)), "empty"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), r"non-finite value nan at entry \(0, 1\)"),
        (np.array([[1.0, 0.0], [0.0, np.inf]]), r"non-finite value inf at entry \(1, 1\)"),
        (np.array([[1.0, 0.5], [0.0, 1.0]]), r"not symmetric: K\[0, 1\] = 0.5 but K\[1, 0\] = 0.0"),
        (np.eye(2, dtype=complex), "must be real"),
        (np.array([["a"]]), "real numbers"),
    ],
)
def test_bad_input_is_a_clear_error(K, message):
    with pytest.raises(ValueError, match=message):
        check_psd(K)


def test_assert_psd_raises_with_report():
    with pytest.raises(NotPSDError, match="smallest eigenvalue: -1") as info:
        assert_psd(np.array([[0.0, 1.0], [1.0, 0.0]]))
    assert info.value.report.min_eigenvalue == pytest.approx(-1.0)
    assert assert_psd(np.eye(2)).is_psd


def test_accepts_integer_and_sparse_input():
    import scipy.sparse as sp

    assert check_psd(np.eye(3, dtype=int)).is_psd
    assert check_psd(sp.identity(3, format="csr")).is_psd


def test_one_by_one():
    assert check_psd(np.array([[3.0]])).is_psd
    r = check_psd(np.array([[-3.0]]))
    assert not r.is_psd and r.min_eigenvalue == -3.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tolerance_follows_the_dtype_of_the_gram(dtype):
    from structk.kernels import Gaussian

    X = np.random.default_rng(0).normal(size=(300, 2))
    K = Gaussian()(X).astype(dtype)
    report = check_psd(K, method="eigh")
    assert report.is_psd
    assert report.tol == pytest.approx(10 * 300 * np.finfo(dtype).eps * np.linalg.norm(K))
    # a genuine violation far above float32 rounding is still caught
    K[0, 1] = K[1, 0] = 2.0 * max(K[0, 0], K[1, 1])
    assert not check_psd(K).is_psd


def test_float16_gram_is_refused_clearly():
    with pytest.raises(ValueError, match="float16.*float32 or float64"):
        check_psd(np.eye(3, dtype=np.float16))


@pytest.mark.parametrize("tol", ["1e-8", [1e-8], True])
def test_tol_must_be_a_number(tol):
    with pytest.raises(TypeError, match="tol must be a real number"):
        check_psd(np.eye(2), tol)


@pytest.mark.parametrize(
    "n",
    [
        4,
        37,
        NUMPY_CHOLESKY_MAX_N,
        NUMPY_CHOLESKY_MAX_N + 1,
        PSD_SMALL_CERTIFICATE_MAX_N,
        PSD_SMALL_CERTIFICATE_MAX_N + 1,
    ],
)
def test_certificate_agrees_with_lapack_on_both_sides_of_the_small_bound(n):
    from scipy.linalg import lapack

    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 3))
    K = X @ X.T  # rank 3: PSD, but singular from n = 4
    for shift, expected in ((1e-8 * n, True), (-1e-3, False)):
        A = np.array(K, order="F") + shift * np.eye(n, order="F")
        info = lapack.dpotrf(A, lower=1)[1]
        assert (info == 0) == expected
        assert cholesky_ok(K, shift) is expected


@pytest.mark.parametrize("n", [3, NUMPY_CHOLESKY_MAX_N, NUMPY_CHOLESKY_MAX_N + 1])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_certificate_fails_on_a_non_finite_entry_on_both_sides_of_the_numpy_bound(n, bad):
    """NumPy's OpenBLAS stops only at a diagonal that is not positive (a NaN
    is not): a NaN or infinity anywhere in the triangle read is a failure
    (either triangle: the symmetry test before it covers the other)."""
    K = np.eye(n) * 2.0
    for i, j in ((n - 1, n - 1), (n - 1, 0), (n - 1, n - 2)):
        B = K.copy()
        B[i, j] = B[j, i] = bad
        assert cholesky_ok(B, 1e-8) is False


@pytest.mark.parametrize("n", [2, 3, 30, NUMPY_CHOLESKY_MAX_N + 1, 150])
def test_policy_verdict_on_the_tolerance_boundary(n):
    """The learners' verdict for an eigenvalue just above and just below
    ``-1e-6 ||K||_F``, for orders on both sides of the NumPy certificate's
    bound, against the definition (``eigvalsh``); a rank-deficient PSD Gram
    passes and a NaN is named."""
    rng = np.random.default_rng(n)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    for factor, refused in ((0.98, False), (1.02, True)):
        ev = np.r_[rng.uniform(0.5, 1.5, n - 1), 0.0]
        tol = 1e-6 * np.linalg.norm(ev)  # ||K||_F, changed little by ev[-1]
        ev[-1] = -factor * tol
        K = (Q * ev) @ Q.T
        K = (K + K.T) / 2
        lam = np.linalg.eigvalsh(K)[0]
        assert bool(lam < -1e-6 * np.linalg.norm(K)) is refused  # the definition
        if refused:
            with pytest.raises(NotPSDError, match="NOT positive semi-definite"):
                check_psd_policy(K, "auto")
        else:
            check_psd_policy(K, "auto")
    X = rng.normal(size=(n, max(1, n // 3)))
    check_psd_policy(X @ X.T, "auto")  # PSD of rank n / 3 (singular from n = 2)
    check_psd_policy(np.zeros((n, n)), "auto")
    K = X @ X.T
    K[n - 1, 0] = np.nan
    with pytest.raises(ValueError, match=rf"non-finite value nan at entry \({n - 1}, 0\)"):
        check_psd_policy(K, "auto")


@pytest.mark.parametrize("n", [1, 2, 37])
def test_orthogonal_of_tridiagonal_is_lapacks_q_built_in_place(n):
    from scipy.linalg import lapack

    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, n))
    K = X + X.T
    c, d, e, tau, info = lapack.dsytrd(K.T, lower=1)
    assert info == 0
    reflectors = c.copy(order="F")
    Q = orthogonal_of_tridiagonal(c, tau)
    assert Q is c  # in place
    T = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    np.testing.assert_allclose(Q @ T @ Q.T, K, atol=1e-12 * n)
    np.testing.assert_allclose(Q.T @ Q, np.eye(n), atol=1e-13 * n)
    if n > 1:  # the same Q as dorgqr on the reflector block (what dorgtr does)
        expected = np.eye(n)
        expected[1:, 1:] = lapack.dorgqr(reflectors[1:, : n - 1], tau)[0]
        np.testing.assert_allclose(Q, expected, atol=1e-14 * n)


def test_orthogonal_of_tridiagonal_checks_its_arguments():
    A = np.asfortranarray(np.eye(4))
    with pytest.raises(ValueError, match="Fortran-ordered float64"):
        orthogonal_of_tridiagonal(np.ascontiguousarray(np.eye(4)[:, :3]), np.zeros(3))
    with pytest.raises(ValueError, match="tau must have n - 1 = 3 entries"):
        orthogonal_of_tridiagonal(A, np.zeros(4))


def test_unblocked_cholesky_factorises_in_place_like_numpy():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 30))
    S = X @ X.T + np.eye(30)
    A = np.asfortranarray(S)
    assert unblocked_cholesky()(A) == 0
    np.testing.assert_allclose(np.triu(A), np.linalg.cholesky(S).T, rtol=1e-12, atol=1e-12)
    B = np.asfortranarray(-S)
    assert unblocked_cholesky()(B) == 1  # the first pivot fails
    with pytest.raises(ValueError, match="Fortran-ordered float64"):
        unblocked_cholesky()(np.ascontiguousarray(S[:, :29]))


def test_small_certificates_set_no_thread_limit(monkeypatch):
    """Up to the small certificate's bound nothing builds threadpoolctl's
    controller (its first use costs more than a small fit)."""
    from structk import _threads

    def refuse():
        raise AssertionError("a thread limit was set for a small certificate")

    monkeypatch.setattr(_threads, "_get_controller", refuse)
    n = PSD_SMALL_CERTIFICATE_MAX_N
    X = np.random.default_rng(1).normal(size=(n, 5))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    assert check_psd(K).method == "cholesky"
    check_psd_policy(K, "auto")  # the learners' safeguard factorises K
    # (a fit's solver may set one: the interior point of an SVM that SMO has
    # not solved in its first iterations factorises on one BLAS thread)
    with pytest.raises(AssertionError, match="thread limit"):
        check_psd(np.pad(K, ((0, 1), (0, 1))) + np.eye(n + 1))  # over the bound


# --- the certificate by NumPy's own dpotf2 (issue #39) ---------------------


def _old_certificate(K, shift):
    """The certificate of 65-400 rows before NumPy's ``dpotf2`` was used:
    SciPy's unblocked ``dpotf2`` and a finite positive factor diagonal."""
    A = np.array(K.T, order="F") + shift * np.eye(K.shape[0], order="F")
    info = unblocked_cholesky()(A)
    d = A.diagonal()
    return bool(info == 0 and (d > 0).all() and np.isfinite(d).all())


def _spectrum_gram(rng, ev):
    n = len(ev)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    K = (Q * ev) @ Q.T
    return (K + K.T) / 2


def _certificate_cases(n):
    """(name, K, shift) for PSD, singular, near-singular, indefinite and
    tiny-negative-eigenvalue Grams, and one with a NaN."""
    rng = np.random.default_rng(1000 + n)
    shift = 1e-6 * n  # about 1e-6 ||K||_F for the spectra below
    X = rng.normal(size=(n, 5))
    gaussian = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 10)
    cases = [("gaussian", gaussian, shift), ("rank 5", X @ X.T, shift)]
    ev = rng.uniform(0.5, 1.5, n)
    for name, last in (
        ("near-singular", 1e-13),
        ("tiny negative, 0.98 of the shift", -0.98 * shift),
        ("tiny negative, 1.02 of the shift", -1.02 * shift),
        ("indefinite", -0.1),
    ):
        ev[np.argmin(ev)] = last
        cases.append((name, _spectrum_gram(rng, ev.copy()), shift))
    bad = gaussian.copy()
    bad[n // 2, n // 3] = bad[n // 3, n // 2] = np.nan
    cases.append(("nan", bad, shift))
    return cases


@pytest.mark.parametrize("n", [NUMPY_CHOLESKY_MAX_N + 1, 170, 300, PSD_SMALL_CERTIFICATE_MAX_N])
@pytest.mark.parametrize("form", ["numpy", "scipy"])
def test_certificate_forms_agree_with_eigvalsh_and_the_old_certificate(n, form, monkeypatch):
    """NumPy's own ``dpotf2`` (and SciPy's, where NumPy's is not found)
    decides ``K + shift I`` as the definition (its smallest eigenvalue,
    ``eigvalsh``) and as the certificate before it, on PSD, singular,
    near-singular, indefinite and tiny-negative Grams (2 % on either side
    of the shift), and fails on a NaN."""
    from structk import _linalg

    assert _linalg.numpy_dpotf2() is not None  # this venv: NumPy's OpenBLAS wheel
    if form == "scipy":
        monkeypatch.setattr(_linalg, "numpy_dpotf2", lambda: None)
    for name, K, shift in _certificate_cases(n):
        got = cholesky_ok(K, shift)
        assert got is _old_certificate(K, shift), name
        if name == "nan":
            assert got is False
            continue
        lam = np.linalg.eigvalsh(K)[0]
        assert abs(lam + shift) > 1e-9 * np.abs(K).max() * n, name  # far above rounding
        assert got is bool(lam + shift > 0), name


@pytest.mark.parametrize("n", [300, PSD_SMALL_CERTIFICATE_MAX_N])
def test_policy_verdict_on_the_tolerance_boundary_up_to_the_small_bound(n):
    """The learners' verdict for an eigenvalue 2 % above and below
    ``-1e-6 ||K||_F`` (the definition, ``eigvalsh``) up to the small
    certificate's bound, and a KernelSVM fit refusing the indefinite Gram."""
    from structk import KernelSVM

    rng = np.random.default_rng(n)
    y = np.arange(n) % 2
    for factor, refused in ((0.98, False), (1.02, True)):
        ev = rng.uniform(0.5, 1.5, n)
        tol = 1e-6 * np.linalg.norm(ev)
        ev[0] = -factor * tol
        K = _spectrum_gram(rng, ev)
        lam = np.linalg.eigvalsh(K)[0]
        assert bool(lam < -1e-6 * np.linalg.norm(K)) is refused  # the definition
        if refused:
            with pytest.raises(NotPSDError, match="NOT positive semi-definite"):
                check_psd_policy(K, "auto")
            with pytest.raises(NotPSDError, match="NOT positive semi-definite"):
                KernelSVM(C=1.0).fit(K, y)
        else:
            check_psd_policy(K, "auto")


def test_numpy_dpotf2_factorises_in_place_and_stops_like_scipys():
    from structk._linalg import numpy_dpotf2

    rng = np.random.default_rng(3)
    n = 120
    X = rng.normal(size=(n, n))
    S = X @ X.T / n + np.eye(n)
    A = np.asfortranarray(S)
    assert numpy_dpotf2()(A) == 0
    np.testing.assert_allclose(np.triu(A), np.linalg.cholesky(S).T, rtol=1e-10, atol=1e-10)
    S[79, 79] = -1.0  # the leading minor of order 80 is the first to fail
    infos = [f(np.asfortranarray(S)) for f in (numpy_dpotf2(), unblocked_cholesky())]
    assert infos == [80, 80]
    with pytest.raises(ValueError, match="Fortran-ordered float64"):
        numpy_dpotf2()(np.ascontiguousarray(S[:, :5]))
