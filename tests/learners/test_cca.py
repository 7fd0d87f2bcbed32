"""KernelCCA against a direct solution of the regularised generalised eigenproblem."""

import numpy as np
import pytest
from learners_util import blobs, rbf_gram, string_data, string_kernel
from scipy.linalg import eigh
from sklearn.base import clone

from structk import Linear, Normalize, Spectrum
from structk.learners import KernelCCA


def centred(K):
    H = np.eye(len(K)) - 1.0 / len(K)
    return H @ K @ H


def direct_cca(Kx, Ky, reg):
    """Top generalised eigenpairs of [[0, KxKy], [KyKx, 0]] w = rho diag(Rx^2, Ry^2) w."""
    n = len(Kx)
    Kx, Ky = centred(Kx), centred(Ky)
    r = n * reg / 2
    Rx, Ry = Kx + r * np.eye(n), Ky + r * np.eye(n)
    Z = np.zeros((n, n))
    A = np.block([[Z, Kx @ Ky], [Ky @ Kx, Z]])
    B = np.block([[Rx @ Rx, Z], [Z, Ry @ Ry]])
    rho, W = eigh(A, B)
    return rho[::-1], W[:, ::-1], Kx, Ky, Rx, Ry


def two_views(n=30, seed=0):
    """Two noisy nonlinear views of one latent variable, plus nuisance dimensions."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(-1, 1, size=n)
    X = np.column_stack([t, rng.normal(size=n)]) + 0.05 * rng.normal(size=(n, 2))
    Y = np.column_stack([t**2, np.sin(3 * t), rng.normal(size=n)])
    return X, Y


@pytest.mark.parametrize("reg", [0.01, 0.1, 1.0])
def test_matches_generalised_eigenproblem(reg):
    X, Y = two_views(25, seed=1)
    Kx, Ky = rbf_gram(X, gamma=1.0), rbf_gram(Y, gamma=0.5)
    cca = KernelCCA(n_components=3, reg=reg).fit(Kx, Ky)
    rho, W, Kxc, Kyc, Rx, Ry = direct_cca(Kx, Ky, reg)
    np.testing.assert_allclose(cca.canonical_correlations_, rho[:3], rtol=1e-8, atol=1e-12)
    n = len(Kx)
    for j in range(3):
        a, b = cca.x_dual_coef_[:, j], cca.y_dual_coef_[:, j]
        # each pair is a generalised eigenvector with its eigenvalue ...
        w = np.concatenate([a, b])
        A = np.block([[np.zeros((n, n)), Kxc @ Kyc], [Kyc @ Kxc, np.zeros((n, n))]])
        B = np.block([[Rx @ Rx, np.zeros((n, n))], [np.zeros((n, n)), Ry @ Ry]])
        np.testing.assert_allclose(A @ w, rho[j] * (B @ w), atol=1e-8 * np.abs(B @ w).max())
        # ... the same direction as scipy's, up to sign and scale
        ref = W[:, j]
        cos = abs(w @ B @ ref) / np.sqrt((w @ B @ w) * (ref @ B @ ref))
        assert cos == pytest.approx(1.0, abs=1e-8)
        # scaled to unit regularised variance, and the correlation is the ratio
        assert a @ Rx @ Rx @ a / n == pytest.approx(1.0)
        assert b @ Ry @ Ry @ b / n == pytest.approx(1.0)
        assert (a @ Kxc @ Kyc @ b) / n == pytest.approx(rho[j])


def test_training_variates_and_transform_agree():
    X, Y = two_views(30, seed=2)
    Kx, Ky = rbf_gram(X, gamma=1.0), rbf_gram(Y, gamma=0.5)
    cca = KernelCCA(n_components=2, reg=0.1)
    U, V = cca.fit_transform(Kx, Ky)
    U2, V2 = cca.transform(Kx, Ky)
    np.testing.assert_allclose(U, U2, atol=1e-10)
    np.testing.assert_allclose(V, V2, atol=1e-10)
    np.testing.assert_allclose(cca.transform(Kx), U, atol=1e-10)
    # the first canonical variates are strongly and positively correlated
    assert np.corrcoef(U[:, 0], V[:, 0])[0, 1] > 0.9
    assert cca.canonical_correlations_[0] > cca.canonical_correlations_[1] > 0


def test_kernels_on_objects_equal_precomputed():
    X, _ = string_data(24)
    Xt, _ = string_data(6, seed=5)
    kx, ky = string_kernel(), Normalize(Spectrum(k=2))
    a = KernelCCA(kx, ky, n_components=2, reg=0.2).fit(X, X)
    b = KernelCCA(n_components=2, reg=0.2).fit(kx(X), ky(X))
    np.testing.assert_allclose(a.canonical_correlations_, b.canonical_correlations_, rtol=1e-10)
    for got, want in zip(a.transform(Xt, Xt), b.transform(kx(Xt, X), ky(Xt, X))):
        np.testing.assert_allclose(got, want, atol=1e-9)


def test_linear_views_recover_a_shared_direction():
    """Linear kernels with small reg: the first pair finds the shared coordinate."""
    rng = np.random.default_rng(3)
    n = 200
    s = rng.normal(size=n)
    X = np.column_stack([s + 0.1 * rng.normal(size=n), rng.normal(size=(n, 2))])
    Y = np.column_stack([rng.normal(size=(n, 2)), -2 * s + 0.1 * rng.normal(size=n)])
    cca = KernelCCA(Linear(), Linear(), n_components=1, reg=1e-3).fit(X, Y)
    assert cca.canonical_correlations_[0] > 0.95
    U, V = cca.transform(X, Y)
    assert abs(np.corrcoef(U[:, 0], s)[0, 1]) > 0.99
    assert abs(np.corrcoef(V[:, 0], s)[0, 1]) > 0.99


def test_clone_keeps_both_kernels():
    model = KernelCCA(Normalize(Spectrum(k=2)), Linear(), n_components=1, reg=0.5)
    twin = clone(model)
    assert twin.kernel_x.kernel.k == 2 and twin.reg == 0.5
    assert twin.kernel_x is not model.kernel_x


@pytest.mark.parametrize(
    "params, match",
    [
        ({"reg": 0.0}, "reg must be > 0"),
        ({"reg": -1.0}, "reg must be > 0"),
        ({"n_components": 0}, "n_components must be >= 1"),
        ({"n_components": 21}, "exceeds the number of training objects"),
    ],
)
def test_bad_parameters(params, match):
    X, _ = blobs(20)
    with pytest.raises(ValueError, match=match):
        KernelCCA(Linear(), Linear(), **params).fit(X, X)


def test_views_of_different_lengths():
    X, _ = blobs(20)
    with pytest.raises(ValueError, match="X has 20 objects but Y has 15"):
        KernelCCA(Linear(), Linear()).fit(X, X[:15])
    with pytest.raises(ValueError, match="X has 20 objects but Y has 15"):
        KernelCCA().fit(rbf_gram(X), rbf_gram(X[:15]))


def test_one_kernel_for_both_views_equals_the_two_view_parameters():
    """``kernel`` (as every learner has) is the kernel of each view left at None."""
    X, _ = string_data(20)
    Y = [s[::-1] for s in X]
    k = Normalize(Spectrum(k=2))
    ref = KernelCCA(k, k, n_components=2, reg=0.2).fit(X, Y)
    for model in (
        KernelCCA(kernel=k, n_components=2, reg=0.2),
        KernelCCA(kernel_x=k, kernel=k, n_components=2, reg=0.2),
        KernelCCA(kernel_y=k, kernel=k, n_components=2, reg=0.2),
    ):
        model.fit(X, Y)
        np.testing.assert_allclose(
            model.canonical_correlations_, ref.canonical_correlations_, rtol=1e-12
        )
        for got, want in zip(model.transform(X[:5], Y[:5]), ref.transform(X[:5], Y[:5])):
            np.testing.assert_allclose(got, want, atol=1e-12)
    # a view kernel of its own beside kernel: each view its kernel
    mixed = KernelCCA(kernel_y=Linear(), kernel=k, n_components=1, reg=0.2)
    V = np.array([[s.count("A")] for s in Y], dtype=float)
    mixed.fit(X, V)
    both = KernelCCA(k, Linear(), n_components=1, reg=0.2).fit(X, V)
    np.testing.assert_allclose(mixed.canonical_correlations_, both.canonical_correlations_)
    assert clone(KernelCCA(kernel=k)).get_params()["kernel"].kernel.k == 2


def test_kernel_beside_both_view_kernels_is_refused():
    X, _ = blobs(20)
    with pytest.raises(ValueError, match=r"kernel=Linear\(\) is unused: kernel_x and kernel_y"):
        KernelCCA(Linear(), Linear(), kernel=Linear()).fit(X, X)
    with pytest.raises(ValueError, match="kernel must be a structk Kernel or 'precomputed'"):
        KernelCCA(kernel="rbf").fit(X, X)


def test_kernel_parameter_round_trips_through_a_model_file(tmp_path):
    import structk

    X, _ = string_data(16)
    model = KernelCCA(kernel=Normalize(Spectrum(k=2)), n_components=1, reg=0.3).fit(X, X[::-1])
    structk.save(model, tmp_path / "cca.structk")
    again = structk.load(tmp_path / "cca.structk")
    assert again.kernel_x is None and again.kernel.kernel.k == 2
    np.testing.assert_array_equal(again.transform(X), model.transform(X))
