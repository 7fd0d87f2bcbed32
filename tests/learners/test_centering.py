"""KernelCenterer and NearestClassMean against scikit-learn."""

import numpy as np
import pytest
from learners_util import blobs, rbf_gram, string_data, string_kernel
from sklearn.neighbors import NearestCentroid
from sklearn.preprocessing import KernelCenterer as SkKernelCenterer

from structk import Gaussian, Linear
from structk.learners import KernelCenterer, NearestClassMean


def test_centerer_matches_sklearn_on_precomputed():
    X, _ = blobs(40, seed=0)
    Xt, _ = blobs(15, seed=1)
    K, Kt = rbf_gram(X), rbf_gram(Xt, X)
    ours, ref = KernelCenterer().fit(K), SkKernelCenterer().fit(K)
    np.testing.assert_allclose(ours.transform(K), ref.transform(K), atol=1e-12)
    np.testing.assert_allclose(ours.transform(Kt), ref.transform(Kt), atol=1e-12)
    np.testing.assert_allclose(KernelCenterer().fit_transform(K), ref.transform(K), atol=1e-12)


def test_centerer_is_centring_of_explicit_features():
    X, _ = blobs(30, seed=2)
    Xt, _ = blobs(10, seed=3)
    mean = X.mean(axis=0)
    c = KernelCenterer(kernel=Linear()).fit(X)
    np.testing.assert_allclose(c.transform(Xt), (Xt - mean) @ (X - mean).T, atol=1e-10)
    np.testing.assert_allclose(
        KernelCenterer(kernel=Linear()).fit_transform(X), (X - mean) @ (X - mean).T, atol=1e-10
    )


def test_centerer_on_strings():
    X, _ = string_data(20)
    H = KernelCenterer(kernel=string_kernel()).fit_transform(X)
    np.testing.assert_allclose(H.sum(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(H, H.T)


@pytest.mark.parametrize("n_classes", [2, 4])
def test_nearest_class_mean_matches_nearest_centroid(n_classes):
    X, y = blobs(90, n_classes=n_classes, noise=2.5, seed=n_classes)
    Xt, _ = blobs(40, n_classes=n_classes, noise=2.5, seed=10)
    ours = NearestClassMean(kernel=Linear()).fit(X, y)
    ref = NearestCentroid().fit(X, y)
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Xt))
    centroids = np.array([X[y == c].mean(axis=0) for c in ours.classes_])
    d2 = ((Xt[:, None, :] - centroids[None]) ** 2).sum(-1)
    np.testing.assert_allclose(ours.distances(Xt), d2, atol=1e-9)
    expected = d2[:, 0] - d2[:, 1] if n_classes == 2 else -d2
    np.testing.assert_allclose(ours.decision_function(Xt), expected, atol=1e-9)
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Xt))


def test_nearest_class_mean_precomputed_with_and_without_diag():
    X, y = blobs(50, n_classes=3, seed=5)
    Xt, _ = blobs(20, n_classes=3, seed=6)
    k = Gaussian(sigma=1.5)
    obj = NearestClassMean(kernel=k).fit(X, y)
    pre = NearestClassMean().fit(k(X), y)
    np.testing.assert_array_equal(obj.predict(Xt), pre.predict(k(Xt, X)))
    np.testing.assert_allclose(
        pre.distances(k(Xt, X), test_diag=k.diag(Xt)), obj.distances(Xt), atol=1e-12
    )
    # without k(x, x) only a per-row constant is missing
    diff = obj.distances(Xt) - pre.distances(k(Xt, X))
    np.testing.assert_allclose(diff, np.broadcast_to(diff[:, :1], diff.shape), atol=1e-12)


def test_nearest_class_mean_on_strings():
    X, y = string_data(30)
    model = NearestClassMean(kernel=string_kernel()).fit(X, y)
    assert model.score(X, y) > 0.7
