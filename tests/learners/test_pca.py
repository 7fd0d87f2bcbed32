"""KernelPCA against scikit-learn and against PCA of explicit features."""

import numpy as np
import pytest
from learners_util import blobs, rbf_gram, string_data, string_kernel
from sklearn.base import clone
from sklearn.decomposition import PCA
from sklearn.decomposition import KernelPCA as SkKernelPCA
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from structk import Linear, Normalize, Spectrum
from structk.learners import KernelPCA


def assert_equal_up_to_sign(A, B, atol):
    """Columns of A equal those of B, each up to its sign."""
    assert A.shape == B.shape
    for j in range(A.shape[1]):
        s = np.sign(A[:, j] @ B[:, j]) or 1.0
        np.testing.assert_allclose(A[:, j], s * B[:, j], atol=atol)


def test_matches_sklearn_precomputed():
    X, _ = blobs(50, seed=0)
    Xt, _ = blobs(12, seed=1)
    K, Kt = rbf_gram(X), rbf_gram(Xt, X)
    ours = KernelPCA(n_components=4).fit(K)
    ref = SkKernelPCA(n_components=4, kernel="precomputed", eigen_solver="dense").fit(K)
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    assert_equal_up_to_sign(ours.transform(K), ref.transform(K), atol=1e-9)
    assert_equal_up_to_sign(ours.transform(Kt), ref.transform(Kt), atol=1e-9)
    assert_equal_up_to_sign(KernelPCA(n_components=4).fit_transform(K), ref.transform(K), atol=1e-9)


def test_linear_kernel_is_pca_of_the_vectors():
    X, _ = blobs(40, d=5, seed=2)
    Xt, _ = blobs(9, d=5, seed=3)
    ours = KernelPCA(Linear(), n_components=3).fit(X)
    ref = PCA(n_components=3).fit(X)
    # eigenvalues of the centred Gram are n times the covariance eigenvalues (ddof=0)
    np.testing.assert_allclose(
        ours.eigenvalues_, ref.explained_variance_ * (len(X) - 1), rtol=1e-10
    )
    assert_equal_up_to_sign(ours.transform(Xt), ref.transform(Xt), atol=1e-9)
    assert_equal_up_to_sign(ours.fit_transform(X), ref.transform(X), atol=1e-9)


def test_strings_kernel_and_precomputed_agree():
    X, _ = string_data(25)
    Xt, _ = string_data(7, seed=4)
    k = string_kernel()
    a = KernelPCA(k, n_components=2).fit(X)
    b = KernelPCA(n_components=2).fit(k(X))
    np.testing.assert_allclose(a.transform(Xt), b.transform(k(Xt, X)), atol=1e-9)
    np.testing.assert_allclose(a.fit_transform(X), b.transform(k(X)), atol=1e-9)
    # the training projections are centred and uncorrelated with variance lambda_j
    Z = a.fit_transform(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(Z.T @ Z, np.diag(a.eigenvalues_), atol=1e-8)


def test_components_beyond_the_rank_project_to_zero():
    X = np.array([[0.0], [1.0], [3.0], [4.0]])  # rank 1 once centred
    pca = KernelPCA(Linear(), n_components=3).fit(X)
    np.testing.assert_allclose(pca.eigenvalues_[1:], 0.0, atol=1e-12)
    Z = pca.transform(np.array([[2.0], [10.0]]))
    np.testing.assert_allclose(Z[:, 1:], 0.0, atol=1e-12)
    np.testing.assert_allclose(np.abs(Z[:, 0]), [0.0, 8.0], atol=1e-12)


def test_in_a_pipeline_and_cloned():
    X, y = string_data(40)
    model = make_pipeline(KernelPCA(Normalize(Spectrum(k=2)), n_components=3), SVC())
    model.fit(X, y)
    assert model.predict(X[:5]).shape == (5,)
    twin = clone(model)
    assert twin.steps[0][1].kernel.kernel.k == 2


@pytest.mark.parametrize(
    "bad, match",
    [
        (0, "n_components must be >= 1"),
        (2.5, "n_components must be an integer"),
        (31, "exceeds the number of training objects"),
    ],
)
def test_bad_n_components(bad, match):
    X, _ = blobs(30)
    with pytest.raises(ValueError, match=match):
        KernelPCA(Linear(), n_components=bad).fit(X)


def test_test_gram_with_wrong_columns():
    K = rbf_gram(blobs(20)[0])
    pca = KernelPCA(n_components=2).fit(K)
    with pytest.raises(ValueError, match="20 training objects"):
        pca.transform(K[:, :5])
