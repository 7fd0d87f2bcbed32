"""Feature-space geometry helpers against explicit feature maps."""

import numpy as np
import pytest
from learners_util import string_data, string_kernel

from structk import Gaussian, Linear
from structk.feature_space import distance_to_barycentre, feature_distance, rkhs_norm


def test_linear_kernel_distances_are_euclidean():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    np.testing.assert_allclose(
        feature_distance(Linear(), X, Y),
        np.linalg.norm(X[:, None] - Y[None], axis=-1),
        atol=1e-10,
    )
    D = feature_distance(Linear(), X)
    np.testing.assert_allclose(D, np.linalg.norm(X[:, None] - X[None], axis=-1), atol=1e-7)
    assert (np.diag(D) == 0).all()


def test_gaussian_distance_formula():
    X = np.array([[0.0], [1.0]])
    d = feature_distance(Gaussian(sigma=1.0), X)[0, 1]
    assert d == pytest.approx(np.sqrt(2 - 2 * Gaussian(sigma=1.0)(X)[0, 1]))


def test_distance_to_barycentre_against_explicit_mean():
    rng = np.random.default_rng(1)
    X, S = rng.normal(size=(5, 3)), rng.normal(size=(7, 3))
    np.testing.assert_allclose(
        distance_to_barycentre(Linear(), X, S), np.linalg.norm(X - S.mean(0), axis=1), atol=1e-9
    )
    w = rng.random(7)
    np.testing.assert_allclose(
        distance_to_barycentre(Linear(), X, S, weights=w),
        np.linalg.norm(X - w @ S, axis=1),
        atol=1e-9,
    )
    with pytest.raises(ValueError, match="one entry per object of S"):
        distance_to_barycentre(Linear(), X, S, weights=w[:3])


def test_strings_barycentre_of_itself_is_near():
    X, _ = string_data(10)
    d = distance_to_barycentre(string_kernel(), X, X)
    assert d.shape == (10,) and (d >= 0).all()


def test_rkhs_norm():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(6, 3))
    a = rng.normal(size=6)
    K = Linear()(X)
    assert rkhs_norm(a, K) == pytest.approx(np.linalg.norm(a @ X))
    assert rkhs_norm(a, K, squared=True) == pytest.approx(np.linalg.norm(a @ X) ** 2)
    A = rng.normal(size=(2, 6))
    np.testing.assert_allclose(rkhs_norm(A, K), np.linalg.norm(A @ X, axis=1))
    with pytest.raises(ValueError, match="to match 6 coefficients"):
        rkhs_norm(a, K[:5, :5])
